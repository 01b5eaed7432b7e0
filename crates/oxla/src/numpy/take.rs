//! `take` and `take_along_axis`: one `gather` each, out-of-bounds indices handled by a
//! [`TakeMode`].

use super::{astype, ravel, scalar_tensor, Axis, Operand};
use crate::array::DType;
use crate::core::Tensor;
use crate::ops as lax;
use crate::prims::{GatherDims, GatherMode};

/// Out-of-bounds behaviour of [`take`] and [`take_along_axis`], as JAX's `mode` (with
/// `None` meaning `Fill`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TakeMode {
    /// `"fill"`: negative indices in `[-n, 0)` count from the end; others out of bounds
    /// give the dtype's invalid value (NaN, the smallest signed or largest unsigned
    /// integer, `true`). The default.
    Fill,
    /// `"fill"` with `fill_value`: as `Fill`, giving this value out of bounds.
    FillWith(f64),
    /// `"clip"`: indices clamped into `[0, n)` (negative ones to 0, not counted from the
    /// end).
    Clip,
    /// `"wrap"`: indices taken modulo `n` (`take` only).
    Wrap,
}

/// Integer indices as `i32` (JAX's indexing dtype), panicking on other dtypes.
#[track_caller]
fn int_indices(what: &str, i: &Tensor) -> Tensor {
    match i.dtype() {
        DType::I32 => i.clone(),
        d if d.is_int() => astype(i, DType::I32),
        d => panic!(
            "{what}: indices must be integers, got {d}\n  at {}",
            std::panic::Location::caller()
        ),
    }
}

/// Indices into a dimension of size `n`, normalised as `mode` asks (`wrap_clip`: negative
/// ones count from the end under `Clip` too, as `take_along_axis` has them), with the
/// gather mode.
fn normalize(i: &Tensor, n: usize, mode: TakeMode, wrap_clip: bool) -> (Tensor, GatherMode) {
    let c = |v: f64| scalar_tensor(v, DType::I32);
    match mode {
        TakeMode::Clip if wrap_clip => {
            let neg = lax::lt(i, &c(0.0));
            let wrapped = lax::add(i, &c(n as f64));
            (lax::select_n(&neg, &[i.clone(), wrapped]), GatherMode::Clip)
        }
        TakeMode::Fill | TakeMode::FillWith(_) => {
            let neg = lax::lt(i, &c(0.0));
            let wrapped = lax::add(i, &c(n as f64));
            (
                lax::select_n(&neg, &[i.clone(), wrapped]),
                GatherMode::FillOrDrop,
            )
        }
        TakeMode::Clip => (i.clone(), GatherMode::Clip),
        TakeMode::Wrap => {
            // The floored remainder, as numpy's `mod`.
            let r = lax::rem(i, &c(n as f64));
            let fix = lax::and(&lax::ne(&r, &c(0.0)), &lax::lt(&r, &c(0.0)));
            let m = lax::select_n(&fix, &[r.clone(), lax::add(&r, &c(n as f64))]);
            (m, GatherMode::PromiseInBounds)
        }
    }
}

/// `got` with `value` where the normalised index `i` (broadcast to `got`'s shape along
/// `dims`) lies outside `[0, n)`.
fn fill_with(got: Tensor, i: &Tensor, dims: &[usize], n: usize, value: f64) -> Tensor {
    let c = |v: f64| scalar_tensor(v, DType::I32);
    let out = lax::or(&lax::lt(i, &c(0.0)), &lax::ge(i, &c(n as f64)));
    let out = lax::broadcast_in_dim(&out, got.shape(), dims);
    let fill = lax::broadcast_in_dim(&scalar_tensor(value, got.dtype()), got.shape(), &[]);
    lax::select_n(&out, &[got, fill])
}

/// Elements of `a` at `indices` along `axis` (`None`: of `a` flattened), as `jnp.take`:
/// the result has `a`'s dimensions before `axis`, then `indices`'s, then `a`'s after it.
/// `mode` `None` is [`TakeMode::Fill`].
///
/// ```
/// use oxla::numpy::{self as jnp, TakeMode};
/// let x = jnp::arange(5.0);
/// let i = jnp::array(&[7i32, -1], &[2]);
/// assert!(jnp::take(&x, &i, None, None).to_vec::<f32>()[0].is_nan());
/// assert_eq!(jnp::take(&x, &i, 0, TakeMode::Clip).to_vec::<f32>(), vec![4.0, 0.0]);
/// ```
#[track_caller]
pub fn take(
    a: impl Into<Operand>,
    indices: impl Into<Operand>,
    axis: impl Into<Axis>,
    mode: impl Into<Option<TakeMode>>,
) -> Tensor {
    let _line = crate::core::user_line();
    let a = a.into().into_tensor();
    let i = int_indices("take", &indices.into().into_tensor());
    let axis = axis.into();
    axis.no_keepdims("take");
    let (a, ax) = match axis.single(a.ndim(), "take") {
        Some(d) => (a, d),
        None => (ravel(&a), 0),
    };
    let mode = mode.into().unwrap_or(TakeMode::Fill);
    let n = a.shape()[ax];
    let mut out_shape = a.shape()[..ax].to_vec();
    out_shape.extend_from_slice(i.shape());
    out_shape.extend_from_slice(&a.shape()[ax + 1..]);
    if n == 0 || i.size() == 0 {
        if i.size() != 0 {
            panic!(
                "take: cannot take {} elements from an empty axis (shape {:?})\n  at {}",
                i.size(),
                a.shape(),
                std::panic::Location::caller()
            );
        }
        return lax::broadcast_in_dim(&scalar_tensor(0.0, a.dtype()), &out_shape, &[]);
    }
    let (j, gmode) = normalize(&i, n, mode, false);
    let k = i.ndim();
    let offset_dims: Vec<usize> = (0..ax).chain(ax + k..a.ndim() + k - 1).collect();
    let mut slice_sizes = a.shape().to_vec();
    slice_sizes[ax] = 1;
    let mut ishape = j.shape().to_vec();
    ishape.push(1);
    let idx = lax::reshape(&j, &ishape);
    let gd = GatherDims {
        offset_dims,
        collapsed_slice_dims: vec![ax],
        start_index_map: vec![ax],
        operand_batching_dims: vec![],
        start_indices_batching_dims: vec![],
    };
    let got = lax::gather(&a, &idx, gd, &slice_sizes, gmode);
    match mode {
        TakeMode::FillWith(v) => {
            let dims: Vec<usize> = (ax..ax + k).collect();
            fill_with(got, &j, &dims, n, v)
        }
        _ => got,
    }
}

