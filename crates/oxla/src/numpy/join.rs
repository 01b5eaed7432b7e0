//! Joining and splitting: `split`, `array_split`, `hsplit`, `vsplit`, `dsplit`, `vstack`,
//! `hstack`, `dstack`, `column_stack`, `append`, and `meshgrid`, `diff`.

use super::ops::Dim;
use super::rearrange::{atleast_1d, atleast_2d, atleast_3d};
use super::shape::axis as resolve;
use super::{broadcast_to, concatenate, ravel, Axis, Operand};
use crate::array::DType;
use crate::core::Tensor;
use crate::ops as lax;

/// Where [`split`] cuts: into `n` equal sections, or at the given indices along the axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SplitAt {
    /// `n` sections (equal for `split`; the first ones one longer for `array_split`).
    Sections(usize),
    /// Cuts before these indices (non-decreasing, at most the axis's size).
    Indices(Vec<usize>),
}

impl<D: Dim> From<D> for SplitAt {
    fn from(n: D) -> SplitAt {
        SplitAt::Sections(n.as_isize().max(0) as usize)
    }
}

impl From<&[usize]> for SplitAt {
    fn from(v: &[usize]) -> SplitAt {
        SplitAt::Indices(v.to_vec())
    }
}

impl From<Vec<usize>> for SplitAt {
    fn from(v: Vec<usize>) -> SplitAt {
        SplitAt::Indices(v)
    }
}

impl<const N: usize> From<[usize; N]> for SplitAt {
    fn from(v: [usize; N]) -> SplitAt {
        SplitAt::Indices(v.to_vec())
    }
}

/// The parts of `a` between consecutive `cuts` along axis `ax`.
fn parts(a: &Tensor, ax: usize, cuts: &[usize]) -> Vec<Tensor> {
    cuts.windows(2)
        .map(|w| {
            let mut start = vec![0; a.ndim()];
            let mut limit = a.shape().to_vec();
            start[ax] = w[0];
            limit[ax] = w[1];
            lax::slice(a, &start, &limit, None)
        })
        .collect()
}

#[track_caller]
fn split_in(what: &str, a: Tensor, at: SplitAt, axis: isize, equal: bool) -> Vec<Tensor> {
    let ax = resolve(axis, a.ndim(), what);
    let n = a.shape()[ax];
    let cuts: Vec<usize> = match at {
        SplitAt::Sections(k) => {
            if k == 0 || (equal && !n.is_multiple_of(k)) {
                panic!(
                    "{what}: an axis of size {n} does not split into {k} equal sections\n  at {}",
                    std::panic::Location::caller()
                );
            }
            let (q, r) = (n / k, n % k);
            (0..=k).map(|i| i * q + i.min(r)).collect()
        }
        SplitAt::Indices(v) => {
            let cuts = [vec![0], v, vec![n]].concat();
            if cuts.windows(2).any(|w| w[0] > w[1]) {
                panic!(
                    "{what}: the indices {:?} must be non-decreasing and at most the axis's \
                     size {n}\n  at {}",
                    &cuts[1..cuts.len() - 1],
                    std::panic::Location::caller()
                );
            }
            cuts
        }
    };
    parts(&a, ax, &cuts)
}

/// `a` split along `axis` into equal sections or at indices, as `jnp.split`.
///
/// ```
/// use oxla::numpy as jnp;
/// let x = jnp::arange(6);
/// let p = jnp::split(&x, [2, 5], 0);
/// assert_eq!(p.iter().map(|t| t.size()).collect::<Vec<_>>(), vec![2, 3, 1]);
/// ```
#[track_caller]
pub fn split(a: impl Into<Operand>, at: impl Into<SplitAt>, axis: isize) -> Vec<Tensor> {
    let _line = crate::core::user_line();
    split_in("split", a.into().into_tensor(), at.into(), axis, true)
}

/// As [`split`], but `n` sections need not be equal: the first `size % n` are one longer.
#[track_caller]
pub fn array_split(a: impl Into<Operand>, at: impl Into<SplitAt>, axis: isize) -> Vec<Tensor> {
    let _line = crate::core::user_line();
    split_in(
        "array_split",
        a.into().into_tensor(),
        at.into(),
        axis,
        false,
    )
}

