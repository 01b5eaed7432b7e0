//! Transforms: rewrites of traced jaxprs, composable in any order.

mod batching;
mod vmap;

pub use vmap::{vmap, AxisTree, Vmap};
