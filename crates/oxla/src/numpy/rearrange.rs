//! Rearranging elements: `moveaxis`, `swapaxes`, `flip`, `fliplr`, `flipud`, `rot90`,
//! `tile`, `repeat`, `atleast_1d`, `atleast_2d`, `atleast_3d`.

use super::ops::Dim;
use super::shape::axis;
use super::take::{take, TakeMode};
use super::{array, ravel, transpose, Axis, Operand};
use crate::core::Tensor;
use crate::ops as lax;

/// `a` with the axes `source` moved to the places `destination` (as many, negative ones
/// counting from the end), the others keeping their order.
///
/// ```
/// use oxla::numpy as jnp;
/// let x = jnp::zeros(&[2, 3, 4]);
/// assert_eq!(jnp::moveaxis(&x, 0, -1).shape(), &[3, 4, 2]);
/// assert_eq!(jnp::moveaxis(&x, [0, 1], [2, 0]).shape(), &[3, 4, 2]);
/// ```
#[track_caller]
pub fn moveaxis(
    a: impl Into<Operand>,
    source: impl Into<Axis>,
    destination: impl Into<Axis>,
) -> Tensor {
    let _line = crate::core::user_line();
    let a = a.into().into_tensor();
    let n = a.ndim();
    let (src, dst) = (source.into(), destination.into());
    let (Some(s), Some(d)) = (src.list("moveaxis"), dst.list("moveaxis")) else {
        panic!(
            "moveaxis: source and destination must be axes, not None\n  at {}",
            std::panic::Location::caller()
        );
    };
    if s.len() != d.len() {
        panic!(
            "moveaxis: {} source axes for {} destinations\n  at {}",
            s.len(),
            d.len(),
            std::panic::Location::caller()
        );
    }
    let (s, d) = (
        src.resolve_ordered(n, "moveaxis"),
        dst.resolve_ordered(n, "moveaxis"),
    );
    let mut perm: Vec<usize> = (0..n).filter(|i| !s.contains(i)).collect();
    let mut pairs: Vec<(usize, usize)> = d.into_iter().zip(s).collect();
    pairs.sort_unstable();
    for (to, from) in pairs {
        perm.insert(to, from);
    }
    transpose(&a, perm)
}

/// `a` with axes `axis1` and `axis2` interchanged.
#[track_caller]
pub fn swapaxes(a: impl Into<Operand>, axis1: isize, axis2: isize) -> Tensor {
    let _line = crate::core::user_line();
    let a = a.into().into_tensor();
    let (i, j) = (
        axis(axis1, a.ndim(), "swapaxes"),
        axis(axis2, a.ndim(), "swapaxes"),
    );
    let mut perm: Vec<usize> = (0..a.ndim()).collect();
    perm.swap(i, j);
    transpose(&a, perm)
}

/// `a` with the order of elements reversed along `axis` (one, several, or `None`: all).
#[track_caller]
pub fn flip(a: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let a = a.into().into_tensor();
    let axis = axis.into();
    axis.no_keepdims("flip");
    let dims = axis.resolve(a.ndim(), "flip");
    if dims.is_empty() {
        return a;
    }
    lax::rev(&a, &dims)
}

/// `a` reversed along axis 1 (left to right); `a` must have rank 2 or more.
#[track_caller]
pub fn fliplr(a: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let a = a.into().into_tensor();
    if a.ndim() < 2 {
        panic!(
            "fliplr: needs an array of rank 2 or more, got shape {:?}\n  at {}",
            a.shape(),
            std::panic::Location::caller()
        );
    }
    lax::rev(&a, &[1])
}

/// `a` reversed along axis 0 (up to down); `a` must have rank 1 or more.
#[track_caller]
pub fn flipud(a: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let a = a.into().into_tensor();
    if a.ndim() < 1 {
        panic!(
            "flipud: needs an array of rank 1 or more, got a scalar\n  at {}",
            std::panic::Location::caller()
        );
    }
    lax::rev(&a, &[0])
}

/// `a` rotated by 90 degrees `k` times in the plane of `axes` (from the first axis
/// towards the second; numpy's default `k=1, axes=(0, 1)`).
#[track_caller]
pub fn rot90(a: impl Into<Operand>, k: isize, axes: (isize, isize)) -> Tensor {
    let _line = crate::core::user_line();
    let a = a.into().into_tensor();
    let n = a.ndim();
    if n < 2 {
        panic!(
            "rot90: needs an array of rank 2 or more, got shape {:?}\n  at {}",
            a.shape(),
            std::panic::Location::caller()
        );
    }
    let (i, j) = (axis(axes.0, n, "rot90"), axis(axes.1, n, "rot90"));
    if i == j {
        panic!(
            "rot90: the axes {axes:?} must differ\n  at {}",
            std::panic::Location::caller()
        );
    }
    let mut perm: Vec<usize> = (0..n).collect();
    perm.swap(i, j);
    match k.rem_euclid(4) {
        0 => a,
        1 => transpose(lax::rev(&a, &[j]), perm),
        2 => lax::rev(&a, &[i, j]),
        _ => lax::rev(&transpose(&a, perm), &[j]),
    }
}