/// Elements of `a` at `indices` along `axis`, as `jnp.take_along_axis`: `indices` has
/// `a`'s rank and the other dimensions broadcast (`None`: both flattened). `mode` `None` is
/// [`TakeMode::Fill`]; negative indices count from the end under `Clip` too (unlike
/// [`take`], as in JAX); [`TakeMode::Wrap`] is not JAX's and panics.
///
/// ```
/// use oxla::numpy as jnp;
/// let x = jnp::array(&[3.0f32, 1.0, 2.0, 0.0, 5.0, 4.0], &[2, 3]);
/// let i = jnp::argmax(&x, jnp::keepdims(1));
/// assert_eq!(jnp::take_along_axis(&x, &i, 1, None).to_vec::<f32>(), vec![3.0, 5.0]);
/// ```
#[track_caller]
pub fn take_along_axis(
    a: impl Into<Operand>,
    indices: impl Into<Operand>,
    axis: impl Into<Axis>,
    mode: impl Into<Option<TakeMode>>,
) -> Tensor {
    let _line = crate::core::user_line();
    let a = a.into().into_tensor();
    let i = int_indices("take_along_axis", &indices.into().into_tensor());
    let axis = axis.into();
    axis.no_keepdims("take_along_axis");
    let (a, i, ax) = match axis.single(a.ndim(), "take_along_axis") {
        Some(d) => (a, i, d),
        None => (ravel(&a), ravel(&i), 0),
    };
    let mode = mode.into().unwrap_or(TakeMode::Fill);
    if mode == TakeMode::Wrap || i.ndim() != a.ndim() {
        panic!(
            "take_along_axis: indices of shape {:?} for an array of shape {:?} (equal ranks, \
             mode fill or clip)\n  at {}",
            i.shape(),
            a.shape(),
            std::panic::Location::caller()
        );
    }
    let nd = a.ndim();
    let mut out_shape = Vec::with_capacity(nd);
    for d in 0..nd {
        let (x, y) = (a.shape()[d], i.shape()[d]);
        out_shape.push(match (d == ax, x, y) {
            (true, _, y) => y,
            (false, x, y) if x == y || y == 1 => x,
            (false, 1, y) => y,
            _ => panic!(
                "take_along_axis: indices of shape {:?} do not broadcast against an array of \
                 shape {:?}\n  at {}",
                i.shape(),
                a.shape(),
                std::panic::Location::caller()
            ),
        });
    }
    let n = a.shape()[ax];
    if out_shape.contains(&0) || n == 0 {
        if !out_shape.contains(&0) {
            panic!(
                "take_along_axis: cannot take from an empty axis (shape {:?})\n  at {}",
                a.shape(),
                std::panic::Location::caller()
            );
        }
        return lax::broadcast_in_dim(&scalar_tensor(0.0, a.dtype()), &out_shape, &[]);
    }
    let (j, gmode) = normalize(&i, n, mode, true);
    let all: Vec<usize> = (0..nd).collect();
    let bcast = |t: &Tensor| {
        let keep: Vec<usize> = (0..nd)
            .filter(|&d| t.shape()[d] != 1 || out_shape[d] == 1)
            .collect();
        let sq: Vec<usize> = (0..nd).filter(|d| !keep.contains(d)).collect();
        let t = if sq.is_empty() {
            t.clone()
        } else {
            lax::squeeze(t, &sq)
        };
        lax::broadcast_in_dim(&t, &out_shape, &keep)
    };
    let mut ishape = out_shape.clone();
    ishape.push(1);
    let cols: Vec<Tensor> = (0..nd)
        .map(|d| {
            let col = if d == ax {
                bcast(&j)
            } else if a.shape()[d] == 1 {
                lax::broadcast_in_dim(&scalar_tensor(0.0, DType::I32), &out_shape, &[])
            } else {
                lax::iota(DType::I32, &out_shape, d)
            };
            lax::broadcast_in_dim(&col, &ishape, &all)
        })
        .collect();
    let idx = lax::concatenate(&cols, nd);
    let gd = GatherDims {
        offset_dims: vec![],
        collapsed_slice_dims: all.clone(),
        start_index_map: all,
        operand_batching_dims: vec![],
        start_indices_batching_dims: vec![],
    };
    let got = lax::gather(&a, &idx, gd, &vec![1; nd], gmode);
    match mode {
        TakeMode::FillWith(v) => fill_with(got, &bcast(&j), &(0..nd).collect::<Vec<_>>(), n, v),
        _ => got,
    }
}
