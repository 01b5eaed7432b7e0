//! `jnp.linalg`: norms.

use super::reductions::{sum, sum_keepdims};
use super::{inexact, Axes};
use crate::core::Tensor;
use crate::ops as lax;

/// The Euclidean (Frobenius) norm over `axes`: `sqrt(sum(x * x))`.
///
/// ```
/// use oxla::numpy as jnp;
/// let v = jnp::array(&[3.0f32, 4.0], &[2]);
/// assert_eq!(jnp::linalg::norm(&v, None).item(), 5.0);
/// ```
#[track_caller]
pub fn norm(x: &Tensor, axes: impl Axes) -> Tensor {
    let _line = crate::core::user_line();
    let x = inexact(x);
    lax::sqrt(&sum(&lax::mul(&x, &x), axes))
}

/// [`norm`] keeping the reduced axes as size 1.
#[track_caller]
pub fn norm_keepdims(x: &Tensor, axes: impl Axes) -> Tensor {
    let _line = crate::core::user_line();
    let x = inexact(x);
    lax::sqrt(&sum_keepdims(&lax::mul(&x, &x), axes))
}
