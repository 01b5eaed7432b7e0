//! Continuous samplers built on `uniform` and `normal`, as JAX composes them: the same
//! uniform draws, transformed by the same formula in the same order of operations.
//!
//! Parameters are [`Operand`]s (a Rust number or a tensor broadcast against `shape`) and
//! are converted to `f32`; every sampler returns `f32`.

use super::{fma, normal, split2, uniform, uniform_range, unit};
use crate::array::DType;
use crate::core::Tensor;
use crate::numpy::{self as jnp, Operand};
use crate::ops as lax;

/// A parameter as an `f32` tensor.
fn param(x: impl Into<Operand>) -> Tensor {
    x.into().to_tensor(DType::F32)
}

/// Standard exponential values of `shape` (`jax.random.exponential`): `-log1p(-u)`.
#[track_caller]
pub fn exponential(key: &Tensor, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    let u = uniform(key, shape);
    lax::neg(&lax::log1p(&lax::neg(&u)))
}

/// Standard Gumbel values of `shape` (`jax.random.gumbel`, its default `mode="low"`):
/// `-log(-log(u))` for `u` uniform in `[tiny, 1)`.
#[track_caller]
pub fn gumbel(key: &Tensor, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    let u = uniform_range(key, shape, f32::MIN_POSITIVE as f64, 1.0, DType::F32);
    lax::neg(&lax::log(&lax::neg(&lax::log(&u))))
}

/// Standard Laplace values of `shape` (`jax.random.laplace`): `sign(u) * log1p(-|u|)` for
/// `u` uniform in `[-1 + 2^-24, 1)`.
#[track_caller]
pub fn laplace(key: &Tensor, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    let lo = -1.0 + f32::EPSILON as f64 / 2.0;
    let u = uniform_range(key, shape, lo, 1.0, DType::F32);
    lax::mul(&lax::sign(&u), &lax::log1p(&lax::neg(&lax::abs(&u))))
}

/// Standard logistic values of `shape` (`jax.random.logistic`): `log(u) - log1p(-u)` for
/// `u` uniform in `[tiny, 1)`.
#[track_caller]
pub fn logistic(key: &Tensor, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    let u = uniform_range(key, shape, f32::MIN_POSITIVE as f64, 1.0, DType::F32);
    lax::sub(&lax::log(&u), &lax::log1p(&lax::neg(&u)))
}

/// Standard Cauchy values of `shape` (`jax.random.cauchy`): `tan(pi * (u - 1/2))` for `u`
/// uniform in `[eps, 1)`, the tangent as `sin / cos`.
#[track_caller]
pub fn cauchy(key: &Tensor, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    let u = uniform_range(key, shape, f32::EPSILON as f64, 1.0, DType::F32);
    let x = (u - 0.5) * std::f64::consts::PI;
    lax::div(&lax::sin(&x), &lax::cos(&x))
}

/// Maxwell values of `shape` (`jax.random.maxwell`): the norm of three standard normals
/// drawn as the last axis of `shape + [3]`.
#[track_caller]
pub fn maxwell(key: &Tensor, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    let mut full = shape.to_vec();
    full.push(3);
    jnp::linalg::norm(normal(key, &full), -1)
}

/// Weibull values of `shape` (`jax.random.weibull_min`):
/// `(-log1p(-u)) ^ (1 / concentration) * scale`.
#[track_caller]
pub fn weibull_min(
    key: &Tensor,
    scale: impl Into<Operand>,
    concentration: impl Into<Operand>,
    shape: &[usize],
) -> Tensor {
    let _line = crate::core::user_line();
    let u = uniform(key, shape);
    let e = lax::neg(&lax::log1p(&lax::neg(&u)));
    // JAX divides a Python number in f64 before it meets the f32 samples.
    let inv = match concentration.into() {
        Operand::Scalar(c, _) => jnp::scalar_tensor(1.0 / c, DType::F32),
        t => 1.0 / t.to_tensor(DType::F32),
    };
    jnp::power(e, inv) * param(scale)
}

/// Pareto values of `shape` with shape parameter `b` (`jax.random.pareto`):
/// `exp(e / b)` for `e` standard exponential.
#[track_caller]
pub fn pareto(key: &Tensor, b: impl Into<Operand>, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    jnp::exp(exponential(key, shape) / param(b))
}