/// [`split`] along axis 1 (axis 0 for rank 1).
#[track_caller]
pub fn hsplit(a: impl Into<Operand>, at: impl Into<SplitAt>) -> Vec<Tensor> {
    let _line = crate::core::user_line();
    let a = a.into().into_tensor();
    let axis = if a.ndim() == 1 { 0 } else { 1 };
    split_in("hsplit", a, at.into(), axis, true)
}

/// [`split`] along axis 0; `a` must have rank 2 or more.
#[track_caller]
pub fn vsplit(a: impl Into<Operand>, at: impl Into<SplitAt>) -> Vec<Tensor> {
    let _line = crate::core::user_line();
    let a = a.into().into_tensor();
    if a.ndim() < 2 {
        panic!(
            "vsplit: needs an array of rank 2 or more, got shape {:?}\n  at {}",
            a.shape(),
            std::panic::Location::caller()
        );
    }
    split_in("vsplit", a, at.into(), 0, true)
}

/// [`split`] along axis 2; `a` must have rank 3 or more.
#[track_caller]
pub fn dsplit(a: impl Into<Operand>, at: impl Into<SplitAt>) -> Vec<Tensor> {
    let _line = crate::core::user_line();
    let a = a.into().into_tensor();
    if a.ndim() < 3 {
        panic!(
            "dsplit: needs an array of rank 3 or more, got shape {:?}\n  at {}",
            a.shape(),
            std::panic::Location::caller()
        );
    }
    split_in("dsplit", a, at.into(), 2, true)
}

/// The arrays as rank ≥ 2 (`[n]` becomes `[1, n]`) joined along axis 0.
#[track_caller]
pub fn vstack(xs: &[Tensor]) -> Tensor {
    let _line = crate::core::user_line();
    let ts: Vec<Tensor> = xs.iter().map(atleast_2d).collect();
    concatenate(&ts, 0)
}

/// The arrays as rank ≥ 1 joined along axis 1 (axis 0 if they are vectors).
#[track_caller]
pub fn hstack(xs: &[Tensor]) -> Tensor {
    let _line = crate::core::user_line();
    let ts: Vec<Tensor> = xs.iter().map(atleast_1d).collect();
    let axis = if ts.first().is_some_and(|t| t.ndim() == 1) {
        0
    } else {
        1
    };
    concatenate(&ts, axis)
}

/// The arrays as rank ≥ 3 (`[n]` becomes `[1, n, 1]`, `[m, n]` `[m, n, 1]`) joined along
/// axis 2.
#[track_caller]
pub fn dstack(xs: &[Tensor]) -> Tensor {
    let _line = crate::core::user_line();
    let ts: Vec<Tensor> = xs.iter().map(atleast_3d).collect();
    concatenate(&ts, 2)
}

/// Vectors as columns (`[n]` becomes `[n, 1]`), other arrays as rank ≥ 2, joined along
/// axis 1.
#[track_caller]
pub fn column_stack(xs: &[Tensor]) -> Tensor {
    let _line = crate::core::user_line();
    let ts: Vec<Tensor> = xs
        .iter()
        .map(|t| {
            if t.ndim() == 1 {
                lax::reshape(t, &[t.shape()[0], 1])
            } else {
                atleast_2d(t)
            }
        })
        .collect();
    concatenate(&ts, 1)
}

/// `values` appended to `arr` along `axis` (`None`: both flattened), promoting dtypes.
#[track_caller]
pub fn append(
    arr: impl Into<Operand>,
    values: impl Into<Operand>,
    axis: impl Into<Axis>,
) -> Tensor {
    let _line = crate::core::user_line();
    let (a, v) = (arr.into(), values.into());
    let dtype = super::result_type(&[a.clone(), v.clone()]);
    let (a, v) = (
        a.to_tensor_in("append", dtype),
        v.to_tensor_in("append", dtype),
    );
    let axis = axis.into();
    axis.no_keepdims("append");
    match axis.single(a.ndim(), "append") {
        None => concatenate(&[ravel(&a), ravel(&v)], 0),
        Some(d) => concatenate(&[a, v], d as isize),
    }
}

