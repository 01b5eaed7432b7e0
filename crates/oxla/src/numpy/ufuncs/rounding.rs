//! Rounding (`round`/`around`, `rint`, `trunc`), classification (`isfinite`, `isposinf`,
//! `isneginf`, `signbit`, `nan_to_num`) and float manipulation (`copysign`, `nextafter`,
//! `fmod`, `fmax`/`fmin`, `heaviside`, `float_power`, `square`, `reciprocal`, `positive`),
//! as `jax.numpy` builds them.

use super::promote_inexact;
use crate::array::{DType, Kind};
use crate::core::Tensor;
use crate::numpy::{inexact, promote, scalar_tensor, where_, Operand};
use crate::ops::{self as lax, RoundingMethod};

/// A bool array of `x`'s shape, all `value`.
fn bools_like(x: &Tensor, value: bool) -> Tensor {
    let v = scalar_tensor(f64::from(u8::from(value)), DType::Bool);
    lax::broadcast_in_dim(&v, x.shape(), &[])
}

/// `x` rounded to `decimals` decimal places, halves to even, as `jnp.round`: integers are
/// returned as they are (negative `decimals` on integers panic, as JAX raises); otherwise
/// `round(x * 10^decimals) / 10^decimals` (f16 computed in f32).
#[track_caller]
pub fn round(x: impl Into<Operand>, decimals: i32) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    let dtype = x.dtype();
    if !dtype.is_float() {
        if decimals < 0 {
            panic!(
                "round: integer rounding with decimals < 0 is not implemented (as in JAX), got \
                 {decimals} for {}\n  at {}",
                x.aval(),
                std::panic::Location::caller()
            );
        }
        return x;
    }
    if decimals == 0 {
        return lax::round_with(&x, RoundingMethod::ToNearestEven);
    }
    if f64::from(decimals) > finfo_max(dtype).log10() {
        return x;
    }
    let wide = if dtype == DType::F16 {
        lax::convert_element_type(&x, DType::F32)
    } else {
        x
    };
    let factor = scalar_tensor(10f64.powi(decimals), wide.dtype());
    let out = lax::div(
        &lax::round_with(&lax::mul(&wide, &factor), RoundingMethod::ToNearestEven),
        &factor,
    );
    if dtype == DType::F16 {
        lax::convert_element_type(&out, dtype)
    } else {
        out
    }
}

/// [`round`] by its other numpy name.
#[track_caller]
pub fn around(x: impl Into<Operand>, decimals: i32) -> Tensor {
    let _line = crate::core::user_line();
    round(x, decimals)
}

/// The largest finite value of a float dtype.
fn finfo_max(dtype: DType) -> f64 {
    match dtype {
        DType::F16 => 65504.0,
        DType::BF16 => 3.389_531_389_251_535_5e38,
        DType::F32 => f64::from(f32::MAX),
        _ => f64::MAX,
    }
}

/// Round to the nearest integer, halves to even; integers and bools become the default
/// float.
#[track_caller]
pub fn rint(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    if !x.dtype().is_float() {
        return lax::convert_element_type(&x, Kind::Float.default_dtype());
    }
    lax::round_with(&x, RoundingMethod::ToNearestEven)
}

/// Round toward zero; integers and bools are returned as they are.
#[track_caller]
pub fn trunc(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    if !x.dtype().is_float() {
        return x;
    }
    let neg = lax::lt(&x, &scalar_tensor(0.0, x.dtype()));
    where_(neg, lax::ceil(&x), lax::floor(&x))
}

/// Whether each element is finite (neither infinite nor NaN); all true for integers.
#[track_caller]
pub fn isfinite(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    if x.dtype().is_float() {
        lax::is_finite(&x)
    } else {
        bools_like(&x, true)
    }
}

/// Whether `x` equals `inf` (a float) elementwise; all false for integers.
#[track_caller]
fn is_inf_of_sign(x: Operand, inf: f64) -> Tensor {
    let x = x.into_tensor();
    if x.dtype().is_float() {
        lax::eq(&x, &scalar_tensor(inf, x.dtype()))
    } else {
        bools_like(&x, false)
    }
}

/// Whether each element is `+inf`.
#[track_caller]
pub fn isposinf(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    is_inf_of_sign(x.into(), f64::INFINITY)
}

/// Whether each element is `-inf`.
#[track_caller]
pub fn isneginf(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    is_inf_of_sign(x.into(), f64::NEG_INFINITY)
}

/// Whether the sign bit is set (true for `-0.0` and negative NaNs; `x < 0` for integers,
/// false for bools).
#[track_caller]
pub fn signbit(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    let bits = match x.dtype() {
        DType::Bool => return bools_like(&x, false),
        d if d.is_int() => x.clone(),
        DType::F64 => lax::bitcast_convert_type(&x, DType::I64),
        DType::F32 => lax::bitcast_convert_type(&x, DType::I32),
        _ => lax::bitcast_convert_type(&x, DType::I16),
    };
    lax::lt(&bits, &scalar_tensor(0.0, bits.dtype()))
}

