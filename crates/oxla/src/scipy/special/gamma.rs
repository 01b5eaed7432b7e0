//! The error and gamma families over the primitives `erf`, `erfc`, `erf_inv`, `lgamma`,
//! `digamma`, `polygamma` and `zeta`: `erf` ... `zeta`, and `gamma`, `gammasgn`,
//! `factorial`, `beta`, `betaln`, `poch`, `multigammaln` composed from them as JAX does.

use super::{float1, float2};
use crate::core::Tensor;
use crate::nn::custom::with_jvp;
use crate::numpy::{self as jnp, Operand};
use crate::ops as lax;

/// The error function (the `erf` primitive).
#[track_caller]
pub fn erf(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    lax::erf(&float1(x))
}

/// The complementary error function `1 - erf(x)` (the `erfc` primitive).
#[track_caller]
pub fn erfc(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    lax::erfc(&float1(x))
}

/// The inverse error function (the `erf_inv` primitive).
#[track_caller]
pub fn erfinv(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    lax::erf_inv(&float1(x))
}

/// `log|Γ(x)|` (the `lgamma` primitive).
#[track_caller]
pub fn gammaln(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    lax::lgamma(&float1(x))
}

/// The digamma function `Γ'(x) / Γ(x)` (the `digamma` primitive).
#[track_caller]
pub fn digamma(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    lax::digamma(&float1(x))
}

/// The `n`-th derivative of digamma at `x`; `n` must be an integer tensor or scalar, and
/// only `x` is differentiated (as in JAX).
#[track_caller]
pub fn polygamma(n: impl Into<Operand>, x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let n = n.into();
    if n.dtype().is_float() || n.dtype() == crate::array::DType::Bool {
        panic!(
            "polygamma: the order n must be of integer type, got {:?}\n  at {}",
            n.dtype(),
            std::panic::Location::caller()
        );
    }
    let (n, x) = float2("polygamma", n, x);
    let n = lax::stop_gradient(&n);
    let [n, x] = same_shape(&n, &x);
    lax::polygamma(&n, &x)
}

/// The Hurwitz zeta function `sum_k (k + q)^-x` (the `zeta` primitive); differentiable in
/// `q` only (JAX differentiates in `x` through a series expansion, which oxla does not).
#[track_caller]
pub fn zeta(x: impl Into<Operand>, q: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let (x, q) = float2("zeta", x, q);
    let [x, q] = same_shape(&x, &q);
    lax::zeta(&x, &q)
}

/// Two tensors of one rank broadcast to one shape, as the binary primitives take them.
#[track_caller]
fn same_shape(a: &Tensor, b: &Tensor) -> [Tensor; 2] {
    let shape =
        crate::prims::broadcast_shapes(a.shape(), b.shape()).expect("checked by the promotion");
    [jnp::broadcast_to(a, &shape), jnp::broadcast_to(b, &shape)]
}

/// The sign of `Γ(x)`: 1 or -1, NaN at the poles (non-positive integers, `-0` giving -1)
/// and at NaN.
#[track_caller]
pub fn gammasgn(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &float1(x);
    let floor_x = &jnp::floor(x);
    let negative = &jnp::less(x, 0);
    let pole = jnp::logical_or(
        jnp::logical_and(negative, jnp::equal(x, floor_x)),
        jnp::isnan(x),
    );
    let odd = jnp::not_equal(jnp::remainder(floor_x, 2), 0);
    let minus_zero = jnp::logical_and(jnp::equal(x, 0), jnp::less(1.0 / x, 0));
    let minus = jnp::logical_or(jnp::logical_and(negative, odd), minus_zero);
    jnp::where_(pole, f64::NAN, jnp::where_(minus, -1.0, jnp::ones_like(x)))
}

/// The gamma function, `gammasgn(x) * exp(gammaln(x))`.
#[track_caller]
pub fn gamma(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &float1(x);
    gammasgn(x) * jnp::exp(lax::lgamma(x))
}

/// `n!` as `Γ(n + 1)` in floating point, 0 for negative `n` (JAX's `exact=False`).
#[track_caller]
pub fn factorial(n: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let n = &float1(n);
    jnp::where_(jnp::less(n, 0), 0.0, jnp::exp(lax::lgamma(&(n + 1.0))))
}

