//! # oxla
//!
//! JAX's composable function transformations in Rust, with memory you can see and bound.
//!
//! A user writes a function of [`Tensor`]s for one example. The same function runs eagerly
//! (each primitive executes at once) or is traced to a [`Jaxpr`] by [`make_jaxpr`], printed
//! exactly as JAX prints it, and run by the reference evaluator [`eval_jaxpr`]. Transforms
//! (vmap, grad, jit) rewrite jaxprs, so they compose in any order.
//!
//! ```
//! use oxla::{make_jaxpr, numpy as jnp, Tensor};
//! let f = |x: Tensor| (x.index((.., None)) * x.index((None, ..))).sum(None);
//! let x = jnp::arange(3.0);
//! assert_eq!(f(x.clone()).item(), 9.0);
//! println!("{}", make_jaxpr(f, x));
//! ```
#![warn(missing_docs)]

// `#[derive(Tree)]` names the crate `::oxla`, which this makes resolve inside it too.
extern crate self as oxla;

/// The README's examples, compiled and run as doctests so they stay true.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

pub mod array;
pub mod compiler;
pub mod config;
pub mod control;
pub mod core;
pub mod debug;
pub mod devices;
mod env;
mod error;
pub mod io;
pub mod lax;
pub mod memory;
pub mod nn;
pub mod numpy;
mod ops;
pub mod pjit;
pub mod prims;
pub mod random;
pub mod scipy;
mod source;
pub mod transforms;

pub use array::{get_printoptions, printoptions, set_printoptions, Array, DType, PrintOptions};
pub use compiler::disable_jit;
pub use control::{pmap, shard_map};
pub use core::tree;
pub use core::tree::{Args, Tree, TreeDef};
pub use core::{
    axis_env, eval_jaxpr, make_jaxpr, set_source_hook, Aval, ClosedJaxpr, Jaxpr, Source,
    SourceHook, Tensor,
};
#[cfg(feature = "mpi")]
pub use devices::distributed;
pub use devices::{
    device_count, local_device_count, process_count, process_index, set_num_devices,
};
pub use error::{Error, LargestBuffer, Result};
/// The 16-bit float element types of [`DType::F16`] and [`DType::BF16`] (the `half` crate).
pub use half::{bf16, f16};
pub use memory::MemoryAnalysis;
pub use numpy as jnp;
pub use oxla_derive::Tree;
pub use pjit::{explain, jit, Jit};
pub use transforms::{grad, hessian, jacfwd, jacrev, jvp, value_and_grad, vjp, vmap, AxisTree};