/// NaN replaced by `nan`, `+inf` by `posinf` and `-inf` by `neginf` (`None`: the dtype's
/// largest and smallest finite values); non-float arrays are returned as they are.
#[track_caller]
pub fn nan_to_num(
    x: impl Into<Operand>,
    nan: f64,
    posinf: Option<f64>,
    neginf: Option<f64>,
) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    let dtype = x.dtype();
    if !dtype.is_float() {
        return x;
    }
    let max = finfo_max(dtype);
    let c = |v: f64| scalar_tensor(v, dtype);
    let out = where_(lax::ne(&x, &x), c(nan), &x);
    let out = where_(
        lax::eq(&out, &c(f64::INFINITY)),
        c(posinf.unwrap_or(max)),
        &out,
    );
    where_(
        lax::eq(&out, &c(f64::NEG_INFINITY)),
        c(neginf.unwrap_or(-max)),
        &out,
    )
}

/// `|x1|` with the sign bit of `x2`.
#[track_caller]
pub fn copysign(x1: impl Into<Operand>, x2: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_inexact("copysign", &[x1.into(), x2.into()]);
    let a = lax::abs(&t[0]);
    where_(signbit(&t[1]), lax::neg(&a), a)
}

/// The next float after `x1` toward `x2`.
#[track_caller]
pub fn nextafter(x1: impl Into<Operand>, x2: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_inexact("nextafter", &[x1.into(), x2.into()]);
    lax::nextafter(&t[0], &t[1])
}

/// Remainder with the dividend's sign (C's `fmod`); an integer divisor of 0 is replaced by
/// 1 (the result is 0), as in JAX.
#[track_caller]
pub fn fmod(x1: impl Into<Operand>, x2: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote("fmod", &[x1.into(), x2.into()]);
    let (x, y) = (&t[0], &t[1]);
    let y = if y.dtype().is_float() {
        y.clone()
    } else {
        let c = |v: f64| scalar_tensor(v, y.dtype());
        where_(lax::eq(y, &c(0.0)), c(1.0), y)
    };
    lax::rem(x, &y)
}

/// The larger of two, ignoring NaN (`x1` where `x1 > x2` or `x2` is NaN).
#[track_caller]
pub fn fmax(x1: impl Into<Operand>, x2: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote("fmax", &[x1.into(), x2.into()]);
    let take = lax::or(&lax::gt(&t[0], &t[1]), &crate::numpy::isnan(&t[1]));
    where_(take, &t[0], &t[1])
}

/// The smaller of two, ignoring NaN (`x1` where `x1 < x2` or `x2` is NaN).
#[track_caller]
pub fn fmin(x1: impl Into<Operand>, x2: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote("fmin", &[x1.into(), x2.into()]);
    let take = lax::or(&lax::lt(&t[0], &t[1]), &crate::numpy::isnan(&t[1]));
    where_(take, &t[0], &t[1])
}

/// The Heaviside step: 0 below zero, 1 above, `x2` at zero (NaN stays NaN).
#[track_caller]
pub fn heaviside(x1: impl Into<Operand>, x2: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let (x1, x2) = (x1.into(), x2.into());
    let dtype = crate::numpy::result_type(&[x1.clone(), x2.clone()]);
    let dtype = if dtype.is_float() {
        dtype
    } else {
        Kind::Float.default_dtype()
    };
    let (x1, x2) = (
        x1.to_tensor_in("heaviside", dtype),
        x2.to_tensor_in("heaviside", dtype),
    );
    let c = |v: f64| scalar_tensor(v, dtype);
    let at_zero = where_(lax::ne(&x1, &x1), &x1, &x2);
    let above = where_(lax::gt(&x1, &c(0.0)), c(1.0), at_zero);
    where_(lax::lt(&x1, &c(0.0)), c(0.0), above)
}

/// `x1 ** x2` in floating point (integers become the default float first).
#[track_caller]
pub fn float_power(x1: impl Into<Operand>, x2: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_inexact("float_power", &[x1.into(), x2.into()]);
    lax::pow(&t[0], &t[1])
}

/// `x * x` (bools become the default integer).
#[track_caller]
pub fn square(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    let x = if x.dtype() == DType::Bool {
        lax::convert_element_type(&x, Kind::Int.default_dtype())
    } else {
        x
    };
    lax::square(&x)
}

/// `1 / x` in floating point (`integer_pow(x, -1)`).
#[track_caller]
pub fn reciprocal(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    lax::integer_pow(&inexact(&x.into().into_tensor()), -1)
}

/// `+x`: the array itself.
#[track_caller]
pub fn positive(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    x.into().into_tensor()
}
