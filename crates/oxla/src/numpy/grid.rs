//! Index grids and broadcasting: `indices`, `unravel_index`, `broadcast_shapes`,
//! `broadcast_arrays`, `identity`.

use super::{broadcast_to, eye, scalar_tensor, stack, Operand};
use crate::array::DType;
use crate::core::Tensor;
use crate::ops as lax;

/// The index grid of an array of shape `dimensions`: `out[d]` holds each element's index
/// along dimension `d` (`i32`, shape `[dimensions.len(), ...dimensions]`), as the dense
/// `jnp.indices`.
#[track_caller]
pub fn indices(dimensions: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    let grids: Vec<Tensor> = (0..dimensions.len())
        .map(|d| lax::iota(DType::I32, dimensions, d))
        .collect();
    if grids.is_empty() {
        return lax::iota(DType::I32, &[0], 0);
    }
    stack(&grids, 0)
}

/// The coordinates in an array of `shape` of the flat (row-major) `indices`, one array per
/// dimension, as `jnp.unravel_index`: negative indices count from the end, indices out of
/// bounds are clamped into them.
///
/// ```
/// use oxla::numpy as jnp;
/// let i = jnp::array(&[5i32, -1, 0], &[3]);
/// let rc = jnp::unravel_index(&i, &[2, 3]);
/// assert_eq!(rc[0].to_vec::<i32>(), vec![1, 1, 0]);
/// assert_eq!(rc[1].to_vec::<i32>(), vec![2, 2, 0]);
/// ```
#[track_caller]
pub fn unravel_index(indices: impl Into<Operand>, shape: &[usize]) -> Vec<Tensor> {
    let _line = crate::core::user_line();
    let i = indices.into().into_tensor();
    let dtype = i.dtype();
    if !dtype.is_int() {
        panic!(
            "unravel_index: indices must be integers, got {dtype}\n  at {}",
            std::panic::Location::caller()
        );
    }
    let size: usize = shape.iter().product();
    let c = |v: f64| scalar_tensor(v, dtype);
    let total = size as f64;
    let clipped = lax::max(&lax::min(&i, &c((total - 1.0).max(0.0))), &c(-total));
    let neg = lax::lt(&clipped, &c(0.0));
    let j = lax::select_n(&neg, &[clipped.clone(), lax::add(&clipped, &c(total))]);
    let mut stride = size;
    shape
        .iter()
        .map(|&n| {
            stride /= n.max(1);
            let q = lax::div(&j, &c(stride.max(1) as f64));
            lax::rem(&q, &c(n.max(1) as f64))
        })
        .collect()
}

/// The shape `shapes` broadcast to by numpy's rules; panics if they do not broadcast.
#[track_caller]
pub fn broadcast_shapes(shapes: &[&[usize]]) -> Vec<usize> {
    let r = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1; r];
    for s in shapes {
        for (k, &n) in s.iter().enumerate() {
            let d = r - s.len() + k;
            if out[d] == 1 {
                out[d] = n;
            } else if n != 1 && n != out[d] {
                panic!(
                    "broadcast_shapes: shapes {shapes:?} do not broadcast together\n  at {}",
                    std::panic::Location::caller()
                );
            }
        }
    }
    out
}

/// The arrays broadcast to one shape (dtypes kept), as `jnp.broadcast_arrays`.
#[track_caller]
pub fn broadcast_arrays(xs: &[Tensor]) -> Vec<Tensor> {
    let _line = crate::core::user_line();
    let shapes: Vec<&[usize]> = xs.iter().map(|t| t.shape()).collect();
    let shape = broadcast_shapes(&shapes);
    xs.iter().map(|t| broadcast_to(t, &shape)).collect()
}

/// The `n x n` identity matrix in the default float dtype (`jnp.identity`, as [`eye`]).
#[track_caller]
pub fn identity(n: usize) -> Tensor {
    let _line = crate::core::user_line();
    eye(n)
}
