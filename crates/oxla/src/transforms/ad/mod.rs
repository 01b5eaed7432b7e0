//! Automatic differentiation: `jvp`, `vjp`, `grad`, `value_and_grad`, `jacfwd`, `jacrev`,
//! `hessian`.
//!
//! Forward mode replays a traced jaxpr with the JVP rule of every primitive. Reverse mode
//! replays it forward, keeping every value, then walks the equations backwards with the VJP
//! rule of every primitive (for linear primitives, their transpose). Both replay in the
//! current interpreter, so derivatives can be traced, batched and differentiated again:
//! `grad(grad(f))`, `vmap(grad(f))` and `grad(vmap(f))` all compose.
//!
//! - `replay`: the jaxpr-level interpreters (`jvp_jaxpr`, `vjp_jaxpr`) the rest is built on;
//! - `directional`: `jvp` and `vjp`;
//! - `jacobian`: `jacfwd`, `jacrev` and `hessian`;
//! - `grad`: `grad`, `value_and_grad` and their options.

mod directional;
mod grad;
mod jacobian;
mod replay;

pub use directional::{jvp, vjp, Vjp};
pub use grad::{grad, value_and_grad, Argnums, First, Grad, Selection, ValueAndGrad, WithAux};
pub use jacobian::{
    hessian, jacfwd, jacrev, Hessian, HessianSelection, Jacobian, JacobianSelection, Nest,
};
pub(crate) use replay::{jvp_jaxpr, vjp_jaxpr, vjp_jaxpr_outs};
