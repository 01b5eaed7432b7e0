//! The normal distribution's functions: `ndtri` (and, with `erf`, `ndtr` and `log_ndtr`).

use super::{float1, polyval};
use crate::array::DType;
use crate::core::Tensor;
use crate::nn::custom::with_jvp;
use crate::numpy::{self as jnp, scalar_tensor, Operand};
use crate::ops as lax;

// Cephes' rational approximations of the inverse normal CDF, as JAX's `ndtri` uses them.
#[allow(clippy::excessive_precision)]
const P0: [f64; 5] = [
    -5.99633501014107895267e1,
    9.80010754185999661536e1,
    -5.66762857469070293439e1,
    1.39312609387279679503e1,
    -1.23916583867381258016e0,
];
#[allow(clippy::excessive_precision)]
const Q0: [f64; 9] = [
    1.0,
    1.95448858338141759834e0,
    4.67627912898881538453e0,
    8.63602421390890590575e1,
    -2.25462687854119370527e2,
    2.00260212380060660359e2,
    -8.20372256168333339912e1,
    1.59056225126211695515e1,
    -1.18331621121330003142e0,
];
#[allow(clippy::excessive_precision)]
const P1: [f64; 9] = [
    4.05544892305962419923e0,
    3.15251094599893866154e1,
    5.71628192246421288162e1,
    4.40805073893200834700e1,
    1.46849561928858024014e1,
    2.18663306850790267539e0,
    -1.40256079171354495875e-1,
    -3.50424626827848203418e-2,
    -8.57456785154685413611e-4,
];
#[allow(clippy::excessive_precision)]
const Q1: [f64; 9] = [
    1.0,
    1.57799883256466749731e1,
    4.53907635128879210584e1,
    4.13172038254672030440e1,
    1.50425385692907503408e1,
    2.50464946208309415979e0,
    -1.42182922854787788574e-1,
    -3.80806407691578277194e-2,
    -9.33259480895457427372e-4,
];
#[allow(clippy::excessive_precision)]
const P2: [f64; 9] = [
    3.23774891776946035970e0,
    6.91522889068984211695e0,
    3.93881025292474443415e0,
    1.33303460815807542389e0,
    2.01485389549179081538e-1,
    1.23716634817820021358e-2,
    3.01581553508235416007e-4,
    2.65806974686737550832e-6,
    6.23974539184983293730e-9,
];
#[allow(clippy::excessive_precision)]
const Q2: [f64; 9] = [
    1.0,
    6.02427039364742014255e0,
    3.67983563856160859403e0,
    1.37702099489081330271e0,
    2.16236993594496635890e-1,
    1.34204006088543189037e-2,
    3.28014464682127739104e-4,
    2.89247864745380683936e-6,
    6.79019408009981274425e-9,
];

/// The inverse of the standard normal CDF: the `x` with `ndtr(x) == p`, by Cephes' rational
/// approximations as JAX (`-inf` at 0, `inf` at 1, NaN outside `[0, 1]`).
#[track_caller]
pub fn ndtri(p: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let p = &float1(p);
    let e2 = (-2.0f64).exp();
    let high = jnp::greater(p, 1.0 - e2);
    let mcp = jnp::where_(&high, 1.0 - p, p);
    let mcp = &jnp::where_(jnp::equal(&mcp, 0), 0.5, &mcp);
    let w = &(mcp - 0.5);
    let ww = &(w * w);
    let x_big =
        (w + w * ww * (polyval(&P0, ww) / polyval(&Q0, ww))) * -(2.0 * std::f64::consts::PI).sqrt();
    let z = &jnp::sqrt(-2.0 * jnp::log(mcp));
    let first = z - jnp::log(z) / z;
    let inv = &(1.0 / z);
    let small = polyval(&P2, inv) / polyval(&Q2, inv) / z;
    let other = polyval(&P1, inv) / polyval(&Q1, inv) / z;
    let x_small = jnp::where_(jnp::greater_equal(z, 8), &first - small, &first - other);
    let x = jnp::where_(jnp::greater(mcp, e2), x_big, x_small);
    let x = jnp::where_(high, &x, -&x);
    jnp::where_(
        jnp::equal(p, 0),
        f64::NEG_INFINITY,
        jnp::where_(jnp::equal(p, 1), f64::INFINITY, x),
    )
}

/// The standard normal CDF, `erfc(-x / sqrt(2)) / 2`, through `erf` near 0 and `erfc` in
/// the tails as JAX.
#[track_caller]
pub fn ndtr(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    ndtr_of(&float1(x))
}

#[track_caller]
fn ndtr_of(x: &Tensor) -> Tensor {
    let half_sqrt_2 = scalar_tensor(0.5 * 2f64.sqrt(), x.dtype());
    let w = &(x * &half_sqrt_2);
    let z = &jnp::abs(w);
    let near = lax::erf(w) + 1.0;
    let erfc_z = &lax::erfc(z);
    let tail = jnp::where_(jnp::greater(w, 0), 2.0 - erfc_z, erfc_z);
    0.5 * jnp::where_(jnp::less(z, &half_sqrt_2), near, tail)
}

/// `log(ndtr(x))`, accurate in both tails as JAX: `-ndtr(-x)` above 5 (8 in f64), the log
/// of `ndtr` down to -10 (-20), and the asymptotic series of order `series_order` (JAX's
/// default is 3; at most 30) below; with JAX's derivative `exp(log_pdf(x) - log_ndtr(x))`.
#[track_caller]
pub fn log_ndtr(x: impl Into<Operand>, series_order: usize) -> Tensor {
    let _line = crate::core::user_line();
    if series_order > 30 {
        panic!(
            "log_ndtr: series_order must be <= 30, got {series_order}\n  at {}",
            std::panic::Location::caller()
        );
    }
    let x = &float1(x);
    let (lower, upper) = if x.dtype() == DType::F64 {
        (-20.0, 8.0)
    } else {
        (-10.0, 5.0)
    };
    let xs = &lax::stop_gradient(x);
    let above = &jnp::greater(xs, upper);
    let arg = jnp::where_(above, -xs, jnp::maximum(xs, lower));
    let nd = &ndtr_of(&arg);
    let series = log_ndtr_lower(&jnp::minimum(xs, lower), series_order);
    let value = jnp::where_(
        above,
        -nd,
        jnp::where_(jnp::greater(xs, lower), jnp::log(nd), series),
    );
    let log_pdf = -0.5 * (x * x) - (2.0 * std::f64::consts::PI).sqrt().ln();
    let slope = jnp::exp(log_pdf - &value);
    with_jvp(&value, &[(x, slope)])
}

/// The asymptotic expansion of `log(ndtr(x))` for `x << -1`.
#[track_caller]
fn log_ndtr_lower(x: &Tensor, order: usize) -> Tensor {
    let x2 = &(x * x);
    let log_scale = -0.5 * x2 - jnp::log(-x) - 0.5 * (2.0 * std::f64::consts::PI).ln();
    let mut even = jnp::zeros_like(x);
    let mut odd = jnp::zeros_like(x);
    let mut x2n = x2.clone();
    for n in 1..=order {
        // (2n - 1)!!, exact in f64 for n <= 30 up to rounding.
        let double_factorial: f64 = (1..2 * n).step_by(2).map(|k| k as f64).product();
        let y = scalar_tensor(double_factorial, x.dtype()) / &x2n;
        if n % 2 == 1 {
            odd = odd + y;
        } else {
            even = even + y;
        }
        x2n = &x2n * x2;
    }
    log_scale + jnp::log(even + 1.0 - odd)
}
