//! Places where oxla once differed from JAX 0.10.2, each pinned to the value (or the error)
//! JAX gives on the same input: weakly typed Rust scalars that do not fit the array's dtype,
//! `relu`'s derivative at 0, integer division by zero, integer powers, `integer_pow`'s
//! derivative at `i32::MIN`, slice steps at the ends of `isize`, reductions without an
//! identity over empty axes, tangent and cotangent dtypes, and gradients through
//! out-of-bounds gather indices. The expected values were computed with JAX 0.10.2 on CPU.
//!
//! `scalars` holds the weakly typed scalars, `differences` the rest.

#[path = "../panics/mod.rs"]
mod panics;

use oxla::Tensor;

fn u32s() -> Tensor {
    Tensor::from_vec(vec![5u32, 0, 7], &[3])
}

fn i32s() -> Tensor {
    Tensor::from_vec(vec![5i32, -3, 0], &[3])
}

mod differences;
mod scalars;
