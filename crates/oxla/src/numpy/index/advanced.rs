//! Advanced indexing: integer index arrays normalised, broadcast together as numpy does and
//! lowered to one `gather` (the indexed dimensions placed as numpy places them), and `ix_`.

use super::basic::apply_slices;
use super::fail;
use super::items::{IndexItem, Slice};
use crate::array::DType;
use crate::core::Tensor;
use crate::numpy::{astype, scalar_tensor};
use crate::ops as lax;
use crate::prims::{GatherDims, GatherMode};

/// Integer index array normalised to non-negative `i32` positions in a dimension of size `n`.
#[track_caller]
fn normalize_index(i: &Tensor, n: usize) -> Tensor {
    let i = match i.dtype() {
        DType::I32 => i.clone(),
        d if d.is_int() => astype(i, DType::I32),
        d => panic!(
            "index: index arrays must be integers, got {d} (boolean masks have data-dependent \
             shapes)\n  at {}",
            std::panic::Location::caller()
        ),
    };
    if let Some(a) = i.try_array() {
        if a.as_slice::<i32>().iter().all(|&v| v >= 0) {
            return i;
        }
    }
    let zero = scalar_tensor(0.0, DType::I32);
    let negative = lax::lt(&i, &zero);
    let wrapped = lax::add(&i, &scalar_tensor(n as f64, DType::I32));
    lax::select_n(&negative, &[i.clone(), wrapped])
}

/// The shape numpy broadcasts `a` and `b` to (ranks aligned at the end), if they broadcast.
fn numpy_broadcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let r = a.len().max(b.len());
    let at = |s: &[usize], d: usize| (d + s.len()).checked_sub(r).map_or(1, |i| s[i]);
    (0..r)
        .map(|d| match (at(a, d), at(b, d)) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

/// `y[items]` for items with at least one integer array (integers in bounds), `x` being the
/// array the user indexes (named in errors) and `dims` `y`'s shape; `split` when an empty
/// `...` separated the advanced items, which then go first as if not adjacent.
#[track_caller]
pub(super) fn lower_advanced(
    x: &Tensor,
    y: &Tensor,
    items: &[IndexItem],
    dims: &[usize],
    split: bool,
) -> Tensor {
    // Advanced indexing: slice the other dimensions, then gather along the indexed ones.
    let slices: Vec<Option<Slice>> = items
        .iter()
        .map(|it| match it {
            IndexItem::Slice(sl) => Some(*sl),
            _ => None,
        })
        .collect();
    let y = apply_slices(y, &slices);
    let adv: Vec<usize> = (0..items.len())
        .filter(|&d| matches!(items[d], IndexItem::Array(_) | IndexItem::Int(_)))
        .collect();
    // Loops and matches, not closures, so that errors name the caller's line.
    let mut arrays: Vec<Tensor> = Vec::with_capacity(adv.len());
    for &d in &adv {
        arrays.push(match &items[d] {
            IndexItem::Array(t) => normalize_index(t, dims[d]),
            IndexItem::Int(i) => scalar_tensor(i.rem_euclid(dims[d] as isize) as f64, DType::I32),
            _ => unreachable!("advanced items only"),
        });
    }
    // Broadcast the index arrays to one shape, as `jnp.broadcast_arrays` does.
    let bshape = arrays
        .iter()
        .map(|t| t.shape().to_vec())
        .try_fold(Vec::new(), |a, b| numpy_broadcast(&a, &b));
    let Some(bshape) = bshape else {
        let shapes: Vec<String> = arrays.iter().map(|t| format!("{:?}", t.shape())).collect();
        fail(
            x,
            format!(
                "index arrays of shapes {} cannot be broadcast together",
                shapes.join(", ")
            ),
        )
    };
    let nb = bshape.len();
    let arrays: Vec<Tensor> = arrays
        .into_iter()
        .map(|t| {
            if t.shape() == bshape.as_slice() {
                t
            } else {
                let dims: Vec<usize> = (nb - t.ndim()..nb).collect();
                lax::broadcast_in_dim(&t, &bshape, &dims)
            }
        })
        .collect();
    let mut vshape = bshape.clone();
    vshape.push(1);
    let columns: Vec<Tensor> = arrays
        .iter()
        .map(|t| lax::broadcast_in_dim(t, &vshape, &(0..nb).collect::<Vec<_>>()))
        .collect();
    let indices = if columns.len() == 1 {
        columns[0].clone()
    } else {
        lax::concatenate(&columns, nb)
    };
    let contiguous = !split && adv.windows(2).all(|w| w[1] == w[0] + 1);
    let rest: Vec<usize> = (0..y.ndim()).filter(|d| !adv.contains(d)).collect();
    let before = if contiguous {
        rest.iter().filter(|&&d| d < adv[0]).count()
    } else {
        0
    };
    let offset_dims: Vec<usize> = (0..rest.len())
        .map(|i| if i < before { i } else { i + nb })
        .collect();
    let slice_sizes: Vec<usize> = (0..y.ndim())
        .map(|d| if adv.contains(&d) { 1 } else { y.shape()[d] })
        .collect();
    let gd = GatherDims {
        offset_dims,
        collapsed_slice_dims: adv.clone(),
        start_index_map: adv,
        operand_batching_dims: vec![],
        start_indices_batching_dims: vec![],
    };
    lax::gather(&y, &indices, gd, &slice_sizes, GatherMode::PromiseInBounds)
}

/// Open-mesh index arrays from 1-D integer arrays, as `np.ix_`: array `k` of `n` arrays
/// gets shape `[1, ..., len_k, ..., 1]`.
#[track_caller]
pub fn ix_(arrays: &[Tensor]) -> Vec<Tensor> {
    let _line = crate::core::user_line();
    let at = std::panic::Location::caller();
    let n = arrays.len();
    arrays
        .iter()
        .enumerate()
        .map(|(k, a)| {
            if a.ndim() != 1 {
                panic!(
                    "ix_: arrays must be one-dimensional, got shape {:?} for array {k}\n  at {at}",
                    a.shape()
                );
            }
            let mut shape = vec![1; n];
            shape[k] = a.shape()[0];
            lax::broadcast_in_dim(a, &shape, &[k])
        })
        .collect()
}
