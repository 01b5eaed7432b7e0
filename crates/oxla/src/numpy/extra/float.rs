//! Float decomposition as `jax.numpy` computes it: `divmod`, `modf`, `frexp`, `ldexp`,
//! `spacing`; the Bessel function `i0` with JAX's derivative, and the `kaiser` window.

use super::super::ufuncs::promote_inexact;
use super::super::{
    ceil, copysign, floor, floor_divide, isinf, promote, remainder, scalar_tensor, where_, Operand,
};
use crate::array::{DType, Kind};
use crate::core::Tensor;
use crate::ops as lax;

/// `(x1 // x2, x1 % x2)`: floor division and the remainder with the divisor's sign, as
/// `jnp.divmod` (for floats, CPython's `float_divmod`: the quotient is rounded from
/// `(x1 - x1 % x2) / x2`, and `x1 / 0` keeps its infinity).
#[track_caller]
pub fn divmod(x1: impl Into<Operand>, x2: impl Into<Operand>) -> (Tensor, Tensor) {
    let _line = crate::core::user_line();
    let t = promote("divmod", &[x1.into(), x2.into()]);
    let t: Vec<Tensor> = if t[0].dtype() == DType::Bool {
        t.iter()
            .map(|x| lax::convert_element_type(x, Kind::Int.default_dtype()))
            .collect()
    } else {
        t
    };
    let (x1, x2) = (&t[0], &t[1]);
    if !x1.dtype().is_float() {
        return (floor_divide(x1, x2), remainder(x1, x2));
    }
    let c = |v: f64| scalar_tensor(v, x1.dtype());
    let m = lax::rem(x1, x2);
    let corrected = where_(lax::eq(x2, &c(0.0)), x1, lax::sub(x1, &m));
    let div = lax::div(&corrected, x2);
    let fix = lax::and(
        &lax::ne(&m, &c(0.0)),
        &lax::ne(&lax::sign(x2), &lax::sign(&m)),
    );
    let m = where_(&fix, lax::add(&m, x2), &m);
    let div = where_(&fix, lax::sub(&div, &c(1.0)), &div);
    (lax::round(&div), m)
}

/// `(fractional, integral)` parts of `x` in floating point, both with `x`'s sign.
#[track_caller]
pub fn modf(x: impl Into<Operand>) -> (Tensor, Tensor) {
    let _line = crate::core::user_line();
    let x = promote_inexact("modf", &[x.into()]).remove(0);
    let zero = scalar_tensor(0.0, x.dtype());
    let whole = where_(lax::ge(&x, &zero), floor(&x), ceil(&x));
    (lax::sub(&x, &whole), whole)
}

/// `(mantissa bits, exponent bits)` of a float dtype, and the integer dtype of its width.
fn float_layout(dtype: DType) -> (u32, u32, DType) {
    match dtype {
        DType::F16 => (10, 5, DType::I16),
        DType::BF16 => (7, 8, DType::I16),
        DType::F32 => (23, 8, DType::I32),
        _ => (52, 11, DType::I64),
    }
}

/// The smallest positive normal value of a float dtype (`finfo.tiny`), `2^minexp`.
fn tiny(dtype: DType) -> f64 {
    let (_, nexp, _) = float_layout(dtype);
    2f64.powi(2 - (1 << (nexp - 1)))
}

/// `(m, e)` with `x == m * 2^e`, `0.5 <= |m| < 1` and `e` an `i32`, as `jnp.frexp` finds
/// them from the bits (subnormals are scaled into the normal range first); zeros, infinities
/// and NaN give `(x, 0)`. The mantissa's derivative is `2^-e`, as JAX's rule.
#[track_caller]
pub fn frexp(x: impl Into<Operand>) -> (Tensor, Tensor) {
    let _line = crate::core::user_line();
    let x = promote_inexact("frexp", &[x.into()]).remove(0);
    let dtype = x.dtype();
    let (nmant, nexp, int) = float_layout(dtype);
    let i = |v: f64| scalar_tensor(v, int);
    let mask = f64::from((1u32 << nexp) - 1);
    let bias = f64::from((1u32 << (nexp - 1)) - 1);
    let scale = 2f64.powi(nmant as i32);
    let xs = lax::stop_gradient(&x);
    let small = lax::lt(&lax::abs(&xs), &scalar_tensor(tiny(dtype), dtype));
    let normal = where_(&small, lax::mul(&xs, &scalar_tensor(scale, dtype)), &xs);
    let e0 = where_(&small, i(-f64::from(nmant)), i(0.0));
    let bits = lax::bitcast_convert_type(&normal, int);
    let field = lax::and(
        &lax::shift_right_arithmetic(&bits, &i(f64::from(nmant))),
        &i(mask),
    );
    let e = lax::add(&e0, &lax::add(&lax::sub(&field, &i(bias)), &i(1.0)));
    let cleared = lax::and(&bits, &lax::not(&i(mask * scale)));
    let m = lax::or(&cleared, &i((bias - 1.0) * scale));
    let m = lax::bitcast_convert_type(&m, dtype);
    let special = lax::or(
        &lax::not(&lax::is_finite(&xs)),
        &lax::eq(&xs, &scalar_tensor(0.0, dtype)),
    );
    let e = where_(&special, i(0.0), &e);
    let e = lax::convert_element_type(&e, DType::I32);
    // The mantissa is `m` in value with tangent `2^-e dx`; a non-finite `x` is its own.
    let slope = lax::exp2(&lax::neg(&lax::convert_element_type(&e, dtype)));
    let term = lax::mul(&slope, &lax::sub(&x, &xs));
    let m = where_(
        lax::is_finite(&lax::stop_gradient(&term)),
        lax::add(&m, &term),
        &m,
    );
    (where_(&special, &x, &m), e)
}

