//! The reductions of `jax.nn`: `logsumexp` (with `b`, `where`, `keepdims` and the sign),
//! `logmeanexp`, the masked `softmax`/`log_softmax`, and `standardize`.

use crate::array::DType;
use crate::core::Tensor;
use crate::numpy::{self as jnp, inexact, keepdims, result_type, Axis, Operand};
use crate::ops as lax;
use crate::prims::ReduceOp;

/// `x` reduced by `op` over `dims`, the reduced axes kept as size 1 when `keep`. An empty
/// axis gives `op`'s identity (`-inf` for `Max`), as JAX's reductions with `initial`.
#[track_caller]
fn reduce(x: &Tensor, op: ReduceOp, dims: &[usize], keep: bool) -> Tensor {
    let r = lax::reduce(x, op, dims);
    if !keep {
        return r;
    }
    let kept: Vec<usize> = (0..x.ndim())
        .map(|d| if dims.contains(&d) { 1 } else { x.shape()[d] })
        .collect();
    lax::reshape(&r, &kept)
}

/// `x` where `mask` holds (broadcast against each other), `fill` elsewhere.
#[track_caller]
fn masked(x: &Tensor, mask: Option<&Tensor>, fill: f64) -> Tensor {
    match mask {
        Some(m) => jnp::where_(m, x, fill),
        None => x.clone(),
    }
}

/// `jax.nn.logsumexp` (and `jax.scipy.special.logsumexp`) with its options: `log(sum(b *
/// exp(a)))` over `axis` (keep the axes with [`keepdims`]), stably, the maximum taken
/// out as a constant to differentiation as in JAX.
///
/// ```
/// use oxla::{nn, numpy as jnp};
/// let a = jnp::array(&[0.0f32, 1.0, 2.0], &[3]);
/// let b = jnp::array(&[1.0f32, -1.0, 1.0], &[3]);
/// let (out, sign) = nn::LogSumExp::new(&a, None).b(&b).with_sign();
/// assert!((out.item() - (1.0f64 - 1.0f64.exp() + 2.0f64.exp()).ln()).abs() < 1e-5);
/// assert_eq!(sign.item(), 1.0);
/// ```
#[derive(Clone, Debug)]
pub struct LogSumExp {
    a: Operand,
    axis: Axis,
    b: Option<Operand>,
    mask: Option<Tensor>,
}

impl LogSumExp {
    /// `logsumexp(a, axis)`, to be refined with [`b`](Self::b) and
    /// [`where_`](Self::where_), then run by [`call`](Self::call) or
    /// [`with_sign`](Self::with_sign).
    pub fn new(a: impl Into<Operand>, axis: impl Into<Axis>) -> LogSumExp {
        LogSumExp {
            a: a.into(),
            axis: axis.into(),
            b: None,
            mask: None,
        }
    }

    /// Scales each `exp(a)` by `b` (broadcast against `a`); the sum may then be negative.
    pub fn b(mut self, b: impl Into<Operand>) -> LogSumExp {
        self.b = Some(b.into());
        self
    }

    /// Reduces only the elements where the boolean `mask` holds (JAX's `where=`).
    pub fn where_(mut self, mask: impl Into<Operand>) -> LogSumExp {
        self.mask = Some(jnp::not_equal(mask, false));
        self
    }

    /// `log(|sum|)` and the sum's sign (JAX's `return_sign=True`).
    #[track_caller]
    pub fn with_sign(self) -> (Tensor, Tensor) {
        let _line = crate::core::user_line();
        self.run()
    }

    /// The log of the sum: NaN where a sum with `b` is negative.
    #[track_caller]
    pub fn call(self) -> Tensor {
        let _line = crate::core::user_line();
        let scaled = self.b.is_some();
        let (out, sign) = self.run();
        if scaled {
            jnp::where_(jnp::less(&sign, 0), f64::NAN, out)
        } else {
            out
        }
    }

