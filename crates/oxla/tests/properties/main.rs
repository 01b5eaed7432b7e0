//! Property tests: every primitive and numpy function against a naive per-element reference
//! over random shapes (size-0 dimensions included), axes and values; and for each, the
//! reference evaluator (`eval_jaxpr` of `make_jaxpr`) against eager execution, bitwise.
//!
//! One module per family of primitives, as `src/prims/` groups them; `support` holds what
//! they share (index arithmetic, values, comparisons, strategies).

mod broadcast;
mod elementwise;
mod indexing;
mod linalg;
mod reduce;
mod shape;
mod sort;
mod support;
