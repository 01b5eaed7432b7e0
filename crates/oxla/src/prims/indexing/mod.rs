//! Indexing primitives: `dynamic_slice`, `dynamic_update_slice`, `gather`, `scatter-add`,
//! with XLA's semantics (the index vector is the last dimension of the indices).
//!
//! - [`dims`]: the dimension numbers and what gather and scatter share;
//! - [`dynamic`]: the `dynamic_slice` and `dynamic_update_slice` primitives;
//! - [`gather`](mod@gather): the `gather` primitive;
//! - [`scatter`]: the scatter family (`scatter`, `scatter-add`, `-mul`, `-min`, `-max`).

mod dims;
mod dynamic;
mod gather;
mod scatter;

pub use dims::{GatherDims, GatherMode, ScatterDims};
pub(crate) use dynamic::{
    dynamic_slice, dynamic_slice_rule, dynamic_update_slice, dynamic_update_slice_rule,
};
pub(crate) use gather::{gather, gather_rule};
pub use scatter::ScatterOp;
pub(crate) use scatter::{scatter, scatter_rule};
