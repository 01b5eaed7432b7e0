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
