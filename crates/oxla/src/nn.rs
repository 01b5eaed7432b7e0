//! `jax.nn`: activations and helpers for neural networks.

use crate::array::DType;
use crate::core::Tensor;
use crate::numpy::{self as jnp, inexact, max_keepdims_initial};
use crate::ops as lax;

/// `log(softmax(x))` along `axis`, computed stably as `x - max - log(sum(exp(x - max)))`.
#[track_caller]
pub fn log_softmax(x: &Tensor, axis: isize) -> Tensor {
    let _line = crate::core::user_line();
    let x = inexact(x);
    // The shift cancels out of the value, so it is a constant to differentiation, as in JAX.
    let shifted = &x - lax::stop_gradient(&max_keepdims_initial(&x, axis));
    let lse = jnp::log(&jnp::sum_keepdims(&jnp::exp(&shifted), axis));
    shifted - lse
}

/// `exp(x) / sum(exp(x))` along `axis`, computed stably.
#[track_caller]
pub fn softmax(x: &Tensor, axis: isize) -> Tensor {
    let _line = crate::core::user_line();
    let x = inexact(x);
    let unnormalized = jnp::exp(&(&x - lax::stop_gradient(&max_keepdims_initial(&x, axis))));
    let total = jnp::sum_keepdims(&unnormalized, axis);
    unnormalized / total
}

/// `1 / (1 + exp(-x))`.
#[track_caller]
pub fn sigmoid(x: &Tensor) -> Tensor {
    let _line = crate::core::user_line();
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
pub fn relu(x: &Tensor) -> Tensor {
    let _line = crate::core::user_line();
    // The value is max(x, 0) everywhere (NaN included); the derivative flows only through
    // the `x > 0` branch, as JAX's `select(x > 0, g, 0)`.
    let positive = jnp::greater(x, 0);
    jnp::where_(positive, x, jnp::maximum(lax::stop_gradient(x), 0))
}

/// One-hot `f32` encoding of integer `x` over `num_classes`, on a new last axis (values
/// outside `0..num_classes` give all zeros).
#[track_caller]
pub fn one_hot(x: &Tensor, num_classes: usize) -> Tensor {
    let _line = crate::core::user_line();
    let n = x.ndim();
    let lhs = jnp::expand_dims(x, -1);
    let mut ishape = vec![1; n];
    ishape.push(num_classes);
    let rhs = lax::iota(x.dtype(), &ishape, n);
    jnp::astype(&jnp::equal(&lhs, &rhs), DType::F32)
}
