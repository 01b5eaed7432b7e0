//! The modified Bessel functions of orders 0 and 1 (`i0e`, `i1e` are the `bessel_i0e` and
//! `bessel_i1e` primitives; `i0`, `i1` scale them back by `exp(|x|)`, as JAX does) and the
//! regularized incomplete gamma functions (`gammainc`, `gammaincc`: `igamma`, `igammac`).

use super::{float1, float2};
use crate::core::Tensor;
use crate::numpy::{self as jnp, Operand};
use crate::ops as lax;

/// `exp(-|x|) I0(x)` (the `bessel_i0e` primitive).
#[track_caller]
pub fn i0e(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    lax::bessel_i0e(&float1(x))
}

/// `exp(-|x|) I1(x)` (the `bessel_i1e` primitive).
#[track_caller]
pub fn i1e(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    lax::bessel_i1e(&float1(x))
}

/// The modified Bessel function `I0(x)`: `exp(|x|) i0e(x)`.
#[track_caller]
pub fn i0(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = float1(x);
    jnp::exp(jnp::abs(&x)) * lax::bessel_i0e(&x)
}

/// The modified Bessel function `I1(x)`: `exp(|x|) i1e(x)`.
#[track_caller]
pub fn i1(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = float1(x);
    jnp::exp(jnp::abs(&x)) * lax::bessel_i1e(&x)
}

/// The regularized lower incomplete gamma function `P(a, x)` (the `igamma` primitive).
#[track_caller]
pub fn gammainc(a: impl Into<Operand>, x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let (a, x) = float2("gammainc", a, x);
    lax::igamma(&a, &x)
}

/// The regularized upper incomplete gamma function `Q(a, x) = 1 - P(a, x)` (the `igammac`
/// primitive).
#[track_caller]
pub fn gammaincc(a: impl Into<Operand>, x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let (a, x) = float2("gammaincc", a, x);
    lax::igammac(&a, &x)
}
