//! Elementwise primitives: unary and binary arithmetic, comparisons, logic, `select_n`,
//! dtype conversions, `integer_pow` and the Threefry cipher.
//!
//! - [`ops`]: the op enums, their names and dtypes, and the shape rules;
//! - [`scalar`]: what each operation does to one element (JAX's semantics at the edges);
//! - [`lanes`]: the kernels over runs of elements, and [`Lanewise`], the form fusion stores;
//! - [`eager`]: the kernels over whole arrays, and `threefry2x32`;
//! - [`math`]: the special functions (error, gamma family, ...) in `f64`.

mod complex;
mod eager;
mod lanes;
mod math;
mod ops;
mod scalar;

pub(crate) use eager::{binary, bitcast, convert, integer_pow, select_n, threefry2x32, unary};
pub(crate) use lanes::Lanewise;
pub(crate) use ops::{
    binary_rule, bitcast_rule, broadcast_shapes, convert_rule, integer_pow_rule, select_n_rule,
    threefry_rule, unary_rule,
};
pub use ops::{BinaryOp, UnaryOp};
pub(crate) use scalar::Num;