/// Log-normal values of `shape` (`jax.random.lognormal`): `exp(sigma * z)` for `z`
/// standard normal.
#[track_caller]
pub fn lognormal(key: &Tensor, sigma: impl Into<Operand>, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    jnp::exp(normal(key, shape) * param(sigma))
}

/// Rayleigh values of `shape` (`jax.random.rayleigh`): `scale * sqrt(-2 log u)`.
#[track_caller]
pub fn rayleigh(key: &Tensor, scale: impl Into<Operand>, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    let u = uniform(key, shape);
    let scale = jnp::broadcast_to(param(scale), shape);
    lax::mul(&scale, &jnp::sqrt(lax::log(&u) * -2.0))
}

/// Wald (inverse Gaussian) values of `shape` (`jax.random.wald`), by the
/// Michael–Schucany–Haas transformation of a normal (first split key) and a uniform
/// (second split key).
#[track_caller]
pub fn wald(key: &Tensor, mean: impl Into<Operand>, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    let (k1, k2) = split2(key);
    let mean = jnp::broadcast_to(param(mean), shape);
    let v = normal(&k1, shape);
    let z = uniform(&k2, shape);
    let y = lax::integer_pow(&v, 2);
    let y_sq = lax::integer_pow(&y, 2);
    let mean_sq = lax::integer_pow(&mean, 2);
    let sqrt_term = jnp::sqrt(&mean * 4.0 * &y + &mean_sq * &y_sq);
    let x = &mean + &mean_sq * &y / 2.0 - &mean / 2.0 * sqrt_term;
    let take_x = z.le(&mean / (&mean + &x));
    jnp::where_(take_x, &x, &mean_sq / &x)
}

/// Triangular values of `shape` on `[left, right]` with peak `mode`
/// (`jax.random.triangular`), by inverting the distribution function.
#[track_caller]
pub fn triangular(
    key: &Tensor,
    left: impl Into<Operand>,
    mode: impl Into<Operand>,
    right: impl Into<Operand>,
    shape: &[usize],
) -> Tensor {
    let _line = crate::core::user_line();
    let left = jnp::broadcast_to(param(left), shape);
    let right = jnp::broadcast_to(param(right), shape);
    let mode = jnp::broadcast_to(param(mode), shape);
    let fc = (&mode - &left) / (&right - &left);
    let u = uniform(key, shape);
    let out1 = &left + jnp::sqrt(&u * (&right - &left) * (&mode - &left));
    let out2 = &right - jnp::sqrt((1.0 - &u) * (&right - &left) * (&right - &mode));
    jnp::where_(u.lt(&fc), out1, out2)
}

/// Standard normal values of `shape` truncated to `(lower, upper)`, `f32`
/// (`jax.random.truncated_normal`): `sqrt(2) erf_inv(u)` for `u` uniform between
/// `erf(lower / sqrt 2)` and `erf(upper / sqrt 2)`, clipped inside the open interval.
#[track_caller]
pub fn truncated_normal(
    key: &Tensor,
    lower: impl Into<Operand>,
    upper: impl Into<Operand>,
    shape: &[usize],
) -> Tensor {
    let _line = crate::core::user_line();
    let sqrt2 = jnp::scalar_tensor(std::f64::consts::SQRT_2, DType::F32);
    let (lower, upper) = (param(lower), param(upper));
    let a = jnp::broadcast_to(lax::erf(&(&lower / &sqrt2)), shape);
    let b = jnp::broadcast_to(lax::erf(&(&upper / &sqrt2)), shape);
    let u = lax::max(&a, &fma(&unit(key, shape, DType::F32), &(&b - &a), &a));
    let out = lax::mul(&sqrt2, &lax::erf_inv(&u));
    let up = jnp::scalar_tensor(f64::INFINITY, DType::F32);
    let lo = lax::nextafter(&lax::stop_gradient(&lower), &up);
    let hi = lax::nextafter(&lax::stop_gradient(&upper), &lax::neg(&up));
    jnp::clip(out, lo, hi)
}
