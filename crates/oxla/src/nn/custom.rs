//! What JAX writes with `custom_jvp`, built from primitives: a value with a chosen derivative
//! ([`with_jvp`]), and the two elementwise functions whose JAX derivatives are custom rules
//! that `nn` and `scipy::special` share: `expm1` and `logaddexp`.

use crate::core::Tensor;
use crate::numpy::{self as jnp, scalar_tensor};
use crate::ops as lax;

/// A zero of `x`'s shape and dtype whose tangent is `x`'s (NaN where `x` is not finite).
#[track_caller]
fn zero_with_tangent(x: &Tensor) -> Tensor {
    lax::sub(x, &lax::stop_gradient(x))
}

/// `value`, whose derivative is `sum_i slopes[i].1 * d(slopes[i].0)`: JAX's
/// `custom_jvp` rule `g -> g * slope`. The slopes are tensors of the inputs, so a second
/// derivative differentiates them, as JAX differentiates a rule.
///
/// Each term is `(slope + stop_gradient(slope)) / 2 * (x - stop_gradient(x))`: zero in value,
/// `slope` in first derivative and `slope'` in second. Where a term is not finite (an
/// infinite or NaN input or slope) the tangent is dropped (zero), rather than poisoning the
/// value; JAX's rule would give the slope's own non-finite product there.
#[track_caller]
pub(crate) fn with_jvp(value: &Tensor, slopes: &[(&Tensor, Tensor)]) -> Tensor {
    let value = lax::stop_gradient(value);
    let mut term: Option<Tensor> = None;
    for (x, slope) in slopes {
        let half = jnp::multiply(jnp::add(slope, lax::stop_gradient(slope)), 0.5);
        let t = jnp::multiply(half, zero_with_tangent(x));
        term = Some(match term {
            None => t,
            Some(s) => jnp::add(s, t),
        });
    }
    let Some(term) = term else { return value };
    let finite = lax::is_finite(&lax::stop_gradient(&term));
    jnp::where_(finite, jnp::add(&value, term), &value)
}

/// `exp(x) - 1`, accurate near 0 (Kahan's `(u - 1) * x / log(u)` with `u = exp(x)`), with
/// derivative `exp(x)` as JAX's `expm1`; `x` is a float tensor.
#[track_caller]
pub(crate) fn expm1(x: &Tensor) -> Tensor {
    let c = |v: f64| scalar_tensor(v, x.dtype());
    let xs = lax::stop_gradient(x);
    let u = lax::exp(&xs);
    let um1 = lax::sub(&u, &c(1.0));
    let kahan = lax::div(&lax::mul(&um1, &xs), &lax::log(&u));
    let value = jnp::where_(
        lax::eq(&u, &c(1.0)),
        &xs,
        jnp::where_(
            lax::eq(&um1, &c(-1.0)),
            c(-1.0),
            jnp::where_(lax::is_finite(&u), kahan, &u),
        ),
    );
    with_jvp(&value, &[(x, lax::exp(x))])
}

/// `log(exp(x1) + exp(x2))` without overflow, for two float tensors of one dtype and shape,
/// with JAX's derivative `exp(x_i - out)` (infinities read as 0 in the exponent).
#[track_caller]
pub(crate) fn logaddexp(x1: &Tensor, x2: &Tensor) -> Tensor {
    let amax = lax::max(x1, x2);
    let delta = lax::sub(x1, x2);
    let spread = lax::log1p(&lax::exp(&lax::neg(&lax::abs(&delta))));
    let composed = jnp::where_(
        jnp::isnan(&delta),
        lax::add(x1, x2),
        lax::add(&amax, &spread),
    );
    let no_inf = |t: &Tensor| {
        let pos_inf = lax::eq(t, &scalar_tensor(f64::INFINITY, t.dtype()));
        jnp::where_(pos_inf, 0.0, t)
    };
    let out = no_inf(&composed);
    let slope = |x: &Tensor| jnp::exp(jnp::subtract(no_inf(x), &out));
    with_jvp(&composed, &[(x1, slope(x1)), (x2, slope(x2))])
}
