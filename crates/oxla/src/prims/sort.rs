//! `sort`: a stable lexicographic sort of key operands along one dimension, carrying the
//! other operands along. Floats sort as JAX sorts them: `-0.0` equals `0.0`, NaNs last.

use std::cmp::Ordering;

use super::view::new_array;
use crate::array::{with_dtype, Array, Aval, Buffer, Elem};

pub(crate) fn sort_rule(
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
    if let Some(x) = inputs[..num_keys].iter().find(|x| x.dtype.is_complex()) {
        return Err(format!("complex keys are not supported, got {x}"));
    }
    if let Some(x) = inputs.iter().find(|x| x.shape != first.shape) {
        return Err(format!("operands must share one shape: {first} vs {x}"));
    }
    Ok(inputs.to_vec())
}

/// JAX's order of two key elements: `-0.0` equals `0.0`, NaNs come last and equal.
fn order(a: f64, b: f64) -> Ordering {
    let norm = |v: f64| {
        if v == 0.0 {
            0.0
        } else if v.is_nan() {
            f64::NAN
        } else {
            v
        }
    };
    norm(a).total_cmp(&norm(b))
}

/// Elements of a lexicographic key, read as `f64`s in place.
fn key(a: &Array) -> Box<dyn Fn(usize) -> f64 + '_> {
    with_dtype!(a.dtype(), T, {
        let s = a.as_slice::<T>();
        Box::new(move |i| s[i].to_f64())
    })
}

/// The bytes `sort` holds beyond its operands and results while it runs, at most: one line
/// at a time, the standard library's stable sort's merge buffer (half the line, or all of
/// it up to 8 MB, and never under 48 elements) and, with several operands, the line's
/// permutation (`u32` indices where they fit) or, for a strided line of one operand, a
/// copy of the line.
pub(crate) fn scratch_bytes(inputs: &[Aval], dimension: usize) -> usize {
    let Some(first) = inputs.first() else {
        return 0;
    };
    let n = first.shape.get(dimension).copied().unwrap_or(1);
    let inner: usize = first.shape[dimension + 1..].iter().product();
    let sorted = if inputs.len() == 1 {
        first.dtype.size()
    } else if n <= u32::MAX as usize {
        size_of::<u32>()
    } else {
        size_of::<usize>()
    };
    let line = if inputs.len() > 1 || inner > 1 { n } else { 0 };
    let merge = (n - n / 2).max(n.min(8_000_000 / sorted)).max(48);
    merge * sorted + line * sorted
}

pub(crate) fn sort(inputs: &[Array], dimension: usize, num_keys: usize) -> Vec<Array> {
    let shape = inputs[0].shape();
    let n = shape[dimension];
    let inner: usize = shape[dimension + 1..].iter().product();
    let outer: usize = shape[..dimension].iter().product();
    if inputs.len() == 1 {
        return vec![with_dtype!(inputs[0].dtype(), T, {
            sort_one::<T>(&inputs[0], n, inner)
        })];
    }
    if n <= u32::MAX as usize {
        sort_by_permutation::<u32>(inputs, num_keys, [outer, n, inner])
    } else {
        sort_by_permutation::<usize>(inputs, num_keys, [outer, n, inner])
    }
}

/// One operand, sorted line by line in its result: in place where a line is contiguous,
/// through a copy of the line where it is strided.
fn sort_one<T: Elem>(a: &Array, n: usize, inner: usize) -> Array {
    let by = |p: &T, q: &T| order(p.to_f64(), q.to_f64());
    new_array::<T>(a.shape(), |out| {
        out.copy_from_slice(a.as_slice::<T>());
        if n < 2 || out.is_empty() {
            return;
        }
        if inner == 1 {
            for line in out.chunks_mut(n) {
                line.sort_by(by);
            }
            return;
        }
        let mut line: Vec<T> = Vec::with_capacity(n);
        for block in out.chunks_mut(n * inner) {
            for i in 0..inner {
                line.clear();
                line.extend((0..n).map(|k| block[k * inner + i]));
                line.sort_by(by);
                for (k, &v) in line.iter().enumerate() {
                    block[k * inner + i] = v;
                }
            }
        }
    })
}

/// An index of a line's permutation.
trait Index: Copy {
    fn of(k: usize) -> Self;
    fn get(self) -> usize;
}

impl Index for u32 {
    fn of(k: usize) -> u32 {
        k as u32
    }
    fn get(self) -> usize {
        self as usize
    }
}

impl Index for usize {
    fn of(k: usize) -> usize {
        k
    }
    fn get(self) -> usize {
        self
    }
}

/// Several operands: for each line the permutation that sorts it by the keys, applied to
/// every operand before the next line.
fn sort_by_permutation<I: Index>(
    inputs: &[Array],
    num_keys: usize,
    [outer, n, inner]: [usize; 3],
) -> Vec<Array> {
    let shape = inputs[0].shape();
    let keys: Vec<_> = inputs[..num_keys].iter().map(key).collect();
    let mut outs: Vec<Buffer> = inputs
        .iter()
        .map(|a| Buffer::zeroed(a.as_bytes().len()))
        .collect();
    let mut perm: Vec<I> = Vec::with_capacity(n);
    for o in 0..outer {
        for i in 0..inner {
            let pos = |k: usize| (o * n + k) * inner + i;
            perm.clear();
            perm.extend((0..n).map(I::of));
            perm.sort_by(|&p, &q| {
                for key in &keys {
                    match order(key(pos(p.get())), key(pos(q.get()))) {
                        Ordering::Equal => continue,
                        c => return c,
                    }
                }
                Ordering::Equal
            });
            for (a, out) in inputs.iter().zip(&mut outs) {
                with_dtype!(a.dtype(), T, {
                    let (src, dst) = (a.as_slice::<T>(), out.as_mut_slice::<T>());
                    for (k, p) in perm.iter().enumerate() {
                        dst[pos(k)] = src[pos(p.get())];
                    }
                })
            }
        }
    }
    inputs
        .iter()
        .zip(outs)
        .map(|(a, b)| Array::from_buffer(a.dtype(), shape, b))
        .collect()
}
