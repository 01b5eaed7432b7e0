//! The elementwise activations of `jax.nn` (besides `relu` and `sigmoid`, in `mod.rs`), each
//! as JAX writes it, with JAX's custom derivatives where it defines them (`relu6`,
//! `softplus` through `logaddexp`, `log1mexp`, and `expm1` inside `elu`, `celu`, `selu`).

use super::custom::{expm1, logaddexp, with_jvp};
use crate::core::Tensor;
use crate::numpy::{self as jnp, inexact, scalar_tensor, Operand};
use crate::ops as lax;

/// `x` as a float tensor, as JAX's activations promote their argument.
#[track_caller]
fn float(x: impl Into<Operand>) -> Tensor {
    inexact(&x.into().into_tensor())
}

/// `x` unchanged (`jax.nn.identity`).
#[track_caller]
pub fn identity(x: impl Into<Operand>) -> Tensor {
    x.into().into_tensor()
}

/// `min(max(x, 0), 6)`, with JAX's derivative: the incoming tangent where `0 < x < 6`, else
/// 0 (at 0 and 6 too).
#[track_caller]
pub fn relu6(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &float(x);
    let inside = jnp::logical_and(jnp::greater(x, 0), jnp::less(x, 6));
    let clipped = jnp::minimum(jnp::maximum(lax::stop_gradient(x), 0), 6);
    jnp::where_(inside, x, clipped)
}

/// `relu6(x + 3) / 6`.
#[track_caller]
pub fn hard_sigmoid(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    relu6(float(x) + 3.0) / 6.0
}

/// `x * hard_sigmoid(x)` (also [`hard_swish`]).
#[track_caller]
pub fn hard_silu(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &float(x);
    x * hard_sigmoid(x)
}

/// [`hard_silu`] under its other name.
#[track_caller]
pub fn hard_swish(x: impl Into<Operand>) -> Tensor {
    hard_silu(x)
}

/// `-1` below `-1`, `1` above `1`, else `x` (the dtype kept).
#[track_caller]
pub fn hard_tanh(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    jnp::where_(jnp::greater(x, 1), 1, jnp::where_(jnp::less(x, -1), -1, x))
}

/// Hyperbolic tangent (`jax.nn.tanh`, which is `jnp.tanh`).
#[track_caller]
pub fn tanh(x: impl Into<Operand>) -> Tensor {
    jnp::tanh(x)
}

/// `(x + sqrt(x^2 + b)) / 2` (JAX's default `b` is 4).
#[track_caller]
pub fn squareplus(x: impl Into<Operand>, b: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &float(x);
    (x + jnp::sqrt(jnp::add(x * x, b))) / 2.0
}

/// `log(1 + exp(x))`, as `logaddexp(x, 0)` with its derivative `exp(x - softplus(x))`.
#[track_caller]
pub fn softplus(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &float(x);
    logaddexp(x, &jnp::zeros_like(x))
}

/// 0 up to `-1`, `(x + 1)^2 / 4` between, `x` from `1` on.
#[track_caller]
pub fn sparse_plus(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &float(x);
    let inner = jnp::power(x + 1.0, 2) / 4.0;
    jnp::where_(
        jnp::less_equal(x, -1),
        0.0,
        jnp::where_(jnp::greater_equal(x, 1), x, inner),
    )
}

/// `x / (|x| + 1)`.
#[track_caller]
pub fn soft_sign(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &float(x);
    x / (jnp::abs(x) + 1.0)
}

/// `clip(x + 1, 0, 2) / 2`: 0 up to `-1`, linear between, 1 from `1` on.
#[track_caller]
pub fn sparse_sigmoid(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    0.5 * jnp::clip(float(x) + 1.0, 0.0, 2.0)
}

/// `x * sigmoid(x)` (also [`swish`]).
#[track_caller]
pub fn silu(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &float(x);
    x * lax::logistic(x)
}

/// [`silu`] under its other name.
#[track_caller]
pub fn swish(x: impl Into<Operand>) -> Tensor {
    silu(x)
}

/// `x * tanh(softplus(x))`.
#[track_caller]
pub fn mish(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &float(x);
    x * jnp::tanh(softplus(x))
}