/// `x1 * 2^x2` for an integer `x2`, as `jnp.ldexp` computes it: through `frexp(x1)`, so
/// that a small `x1` with a large `x2` does not overflow on the way; zeros and infinities
/// of `x1` are returned as they are. Panics at the caller's line if `x2` is not an integer.
#[track_caller]
pub fn ldexp(x1: impl Into<Operand>, x2: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x2 = x2.into();
    if x2.dtype().is_float() {
        panic!(
            "ldexp: the exponent must be an integer, got {}\n  at {}",
            x2.dtype(),
            std::panic::Location::caller()
        );
    }
    let x1 = promote_inexact("ldexp", &[x1.into()]).remove(0);
    let dtype = x1.dtype();
    let x2 = x2.to_tensor_in("ldexp", x2.dtype());
    let x2 = lax::convert_element_type(&x2, dtype);
    let c = |v: f64| scalar_tensor(v, dtype);
    let (m, e) = frexp(&x1);
    let e = super::super::add(lax::convert_element_type(&e, dtype), &x2);
    let up = lax::gt(&e, &c(0.0));
    let m = where_(&up, lax::mul(&m, &c(2.0)), &m);
    let e = where_(&up, lax::sub(&e, &c(1.0)), &e);
    let x = super::super::multiply(&m, super::super::power(2.0, &e));
    let keep = lax::or(&isinf(&x1), &lax::eq(&x1, &c(0.0)));
    where_(keep, &x1, x)
}

/// The distance from `x` to the next float away from zero (for `f16`: toward `+inf`), as
/// `jnp.spacing`; a zero difference (at zero) is the smallest subnormal with `x`'s sign.
#[track_caller]
pub fn spacing(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = promote_inexact("spacing", &[x.into()]).remove(0);
    let dtype = x.dtype();
    let inf = scalar_tensor(f64::INFINITY, dtype);
    if dtype == DType::F16 {
        return lax::sub(&lax::nextafter(&x, &inf), &x);
    }
    let r = lax::sub(&lax::nextafter(&x, &copysign(&inf, &x)), &x);
    let (nmant, _, _) = float_layout(dtype);
    let subnormal = scalar_tensor(tiny(dtype) * 2f64.powi(-(nmant as i32)), dtype);
    where_(
        lax::eq(&r, &scalar_tensor(0.0, dtype)),
        copysign(subnormal, &x),
        r,
    )
}

/// The modified Bessel function of the first kind of order 0, `exp(|x|) i0e(|x|)`, with
/// JAX's derivative (0 at `x == 0`).
#[track_caller]
pub fn i0(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = promote_inexact("i0", &[x.into()]).remove(0);
    let ax = lax::abs(&x);
    let y = lax::mul(&lax::exp(&ax), &lax::bessel_i0e(&ax));
    let at_zero = lax::eq(&x, &scalar_tensor(0.0, x.dtype()));
    where_(at_zero, lax::stop_gradient(&y), y)
}

/// The Kaiser window of `m` points with shape parameter `beta`, in the default float dtype:
/// `i0(beta sqrt(1 - ((n - α) / α)^2)) / i0(beta)` with `α = (m - 1) / 2`; ones for
/// `m <= 1`.
#[track_caller]
pub fn kaiser(m: usize, beta: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let dtype = Kind::Float.default_dtype();
    let beta = beta.into();
    if m <= 1 {
        return lax::broadcast_in_dim(&scalar_tensor(1.0, dtype), &[m], &[]);
    }
    let c = |v: f64| scalar_tensor(v, dtype);
    let n = lax::iota(dtype, &[m], 0);
    let alpha = 0.5 * (m - 1) as f64;
    let r = lax::div(&lax::sub(&n, &c(alpha)), &c(alpha));
    let root = lax::sqrt(&lax::sub(&c(1.0), &lax::integer_pow(&r, 2)));
    let num = i0(super::super::multiply(beta.clone(), root));
    super::super::divide(num, i0(beta))
}
