//! `jax.scipy.special`: special functions, each as JAX computes it, with JAX's derivatives
//! (its custom JVPs, such as `xlogy`'s at `x == 0`, built from primitives as in
//! [`nn`](crate::nn)).
//!
//! ```
//! use oxla::scipy::special;
//! assert_eq!(special::xlogy(0.0, 0.0).item(), 0.0);
//! assert!((special::ndtri(0.975).item() - 1.959_964).abs() < 1e-5);
//! ```

mod bessel;
mod elementary;
mod gamma;
mod incomplete_beta;
mod normal;

pub use crate::nn::{log_softmax, logsumexp, softmax, LogSumExp};
pub use bessel::{gammainc, gammaincc, i0, i0e, i1, i1e};
pub use elementary::{entr, expit, kl_div, logit, rel_entr, spence, xlog1py, xlogy};
pub use gamma::{
    beta, betaln, digamma, erf, erfc, erfinv, factorial, gamma, gammaln, gammasgn, multigammaln,
    poch, polygamma, zeta,
};
pub use incomplete_beta::betainc;
pub use normal::{log_ndtr, ndtr, ndtri};

use crate::core::Tensor;
use crate::numpy::{self as jnp, inexact, promote, Operand};

/// `x` as a float tensor (JAX's `promote_args_inexact` of one argument).
#[track_caller]
fn float1(x: impl Into<Operand>) -> Tensor {
    inexact(&x.into().into_tensor())
}

/// `x` and `y` promoted to one float dtype and rank (JAX's `promote_args_inexact`).
#[track_caller]
fn float2(what: &str, x: impl Into<Operand>, y: impl Into<Operand>) -> (Tensor, Tensor) {
    let t = promote(what, &[x.into(), y.into()]);
    (inexact(&t[0]), inexact(&t[1]))
}

/// The polynomial with coefficients `p` (highest power first) at `x`, by Horner's rule from
/// 0 as `jnp.polyval`.
#[track_caller]
fn polyval(p: &[f64], x: &Tensor) -> Tensor {
    p.iter()
        .fold(jnp::zeros_like(x), |y, &c| jnp::add(y * x, c))
}