/// How [`meshgrid`] lays out its outputs: `Xy` (cartesian, numpy's default: the first two
/// dimensions swapped) or `Ij` (matrix).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Indexing {
    /// `indexing="xy"`.
    Xy,
    /// `indexing="ij"`.
    Ij,
}

/// Coordinate arrays from the vectors `xs`, as `jnp.meshgrid`; `sparse` keeps size-1
/// dimensions instead of broadcasting.
///
/// ```
/// use oxla::numpy::{self as jnp, Indexing};
/// let g = jnp::meshgrid(&[jnp::zeros(&[2]), jnp::zeros(&[3])], Indexing::Xy, false);
/// assert_eq!(g[0].shape(), &[3, 2]);
/// ```
#[track_caller]
pub fn meshgrid(xs: &[Tensor], indexing: Indexing, sparse: bool) -> Vec<Tensor> {
    let _line = crate::core::user_line();
    if let Some(x) = xs.iter().find(|x| x.ndim() != 1) {
        panic!(
            "meshgrid: the arrays must be vectors, got shape {:?}\n  at {}",
            x.shape(),
            std::panic::Location::caller()
        );
    }
    let n = xs.len();
    let mut sizes: Vec<usize> = xs.iter().map(|t| t.shape()[0]).collect();
    let mut place: Vec<usize> = (0..n).collect();
    if indexing == Indexing::Xy && n >= 2 {
        sizes.swap(0, 1);
        place.swap(0, 1);
    }
    xs.iter()
        .enumerate()
        .map(|(i, t)| {
            let d = place[i];
            let shape: Vec<usize> = if sparse {
                (0..n).map(|k| if k == d { sizes[k] } else { 1 }).collect()
            } else {
                sizes.clone()
            };
            lax::broadcast_in_dim(t, &shape, &[d])
        })
        .collect()
}

/// The `n`-th discrete difference along `axis`, `out[i] = a[i + 1] - a[i]` applied `n`
/// times (`!=` for bools), after joining `prepend` and `append` (scalars broadcast to one
/// slice along `axis`), as `jnp.diff`.
#[track_caller]
pub fn diff(
    a: impl Into<Operand>,
    n: usize,
    axis: isize,
    prepend: Option<Operand>,
    append: Option<Operand>,
) -> Tensor {
    let _line = crate::core::user_line();
    let a = a.into().into_tensor();
    if a.ndim() == 0 {
        panic!(
            "diff: needs an array of rank 1 or more, got a scalar\n  at {}",
            std::panic::Location::caller()
        );
    }
    let ax = resolve(axis, a.ndim(), "diff");
    let mut one = a.shape().to_vec();
    one[ax] = 1;
    let ops: Vec<Operand> = [prepend, Some(Operand::Tensor(a.clone())), append]
        .into_iter()
        .flatten()
        .collect();
    let dtype = super::result_type(&ops);
    let mut joined = Vec::new();
    for o in &ops {
        let t = o.to_tensor_in("diff", dtype);
        joined.push(if t.ndim() == 0 {
            broadcast_to(t, &one)
        } else {
            t
        });
    }
    let mut x = if joined.len() == 1 {
        joined.remove(0)
    } else {
        concatenate(&joined, ax as isize)
    };
    for _ in 0..n {
        let m = x.shape()[ax];
        if m == 0 {
            break;
        }
        let (mut lo, mut hi) = (vec![0; x.ndim()], x.shape().to_vec());
        lo[ax] = 1;
        let tail = lax::slice(&x, &lo, &hi, None);
        lo[ax] = 0;
        hi[ax] = m - 1;
        let head = lax::slice(&x, &lo, &hi, None);
        x = if x.dtype() == DType::Bool {
            lax::ne(&tail, &head)
        } else {
            lax::sub(&tail, &head)
        };
    }
    x
}
