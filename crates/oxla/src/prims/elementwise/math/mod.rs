//! The scalar functions of the special elementwise primitives, in `f64` (the lane kernels
//! call them for every float dtype and round the result): the error functions, the gamma
//! family (`lgamma`, `digamma`, `polygamma`, Hurwitz `zeta`), the regularized incomplete
//! gamma functions and the scaled Bessel functions `i0e`/`i1e`, with JAX's (XLA's) answers
//! at poles and outside the domain.

use crate::array::DType;

mod bessel;
mod gamma;
mod incomplete;

pub(crate) use bessel::{bessel_i0e, bessel_i1e};
pub(crate) use gamma::{digamma, lgamma, polygamma, zeta};
pub(crate) use incomplete::{igamma, igamma_grad_a, igammac, random_gamma_grad};

/// The error function.
pub(crate) fn erf(x: f64) -> f64 {
    libm::erf(x)
}

/// The complementary error function `1 - erf(x)`, accurate where `erf(x)` is near 1.
pub(crate) fn erfc(x: f64) -> f64 {
    libm::erfc(x)
}

/// The bits of a float of `dtype` rounded, as XLA's `reduce_precision` does, to a float with
/// `exponent_bits` and `mantissa_bits`: the mantissa to nearest (ties to even), then
/// exponents out of range to `±inf` or `±0`; NaN stays NaN.
pub(crate) fn reduce_precision(
    bits: u64,
    dtype: DType,
    exponent_bits: u32,
    mantissa_bits: u32,
) -> u64 {
    let (src_e, src_m) = match dtype {
        DType::F16 => (5, 10),
        DType::BF16 => (8, 7),
        DType::F32 => (8, 23),
        _ => (11, 52),
    };
    let width = 1 + src_e + src_m;
    let exp_mask = ((1u64 << src_e) - 1) << src_m;
    let is_nan = bits & exp_mask == exp_mask && bits & ((1u64 << src_m) - 1) != 0;
    let mut x = bits;
    if mantissa_bits < src_m {
        let shift = src_m - mantissa_bits;
        let last = 1u64 << shift;
        let bias = (last >> 1) - 1 + ((x & last) >> shift);
        x = x.wrapping_add(bias) & !(last - 1);
    }
    if exponent_bits < src_e {
        let sign = x & (1u64 << (width - 1));
        let exp_bias = (1u64 << (src_e - 1)) - 1;
        let reduced_bias = (1u64 << (exponent_bits - 1)) - 1;
        let exponent = x & exp_mask;
        if exponent > (exp_bias + reduced_bias) << src_m {
            x = sign | exp_mask;
        } else if exponent <= (exp_bias - reduced_bias) << src_m {
            x = sign;
        }
    }
    let x = x & (u64::MAX >> (64 - width));
    if is_nan && mantissa_bits < src_m {
        bits
    } else {
        x
    }
}
