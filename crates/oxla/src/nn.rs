//! `jax.nn`: activations and helpers for neural networks.

use crate::array::DType;
use crate::core::Tensor;
use crate::lax;
use crate::numpy::{self as jnp, inexact};

/// `log(softmax(x))` along `axis`, computed stably as `x - max - log(sum(exp(x - max)))`.
#[track_caller]
pub fn log_softmax(x: &Tensor, axis: isize) -> Tensor {
    let _line = crate::core::user_line();
    let x = inexact(x);
    // The shift cancels out of the value, so it is a constant to differentiation, as in JAX.
    let shifted = &x - lax::stop_gradient(&jnp::max_keepdims(&x, axis));
    let lse = jnp::log(&jnp::sum_keepdims(&jnp::exp(&shifted), axis));
    shifted - lse
}

/// `exp(x) / sum(exp(x))` along `axis`, computed stably.
#[track_caller]
pub fn softmax(x: &Tensor, axis: isize) -> Tensor {
    let _line = crate::core::user_line();
    let x = inexact(x);
    let unnormalized = jnp::exp(&(&x - lax::stop_gradient(&jnp::max_keepdims(&x, axis))));
    let total = jnp::sum_keepdims(&unnormalized, axis);
    unnormalized / total
}

/// `1 / (1 + exp(-x))`.
#[track_caller]
pub fn sigmoid(x: &Tensor) -> Tensor {
    let _line = crate::core::user_line();
    lax::logistic(&inexact(x))
}

/// `max(x, 0)`.
#[track_caller]
pub fn relu(x: &Tensor) -> Tensor {
    let _line = crate::core::user_line();
    jnp::maximum(x, 0)
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
