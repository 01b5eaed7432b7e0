//! The regularized incomplete beta function, `betainc` (`lax::betainc` with promotion).

use crate::core::Tensor;
use crate::numpy::{inexact, promote, Operand};

/// The regularized incomplete beta function `I_x(a, b)`, as `jax.scipy.special.betainc`:
/// the operands promoted to one float dtype and broadcast, then [`crate::lax::betainc`]
/// (differentiable in `x` only, as in JAX).
#[track_caller]
pub fn betainc(a: impl Into<Operand>, b: impl Into<Operand>, x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote("betainc", &[a.into(), b.into(), x.into()]);
    let t: Vec<Tensor> = t.iter().map(inexact).collect();
    crate::lax::betainc(&t[0], &t[1], &t[2])
}
