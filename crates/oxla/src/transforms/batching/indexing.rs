//! Batching rules of the indexing family: `dynamic_slice` and `dynamic_update_slice` (which
//! become a gather and a scatter when their start indices are mapped), `gather` and
//! the scatters (which gain batch dimensions, never copying an unmapped operand).

use super::{front, moveaxis, one, Batched};
use crate::array::DType;
use crate::core::Tensor;
use crate::numpy::scalar_tensor;
use crate::ops as lax;
use crate::prims::{GatherDims, GatherMode, ScatterDims, ScatterOp};

/// Per-example scalar start indices, mapped or not, stacked into `i32[n, k]` (as JAX's
/// `_batch_dynamic_slice_indices`: one `broadcast_in_dim` each, no concatenate of one).
fn stacked_indices(idx: &[Tensor], dims: &[Option<usize>], n: usize) -> Tensor {
    let cols: Vec<Tensor> = idx
        .iter()
        .zip(dims)
        .map(|(i, d)| {
            let i = crate::numpy::astype(i, DType::I32);
            let at: &[usize] = if d.is_some() { &[0] } else { &[] };
            lax::broadcast_in_dim(&i, &[n, 1], at)
        })
        .collect();
    if cols.len() == 1 {
        return cols.into_iter().next().expect("one column");
    }
    lax::concatenate(&cols, 1)
}

pub(super) fn dynamic_slice(
    args: &[Tensor],
    dims: &[Option<usize>],
    sizes: &[usize],
    n: usize,
) -> Batched {
    let (x, idx) = (&args[0], &args[1..]);
    if dims[1..].iter().all(Option::is_none) {
        // Only the operand is mapped: slice all of the mapped axis.
        let b = dims[0].expect("operand mapped");
        let mut idx = idx.to_vec();
        idx.insert(
            b,
            scalar_tensor(0.0, idx.first().map_or(DType::I32, Tensor::dtype)),
        );
        let mut s = sizes.to_vec();
        s.insert(b, n);
        return one(lax::dynamic_slice(x, &idx, &s), b);
    }
    // Mapped start indices: a gather with one index vector per example.
    let k = sizes.len();
    let indices = stacked_indices(idx, &dims[1..], n);
    let window: Vec<usize> = (1..=k).collect();
    match dims[0] {
        None => {
            let gd = GatherDims {
                offset_dims: window,
                start_index_map: (0..k).collect(),
                ..GatherDims::default()
            };
            one(lax::gather(x, &indices, gd, sizes, GatherMode::Clip), 0)
        }
        Some(b) => {
            let x = moveaxis(x, b, 0);
            let gd = GatherDims {
                offset_dims: window.clone(),
                start_index_map: window,
                operand_batching_dims: vec![0],
                start_indices_batching_dims: vec![0],
                ..GatherDims::default()
            };
            let mut s = vec![1];
            s.extend_from_slice(sizes);
            one(lax::gather(&x, &indices, gd, &s, GatherMode::Clip), 0)
        }
    }
}

pub(super) fn dynamic_update_slice(args: &[Tensor], dims: &[Option<usize>], n: usize) -> Batched {
    let (x, u, idx) = (&args[0], &args[1], &args[2..]);
    let x = front(x, dims[0], n);
    let u = front(u, dims[1], n);
    if dims[2..].iter().all(Option::is_none) {
        let mut idx = idx.to_vec();
        idx.insert(
            0,
            scalar_tensor(0.0, idx.first().map_or(DType::I32, Tensor::dtype)),
        );
        return one(lax::dynamic_update_slice(&x, &u, &idx), 0);
    }
    // Mapped start indices: scatter the update into zeros and a mask, then select.
    let k = u.ndim() - 1;
    let indices = stacked_indices(idx, &dims[2..], n);
    let window: Vec<usize> = (1..=k).collect();
    let sd = ScatterDims {
        update_window_dims: window.clone(),
        scatter_dims_to_operand_dims: window,
        operand_batching_dims: vec![0],
        scatter_indices_batching_dims: vec![0],
        ..ScatterDims::default()
    };
    let place = |base: &Tensor, upd: &Tensor| {
        lax::scatter_add(base, &indices, upd, sd.clone(), GatherMode::Clip)
    };
    let filled = |t: &Tensor, v: f64, dtype: DType| {
        lax::broadcast_in_dim(&scalar_tensor(v, dtype), t.shape(), &[])
    };
    let values = place(&filled(&x, 0.0, x.dtype()), &u);
    let hits = place(&filled(&x, 0.0, DType::I32), &filled(&u, 1.0, DType::I32));
    let mask = lax::ne(&hits, &scalar_tensor(0.0, DType::I32));
    one(lax::select_n(&mask, &[x, values]), 0)
}

