//! Tensors, tracing, jaxprs, their printer and the reference evaluator.

pub(crate) mod axis_env;
pub(crate) mod callback;
pub(crate) mod control_flow;
mod jaxpr;
mod pretty;
pub(crate) mod prim;
mod tensor;
mod trace;
pub mod tree;

pub use crate::array::Aval;
pub use crate::source::{set_source_hook, Source, SourceHook};
pub use axis_env::axis_env;
pub use callback::HostCallback;
pub use control_flow::{ControlFlow, Pullback};
pub use jaxpr::{Atom, ClosedJaxpr, Eqn, Jaxpr, Var};
pub use pretty::Pretty;
pub use prim::Prim;
pub use tensor::Tensor;
pub use trace::{bind, eval_jaxpr, is_tracing, make_jaxpr, trace, trace_avals};
pub(crate) use trace::{
    current_line, for_compiler, trace_avals_for_compiler, trace_for_compiler, user_line, with_line,
};
