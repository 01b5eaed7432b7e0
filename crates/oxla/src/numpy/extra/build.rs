//! Building arrays: `geomspace` and `logspace` (over a linspace of tensors, as JAX computes
//! it), `fromfunction`, `cross` and `block`.

use super::super::ufuncs::promote_inexact;
use super::super::{
    concatenate, log10, moveaxis, multiply, power, scalar_tensor, sign, stack, subtract, Operand,
};
use crate::array::DType;
use crate::core::Tensor;
use crate::ops as lax;

/// `num` points from `start` to `stop` (tensors of one float dtype and broadcastable
/// shapes) along the new axis `axis`, as JAX's `linspace`: `start * (1 - t) + stop * t`,
/// the endpoint `stop` itself when included.
#[track_caller]
fn linspace_along(
    what: &str,
    start: &Tensor,
    stop: &Tensor,
    num: usize,
    endpoint: bool,
    axis: isize,
) -> Tensor {
    let t = super::super::broadcast_arrays(&[start.clone(), stop.clone()]);
    let (start, stop) = (&t[0], &t[1]);
    let dtype = start.dtype();
    let mut bounds = start.shape().to_vec();
    let rank = bounds.len() as isize + 1;
    if !(-rank..rank).contains(&axis) {
        panic!(
            "{what}: axis {axis} is out of bounds for a result of rank {rank}\n  at {}",
            std::panic::Location::caller()
        );
    }
    let ax = if axis < 0 { axis + rank } else { axis } as usize;
    bounds.insert(ax, 1);
    if num == 0 {
        bounds[ax] = 0;
        return lax::broadcast_in_dim(&scalar_tensor(0.0, dtype), &bounds, &[]);
    }
    let (s, e) = (lax::reshape(start, &bounds), lax::reshape(stop, &bounds));
    if num == 1 {
        return s;
    }
    let div = if endpoint { num - 1 } else { num };
    let mut iota_shape = vec![1; bounds.len()];
    iota_shape[ax] = div;
    let step = lax::reshape(&lax::iota(dtype, &[div], 0), &iota_shape);
    let step = lax::div(&step, &scalar_tensor(div as f64, dtype));
    let one_minus = lax::sub(&scalar_tensor(1.0, dtype), &step);
    let out = super::super::add(multiply(&s, one_minus), multiply(&e, &step));
    if endpoint {
        concatenate(&[out, e], ax as isize)
    } else {
        out
    }
}

/// `num` points evenly spaced in the exponent: `base ** linspace(start, stop)` (with `stop`
/// itself unless `endpoint` is false), along the new axis `axis`; `start` and `stop` may be
/// arrays, broadcast together. The dtype is their promoted float dtype.
#[track_caller]
pub fn logspace(
    start: impl Into<Operand>,
    stop: impl Into<Operand>,
    num: usize,
    endpoint: bool,
    base: f64,
    axis: isize,
) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_inexact("logspace", &[start.into(), stop.into()]);
    let lin = linspace_along("logspace", &t[0], &t[1], num, endpoint, axis);
    power(base, lin)
}

/// `num` points evenly spaced on a log scale from `start` to `stop` (a geometric
/// progression; with `stop` unless `endpoint` is false), along the new axis `axis`, as
/// `jnp.geomspace` computes it: `sign(start) * 10 ** linspace(log10(start / sign), log10(stop
/// / sign))`.
#[track_caller]
pub fn geomspace(
    start: impl Into<Operand>,
    stop: impl Into<Operand>,
    num: usize,
    endpoint: bool,
    axis: isize,
) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_inexact("geomspace", &[start.into(), stop.into()]);
    let s = sign(&t[0]);
    let lo = log10(super::super::divide(&t[0], &s));
    let hi = log10(super::super::divide(&t[1], &s));
    let lin = linspace_along("geomspace", &lo, &hi, num, endpoint, 0);
    let res = multiply(&s, power(10.0, lin));
    if axis == 0 {
        res
    } else {
        moveaxis(res, 0, axis)
    }
}

/// `f` of the index arrays of an array of `shape` (one per dimension, each of `dtype`,
/// broadcast to `shape`), as numpy's `fromfunction` calls it. JAX maps `f` over every index
/// instead (`vmap`); for an elementwise `f`, as `fromfunction` is meant for, the two agree.
///
/// ```
/// use oxla::numpy as jnp;
/// use oxla::DType;
/// let x = jnp::fromfunction(|i| jnp::add(jnp::multiply(&i[0], 10.0), &i[1]), &[2, 3], DType::F32);
/// assert_eq!(x.to_vec::<f32>(), vec![0.0, 1.0, 2.0, 10.0, 11.0, 12.0]);
/// ```
#[track_caller]
pub fn fromfunction(f: impl FnOnce(&[Tensor]) -> Tensor, shape: &[usize], dtype: DType) -> Tensor {
    let _line = crate::core::user_line();
    let grids: Vec<Tensor> = (0..shape.len())
        .map(|d| lax::iota(dtype, shape, d))
        .collect();
    f(&grids)
}

