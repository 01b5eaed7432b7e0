//! `jax.nn`: activations and helpers for neural networks.
//!
//! Each function is JAX's, with JAX's derivatives: where JAX defines a custom JVP (`relu`,
//! `relu6`, `softplus` through `logaddexp`, `log1mexp`, `expm1` inside `elu`/`celu`/`selu`),
//! the value is computed as JAX's and the derivative is JAX's rule, built from primitives
//! (at infinite or NaN inputs the custom derivative is 0 rather than JAX's non-finite one).

mod activations;
mod attention;
pub(crate) mod custom;
mod reductions;
mod standardize;

pub use activations::{
    celu, elu, gelu, glu, hard_sigmoid, hard_silu, hard_swish, hard_tanh, identity, leaky_relu,
    log1mexp, log_sigmoid, mish, relu6, selu, silu, soft_sign, softplus, sparse_plus,
    sparse_sigmoid, squareplus, swish, tanh,
};
pub use attention::{dot_product_attention, DotProductAttention};
pub use reductions::{log_softmax_where, logmeanexp, logsumexp, softmax_where, LogSumExp};
pub use standardize::{standardize, Standardize};

use crate::array::DType;
use crate::core::Tensor;
use crate::numpy::{self as jnp, inexact, keepdims, max_keepdims_initial, Axis, Operand};
use crate::ops as lax;

/// `log(softmax(x))` along `axis` (one or several; `None`: all), computed stably as
/// `x - max - log(sum(exp(x - max)))`.
#[track_caller]
pub fn log_softmax(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let x = inexact(x);
    let axis = keepdims(axis);
    // The shift cancels out of the value, so it is a constant to differentiation, as in JAX.
    let shifted = &x - lax::stop_gradient(&max_keepdims_initial(&x, &axis));
    let lse = jnp::log(jnp::sum(jnp::exp(&shifted), axis));
    shifted - lse
}

/// `exp(x) / sum(exp(x))` along `axis` (one or several; `None`: all), computed stably.
#[track_caller]
pub fn softmax(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let x = inexact(x);
    let axis = keepdims(axis);
    let unnormalized = jnp::exp(&(&x - lax::stop_gradient(&max_keepdims_initial(&x, &axis))));
    let total = jnp::sum(&unnormalized, axis);
    unnormalized / total
}

/// `1 / (1 + exp(-x))`.
#[track_caller]
pub fn sigmoid(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    lax::logistic(&inexact(x))
}

/// `max(x, 0)`, with JAX's derivative: the incoming tangent where `x > 0`, else 0 (also at
/// 0, where `maximum`'s derivative would share it; JAX gives `relu` its own JVP for this).
///
/// ```
/// use oxla::{grad, nn, Tensor};
/// let g = grad(|x: Tensor| nn::relu(&x)).call(Tensor::scalar(0.0f32));
/// assert_eq!(g.item(), 0.0);
/// ```
#[track_caller]
pub fn relu(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    // The value is max(x, 0) everywhere (NaN included); the derivative flows only through
    // the `x > 0` branch, as JAX's `select(x > 0, g, 0)`.
    let positive = jnp::greater(x, 0);
    jnp::where_(positive, x, jnp::maximum(lax::stop_gradient(x), 0))
}

/// One-hot `f32` encoding of integer `x` over `num_classes`, on a new last axis (values
/// outside `0..num_classes` give all zeros).
#[track_caller]
pub fn one_hot(x: impl Into<Operand>, num_classes: usize) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let n = x.ndim();
    let lhs = jnp::expand_dims(x, -1);
    let mut ishape = vec![1; n];
    ishape.push(num_classes);
    let rhs = lax::iota(x.dtype(), &ishape, n);
    jnp::astype(jnp::equal(&lhs, &rhs), DType::F32)
}
