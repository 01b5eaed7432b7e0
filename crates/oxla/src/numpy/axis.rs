//! [`Axis`]: the one axis argument of the numpy functions and of [`Tensor`]'s methods: an
//! axis, several, or none, with `keepdims` for reductions.
//!
//! [`Tensor`]: crate::Tensor

use super::ops::Dim;
use super::shape::axis;

/// Which axes.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Axes {
    /// numpy's `axis=None`.
    All,
    /// One axis.
    One(isize),
    /// Several axes.
    Many(Vec<isize>),
}

/// The axis argument of a numpy function, as numpy's `axis=`: `None`, an axis or several
/// (negative axes count from the end), and for reductions whether the reduced axes stay as
/// size 1 (`keepdims=True`, see [`keepdims`]).
///
/// It converts from `None` (an `Option<isize>`), an integer, an array, slice, `Vec` or
/// tuple of integers, so every function reads as in JAX; what `None` means is each
/// function's own, as in JAX (all axes for `sum`, the flattened array for `argmax`, `sort`,
/// `cumsum` and `roll`, the reversed axes for `transpose`, every size-1 axis for `squeeze`).
///
/// ```
/// use oxla::numpy as jnp;
/// let x = jnp::arange(6.0).reshape(&[2, 3]);
/// assert_eq!(jnp::sum(&x, None).shape(), &[] as &[usize]);
/// assert_eq!(jnp::sum(&x, -1).shape(), &[2]);
/// assert_eq!(jnp::sum(&x, [0, 1]).shape(), &[] as &[usize]);
/// assert_eq!(jnp::sum(&x, (0, 1)).shape(), &[] as &[usize]);
/// assert_eq!(jnp::max(&x, jnp::keepdims(1)).shape(), &[2, 1]);
/// assert_eq!(jnp::sort(&x, None).shape(), &[6]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axis {
    axes: Axes,
    keepdims: bool,
}

/// `axis` with the reduced axes kept as size-1 dimensions, as numpy's `keepdims=True`:
/// `jnp::max(&x, jnp::keepdims(-1))` is `jnp.max(x, axis=-1, keepdims=True)`. Only the
/// reductions (`sum`, `max`, `argmax`, `linalg::norm`, ...) accept it.
pub fn keepdims(axis: impl Into<Axis>) -> Axis {
    Axis {
        keepdims: true,
        ..axis.into()
    }
}

impl From<Option<isize>> for Axis {
    fn from(a: Option<isize>) -> Axis {
        Axis {
            axes: a.map_or(Axes::All, Axes::One),
            keepdims: false,
        }
    }
}

impl<D: Dim> From<D> for Axis {
    fn from(a: D) -> Axis {
        Axis::of(Axes::One(a.as_isize()))
    }
}

impl<D: Dim> From<&[D]> for Axis {
    fn from(a: &[D]) -> Axis {
        Axis::of(Axes::Many(a.iter().map(|d| d.as_isize()).collect()))
    }
}

impl<D: Dim, const N: usize> From<[D; N]> for Axis {
    fn from(a: [D; N]) -> Axis {
        Axis::from(&a[..])
    }
}

impl<D: Dim, const N: usize> From<&[D; N]> for Axis {
    fn from(a: &[D; N]) -> Axis {
        Axis::from(&a[..])
    }
}

impl<D: Dim> From<Vec<D>> for Axis {
    fn from(a: Vec<D>) -> Axis {
        Axis::from(&a[..])
    }
}

impl<D: Dim> From<&Vec<D>> for Axis {
    fn from(a: &Vec<D>) -> Axis {
        Axis::from(&a[..])
    }
}

impl<A: Dim, B: Dim> From<(A, B)> for Axis {
    fn from((a, b): (A, B)) -> Axis {
        Axis::of(Axes::Many(vec![a.as_isize(), b.as_isize()]))
    }
}

impl<A: Dim, B: Dim, C: Dim> From<(A, B, C)> for Axis {
    fn from((a, b, c): (A, B, C)) -> Axis {
        Axis::of(Axes::Many(vec![a.as_isize(), b.as_isize(), c.as_isize()]))
    }
}

impl Axis {
    fn of(axes: Axes) -> Axis {
        Axis {
            axes,
            keepdims: false,
        }
    }

    /// Whether the reduced axes stay as size 1 ([`keepdims`]).
    pub(crate) fn keeps_dims(&self) -> bool {
        self.keepdims
    }

    /// The axes as numpy wrote them: `None` for all.
    fn written(&self) -> Option<Vec<isize>> {
        match &self.axes {
            Axes::All => None,
            Axes::One(a) => Some(vec![*a]),
            Axes::Many(v) => Some(v.clone()),
        }
    }

    /// The axes of a rank-`ndim` array, sorted (`None`: all of them); panics at the
    /// caller's line, naming the numpy function `what`, on an axis out of range or repeated.
    #[track_caller]
    pub(crate) fn resolve(&self, ndim: usize, what: &str) -> Vec<usize> {
        let mut v: Vec<usize> = Vec::new();
        match self.written() {
            None => v.extend(0..ndim),
            // A loop, not a closure, so that `axis` sees the caller's line.
            Some(a) => {
                for d in a {
                    v.push(axis(d, ndim, what));
                }
            }
        }
        v.sort_unstable();
        let n = v.len();
        v.dedup();
        if v.len() != n {
            panic!(
                "{what}: repeated axis in {:?}\n  at {}",
                self.written(),
                std::panic::Location::caller()
            );
        }
        v
    }

    /// The axes of a rank-`ndim` array in the order written (`None`: all of them); panics
    /// as [`Axis::resolve`] does.
    #[track_caller]
    pub(crate) fn resolve_ordered(&self, ndim: usize, what: &str) -> Vec<usize> {
        let sorted = self.resolve(ndim, what);
        match self.written() {
            None => sorted,
            Some(a) => a
                .iter()
                .map(|&d| d.rem_euclid(ndim.max(1) as isize) as usize)
                .collect(),
        }
    }

    /// The axes as written (`None`: none given), for a function that takes no `keepdims`.
    #[track_caller]
    pub(crate) fn list(&self, what: &str) -> Option<Vec<isize>> {
        self.no_keepdims(what);
        self.written()
    }

    /// A single axis of a rank-`ndim` array, or `None` for numpy's `axis=None`; panics at
    /// the caller's line if several are given (JAX's functions of one axis take an int).
    #[track_caller]
    pub(crate) fn single(&self, ndim: usize, what: &str) -> Option<usize> {
        match &self.axes {
            Axes::All => None,
            Axes::One(a) => Some(axis(*a, ndim, what)),
            Axes::Many(v) => panic!(
                "{what}: takes a single axis (an integer) or None, got the axes {v:?}\n  at {}",
                std::panic::Location::caller()
            ),
        }
    }

    /// Panics at the caller's line if `keepdims` was asked of `what`, which reduces nothing.
    #[track_caller]
    pub(crate) fn no_keepdims(&self, what: &str) {
        if self.keepdims {
            panic!(
                "{what}: keepdims applies to reductions only\n  at {}",
                std::panic::Location::caller()
            );
        }
    }
}
