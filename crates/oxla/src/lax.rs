//! `lax`: JAX's `jax.lax`, one function per primitive, as thin as the primitive, and the
//! structured control flow (`map`, `scan`, `fori_loop`, `while_loop`, `cond`, `switch`).
//!
//! The functions take operands exactly as the primitive does (one dtype, equal ranks); the
//! [`numpy`](crate::numpy) layer adds promotion and broadcasting on top. Each records the
//! caller's source line in the traced equation.

pub use crate::control::{
    cond, fori_loop, lax_map as map, scan, scan_reverse, switch, while_loop, LaxMap, Scan,
};
pub use crate::ops::*;
pub use betainc::betainc;
pub use conv::{conv, conv_transpose, conv_with_general_padding};
pub use windowed::{reduce_window, WindowReducer};

mod betainc;
mod conv;
mod windowed;
