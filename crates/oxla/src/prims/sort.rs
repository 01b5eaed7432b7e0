//! `sort`: a stable lexicographic sort of key operands along one dimension, carrying the
//! other operands along. Floats sort as JAX sorts them: `-0.0` equals `0.0`, NaNs last.

use std::cmp::Ordering;

use super::view::new_array;
use crate::array::{Array, DType};
use crate::core::Aval;

pub(super) fn sort_rule(
    dimension: usize,
    num_keys: usize,
    inputs: &[Aval],
) -> Result<Vec<Aval>, String> {
    let first = inputs.first().ok_or("needs at least one operand")?;
    if num_keys == 0 || num_keys > inputs.len() {
        return Err(format!(
            "num_keys {num_keys} invalid for {} operands",
            inputs.len()
        ));
    }
    if dimension >= first.ndim() {
        return Err(format!("dimension {dimension} out of range for {first}"));
    }
    if let Some(x) = inputs.iter().find(|x| x.shape != first.shape) {
        return Err(format!("operands must share one shape: {first} vs {x}"));
    }
    Ok(inputs.to_vec())
}

/// A key element in JAX's sort order.
fn key(a: &Array, i: usize) -> f64 {
    let v = match a.dtype() {
        DType::F32 => a.as_slice::<f32>()[i] as f64,
        DType::F64 => a.as_slice::<f64>()[i],
        DType::I32 => a.as_slice::<i32>()[i] as f64,
        DType::U32 => a.as_slice::<u32>()[i] as f64,
        DType::Bool => a.as_slice::<bool>()[i] as u8 as f64,
    };
    if v == 0.0 {
        0.0
    } else if v.is_nan() {
        f64::NAN
    } else {
        v
    }
}

pub(super) fn sort(inputs: &[Array], dimension: usize, num_keys: usize) -> Vec<Array> {
    let shape = inputs[0].shape();
    let n = shape[dimension];
    let inner: usize = shape[dimension + 1..].iter().product();
    let outer: usize = shape[..dimension].iter().product();
    // For every line along `dimension`, the permutation that sorts it.
    let mut order: Vec<usize> = crate::array::vec_with_capacity(outer * inner * n);
    for o in 0..outer {
        for i in 0..inner {
            let pos = |k: usize| (o * n + k) * inner + i;
            let mut perm: Vec<usize> = (0..n).collect();
            perm.sort_by(|&p, &q| {
                for k in &inputs[..num_keys] {
                    match key(k, pos(p)).total_cmp(&key(k, pos(q))) {
                        Ordering::Equal => continue,
                        c => return c,
                    }
                }
                Ordering::Equal
            });
            order.extend(perm.into_iter().map(pos));
        }
    }
    inputs
        .iter()
        .map(|a| {
            with_dtype!(a.dtype(), T, {
                let src = a.as_slice::<T>();
                new_array::<T>(shape, |out| {
                    let mut it = order.iter();
                    for o in 0..outer {
                        for i in 0..inner {
                            for k in 0..n {
                                out[(o * n + k) * inner + i] =
                                    src[*it.next().expect("one per element")];
                            }
                        }
                    }
                })
            })
        })
        .collect()
}
