//! Norms and what is built on them: `norm`, `vector_norm`, `matrix_norm`, `cond`,
//! `matrix_rank`.

use super::{matrices, mn};
use crate::array::DType;
use crate::core::Tensor;
use crate::numpy::reductions::sum;
use crate::numpy::{inexact, max, min, scalar_tensor, where_, Axis, Operand};
use crate::ops as lax;

/// The Euclidean (Frobenius) norm over `axis` (`None`: all; [`keepdims`](crate::numpy::keepdims)
/// keeps them as size 1): `sqrt(sum(x * x))` (`jnp.linalg.norm` with `ord=None`).
///
/// ```
/// use oxla::numpy as jnp;
/// let v = jnp::array(&[3.0f32, 4.0], &[2]);
/// assert_eq!(jnp::linalg::norm(&v, None).item(), 5.0);
/// ```
#[track_caller]
pub fn norm(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let x = inexact(x);
    lax::sqrt(&sum(lax::mul(&x, &x), axis))
}

/// The vector norm of order `ord` over `axis` (`jnp.linalg.vector_norm`): `inf` the
/// largest magnitude, `-inf` the smallest, `0` the count of non-zeros, else
/// `sum(|x|^ord)^(1/ord)`.
///
/// ```
/// use oxla::numpy as jnp;
/// let v = jnp::array(&[3.0f32, -4.0], &[2]);
/// assert_eq!(jnp::linalg::vector_norm(&v, 1.0, None).item(), 7.0);
/// assert_eq!(jnp::linalg::vector_norm(&v, f64::INFINITY, None).item(), 4.0);
/// ```
#[track_caller]
pub fn vector_norm(x: impl Into<Operand>, ord: f64, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = inexact(&x.into().into_tensor());
    let axis = axis.into();
    let a = lax::abs(&x);
    if ord == f64::INFINITY {
        max(&a, axis)
    } else if ord == f64::NEG_INFINITY {
        min(&a, axis)
    } else if ord == 0.0 {
        let nz = lax::ne(&x, &scalar_tensor(0.0, x.dtype()));
        sum(lax::convert_element_type(&nz, x.dtype()), axis)
    } else if ord == 1.0 {
        sum(&a, axis)
    } else if ord == 2.0 {
        lax::sqrt(&sum(lax::mul(&x, &x), axis))
    } else {
        let p = scalar_tensor(ord, x.dtype());
        let s = sum(lax::pow(&a, &p), axis);
        lax::pow(&s, &scalar_tensor(1.0 / ord, x.dtype()))
    }
}

/// The order of a matrix norm ([`matrix_norm`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixOrd {
    /// Frobenius: `sqrt(sum(x * x))` (`'fro'`).
    Fro,
    /// Nuclear: the sum of the singular values (`'nuc'`).
    Nuc,
    /// The largest row sum of magnitudes (`inf`).
    Inf,
    /// The smallest row sum of magnitudes (`-inf`).
    NegInf,
    /// The largest column sum of magnitudes (`1`).
    One,
    /// The smallest column sum of magnitudes (`-1`).
    NegOne,
    /// The largest singular value (`2`).
    Two,
    /// The smallest singular value (`-2`).
    NegTwo,
}

/// The matrix norm of order `ord` over the last two dimensions (`jnp.linalg.matrix_norm`).
///
/// ```
/// use oxla::numpy as jnp;
/// use jnp::linalg::MatrixOrd;
/// let x = jnp::array(&[1.0f32, -2.0, 3.0, 4.0], &[2, 2]);
/// assert_eq!(jnp::linalg::matrix_norm(&x, MatrixOrd::One).item(), 6.0);
/// assert_eq!(jnp::linalg::matrix_norm(&x, MatrixOrd::Inf).item(), 7.0);
/// ```
#[track_caller]
pub fn matrix_norm(x: impl Into<Operand>, ord: MatrixOrd) -> Tensor {
    let _line = crate::core::user_line();
    let x = matrices(x.into().into_tensor(), "matrix_norm");
    let r = x.ndim() as isize;
    let a = lax::abs(&x);
    let svals = || super::svdvals(&x);
    match ord {
        MatrixOrd::Fro => lax::sqrt(&sum(lax::mul(&x, &x), [r - 2, r - 1])),
        MatrixOrd::Nuc => sum(svals(), -1),
        MatrixOrd::Inf => max(sum(&a, -1), -1),
        MatrixOrd::NegInf => min(sum(&a, -1), -1),
        MatrixOrd::One => max(sum(&a, -2), -1),
        MatrixOrd::NegOne => min(sum(&a, -2), -1),
        MatrixOrd::Two => max(svals(), -1),
        MatrixOrd::NegTwo => min(svals(), -1),
    }
}