pub(super) fn gather(
    args: &[Tensor],
    dims: &[Option<usize>],
    gd: &GatherDims,
    sizes: &[usize],
    mode: GatherMode,
) -> Batched {
    let (x, idx) = (&args[0], &args[1]);
    let up = |v: &[usize]| v.iter().map(|&k| k + 1).collect::<Vec<usize>>();
    match (dims[0], dims[1]) {
        (Some(a), None) => {
            // The mapped axis becomes the first window axis, at output position 0.
            let x = moveaxis(x, a, 0);
            let g = GatherDims {
                offset_dims: std::iter::once(0).chain(up(&gd.offset_dims)).collect(),
                collapsed_slice_dims: up(&gd.collapsed_slice_dims),
                start_index_map: up(&gd.start_index_map),
                operand_batching_dims: up(&gd.operand_batching_dims),
                start_indices_batching_dims: gd.start_indices_batching_dims.clone(),
            };
            let mut s = vec![x.shape()[0]];
            s.extend_from_slice(sizes);
            one(lax::gather(&x, idx, g, &s, mode), 0)
        }
        (None, Some(b)) => {
            // The mapped axis becomes the first batch axis of the indices, at output 0.
            let idx = moveaxis(idx, b, 0);
            let g = GatherDims {
                offset_dims: up(&gd.offset_dims),
                start_indices_batching_dims: up(&gd.start_indices_batching_dims),
                ..gd.clone()
            };
            one(lax::gather(x, &idx, g, sizes, mode), 0)
        }
        (Some(a), Some(b)) => {
            let (x, idx) = (moveaxis(x, a, 0), moveaxis(idx, b, 0));
            let g = GatherDims {
                offset_dims: up(&gd.offset_dims),
                collapsed_slice_dims: up(&gd.collapsed_slice_dims),
                start_index_map: up(&gd.start_index_map),
                operand_batching_dims: std::iter::once(0)
                    .chain(up(&gd.operand_batching_dims))
                    .collect(),
                start_indices_batching_dims: std::iter::once(0)
                    .chain(up(&gd.start_indices_batching_dims))
                    .collect(),
            };
            let mut s = vec![1];
            s.extend_from_slice(sizes);
            one(lax::gather(&x, &idx, g, &s, mode), 0)
        }
        (None, None) => unreachable!("an operand is mapped"),
    }
}

pub(super) fn scatter(
    args: &[Tensor],
    dims: &[Option<usize>],
    op: ScatterOp,
    sd: &ScatterDims,
    mode: GatherMode,
    n: usize,
) -> Batched {
    let [x, idx, upd] = [0, 1, 2].map(|i| front(&args[i], dims[i], n));
    let up = |v: &[usize]| v.iter().map(|&k| k + 1).collect::<Vec<usize>>();
    let s = ScatterDims {
        update_window_dims: up(&sd.update_window_dims),
        inserted_window_dims: up(&sd.inserted_window_dims),
        scatter_dims_to_operand_dims: up(&sd.scatter_dims_to_operand_dims),
        operand_batching_dims: std::iter::once(0)
            .chain(up(&sd.operand_batching_dims))
            .collect(),
        scatter_indices_batching_dims: std::iter::once(0)
            .chain(up(&sd.scatter_indices_batching_dims))
            .collect(),
    };
    one(lax::scatter(op, &x, &idx, &upd, s, mode), 0)
}