/// `log(sigmoid(x))`, computed as `-softplus(-x)`.
#[track_caller]
pub fn log_sigmoid(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &float(x);
    -softplus(-x)
}

/// `x` above 0, else `alpha * (exp(x) - 1)` (JAX's default `alpha` is 1).
#[track_caller]
pub fn elu(x: impl Into<Operand>, alpha: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &float(x);
    let positive = jnp::greater(x, 0);
    let safe = jnp::where_(&positive, 0.0, x);
    jnp::where_(&positive, x, jnp::multiply(alpha, expm1(&safe)))
}

/// `x` from 0 on, else `negative_slope * x` (JAX's default slope is 0.01).
#[track_caller]
pub fn leaky_relu(x: impl Into<Operand>, negative_slope: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &float(x);
    jnp::where_(
        jnp::greater_equal(x, 0),
        x,
        jnp::multiply(negative_slope, x),
    )
}

/// `max(x, 0) + alpha * (exp(min(x, 0) / alpha) - 1)` (JAX's default `alpha` is 1).
#[track_caller]
pub fn celu(x: impl Into<Operand>, alpha: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &float(x);
    let alpha = alpha.into();
    let inner = jnp::divide(jnp::minimum(x, 0.0), alpha.clone());
    jnp::maximum(x, 0.0) + jnp::multiply(alpha, expm1(&inner))
}

/// `scale * elu(x, alpha)` with the self-normalising constants `alpha = 1.6732632...` and
/// `scale = 1.0507009...`.
#[track_caller]
pub fn selu(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let alpha = 1.673_263_242_354_377_3_f64;
    let scale = 1.050_700_987_355_480_5_f64;
    scale * elu(x, alpha)
}

/// The gated linear unit: `x`'s halves along `axis`, the first times `sigmoid` of the
/// second; the axis must have even length.
#[track_caller]
pub fn glu(x: impl Into<Operand>, axis: isize) -> Tensor {
    let _line = crate::core::user_line();
    let x = &float(x);
    let a = jnp::Axis::from(axis).resolve(x.ndim(), "glu")[0];
    let n = x.shape()[a];
    if !n.is_multiple_of(2) {
        panic!(
            "glu: axis size must be divisible by 2; axis {axis} of {} has {n}\n  at {}",
            x.aval(),
            std::panic::Location::caller()
        );
    }
    let mut limit = x.shape().to_vec();
    limit[a] = n / 2;
    let mut start = vec![0; x.ndim()];
    let first = lax::slice(x, &start, &limit, None);
    start[a] = n / 2;
    let second = lax::slice(x, &start, x.shape(), None);
    first * lax::logistic(&second)
}

/// `log(1 - exp(-x))` for `x >= 0`, stably on both sides of `log 2`, with JAX's derivative
/// `1 / expm1(x)`.
#[track_caller]
pub fn log1mexp(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &float(x);
    let xs = lax::stop_gradient(x);
    let near = jnp::log(-expm1(&-&xs));
    let far = jnp::log1p(-jnp::exp(-&xs));
    let ln2 = scalar_tensor(std::f64::consts::LN_2, x.dtype());
    let value = jnp::where_(jnp::less(&xs, ln2), near, far);
    with_jvp(&value, &[(x, 1.0 / expm1(x))])
}

/// The Gaussian error linear unit: `x * Φ(x)`, exactly as `x / 2 * erfc(-x / sqrt(2))`, or
/// with `approximate` (JAX's default) as `x / 2 * (1 + tanh(sqrt(2 / pi) (x + 0.044715
/// x^3)))`.
#[track_caller]
pub fn gelu(x: impl Into<Operand>, approximate: bool) -> Tensor {
    let _line = crate::core::user_line();
    let x = &float(x);
    if approximate {
        let k = scalar_tensor((2.0 / std::f64::consts::PI).sqrt(), x.dtype());
        let cdf = 0.5 * (jnp::tanh(k * (x + 0.044715 * jnp::power(x, 3))) + 1.0);
        x * cdf
    } else {
        let sqrt_half = scalar_tensor(0.5f64.sqrt(), x.dtype());
        0.5 * x * lax::erfc(&(-x * sqrt_half))
    }
}
