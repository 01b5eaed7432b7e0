//! `jax.nn.standardize`: zero mean and unit variance along axes.

use crate::core::Tensor;
use crate::numpy::{self as jnp, keepdims, Axis, Operand};
use crate::ops as lax;

/// `(x - mean) / sqrt(variance + epsilon)` over `axis` (JAX's default is `-1`), the mean and
/// variance taken from `x` unless given, with JAX's options; [`standardize`] runs the
/// defaults.
///
/// ```
/// use oxla::{nn, numpy as jnp};
/// let x = jnp::array(&[1.0f32, 2.0, 3.0], &[3]);
/// let y = nn::Standardize::new(&x, -1).epsilon(0.0).call();
/// assert!((y.to_vec::<f32>()[2] - 1.224_744_9).abs() < 1e-5);
/// ```
#[derive(Clone, Debug)]
pub struct Standardize {
    x: Operand,
    axis: Axis,
    mean: Option<Operand>,
    variance: Option<Operand>,
    epsilon: Operand,
    mask: Option<Operand>,
    stable: bool,
}

impl Standardize {
    /// `standardize(x, axis)` with `epsilon = 1e-5`, the "fast" variance and no mask.
    pub fn new(x: impl Into<Operand>, axis: impl Into<Axis>) -> Standardize {
        Standardize {
            x: x.into(),
            axis: axis.into(),
            mean: None,
            variance: None,
            epsilon: 1e-5f64.into(),
            mask: None,
            stable: false,
        }
    }

    /// The mean to subtract, instead of `x`'s.
    pub fn mean(mut self, mean: impl Into<Operand>) -> Standardize {
        self.mean = Some(mean.into());
        self
    }

    /// The variance to divide by, instead of `x`'s.
    pub fn variance(mut self, variance: impl Into<Operand>) -> Standardize {
        self.variance = Some(variance.into());
        self
    }

    /// Added to the variance before the square root.
    pub fn epsilon(mut self, epsilon: impl Into<Operand>) -> Standardize {
        self.epsilon = epsilon.into();
        self
    }

    /// The mean and variance from the elements where `mask` holds only (JAX's `where=`).
    pub fn where_(mut self, mask: impl Into<Operand>) -> Standardize {
        self.mask = Some(mask.into());
        self
    }

    /// The variance as `mean((x - mean)^2)` (JAX's `algorithm="stable"`) rather than
    /// `max(mean(x^2) - mean^2, 0)` (`"fast"`, the default).
    pub fn stable(mut self) -> Standardize {
        self.stable = true;
        self
    }

    /// The standardized `x`.
    #[track_caller]
    pub fn call(self) -> Tensor {
        let _line = crate::core::user_line();
        let x = self.x.into_tensor();
        let axis = keepdims(self.axis);
        let mask = self.mask.map(|m| jnp::not_equal(m, false));
        let mean_of = |t: &Tensor| match &mask {
            None => jnp::mean(t, axis.clone()),
            Some(m) => {
                let t = jnp::where_(m, t, 0);
                let n = jnp::sum(jnp::where_(m, jnp::ones_like(&t), 0), axis.clone());
                jnp::sum(&t, axis.clone()) / n
            }
        };
        let mean = match self.mean {
            Some(m) => m.into_tensor(),
            None => mean_of(&x),
        };
        let variance = match self.variance {
            Some(v) => v.into_tensor(),
            None if self.stable => {
                let d = jnp::subtract(&x, &mean);
                mean_of(&(&d * &d))
            }
            None => {
                let v = mean_of(&(&x * &x)) - &mean * &mean;
                jnp::maximum(v, 0)
            }
        };
        let scale = lax_rsqrt(jnp::add(variance, self.epsilon));
        jnp::subtract(&x, &mean) * scale
    }
}

/// `1 / sqrt(v)` (the `rsqrt` primitive) on a float tensor.
#[track_caller]
fn lax_rsqrt(v: Tensor) -> Tensor {
    lax::rsqrt(&jnp::astype(&v, crate::numpy::inexact(&v).dtype()))
}

/// `jax.nn.standardize(x, axis)` with its defaults; [`Standardize`] takes the options.
#[track_caller]
pub fn standardize(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    Standardize::new(x, axis).call()
}