/// The cross product of 3-vectors (or 2-vectors, read with a zero third component) along
/// axes `axisa` of `a` and `axisb` of `b`, placed along `axisc`; `axis`, when given, is all
/// three. Two 2-vectors give the scalar `a0 b1 - a1 b0`. Panics at the caller's line when a
/// vector axis is not of size 2 or 3.
#[track_caller]
pub fn cross(
    a: impl Into<Operand>,
    b: impl Into<Operand>,
    axisa: isize,
    axisb: isize,
    axisc: isize,
    axis: Option<isize>,
) -> Tensor {
    let _line = crate::core::user_line();
    let (axisa, axisb, axisc) = axis.map_or((axisa, axisb, axisc), |x| (x, x, x));
    let a = moveaxis(a.into().into_tensor(), axisa, -1);
    let b = moveaxis(b.into().into_tensor(), axisb, -1);
    let (na, nb) = (a.shape().last().copied(), b.shape().last().copied());
    if !matches!(na, Some(2 | 3)) || !matches!(nb, Some(2 | 3)) {
        panic!(
            "cross: the vector axes must have size 2 or 3, got {} and {}\n  at {}",
            a.aval(),
            b.aval(),
            std::panic::Location::caller()
        );
    }
    let part = |x: &Tensor, i: isize| lax::index_in_dim(x, i, x.ndim() - 1, false);
    let (a0, a1, b0, b1) = (part(&a, 0), part(&a, 1), part(&b, 0), part(&b, 1));
    let term =
        |x: &Tensor, y: &Tensor, u: &Tensor, v: &Tensor| subtract(multiply(x, y), multiply(u, v));
    if na == Some(2) && nb == Some(2) {
        return term(&a0, &b1, &a1, &b0);
    }
    let third = |x: &Tensor, n: Option<usize>, x0: &Tensor| {
        if n == Some(3) {
            part(x, 2)
        } else {
            super::super::zeros_like(x0)
        }
    };
    let (a2, b2) = (third(&a, na, &a0), third(&b, nb, &b0));
    let parts = [
        term(&a1, &b2, &a2, &b1),
        term(&a2, &b0, &a0, &b2),
        term(&a0, &b1, &a1, &b0),
    ];
    let c = stack(&super::super::broadcast_arrays(&parts), 0);
    moveaxis(c, 0, axisc)
}

/// The nested lists of arrays that [`block`] assembles: an array, or a list of blocks (all
/// of one nesting depth). It converts from a tensor and from a `Vec` of anything that
/// converts, so `vec![vec![&a, &b], vec![&c, &d]]` is a 2-by-2 block.
#[derive(Clone, Debug)]
pub enum Block {
    /// One array.
    Array(Tensor),
    /// A list of blocks, joined along the axis its depth names.
    List(Vec<Block>),
}

impl From<Tensor> for Block {
    fn from(t: Tensor) -> Block {
        Block::Array(t)
    }
}

impl From<&Tensor> for Block {
    fn from(t: &Tensor) -> Block {
        Block::Array(t.clone())
    }
}

impl<T: Into<Block>> From<Vec<T>> for Block {
    fn from(v: Vec<T>) -> Block {
        Block::List(v.into_iter().map(Into::into).collect())
    }
}

/// An array assembled from nested lists of arrays, as `jnp.block`: the innermost lists join
/// along the last axis, the next ones along the axis before it, and so on; arrays of lower
/// rank gain leading size-1 axes first. Panics at the caller's line for an empty list or
/// lists of mismatched depths.
///
/// ```
/// use oxla::numpy as jnp;
/// let (a, b) = (jnp::ones(&[2, 2]), jnp::zeros(&[2, 1]));
/// assert_eq!(jnp::block(vec![vec![&a, &b], vec![&b.t(), &jnp::ones(&[1, 1])]]).shape(), &[3, 3]);
/// ```
#[track_caller]
pub fn block(arrays: impl Into<Block>) -> Tensor {
    let _line = crate::core::user_line();
    assemble(arrays.into()).0
}

/// A block's array and its list depth (an array alone has depth 1).
#[track_caller]
fn assemble(b: Block) -> (Tensor, usize) {
    let items = match b {
        Block::Array(t) => return (t, 1),
        Block::List(items) => items,
    };
    if items.is_empty() {
        panic!(
            "block: empty lists are not allowed\n  at {}",
            std::panic::Location::caller()
        );
    }
    let mut parts = Vec::with_capacity(items.len());
    for item in items {
        parts.push(assemble(item));
    }
    let depth = parts[0].1;
    if parts.iter().any(|p| p.1 != depth) {
        panic!(
            "block: mismatched list depths\n  at {}",
            std::panic::Location::caller()
        );
    }
    let rank = parts
        .iter()
        .map(|p| p.0.ndim())
        .max()
        .unwrap_or(0)
        .max(depth);
    let xs: Vec<Tensor> = parts
        .into_iter()
        .map(|(t, _)| {
            let mut shape = vec![1; rank - t.ndim()];
            shape.extend_from_slice(t.shape());
            lax::reshape(&t, &shape)
        })
        .collect();
    (concatenate(&xs, -(depth as isize)), depth + 1)
}
