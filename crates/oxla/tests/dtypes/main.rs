//! The dtypes beyond f32: JAX's promotion table over every pair of dtypes and the weak
//! Rust scalars, x64 off and on (`promotion`); a few ops per dtype against JAX's results
//! (`ops`); and the transforms on the new dtypes (`transforms`). The goldens are
//! `tests/golden_dtypes/` at the repository root, written by
//! `scripts/gen_golden_dtypes.py`.

mod ops;
mod promotion;
mod properties;
mod transforms;

use std::path::PathBuf;

use oxla::DType;

/// The integer dtypes added beside `i32` and `u32`.
pub const NEW_INTS: [DType; 6] = [
    DType::I8,
    DType::I16,
    DType::I64,
    DType::U8,
    DType::U16,
    DType::U64,
];

/// The 16-bit float dtypes.
pub const HALF_FLOATS: [DType; 2] = [DType::F16, DType::BF16];

/// The dtypes added beside `f32`, `f64`, `i32`, `u32` and `bool`.
pub fn new_dtypes() -> impl Iterator<Item = DType> {
    NEW_INTS.into_iter().chain(HALF_FLOATS)
}

/// A golden file of `tests/golden_dtypes/`, as lines of whitespace-separated words.
pub fn golden_lines(name: &str) -> Vec<Vec<String>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/golden_dtypes")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().map(String::from).collect())
        .collect()
}
