//! Basic indexing: integers and slices lowered to one `slice` (with strides), a `rev` for
//! negative steps and a `squeeze` of the integer dimensions, with Python's clamping of
//! slice bounds.

use super::items::{s, IndexItem, Slice};
use crate::core::Tensor;
use crate::ops as lax;

/// `(first, count, step, stop)` of a numpy slice over a dimension of size `n`, `stop` clamped
/// as Python's `slice.indices` clamps it.
pub(super) fn resolve_slice(sl: Slice, n: usize) -> (isize, usize, isize, isize) {
    let n = n as isize;
    let step = sl.step;
    let clamp = |v: isize, lo: isize, hi: isize| v.clamp(lo, hi);
    let norm = |v: isize| if v < 0 { v + n } else { v };
    let (start, stop) = if step > 0 {
        (
            sl.start.map_or(0, |v| clamp(norm(v), 0, n)),
            sl.stop.map_or(n, |v| clamp(norm(v), 0, n)),
        )
    } else {
        (
            sl.start.map_or(n - 1, |v| clamp(norm(v), -1, n - 1)),
            sl.stop.map_or(-1, |v| clamp(norm(v), -1, n - 1)),
        )
    };
    // In i128: a step of `isize::MIN` or `isize::MAX` is valid, and its magnitude plus a
    // span overflows `isize` (numpy: `x[::-2**63]` is `x[-1:]` for a non-empty `x`).
    let (span, by) = if step > 0 {
        (stop - start, step as i128)
    } else {
        (start - stop, -(step as i128))
    };
    let count = (span.max(0) as i128 + by - 1) / by;
    (start, count as usize, step, stop)
}

/// Applies static slices (and static integers, as size-1 slices) dimension by dimension.
#[track_caller]
pub(super) fn apply_slices(x: &Tensor, slices: &[Option<Slice>]) -> Tensor {
    let n = x.ndim();
    let (mut start, mut limit, mut stride) = (vec![0; n], x.shape().to_vec(), vec![1; n]);
    let mut reversed = Vec::new();
    for (d, sl) in slices.iter().enumerate() {
        let Some(sl) = sl else { continue };
        let (first, count, step, stop) = resolve_slice(*sl, x.shape()[d]);
        if count == 0 {
            (start[d], limit[d]) = (0, 0);
            continue;
        }
        if step.unsigned_abs() >= x.shape()[d] {
            // One element (count is 1): no stride as large as the step in the program.
            (start[d], limit[d]) = (first as usize, first as usize + 1);
        } else if step > 0 {
            // The slice's own stop, as JAX passes it (`x[1:7:2]` has limit 7, not 6).
            start[d] = first as usize;
            stride[d] = step as usize;
            limit[d] = stop as usize;
        } else {
            let last = first + (count as isize - 1) * step;
            start[d] = last as usize;
            stride[d] = step.unsigned_abs();
            limit[d] = first as usize + 1;
            reversed.push(d);
        }
    }
    let trivial = start.iter().all(|&s| s == 0) && limit.as_slice() == x.shape();
    let mut y = x.clone();
    if !trivial || stride.iter().any(|&s| s != 1) {
        let strides = stride.iter().any(|&s| s != 1).then_some(stride.as_slice());
        y = lax::slice(&y, &start, &limit, strides);
    }
    if !reversed.is_empty() {
        y = lax::rev(&y, &reversed);
    }
    y
}

/// `y[items]` for items that are all integers (in bounds) and slices, `dims` being `y`'s
/// shape.
#[track_caller]
pub(super) fn lower_basic(y: &Tensor, items: &[IndexItem], dims: &[usize]) -> Tensor {
    let slices: Vec<Option<Slice>> = items
        .iter()
        .enumerate()
        .map(|(d, it)| match it {
            IndexItem::Slice(sl) => Some(*sl),
            IndexItem::Int(i) => {
                let i = i.rem_euclid(dims[d] as isize);
                Some(s(Some(i), Some(i + 1), 1))
            }
            _ => None,
        })
        .collect();
    let y = apply_slices(y, &slices);
    let ints: Vec<usize> = (0..items.len())
        .filter(|&d| matches!(items[d], IndexItem::Int(_)))
        .collect();
    if ints.is_empty() {
        y
    } else {
        lax::squeeze(&y, &ints)
    }
}
