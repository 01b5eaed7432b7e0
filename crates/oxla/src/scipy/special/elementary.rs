//! The special functions built from elementary ones: `xlogy`, `xlog1py`, `entr`,
//! `rel_entr`, `kl_div`, `expit`, `logit`, `spence`, with JAX's custom derivatives.

use super::{float1, float2, polyval};
use crate::core::Tensor;
use crate::nn::custom::with_jvp;
use crate::numpy::{self as jnp, Operand};
use crate::ops as lax;

/// `x * log(y)`, 0 where `x == 0` (unless `y` is NaN), with JAX's derivative
/// `dx * log(y) + dy * x / y` (defined at `x == 0`).
#[track_caller]
pub fn xlogy(x: impl Into<Operand>, y: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let (x, y) = float2("xlogy", x, y);
    let value = xlogy_value(&x, &y, jnp::log(&y));
    with_jvp(&value, &[(&x, jnp::log(&y)), (&y, &x / &y)])
}

/// `x * log_y` where `x != 0` or `y` is NaN, else 0.
#[track_caller]
fn xlogy_value(x: &Tensor, y: &Tensor, log_y: Tensor) -> Tensor {
    let keep = jnp::logical_or(jnp::not_equal(x, 0), jnp::isnan(y));
    jnp::where_(keep, x * log_y, jnp::zeros_like(x))
}

/// `x * log(1 + y)`, 0 where `x == 0` (unless `y` is NaN), with JAX's derivative
/// `dx * log1p(y) + dy * x / (1 + y)` (0 in `y` at `x == 0`).
#[track_caller]
pub fn xlog1py(x: impl Into<Operand>, y: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let (x, y) = float2("xlog1py", x, y);
    let value = xlogy_value(&x, &y, jnp::log1p(&y));
    with_jvp(&value, &[(&x, jnp::log1p(&y)), (&y, &x / (&y + 1.0))])
}

/// `x * log(x)` (0 at 0) with the derivative `log(x) + 1`.
#[track_caller]
fn xlogx(x: &Tensor) -> Tensor {
    let value = xlogy_value(x, x, jnp::log(x));
    with_jvp(&value, &[(x, jnp::log(x) + 1.0)])
}

/// The entropy term: `-x log(x)` for `x > 0`, 0 at 0, `-inf` below.
#[track_caller]
pub fn entr(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = float1(x);
    jnp::where_(jnp::less(&x, 0), f64::NEG_INFINITY, -xlogx(&x))
}

/// The relative entropy term: `p log(p / q)` for `p, q > 0`, 0 at `p == 0, q >= 0`, `inf`
/// otherwise.
#[track_caller]
pub fn rel_entr(p: impl Into<Operand>, q: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let (p, q) = float2("rel_entr", p, q);
    let both = jnp::logical_and(jnp::greater(&p, 0), jnp::greater(&q, 0));
    let one_zero = jnp::logical_and(jnp::equal(&p, 0), jnp::greater_equal(&q, 0));
    let safe_p = jnp::where_(&both, &p, 1);
    let safe_q = jnp::where_(&both, &q, 1);
    let log_val = xlogx(&safe_p) - xlogy(&safe_p, &safe_q);
    jnp::where_(both, log_val, jnp::where_(one_zero, 0.0, f64::INFINITY))
}

/// The Kullback-Leibler term: `rel_entr(p, q) - p + q`.
#[track_caller]
pub fn kl_div(p: impl Into<Operand>, q: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let (p, q) = float2("kl_div", p, q);
    rel_entr(&p, &q) - &p + &q
}

/// The logistic sigmoid `1 / (1 + exp(-x))`.
#[track_caller]
pub fn expit(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    lax::logistic(&float1(x))
}

/// `log(x / (1 - x))`, with JAX's derivative `1 / (x (1 - x))`.
#[track_caller]
pub fn logit(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = float1(x);
    let one_minus = 1.0 - &x;
    let value = jnp::log(&x / &one_minus);
    with_jvp(&value, &[(&x, 1.0 / (&x * &one_minus))])
}

/// Spence's function (the real dilogarithm) `∫_1^x log(t) / (1 - t) dt`, by Cephes'
/// rational approximation as JAX; NaN for `x < 0`.
#[track_caller]
pub fn spence(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = float1(x);
    let pi2_6 = std::f64::consts::PI.powi(2) / 6.0;
    // The special points, and the approximation on a safe argument elsewhere.
    let exact = jnp::logical_or(jnp::equal(&x, 0), jnp::equal(&x, 1));
    let negative = jnp::less(&x, 0);
    let safe = jnp::where_(jnp::logical_or(&negative, &exact), 0.5, &x);
    let calc = spence_calc(&safe);
    let at_points = jnp::where_(
        &negative,
        f64::NAN,
        jnp::where_(jnp::equal(&x, 1), 0.0, pi2_6),
    );
    jnp::where_(jnp::logical_or(negative, exact), at_points, calc)
}

/// Spence's function for `x > 0`, `x != 1`.
#[track_caller]
#[allow(clippy::excessive_precision)]
fn spence_calc(x: &Tensor) -> Tensor {
    const A: [f64; 8] = [
        4.651_285_860_739_900_452_78e-5,
        7.315_890_452_380_947_110_71e-3,
        1.338_476_395_783_090_186_50e-1,
        8.796_913_117_545_303_153_41e-1,
        2.711_498_511_965_534_699_20e0,
        4.256_971_560_081_217_557_24e0,
        3.297_713_409_852_251_069_36e0,
        1.000_000_000_000_000_001_26e0,
    ];
    const B: [f64; 8] = [
        6.909_904_889_125_532_769_99e-4,
        2.540_437_639_325_443_791_13e-2,
        2.829_748_606_025_680_899_43e-1,
        1.411_725_977_518_310_696_17e0,
        3.638_005_333_451_370_754_18e0,
        5.032_788_801_433_169_903_90e0,
        3.547_713_409_852_250_962_17e0,
        9.999_999_999_999_999_987_40e-1,
    ];
    let above2 = jnp::greater(x, 2);
    let x = &jnp::where_(&above2, 1.0 / x, x);
    let above15 = jnp::greater(x, 1.5);
    let below05 = jnp::less(x, 0.5);
    let flip = jnp::logical_or(above2, &above15);
    let w = jnp::where_(&above15, 1.0 / x - 1.0, jnp::where_(&below05, -x, x - 1.0));
    let y = -&w * polyval(&A, &w) / polyval(&B, &w);
    let pi2_6 = std::f64::consts::PI.powi(2) / 6.0;
    let y_small = pi2_6 - jnp::log(x) * jnp::log(1.0 - x) - &y;
    let y = jnp::where_(below05, y_small, y);
    let log_x = jnp::log(x);
    let y_flipped = -0.5 * (&log_x * &log_x) - &y;
    jnp::where_(flip, y_flipped, y)
}
