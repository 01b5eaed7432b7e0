//! Transforms: rewrites of traced jaxprs, composable in any order.
//!
//! Each transform is one rule table (an exhaustive `match` on the primitive) and a driver
//! that replays a traced jaxpr with those rules in the current interpreter.

pub(crate) mod ad;
pub(crate) mod axis_tree;
pub(crate) mod batching;
pub(crate) mod bodies;
pub(crate) mod chunked;
mod collective_ad;
mod conv_ad;
mod elementwise_jvp;
mod fft_rules;
pub(crate) mod jvp_rules;
mod linalg_rules;
mod scatter_ad;
mod vjp_rules;
pub(crate) mod vmap;
mod vmap_chunks;

pub use ad::{
    grad, hessian, jacfwd, jacrev, jvp, value_and_grad, vjp, Argnums, First, Grad, Hessian,
    HessianSelection, Jacobian, JacobianSelection, Nest, Selection, ValueAndGrad, Vjp, WithAux,
};
pub use chunked::MapSpec;
pub use vmap::{vmap, AxisTree, Budget, Vmap};
