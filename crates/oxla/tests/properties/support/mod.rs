//! What the families share: the proptest configuration, the reference's index arithmetic,
//! and, re-exported from the submodules, values, comparisons and strategies.

mod compare;
mod strategies;
mod values;

pub use compare::*;
pub use strategies::*;
pub use values::*;

use oxla::DType;
use proptest::prelude::ProptestConfig;

pub const CASES: u32 = 256;

/// `cases` random cases, failures not persisted to files.
pub fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

pub const ALL_DTYPES: [DType; 5] = [DType::Bool, DType::I32, DType::U32, DType::F32, DType::F64];

// Index arithmetic of the reference.

pub fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

fn strides(shape: &[usize]) -> Vec<usize> {
    let mut st = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        st[i] = st[i + 1] * shape[i + 1];
    }
    st
}

pub fn flat(idx: &[usize], shape: &[usize]) -> usize {
    idx.iter().zip(strides(shape)).map(|(i, s)| i * s).sum()
}

/// Every multi-index of `shape`, row-major.
pub fn indices(shape: &[usize]) -> Vec<Vec<usize>> {
    (0..numel(shape))
        .map(|mut i| {
            let mut idx = vec![0; shape.len()];
            for d in (0..shape.len()).rev() {
                idx[d] = i % shape[d];
                i /= shape[d];
            }
            idx
        })
        .collect()
}

/// The lines of `shape` along `dim`, each as the flat positions of its elements, in the
/// row-major order of the other dimensions.
pub fn lines_along(shape: &[usize], dim: usize) -> Vec<Vec<usize>> {
    indices(&drop_axes(shape, &[dim]))
        .into_iter()
        .map(|o| {
            (0..shape[dim])
                .map(|k| {
                    let mut i = o.clone();
                    i.insert(dim, k);
                    flat(&i, shape)
                })
                .collect()
        })
        .collect()
}

pub fn drop_axes(shape: &[usize], axes: &[usize]) -> Vec<usize> {
    (0..shape.len())
        .filter(|d| !axes.contains(d))
        .map(|d| shape[d])
        .collect()
}

/// The numpy broadcast of `shapes` and, per result element, the flat position in each operand.
pub fn broadcast_ref(shapes: &[&[usize]]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let r = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let padded: Vec<Vec<usize>> = shapes
        .iter()
        .map(|s| {
            let mut v = vec![1; r - s.len()];
            v.extend_from_slice(s);
            v
        })
        .collect();
    let out: Vec<usize> = (0..r)
        .map(|d| {
            let sizes: Vec<usize> = padded.iter().map(|p| p[d]).filter(|&n| n != 1).collect();
            assert!(sizes.windows(2).all(|w| w[0] == w[1]), "not broadcastable");
            sizes.first().copied().unwrap_or(1)
        })
        .collect();
    let pos = indices(&out)
        .iter()
        .map(|o| {
            padded
                .iter()
                .map(|p| {
                    let i: Vec<usize> = o
                        .iter()
                        .zip(p)
                        .map(|(&i, &n)| if n == 1 { 0 } else { i })
                        .collect();
                    flat(&i, p)
                })
                .collect()
        })
        .collect();
    (out, pos)
}

/// A value wrapped into `dtype`'s range as integer arithmetic wraps.
pub fn wrap(v: f64, dtype: DType) -> f64 {
    match dtype {
        DType::I32 => v as i64 as i32 as f64,
        DType::U32 => v as i64 as u32 as f64,
        _ => v,
    }
}
