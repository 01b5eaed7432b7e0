//! `jax.lax` and `jax.numpy`: elementwise functions (trigonometric, hyperbolic, rounding,
//! bits, special functions) and small lax helpers. One row a golden case of
//! `scripts/surface/tables/lax_elementwise.py`.
//!
//! `nofd` rows: `digamma_edges` (negative inputs), whose derivative is JAX's `polygamma(1,
//! x)`, which XLA computes from the Hurwitz zeta function with a negative `q`, not the true
//! trigamma; oxla computes it as XLA does, so JAX's cotangents match and finite differences
//! do not. Rows whose outputs hold NaN where their derivative is defined (`where` and
//! selection around the edge inputs: `copysign_edges`, `fmax_fmin_edges`,
//! `heaviside_edges`, `nan_to_num_edges`, `igamma_edges`), so that the finite-difference objective is NaN
//! while the cotangents are not; and the rounding rows (`round_methods`, `numpy_round`,
//! `numpy_round_decimals`), piecewise constant with inputs on or near the jumps.
//!
//! Deviation: oxla's `div` differentiates `x / y` as `-(t / y) * (x / y)` where JAX has
//! `-t * x * y^-2`, which overflows in f32 for `|y|` past about `1.8e19`; cotangents of
//! functions built on a division (`hypot`, `sinc`) can then differ from JAX's there (oxla's
//! are the accurate ones), so the rows keep their inputs below that.

use oxla::lax::{self, RoundingMethod};
use oxla::numpy as jnp;

