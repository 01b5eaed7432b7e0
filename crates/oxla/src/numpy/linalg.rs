//! `jnp.linalg`: norms.

use super::reductions::sum;
use super::{inexact, Axis, Operand};
use crate::core::Tensor;
use crate::ops as lax;

/// The Euclidean (Frobenius) norm over `axis` (`None`: all; [`keepdims`](super::keepdims)
/// keeps them as size 1): `sqrt(sum(x * x))`.
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
