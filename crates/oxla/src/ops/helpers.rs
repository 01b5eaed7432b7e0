//! lax's helpers built from its primitives, as JAX builds them: `clamp`,
//! `broadcasted_iota`, `full`, `full_like`, `expand_dims`, `collapse`,
//! `reduce_precision`, and the `*_in_dim` family of slices and updates along one axis.

use super::{
    bind1, broadcast_in_dim, dynamic_slice, dynamic_update_slice, gt, iota, lt, reshape, select_n,
    slice, squeeze, stop_gradient,
};
use crate::array::{Array, DType};
use crate::core::{Prim, Tensor};
use crate::prims::UnaryOp;

/// A rank-0 literal of `dtype`.
fn scalar(v: f64, dtype: DType) -> Tensor {
    Tensor::new(Array::scalar_from_f64(v, dtype))
}

/// `a` broadcast to `shape` if it is rank 0 (lax's scalar operands), else itself.
fn fit(a: &Tensor, shape: &[usize]) -> Tensor {
    if a.ndim() == 0 && !shape.is_empty() {
        broadcast_in_dim(a, shape, &[])
    } else {
        a.clone()
    }
}

/// `x` clamped to `[min, max]` elementwise (`min`/`max` rank 0 or of `x`'s shape), as
/// `min(max(x, min), max)`. As JAX's `clamp`, `x`'s derivative is 1 strictly inside the
/// interval and 0 at its ends, `min`'s where `min > x`, `max`'s where `max < x`.
#[track_caller]
pub fn clamp(min: &Tensor, x: &Tensor, max: &Tensor) -> Tensor {
    let _line = crate::core::user_line();
    let shape = x.shape().to_vec();
    let (lo, hi) = (fit(min, &shape), fit(max, &shape));
    let inside = crate::ops::and(&gt(x, &lo), &lt(x, &hi));
    let x_in = select_n(&inside, &[stop_gradient(x), x.clone()]);
    let low = select_n(&gt(&lo, x), &[x_in, lo.clone()]);
    select_n(&lt(&hi, &low), &[low, hi])
}

/// `0, 1, 2, ...` along `dimension` of a new array of `shape` (JAX's `broadcasted_iota`;
/// [`iota`] takes the same arguments).
#[track_caller]
pub fn broadcasted_iota(dtype: DType, shape: &[usize], dimension: usize) -> Tensor {
    iota(dtype, shape, dimension)
}

/// An array of `shape` and `dtype` filled with `fill_value`.
#[track_caller]
pub fn full(shape: &[usize], fill_value: f64, dtype: DType) -> Tensor {
    broadcast_in_dim(&scalar(fill_value, dtype), shape, &[])
}

/// An array of `x`'s shape and dtype filled with `fill_value`.
#[track_caller]
pub fn full_like(x: &Tensor, fill_value: f64) -> Tensor {
    full(x.shape(), fill_value, x.dtype())
}

/// `x` with size-1 dimensions inserted at `dimensions` (positions in the result; negative
/// counts from the end), by `broadcast_in_dim` as JAX does.
#[track_caller]
pub fn expand_dims(x: &Tensor, dimensions: &[isize]) -> Tensor {
    let rank = x.ndim() + dimensions.len();
    let mut new: Vec<usize> = dimensions
        .iter()
        .map(|&d| {
            let n = if d < 0 { d + rank as isize } else { d };
            if n < 0 || n >= rank as isize {
                panic!(
                    "expand_dims: dimension {d} out of range for a result of rank {rank} from \
                     {}\n  at {}",
                    x.aval(),
                    std::panic::Location::caller()
                );
            }
            n as usize
        })
        .collect();
    new.sort_unstable();
    let mut shape = x.shape().to_vec();
    for &d in &new {
        shape.insert(d, 1);
    }
    let dims: Vec<usize> = (0..rank).filter(|d| !new.contains(d)).collect();
    broadcast_in_dim(x, &shape, &dims)
}

/// `x` with dimensions `start..stop` (`None`: to the end) merged into one.
#[track_caller]
pub fn collapse(x: &Tensor, start: usize, stop: Option<usize>) -> Tensor {
    let stop = stop.unwrap_or(x.ndim());
    if start > stop || stop > x.ndim() {
        panic!(
            "collapse: dimensions {start}..{stop} out of range for {}\n  at {}",
            x.aval(),
            std::panic::Location::caller()
        );
    }
    let s = x.shape();
    let mut shape = s[..start].to_vec();
    shape.push(s[start..stop].iter().product());
    shape.extend_from_slice(&s[stop..]);
    reshape(x, &shape)
}

/// `x` rounded to a float format of `exponent_bits` and `mantissa_bits` (the `bfloat16` of
/// an `f32`: 8 and 7), as XLA rounds: mantissa to nearest even, out-of-range exponents to
/// `±inf`/`±0`. Linear under differentiation, as in JAX.
#[track_caller]
pub fn reduce_precision(x: &Tensor, exponent_bits: u32, mantissa_bits: u32) -> Tensor {
    if exponent_bits < 1 {
        panic!(
            "reduce_precision: exponent_bits must be at least 1, got {exponent_bits}\n  at {}",
            std::panic::Location::caller()
        );
    }
    bind1(
        Prim::Unary(UnaryOp::ReducePrecision {
            exponent_bits,
            mantissa_bits,
        }),
        std::slice::from_ref(x),
    )
}