/// The condition number in the 2-norm, the ratio of the largest and smallest singular
/// values (`jnp.linalg.cond` with `p=None`); with `p`, `norm(x, p) * norm(inv(x), p)`
/// for square `x` (`MatrixOrd::NegTwo`: the inverse ratio). NaN from a singular matrix
/// becomes inf.
///
/// ```
/// use oxla::numpy as jnp;
/// let x = jnp::array(&[4.0f32, 0.0, 0.0, 2.0], &[2, 2]);
/// assert_eq!(jnp::linalg::cond(&x, None).item(), 2.0);
/// ```
#[track_caller]
pub fn cond(x: impl Into<Operand>, p: Option<MatrixOrd>) -> Tensor {
    let _line = crate::core::user_line();
    let x = matrices(x.into().into_tensor(), "cond");
    let first_last = |s: &Tensor| {
        let r = s.ndim();
        let k = s.shape()[r - 1];
        let pick = |i: usize| {
            let mut start = vec![0; r];
            let mut limit = s.shape().to_vec();
            (start[r - 1], limit[r - 1]) = (i, i + 1);
            lax::squeeze(&lax::slice(s, &start, &limit, None), &[r - 1])
        };
        (pick(0), pick(k - 1))
    };
    let r = match p {
        None | Some(MatrixOrd::Two) => {
            let (hi, lo) = first_last(&super::svdvals(&x));
            return lax::div(&hi, &lo);
        }
        Some(MatrixOrd::NegTwo) => {
            let (hi, lo) = first_last(&super::svdvals(&x));
            lax::div(&lo, &hi)
        }
        Some(p) => lax::mul(&matrix_norm(&x, p), &matrix_norm(super::inv(&x), p)),
    };
    let rr = x.ndim() as isize;
    let x_nan = crate::numpy::any(lax::ne(&x, &x), [rr - 2, rr - 1]);
    let r_nan = lax::ne(&r, &r);
    where_(lax::and(&r_nan, &lax::not(&x_nan)), f64::INFINITY, &r)
}

/// The rank of matrices (`jnp.linalg.matrix_rank`): the singular values above a threshold,
/// counted (int32); the threshold is `rtol` itself when given (as JAX takes it), else
/// `max(m, n) * eps` times the largest singular value.
///
/// ```
/// use oxla::numpy as jnp;
/// let x = jnp::array(&[1.0f32, 2.0, 2.0, 4.0], &[2, 2]);
/// assert_eq!(jnp::linalg::matrix_rank(&x, None).item(), 1.0);
/// ```
#[track_caller]
pub fn matrix_rank(x: impl Into<Operand>, rtol: Option<f64>) -> Tensor {
    let _line = crate::core::user_line();
    let x = matrices(x.into().into_tensor(), "matrix_rank");
    let (m, n) = mn(&x);
    let s = super::svdvals(&x);
    let eps = if x.dtype() == DType::F64 {
        f64::EPSILON
    } else {
        f32::EPSILON as f64
    };
    let r = s.ndim();
    // A given `rtol` is the threshold itself, as in JAX.
    let tol = match rtol {
        Some(t) => lax::broadcast_in_dim(&scalar_tensor(t, s.dtype()), &s.shape()[..r - 1], &[]),
        None => lax::mul(
            &max(&s, -1),
            &scalar_tensor(m.max(n) as f64 * eps, s.dtype()),
        ),
    };
    let tol = lax::broadcast_in_dim(&tol, s.shape(), &(0..r - 1).collect::<Vec<_>>());
    sum(
        lax::convert_element_type(&lax::gt(&s, &tol), DType::I32),
        -1,
    )
}
