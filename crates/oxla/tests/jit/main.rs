//! jit: compile cache, ahead-of-time lowering, simplification, memory plans, composition.
//!
//! `compile`: the cache, ahead-of-time lowering, simplification and composition with the
//! other transforms; `fusion`: what the fused kernels hold and compute; `memory`: plans,
//! buffer reuse and their agreement with measured memory; `rows`: kernels that walk
//! several rows of a short loop per block.

mod compile;
mod fusion;
mod memory;
mod rows;
#[path = "../rss/mod.rs"]
mod rss;
#[path = "../../examples/seeds/mod.rs"]
mod seeds;
