//! The array API's matrix helpers: `diagonal`, `trace`, `matrix_transpose`, `outer`,
//! `vecdot`, `multi_dot`, `cross`.

use super::mt;
use crate::core::Tensor;
use crate::numpy::{inexact, matmul, promote_dtypes, sum, Operand};
use crate::ops as lax;
use crate::prims::ReduceOp;

/// The `offset`-th diagonal of the last two dimensions (`jnp.linalg.diagonal`; above the
/// main diagonal for a positive offset): `[..., d]`.
///
/// ```
/// use oxla::numpy as jnp;
/// let x = jnp::arange(6.0).reshape(&[2, 3]);
/// assert_eq!(jnp::linalg::diagonal(&x, 1).to_vec::<f32>(), vec![1.0, 5.0]);
/// ```
#[track_caller]
pub fn diagonal(x: impl Into<Operand>, offset: isize) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    let r = x.ndim();
    if r < 2 {
        panic!(
            "jnp.linalg.diagonal: needs rank 2 or more, got shape {:?}\n  at {}",
            x.shape(),
            std::panic::Location::caller()
        );
    }
    let (m, n) = (x.shape()[r - 2], x.shape()[r - 1]);
    let (row0, col0) = if offset >= 0 {
        (0, (offset as usize).min(n))
    } else {
        (offset.unsigned_abs().min(m), 0)
    };
    let d = (m - row0).min(n - col0);
    let mut start = vec![0; r];
    let mut limit = x.shape().to_vec();
    (start[r - 2], limit[r - 2]) = (row0, row0 + d);
    (start[r - 1], limit[r - 1]) = (col0, col0 + d);
    let sq = lax::slice(&x, &start, &limit, None);
    let mut shape = x.shape()[..r - 2].to_vec();
    shape.extend([d, d]);
    let eye = lax::broadcast_in_dim(
        &lax::eq(
            &lax::iota(crate::DType::I32, &[d, d], 0),
            &lax::iota(crate::DType::I32, &[d, d], 1),
        ),
        &shape,
        &[r - 2, r - 1],
    );
    let zeros = lax::broadcast_in_dim(&crate::numpy::scalar_tensor(0.0, x.dtype()), &shape, &[]);
    let masked = lax::select_n(&eye, &[zeros, sq]);
    if x.dtype() == crate::DType::Bool {
        lax::reduce(&masked, ReduceOp::Or, &[r - 1])
    } else {
        lax::reduce(&masked, ReduceOp::Sum, &[r - 1])
    }
}

/// The sum of the `offset`-th diagonal of the last two dimensions (`jnp.linalg.trace`).
///
/// ```
/// use oxla::numpy as jnp;
/// let x = jnp::arange(4.0).reshape(&[2, 2]);
/// assert_eq!(jnp::linalg::trace(&x, 0).item(), 3.0);
/// ```
#[track_caller]
pub fn trace(x: impl Into<Operand>, offset: isize) -> Tensor {
    let _line = crate::core::user_line();
    sum(diagonal(x, offset), -1)
}

/// `x` with its last two dimensions swapped (`jnp.linalg.matrix_transpose`).
///
/// ```
/// use oxla::numpy as jnp;
/// let x = jnp::arange(6.0).reshape(&[2, 3]);
/// assert_eq!(jnp::linalg::matrix_transpose(&x).shape(), &[3, 2]);
/// ```
#[track_caller]
pub fn matrix_transpose(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    if x.ndim() < 2 {
        panic!(
            "jnp.linalg.matrix_transpose: needs rank 2 or more, got shape {:?}\n  at {}",
            x.shape(),
            std::panic::Location::caller()
        );
    }
    mt(&x)
}