/// `axis` checked against `x`'s rank, for the `*_in_dim` function `what`.
#[track_caller]
fn check_axis(what: &str, x: &Tensor, axis: usize) {
    if axis >= x.ndim() {
        panic!(
            "{what}: axis {axis} out of range for {}\n  at {}",
            x.aval(),
            std::panic::Location::caller()
        );
    }
}

/// `x[start:limit:stride]` along `axis` (`None`: the axis' start or end; negative indices
/// count from the end).
#[track_caller]
pub fn slice_in_dim(
    x: &Tensor,
    start_index: Option<isize>,
    limit_index: Option<isize>,
    stride: usize,
    axis: usize,
) -> Tensor {
    let _line = crate::core::user_line();
    check_axis("slice_in_dim", x, axis);
    let n = x.shape()[axis] as isize;
    let wrap = |i: isize| if i < 0 { i + n } else { i };
    let start = wrap(start_index.unwrap_or(0));
    let limit = wrap(limit_index.unwrap_or(n));
    if start < 0 || limit > n || start > limit {
        panic!(
            "slice_in_dim: indices {start_index:?}..{limit_index:?} out of range for axis \
             {axis} of {}\n  at {}",
            x.aval(),
            std::panic::Location::caller()
        );
    }
    let mut starts = vec![0; x.ndim()];
    let mut limits = x.shape().to_vec();
    let mut strides = vec![1; x.ndim()];
    starts[axis] = start as usize;
    limits[axis] = limit as usize;
    strides[axis] = stride;
    slice(x, &starts, &limits, Some(&strides))
}

/// `x[index]` along `axis` (negative counts from the end), the axis kept as size 1 if
/// `keepdims`.
#[track_caller]
pub fn index_in_dim(x: &Tensor, index: isize, axis: usize, keepdims: bool) -> Tensor {
    let _line = crate::core::user_line();
    check_axis("index_in_dim", x, axis);
    let n = x.shape()[axis] as isize;
    if index >= n || index < -n {
        panic!(
            "index_in_dim: index {index} out of bounds for axis {axis} of {}\n  at {}",
            x.aval(),
            std::panic::Location::caller()
        );
    }
    let i = if index < 0 { index + n } else { index };
    let s = slice_in_dim(x, Some(i), Some(i + 1), 1, axis);
    if keepdims {
        s
    } else {
        squeeze(&s, &[axis])
    }
}

/// Start indices that are zero but at `axis`, where they are `start`.
fn starts_at(x: &Tensor, start: &Tensor, axis: usize) -> Vec<Tensor> {
    let zero = scalar(0.0, start.dtype());
    (0..x.ndim())
        .map(|d| {
            if d == axis {
                start.clone()
            } else {
                zero.clone()
            }
        })
        .collect()
}

/// `slice_size` elements of `x` along `axis` from the dynamic `start_index` (clamped into
/// bounds).
#[track_caller]
pub fn dynamic_slice_in_dim(
    x: &Tensor,
    start_index: &Tensor,
    slice_size: usize,
    axis: usize,
) -> Tensor {
    let _line = crate::core::user_line();
    check_axis("dynamic_slice_in_dim", x, axis);
    let mut sizes = x.shape().to_vec();
    sizes[axis] = slice_size;
    dynamic_slice(x, &starts_at(x, start_index, axis), &sizes)
}

/// `x[index]` along `axis` at a dynamic index (clamped into bounds), the axis kept as size
/// 1 if `keepdims`.
#[track_caller]
pub fn dynamic_index_in_dim(x: &Tensor, index: &Tensor, axis: usize, keepdims: bool) -> Tensor {
    let _line = crate::core::user_line();
    let s = dynamic_slice_in_dim(x, index, 1, axis);
    if keepdims {
        s
    } else {
        squeeze(&s, &[axis])
    }
}

/// `x` with `update` written along `axis` from the dynamic `start_index` (clamped into
/// bounds).
#[track_caller]
pub fn dynamic_update_slice_in_dim(
    x: &Tensor,
    update: &Tensor,
    start_index: &Tensor,
    axis: usize,
) -> Tensor {
    let _line = crate::core::user_line();
    check_axis("dynamic_update_slice_in_dim", x, axis);
    dynamic_update_slice(x, update, &starts_at(x, start_index, axis))
}

/// `x` with `update` written at the dynamic `index` of `axis`; `update` has `x`'s rank (size
/// 1 along `axis`) or one less.
#[track_caller]
pub fn dynamic_update_index_in_dim(
    x: &Tensor,
    update: &Tensor,
    index: &Tensor,
    axis: usize,
) -> Tensor {
    let _line = crate::core::user_line();
    check_axis("dynamic_update_index_in_dim", x, axis);
    let update = if update.ndim() + 1 == x.ndim() {
        expand_dims(update, &[axis as isize])
    } else {
        update.clone()
    };
    dynamic_update_slice_in_dim(x, &update, index, axis)
}
