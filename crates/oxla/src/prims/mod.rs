//! The primitives' parameter types, shape rules and kernels, over `array` alone.
//!
//! Each family file holds, for its primitives, the parameter types, the shape rule and the
//! eager kernel; the [`Prim`](crate::core::Prim) enum in `core` dispatches to them. Every
//! `match` on `Prim` is exhaustive, so adding a primitive makes the compiler list every
//! rule still owed.

mod broadcast;
pub(crate) mod collective;
pub(crate) mod conv;
pub(crate) mod decomp;
pub(crate) mod dot_reduce;
pub(crate) mod elementwise;
pub(crate) mod fft;
pub(crate) mod indexing;
pub(crate) mod isa;
pub(crate) mod linalg;
mod polynomial;
pub(crate) mod pyfmt;
pub(crate) mod reduce;
pub(crate) mod shape;
mod skinny;
pub(crate) mod sort;
pub(crate) mod special;
pub(crate) mod symmetric;
pub(crate) mod threefry;
pub(crate) mod view;

use crate::array::Aval;

pub use collective::{AxisName, Collective, CollectiveOp};
pub use conv::{ConvDimensionNumbers, ConvParams};
pub use decomp::LinalgOp;
pub use dot_reduce::{DotMap, DotReduce};
pub(crate) use elementwise::{broadcast_shapes, Lanewise};
pub use elementwise::{BinaryOp, UnaryOp};
pub use fft::FftType;
pub use indexing::{GatherDims, GatherMode, ScatterDims, ScatterOp};
pub(crate) use reduce::{fold, fold_by, with_monoid, Monoid, SHORT_RUN};
pub use reduce::{ArgOp, ReduceOp};
pub use threefry::ThreefryWords;

/// Checks the operand count of a shape rule.
pub(crate) fn arity(inputs: &[Aval], n: usize) -> Result<(), String> {
    if inputs.len() == n {
        Ok(())
    } else {
        Err(format!("expected {n} operands, got {}", inputs.len()))
    }
}