/// The outer product of two vectors, `x1[:, None] * x2[None, :]` (`jnp.linalg.outer`).
///
/// ```
/// use oxla::numpy as jnp;
/// let o = jnp::linalg::outer(jnp::array(&[1.0f32, 2.0], &[2]), jnp::array(&[3.0f32, 4.0], &[2]));
/// assert_eq!(o.to_vec::<f32>(), vec![3.0, 4.0, 6.0, 8.0]);
/// ```
#[track_caller]
pub fn outer(x1: impl Into<Operand>, x2: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("outer", &[x1.into(), x2.into()]);
    let (a, b) = (&t[0], &t[1]);
    if a.ndim() != 1 || b.ndim() != 1 {
        panic!(
            "jnp.linalg.outer: needs two vectors, got shapes {:?} and {:?}\n  at {}",
            a.shape(),
            b.shape(),
            std::panic::Location::caller()
        );
    }
    let shape = [a.shape()[0], b.shape()[0]];
    lax::mul(
        &lax::broadcast_in_dim(a, &shape, &[0]),
        &lax::broadcast_in_dim(b, &shape, &[1]),
    )
}

/// The dot product of vectors along `axis`, the other dimensions broadcast, `x1`
/// conjugated (`jnp.linalg.vecdot`, the same as [`vecdot`](crate::numpy::vecdot)).
///
/// ```
/// use oxla::numpy as jnp;
/// let v = jnp::linalg::vecdot(jnp::array(&[1.0f32, 2.0], &[2]), jnp::array(&[3.0f32, 4.0], &[2]), -1);
/// assert_eq!(v.item(), 11.0);
/// ```
#[track_caller]
pub fn vecdot(x1: impl Into<Operand>, x2: impl Into<Operand>, axis: isize) -> Tensor {
    crate::numpy::vecdot(x1, x2, axis)
}

/// The product of a chain of matrices (`jnp.linalg.multi_dot`): the first may be a vector
/// (a row) and the last a vector (a column).
///
/// ```
/// use oxla::numpy as jnp;
/// let a = jnp::array(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
/// let p = jnp::linalg::multi_dot(&[a.clone(), a.clone(), jnp::array(&[1.0f32, 0.0], &[2])]);
/// assert_eq!(p.to_vec::<f32>(), vec![7.0, 15.0]);
/// ```
#[track_caller]
pub fn multi_dot(arrays: &[Tensor]) -> Tensor {
    let _line = crate::core::user_line();
    if arrays.len() < 2 {
        panic!(
            "jnp.linalg.multi_dot: needs at least two arrays, got {}\n  at {}",
            arrays.len(),
            std::panic::Location::caller()
        );
    }
    let mut acc = inexact(&arrays[0]);
    for x in &arrays[1..] {
        acc = matmul(&acc, x);
    }
    acc
}

/// The cross product of 3-vectors along `axis` of two operands of one rank, the other
/// dimensions broadcast (`jnp.linalg.cross`).
///
/// ```
/// use oxla::numpy as jnp;
/// let x = jnp::array(&[1.0f32, 0.0, 0.0], &[3]);
/// let y = jnp::array(&[0.0f32, 1.0, 0.0], &[3]);
/// assert_eq!(jnp::linalg::cross(&x, &y, -1).to_vec::<f32>(), vec![0.0, 0.0, 1.0]);
/// ```
#[track_caller]
pub fn cross(x1: impl Into<Operand>, x2: impl Into<Operand>, axis: isize) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("cross", &[x1.into(), x2.into()]);
    let (a, b) = (&t[0], &t[1]);
    let d = crate::numpy::shape::axis(axis, a.ndim(), "jnp.linalg.cross");
    if a.ndim() != b.ndim() || a.shape()[d] != 3 || b.shape()[d] != 3 {
        panic!(
            "jnp.linalg.cross: needs 3-vectors along axis {axis} in operands of one rank, got \
             shapes {:?} and {:?}\n  at {}",
            a.shape(),
            b.shape(),
            std::panic::Location::caller()
        );
    }
    let comp = |x: &Tensor, d: usize, i: usize| {
        let mut start = vec![0; x.ndim()];
        let mut limit = x.shape().to_vec();
        (start[d], limit[d]) = (i, i + 1);
        lax::slice(x, &start, &limit, None)
    };
    let c = |i: usize, j: usize| {
        &(&comp(a, d, i) * &comp(b, d, j)) - &(&comp(a, d, j) * &comp(b, d, i))
    };
    crate::numpy::concatenate(&[c(1, 2), c(2, 0), c(0, 1)], d as isize)
}
