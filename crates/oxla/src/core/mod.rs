//! Tensors, tracing, jaxprs, their printer and the reference evaluator.

mod aval;
mod jaxpr;
mod pretty;
mod tensor;
mod trace;

pub use aval::Aval;
pub use jaxpr::{Atom, ClosedJaxpr, Eqn, Jaxpr, Var};
pub use pretty::Pretty;
pub use tensor::Tensor;
pub use trace::{bind, eval_jaxpr, is_tracing, make_jaxpr, trace, trace_avals};
pub(crate) use trace::{user_line, with_line};
