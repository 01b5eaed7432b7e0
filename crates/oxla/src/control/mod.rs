//! Control flow as primitives: `lax::map` (a chunked map, see
//! [`crate::transforms::MapSpec`]), `lax::scan`, `lax::fori_loop`, `lax::while_loop`,
//! `lax::cond` and `lax::switch`.
//!
//! Each control-flow primitive holds a closed body jaxpr whose captured values are operands, runs it
//! compiled (fused, with its own memory plan), and has batching, forward- and reverse-mode
//! rules that transform the body and stage a new loop. Reverse mode recomputes each step's
//! forward pass inside the backward body, so it holds one step's residuals at a time.

pub(crate) mod cond;
pub(crate) mod pmap;
pub(crate) mod scan;
pub(crate) mod shard_map;
pub(crate) mod vmap_devices;
pub(crate) mod while_loop;

pub use cond::{cond, switch, CondSpec};
pub use pmap::{pmap, shard_map, Pmap, ShardMap};
pub use scan::{fori_loop, scan, scan_reverse, Scan, ScanSpec};
pub use shard_map::{OutSpec, ShardMapSpec};
pub use vmap_devices::OnDevices;
pub use while_loop::{while_loop, WhileSpec};

use std::panic::Location;

/// `lax::map(f, xs)`: `f` applied to each slice of `xs` along its leading axis, the results
/// stacked; see [`lax_map`].
pub struct LaxMap<F, A> {
    f: F,
    xs: A,
    batch: usize,
}

/// `jax.lax.map`: `f` applied to the slices of `xs` (a tree of tensors) along their leading
/// axis, one after another, the results stacked. `.batch_size(k)` runs `k` slices at a time,
/// as `vmap(f)` over each batch (the last one the remainder): memory for `k` slices, not all.
///
/// ```
/// use oxla::{lax, numpy as jnp, Tensor};
/// let xs = jnp::arange(6.0).reshape(&[3, 2]);
/// let ys: Tensor = lax::map(|x: Tensor| x.sum(None), xs).batch_size(2).call();
/// assert_eq!(ys.to_vec::<f32>(), vec![1.0, 5.0, 9.0]);
/// ```
pub fn lax_map<F, A>(f: F, xs: A) -> LaxMap<F, A> {
    LaxMap { f, xs, batch: 1 }
}

impl<F, A: crate::core::tree::Tree> LaxMap<F, A> {
    /// How many slices run together.
    #[track_caller]
    pub fn batch_size(mut self, k: usize) -> Self {
        if k == 0 {
            panic!(
                "lax::map: batch_size must be positive, got 0\n  at {}",
                Location::caller()
            );
        }
        self.batch = k;
        self
    }

    /// Runs the map.
    #[track_caller]
    pub fn call<O: crate::core::tree::Tree>(self) -> O
    where
        F: Fn(A) -> O,
    {
        crate::vmap(self.f).chunk_size(self.batch).call(self.xs)
    }
}
