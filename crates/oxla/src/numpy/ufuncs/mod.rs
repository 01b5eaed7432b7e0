//! More numpy elementwise functions, as `jax.numpy` builds them from lax: trigonometric and
//! hyperbolic functions and their inverses, exponentials and logarithms of other bases,
//! angle conversions, `hypot` and `sinc` (here); rounding, classification and float
//! manipulation ([`rounding`]); shifts, bit counts, `gcd` and `lcm` ([`bits`]).

mod bits;
mod rounding;

pub use bits::{bitwise_count, gcd, lcm, left_shift, right_shift};
pub use rounding::{
    around, copysign, float_power, fmax, fmin, fmod, heaviside, isfinite, isneginf, isposinf,
    nan_to_num, nextafter, positive, reciprocal, rint, round, signbit, square, trunc,
};

use super::{inexact, promote_to, result_type, scalar_tensor, where_, Operand};
use crate::array::Kind;
use crate::core::Tensor;
use crate::ops as lax;

/// Operands promoted as JAX's `promote_args_inexact`: to their common dtype, or the default
/// float if that is not a float, and to one rank.
#[track_caller]
pub(super) fn promote_inexact(what: &str, ops: &[Operand]) -> Vec<Tensor> {
    let dtype = result_type(ops);
    let dtype = if dtype.is_float() {
        dtype
    } else {
        Kind::Float.default_dtype()
    };
    promote_to(what, ops, dtype)
}

float_fn!(
    /// Tangent.
    tan => tan,
    /// Inverse sine (NaN outside `[-1, 1]`).
    arcsin => asin,
    /// Inverse sine: [`arcsin`] by its array-API name.
    asin => asin,
    /// Inverse cosine (NaN outside `[-1, 1]`).
    arccos => acos,
    /// Inverse cosine: [`arccos`] by its array-API name.
    acos => acos,
    /// Inverse tangent.
    arctan => atan,
    /// Inverse tangent: [`arctan`] by its array-API name.
    atan => atan,
    /// Hyperbolic sine.
    sinh => sinh,
    /// Hyperbolic cosine.
    cosh => cosh,
    /// Inverse hyperbolic sine.
    arcsinh => asinh,
    /// Inverse hyperbolic sine: [`arcsinh`] by its array-API name.
    asinh => asinh,
    /// Inverse hyperbolic cosine (NaN below 1).
    arccosh => acosh,
    /// Inverse hyperbolic cosine: [`arccosh`] by its array-API name.
    acosh => acosh,
    /// Inverse hyperbolic tangent (`±inf` at `±1`, NaN beyond).
    arctanh => atanh,
    /// Inverse hyperbolic tangent: [`arctanh`] by its array-API name.
    atanh => atanh,
    /// `e^x - 1`, accurate near zero.
    expm1 => expm1,
    /// `2^x`.
    exp2 => exp2,
);

/// The angle of the point `(x2, x1)` in radians, in `[-π, π]`: the quadrant-aware
/// `arctan(x1 / x2)`.
#[track_caller]
pub fn arctan2(x1: impl Into<Operand>, x2: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_inexact("arctan2", &[x1.into(), x2.into()]);
    lax::atan2(&t[0], &t[1])
}

/// [`arctan2`] by its array-API name.
#[track_caller]
pub fn atan2(x1: impl Into<Operand>, x2: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    arctan2(x1, x2)
}

/// Base-2 logarithm, as JAX computes it: `log(x) / log(2)`.
#[track_caller]
pub fn log2(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = inexact(&x.into().into_tensor());
    let two = scalar_tensor(2.0, x.dtype());
    lax::div(&lax::log(&x), &lax::log(&two))
}

/// Base-10 logarithm, as JAX computes it: `log(x) * (1 / log(10))`.
#[track_caller]
pub fn log10(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = inexact(&x.into().into_tensor());
    let k = scalar_tensor(std::f64::consts::LOG10_E, x.dtype());
    lax::mul(&lax::log(&x), &k)
}

/// `x` times a constant, in floating point.
#[track_caller]
fn scaled(x: Operand, k: f64) -> Tensor {
    let x = inexact(&x.into_tensor());
    let k = scalar_tensor(k, x.dtype());
    lax::mul(&x, &k)
}

/// Degrees to radians.
#[track_caller]
pub fn deg2rad(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    scaled(x.into(), std::f64::consts::PI / 180.0)
}

/// Degrees to radians: [`deg2rad`] by its other name.
#[track_caller]
pub fn radians(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    deg2rad(x)
}

/// Radians to degrees.
#[track_caller]
pub fn rad2deg(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    scaled(x.into(), 180.0 / std::f64::consts::PI)
}

/// Radians to degrees: [`rad2deg`] by its other name.
#[track_caller]
pub fn degrees(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    rad2deg(x)
}

/// `sqrt(x1^2 + x2^2)` without overflow, as JAX computes it: the larger magnitude times
/// `sqrt(1 + (smaller / larger)^2)`; `inf` if either is infinite.
#[track_caller]
pub fn hypot(x1: impl Into<Operand>, x2: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_inexact("hypot", &[x1.into(), x2.into()]);
    let (a, b) = (lax::abs(&t[0]), lax::abs(&t[1]));
    let c = |v: f64| scalar_tensor(v, a.dtype());
    let inf = c(f64::INFINITY);
    let any_inf = lax::or(&lax::eq(&a, &inf), &lax::eq(&b, &inf));
    let (hi, lo) = (super::maximum(&a, &b), super::minimum(&a, &b));
    let hi_zero = lax::eq(&hi, &c(0.0));
    let safe = where_(&hi_zero, c(1.0), &hi);
    let r = lax::mul(
        &hi,
        &lax::sqrt(&lax::add(&c(1.0), &lax::square(&lax::div(&lo, &safe)))),
    );
    let r = where_(&hi_zero, &hi, r);
    where_(any_inf, inf, r)
}

/// The normalized sinc function `sin(π x) / (π x)`, 1 at 0 (where its derivative is 0).
#[track_caller]
pub fn sinc(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = inexact(&x.into().into_tensor());
    let c = |v: f64| scalar_tensor(v, x.dtype());
    let zero = lax::eq(&x, &c(0.0));
    let pi_x = lax::mul(&c(std::f64::consts::PI), &x);
    let safe = where_(&zero, c(1.0), &pi_x);
    // At 0, the Maclaurin series' constant term, as a function of `pi_x` (derivative 0).
    let at_zero = lax::add(&lax::mul(&pi_x, &c(0.0)), &c(1.0));
    where_(zero, at_zero, lax::div(&lax::sin(&safe), &safe))
}