/// `a` repeated `reps[d]` times along each dimension (`reps` and `a`'s shape aligned at the
/// end, the shorter padded with leading 1s), as `jnp.tile`.
#[track_caller]
pub fn tile(a: impl Into<Operand>, reps: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    let a = a.into().into_tensor();
    let r = reps.len().max(a.ndim());
    let mut shape = vec![1; r - a.ndim()];
    shape.extend_from_slice(a.shape());
    let mut reps_full = vec![1; r - reps.len()];
    reps_full.extend_from_slice(reps);
    let wide: Vec<usize> = (0..2 * r)
        .map(|d| {
            if d % 2 == 0 {
                reps_full[d / 2]
            } else {
                shape[d / 2]
            }
        })
        .collect();
    let dims: Vec<usize> = (0..r).map(|d| 2 * d + 1).collect();
    let t = lax::reshape(&a, &shape);
    let out: Vec<usize> = (0..r).map(|d| shape[d] * reps_full[d]).collect();
    lax::reshape(&lax::broadcast_in_dim(&t, &wide, &dims), &out)
}

/// The `repeats` of [`repeat`]: one count for every element, or a count per element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Repeats {
    /// Every element `n` times.
    Each(usize),
    /// Element `i` `counts[i]` times.
    PerElement(Vec<usize>),
}

impl<D: Dim> From<D> for Repeats {
    fn from(n: D) -> Repeats {
        Repeats::Each(n.as_isize().max(0) as usize)
    }
}

impl From<&[usize]> for Repeats {
    fn from(v: &[usize]) -> Repeats {
        Repeats::PerElement(v.to_vec())
    }
}

impl From<Vec<usize>> for Repeats {
    fn from(v: Vec<usize>) -> Repeats {
        Repeats::PerElement(v)
    }
}

impl<const N: usize> From<[usize; N]> for Repeats {
    fn from(v: [usize; N]) -> Repeats {
        Repeats::PerElement(v.to_vec())
    }
}

/// Each element of `a` repeated along `axis` (`None`: of `a` flattened), as `jnp.repeat`
/// with static `repeats` (one count, or one per element along the axis; a single-element
/// list counts for all).
///
/// ```
/// use oxla::numpy as jnp;
/// let x = jnp::arange(3);
/// assert_eq!(jnp::repeat(&x, 2, None).to_vec::<i32>(), vec![0, 0, 1, 1, 2, 2]);
/// assert_eq!(jnp::repeat(&x, [0, 1, 2], 0).to_vec::<i32>(), vec![1, 2, 2]);
/// ```
#[track_caller]
pub fn repeat(a: impl Into<Operand>, repeats: impl Into<Repeats>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let a = a.into().into_tensor();
    let axis = axis.into();
    axis.no_keepdims("repeat");
    let (a, ax) = match axis.single(a.ndim(), "repeat") {
        Some(d) => (a, d),
        None => (ravel(&a), 0),
    };
    let n = a.shape()[ax];
    let repeats = match repeats.into() {
        Repeats::PerElement(v) if v.len() == 1 => Repeats::Each(v[0]),
        r => r,
    };
    match repeats {
        Repeats::Each(r) => {
            let s = a.shape();
            let mut wide = s[..=ax].to_vec();
            wide.push(r);
            wide.extend_from_slice(&s[ax + 1..]);
            let dims: Vec<usize> = (0..s.len())
                .map(|d| if d <= ax { d } else { d + 1 })
                .collect();
            let mut out = s.to_vec();
            out[ax] = n * r;
            lax::reshape(&lax::broadcast_in_dim(&a, &wide, &dims), &out)
        }
        Repeats::PerElement(v) => {
            if v.len() != n {
                panic!(
                    "repeat: {} repeats for an axis of size {n} (shape {:?})\n  at {}",
                    v.len(),
                    a.shape(),
                    std::panic::Location::caller()
                );
            }
            let idx: Vec<i32> = v
                .iter()
                .enumerate()
                .flat_map(|(i, &r)| std::iter::repeat_n(i as i32, r))
                .collect();
            let m = idx.len();
            take(&a, array(&idx, &[m]), ax as isize, TakeMode::Clip)
        }
    }
}

/// `a` with leading size-1 dimensions up to rank `k`, as the `atleast_*d` functions place
/// them.
fn atleast(a: Tensor, k: usize) -> Tensor {
    let s = a.shape().to_vec();
    let shape: Vec<usize> = match (k, s.len()) {
        (_, n) if n >= k => return a,
        (3, 1) => vec![1, s[0], 1],
        (3, 2) => vec![s[0], s[1], 1],
        (_, n) => [vec![1; k - n], s].concat(),
    };
    lax::reshape(&a, &shape)
}

/// `a` as an array of rank 1 or more (a scalar becomes shape `[1]`).
#[track_caller]
pub fn atleast_1d(a: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    atleast(a.into().into_tensor(), 1)
}

/// `a` as an array of rank 2 or more (shape `[n]` becomes `[1, n]`).
#[track_caller]
pub fn atleast_2d(a: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    atleast(a.into().into_tensor(), 2)
}

/// `a` as an array of rank 3 or more (`[n]` becomes `[1, n, 1]`, `[m, n]` becomes
/// `[m, n, 1]`).
#[track_caller]
pub fn atleast_3d(a: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    atleast(a.into().into_tensor(), 3)
}