    #[track_caller]
    fn run(self) -> (Tensor, Tensor) {
        let mask = self.mask.as_ref();
        let a = match mask {
            Some(m) => jnp::where_(m, self.a, 0),
            None => self.a.into_tensor(),
        };
        let (a, b) = match self.b {
            Some(b) => {
                let dtype = inexact_dtype(&[Operand::Tensor(a.clone()), b.clone()]);
                let a = jnp::astype(&a, dtype);
                let b = b.to_tensor(dtype);
                (
                    jnp::where_(jnp::not_equal(&b, 0), a, f64::NEG_INFINITY),
                    Some(b),
                )
            }
            None => (inexact(&a), None),
        };
        let dims = self.axis.resolve(a.ndim(), "logsumexp");
        let keep = self.axis.keeps_dims();
        let amax = reduce(
            &masked(&a, mask, f64::NEG_INFINITY),
            ReduceOp::Max,
            &dims,
            true,
        );
        let amax = lax::stop_gradient(&jnp::where_(lax::is_finite(&amax), &amax, 0));
        let mut exp_a = jnp::exp(&a - &amax);
        if let Some(b) = &b {
            exp_a = exp_a * b;
        }
        let sumexp = reduce(&masked(&exp_a, mask, 0.0), ReduceOp::Sum, &dims, keep);
        let sign = jnp::sign(&sumexp);
        let amax = if keep {
            amax
        } else {
            lax::squeeze(&amax, &dims)
        };
        let out = jnp::log(jnp::abs(&sumexp)) + amax;
        (out, sign)
    }
}

/// The float dtype `ops` promote to (JAX's `promote_args_inexact`).
fn inexact_dtype(ops: &[Operand]) -> DType {
    let d = result_type(ops);
    if d.is_float() {
        d
    } else {
        crate::array::Kind::Float.default_dtype()
    }
}

/// `log(sum(exp(a)))` over `axis` (several or `None`; [`keepdims`] keeps them), stably;
/// [`LogSumExp`] adds `b`, `where` and the sign.
#[track_caller]
pub fn logsumexp(a: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    LogSumExp::new(a, axis).call()
}

/// `log(mean(exp(x)))` over `axis`: `logsumexp` less the log of the count of elements
/// (those where `mask` holds, if given).
#[track_caller]
pub fn logmeanexp(x: impl Into<Operand>, axis: impl Into<Axis>, mask: Option<&Tensor>) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    let axis = axis.into();
    let mut lse = LogSumExp::new(&x, axis.clone());
    let ones = jnp::ones_like(inexact(&x));
    let counted = match mask {
        Some(m) => {
            lse = lse.where_(m);
            jnp::where_(m, &ones, 0)
        }
        None => ones,
    };
    let lse = lse.call();
    let dims = axis.resolve(counted.ndim(), "logmeanexp");
    let count = reduce(&counted, ReduceOp::Sum, &dims, axis.keeps_dims());
    lse - jnp::log(count)
}

/// [`log_softmax`](super::log_softmax) over the elements where `mask` holds (JAX's
/// `where=`): masked-out elements give `-inf`.
#[track_caller]
pub fn log_softmax_where(x: impl Into<Operand>, axis: impl Into<Axis>, mask: &Tensor) -> Tensor {
    let _line = crate::core::user_line();
    let x = &inexact(&x.into().into_tensor());
    let mask = &jnp::not_equal(mask, false);
    let x_safe = jnp::where_(mask, x, f64::NEG_INFINITY);
    let dims = keepdims(axis).resolve(x_safe.ndim(), "log_softmax");
    let x_max = reduce(&x_safe, ReduceOp::Max, &dims, true);
    let shifted = &x_safe - lax::stop_gradient(&x_max);
    let total = reduce(
        &jnp::where_(mask, jnp::exp(&shifted), 0),
        ReduceOp::Sum,
        &dims,
        true,
    );
    jnp::where_(mask, shifted - jnp::log(total), f64::NEG_INFINITY)
}

/// [`softmax`](super::softmax) over the elements where `mask` holds (JAX's `where=`):
/// masked-out elements give 0.
#[track_caller]
pub fn softmax_where(x: impl Into<Operand>, axis: impl Into<Axis>, mask: &Tensor) -> Tensor {
    let _line = crate::core::user_line();
    let x = &inexact(&x.into().into_tensor());
    let mask = &jnp::not_equal(mask, false);
    let x_safe = jnp::where_(mask, x, f64::NEG_INFINITY);
    let dims = keepdims(axis).resolve(x_safe.ndim(), "softmax");
    let x_max = reduce(&x_safe, ReduceOp::Max, &dims, true);
    let unnormalized = jnp::exp(&x_safe - lax::stop_gradient(&x_max));
    let total = reduce(
        &jnp::where_(mask, &unnormalized, 0),
        ReduceOp::Sum,
        &dims,
        true,
    );
    jnp::where_(mask, unnormalized / total, 0)
}