surface! {
    erf_edges: |a| vec![lax::erf(&a[0])];
    erfc_edges: |a| vec![lax::erfc(&a[0])];
    erf_f64: |a| vec![lax::erf(&a[0]), lax::erfc(&a[0])];
    lgamma_edges: |a| vec![lax::lgamma(&a[0])];
    lgamma_f64: |a| vec![lax::lgamma(&a[0])];
    digamma: |a| vec![lax::digamma(&a[0])];
    digamma_edges [nofd]: |a| vec![lax::digamma(&a[0])];
    digamma_f64: |a| vec![lax::digamma(&a[0])];
    polygamma_orders: |a| vec![lax::polygamma(&m_rows(&a[0]), &a[0])];
    polygamma_edges [nograd]: |a| vec![lax::polygamma(&a[0], &a[1])];
    polygamma_f64: |a| vec![lax::polygamma(&oxla::numpy::full_like(&a[0], 2.0), &a[0])];
    zeta [nograd]: |a| vec![lax::zeta(&a[0], &a[1])];
    zeta_f64 [nograd]: |a| vec![lax::zeta(&a[0], &a[1])];

    tan_edges: |a| vec![lax::tan(&a[0])];
    asin_acos_edges: |a| vec![lax::asin(&a[0]), lax::acos(&a[0])];
    atan_sinh_cosh_edges: |a| vec![lax::atan(&a[0]), lax::sinh(&a[0]), lax::cosh(&a[0])];
    asinh_edges: |a| vec![lax::asinh(&a[0])];
    acosh_edges: |a| vec![lax::acosh(&a[0])];
    atanh_edges: |a| vec![lax::atanh(&a[0])];
    atan2_edges: |a| vec![lax::atan2(&a[0], &a[1])];
    trig_f64: |a| {
        let (x, y) = (&a[0], &a[1]);
        vec![
            lax::tan(x), lax::asin(x), lax::acos(x), lax::atan(x), lax::sinh(y), lax::cosh(y),
            lax::asinh(y), lax::acosh(y), lax::atanh(x), lax::atan2(x, y),
        ]
    };
    numpy_trig: |a| {
        let (x, y) = (&a[0], &a[1]);
        vec![
            jnp::tan(x), jnp::arcsin(x), jnp::asin(x), jnp::arccos(x), jnp::acos(x),
            jnp::arctan(x), jnp::atan(x), jnp::sinh(x), jnp::cosh(x), jnp::arcsinh(x),
            jnp::asinh(x), jnp::arccosh(y), jnp::acosh(y), jnp::arctanh(x), jnp::atanh(x),
            jnp::arctan2(x, y), jnp::atan2(y, x),
        ]
    };
    numpy_trig_int: |a| {
        let x = &a[0];
        vec![jnp::tan(x), jnp::arctan2(x, 2), jnp::sinh(x), jnp::deg2rad(x)]
    };
    angles: |a| {
        let x = &a[0];
        vec![jnp::deg2rad(x), jnp::radians(x), jnp::rad2deg(x), jnp::degrees(x)]
    };
    hypot_edges: |a| vec![jnp::hypot(&a[0], &a[1])];
    sinc_edges: |a| vec![jnp::sinc(&a[0])];
    sinc_zero: |a| vec![jnp::sinc(&a[0])];

    expm1_exp2_edges: |a| {
        let x = &a[0];
        vec![lax::expm1(x), lax::exp2(x), jnp::expm1(x), jnp::exp2(x)]
    };
    log2_log10_edges: |a| vec![jnp::log2(&a[0]), jnp::log10(&a[0])];
    exp_log_f64: |a| {
        let x = &a[0];
        vec![
            lax::expm1(x), lax::exp2(x), jnp::log2(x), jnp::log10(x), lax::square(x),
            lax::reciprocal(x),
        ]
    };
    square_reciprocal: |a| {
        let x = &a[0];
        vec![lax::square(x), lax::reciprocal(x), jnp::square(x), jnp::reciprocal(x)]
    };
    square_int: |a| {
        let x = &a[0];
        vec![lax::square(x), jnp::square(x), jnp::reciprocal(x)]
    };
    round_methods [nofd]: |a| {
        let x = &a[0];
        vec![
            lax::round(x),
            lax::round_with(x, RoundingMethod::AwayFromZero),
            lax::round_with(x, RoundingMethod::ToNearestEven),
            lax::ceil(x),
            lax::floor(x),
        ]
    };
    numpy_round [nofd]: |a| {
        let x = &a[0];
        vec![jnp::round(x, 0), jnp::around(x, 0), jnp::rint(x), jnp::trunc(x), jnp::ceil(x)]
    };
    numpy_round_decimals [nofd]: |a| {
        let x = &a[0];
        vec![jnp::round(x, 2), jnp::round(x, -1), jnp::around(x, 1), jnp::round(x, 40)]
    };
    numpy_round_int: |a| {
        let x = &a[0];
        vec![jnp::round(x, 0), jnp::round(x, 2), jnp::rint(x), jnp::trunc(x)]
    };

    classify_edges: |a| {
        let x = &a[0];
        vec![
            lax::is_finite(x), jnp::isfinite(x), jnp::isinf(x), jnp::isnan(x), jnp::isposinf(x),
            jnp::isneginf(x), jnp::signbit(x),
        ]
    };
    classify_int: |a| {
        let x = &a[0];
        vec![jnp::isfinite(x), jnp::isposinf(x), jnp::isneginf(x), jnp::signbit(x)]
    };
    nan_to_num_edges [nofd]: |a| {
        let x = &a[0];
        vec![jnp::nan_to_num(x, 0.0, None, None), jnp::nan_to_num(x, 1.5, Some(9.0), Some(-9.0))]
    };
    copysign_edges [nofd]: |a| vec![jnp::copysign(&a[0], &a[1])];
    nextafter_edges [nograd]: |a| {
        vec![jnp::nextafter(&a[0], &a[1]), lax::nextafter(&a[0], &a[1])]
    };
    fmod_remainder: |a| vec![jnp::fmod(&a[0], &a[1]), jnp::remainder(&a[0], &a[1])];
    fmod_int: |a| vec![jnp::fmod(&a[0], &a[1]), jnp::remainder(&a[0], &a[1])];
    heaviside_edges [nofd]: |a| vec![jnp::heaviside(&a[0], &a[1]), jnp::heaviside(&a[0], 0.5)];
    float_power: |a| vec![jnp::float_power(&a[0], &a[1])];
    fmax_fmin_edges [nofd]: |a| vec![jnp::fmax(&a[0], &a[1]), jnp::fmin(&a[0], &a[1])];
    positive_negative: |a| {
        vec![jnp::positive(&a[0]), jnp::negative(&a[0]), jnp::positive(&a[1]), jnp::negative(&a[1])]
    };

    shifts_i32: |a| shifts(&a[0], &a[1]);
    shifts_u32: |a| shifts(&a[0], &a[1]);
    popcount_clz: |a| {
        let x = &a[0];
        vec![lax::population_count(x), lax::clz(x), jnp::bitwise_count(x)]
    };
    popcount_clz_u32: |a| {
        let x = &a[0];
        vec![lax::population_count(x), lax::clz(x), jnp::bitwise_count(x)]
    };
    igamma_igammac: |a| vec![lax::igamma(&a[0], &a[1]), lax::igammac(&a[0], &a[1])];
    igamma_edges [nofd]: |a| vec![lax::igamma(&a[0], &a[1]), lax::igammac(&a[0], &a[1])];
    igamma_f64: |a| vec![lax::igamma(&a[0], &a[1]), lax::igammac(&a[0], &a[1])];
    igamma_grad_a [nograd]: |a| {
        vec![lax::igamma_grad_a(&a[0], &a[1]), lax::random_gamma_grad(&a[0], &a[1])]
    };
    igamma_grad_a_f64 [nograd]: |a| {
        vec![lax::igamma_grad_a(&a[0], &a[1]), lax::random_gamma_grad(&a[0], &a[1])]
    };
    bessel_edges: |a| vec![lax::bessel_i0e(&a[0]), lax::bessel_i1e(&a[0])];
    bessel_f64: |a| vec![lax::bessel_i0e(&a[0]), lax::bessel_i1e(&a[0])];
    erf_inv_edges: |a| vec![lax::erf_inv(&a[0])];
    gcd_lcm: |a| vec![jnp::gcd(&a[0], &a[1]), jnp::lcm(&a[0], &a[1]), jnp::gcd(&a[0], 6)];
}

/// The lax and numpy shifts of `x` by `s`.
fn shifts(x: &oxla::Tensor, s: &oxla::Tensor) -> Vec<oxla::Tensor> {
    vec![
        lax::shift_left(x, s),
        lax::shift_right_logical(x, s),
        lax::shift_right_arithmetic(x, s),
        jnp::left_shift(x, s),
        jnp::right_shift(x, s),
    ]
}

/// The orders 0, 1, 2, 3 down the rows of `x`'s shape.
fn m_rows(x: &oxla::Tensor) -> oxla::Tensor {
    let m = lax::iota(x.dtype(), x.shape(), 0);
    lax::stop_gradient(&m)
}