/// `log|B(a, b)|`, with scipy's `algdiv` correction for `max(a, b) >= 8` as JAX.
#[track_caller]
pub fn betaln(a: impl Into<Operand>, b: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let (a, b) = float2("betaln", a, b);
    let (a, b) = (jnp::minimum(&a, &b), jnp::maximum(&a, &b));
    let [a, b] = same_shape(&a, &b);
    let small_b = lax::lgamma(&a) + (lax::lgamma(&b) - lax::lgamma(&(&a + &b)));
    let large_b = lax::lgamma(&a) + algdiv(&a, &b);
    jnp::where_(jnp::less(&b, 8), small_b, large_b)
}

/// `log(Γ(b) / Γ(a + b))` for `b >= 8` and `a <= b` (scipy's `algdiv`).
#[track_caller]
fn algdiv(a: &Tensor, b: &Tensor) -> Tensor {
    const C: [f64; 6] = [
        0.833333333333333e-01,
        -0.277777777760991e-02,
        0.793650666825390e-03,
        -0.595202931351870e-03,
        0.837308034031215e-03,
        -0.165322962780713e-02,
    ];
    let h = &(a / b);
    let c = h / (h + 1.0);
    let x = &(h / (h + 1.0));
    let d = b + (a - 0.5);
    let x2 = &(x * x);
    let s3 = (x + x2) + 1.0;
    let s5 = (x + x2 * &s3) + 1.0;
    let s7 = (x + x2 * &s5) + 1.0;
    let s9 = (x + x2 * &s7) + 1.0;
    let s11 = (x + x2 * &s9) + 1.0;
    let t = &jnp::power(1.0 / b, 2);
    let w = ((((C[5] * &s11 * t + C[4] * &s9) * t + C[3] * &s7) * t + C[2] * &s5) * t + C[1] * &s3)
        * t
        + C[0];
    let w = w * (c / b);
    let u = &(d * jnp::log1p(a / b));
    let v = &(a * (jnp::log(b) - 1.0));
    jnp::where_(jnp::less_equal(u, v), (&w - v) - u, (&w - u) - v)
}

/// The beta function `B(a, b) = Γ(a) Γ(b) / Γ(a + b)`, signed.
#[track_caller]
pub fn beta(a: impl Into<Operand>, b: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let (a, b) = float2("beta", a, b);
    let sign = gammasgn(&a) * gammasgn(&b) * gammasgn(&(&a + &b));
    sign * jnp::exp(betaln(&a, &b))
}

/// The Pochhammer symbol `(z)_m = Γ(z + m) / Γ(z)` (1 at `m == 0`), with JAX's derivatives
/// `(digamma(z + m) - digamma(z)) poch` in `z` and `digamma(z + m) poch` in `m`.
#[track_caller]
pub fn poch(z: impl Into<Operand>, m: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let (z, m) = float2("poch", z, m);
    let zm = &(&z + &m);
    let value = jnp::where_(jnp::equal(&m, 0), 1.0, gamma(zm) / gamma(&z));
    let psi_zm = lax::digamma(zm);
    let dz = (&psi_zm - lax::digamma(&z)) * &value;
    let dm = psi_zm * &value;
    with_jvp(&value, &[(&z, dz), (&m, dm)])
}

/// The log of the multivariate gamma function of dimension `d`:
/// `d (d - 1) / 4 log(pi) + sum_{i < d} gammaln(a - i / 2)`.
#[track_caller]
pub fn multigammaln(a: impl Into<Operand>, d: usize) -> Tensor {
    let _line = crate::core::user_line();
    let a = &float1(a);
    let df = d as f64;
    let constant = 0.25 * df * (df - 1.0) * std::f64::consts::PI.ln();
    let b = jnp::astype(lax::iota(a.dtype(), &[d], 0), a.dtype()) / 2.0;
    let terms = lax::lgamma(&(jnp::expand_dims(a, -1) - b));
    jnp::sum(terms, -1) + constant
}
