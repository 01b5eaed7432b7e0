//! The batching rule of every primitive: given operands with their mapped axes (`None` for
//! unmapped), emit the batched computation and say where each result's mapped axis is.
//!
//! Rules move mapped axes rather than broadcast unmapped operands wherever the primitive
//! allows (JAX's `not_mapped`): elementwise operations give an unmapped operand a size-1
//! axis, reductions and slices keep the mapped axis where it is, `dot_general` and `gather`
//! gain batch dimensions, and a gather from an unmapped operand never copies it.

use crate::array::DType;
use crate::core::Prim;
use crate::core::Tensor;
use crate::numpy::scalar_tensor;
use crate::ops as lax;
use crate::prims::{GatherDims, GatherMode, ScatterDims};

type Batched = (Vec<Tensor>, Vec<Option<usize>>);

/// `x` with axis `from` moved to position `to`.
pub(crate) fn moveaxis(x: &Tensor, from: usize, to: usize) -> Tensor {
    if from == to {
        return x.clone();
    }
    let mut perm: Vec<usize> = (0..x.ndim()).filter(|&d| d != from).collect();
    perm.insert(to, from);
    lax::transpose(x, &perm)
}

/// `x` with its mapped axis first; an unmapped `x` is broadcast to `[n, ...]`.
fn front(x: &Tensor, d: Option<usize>, n: usize) -> Tensor {
    match d {
        Some(d) => moveaxis(x, d, 0),
        None => {
            let mut shape = vec![n];
            shape.extend_from_slice(x.shape());
            let dims: Vec<usize> = (1..shape.len()).collect();
            lax::broadcast_in_dim(x, &shape, &dims)
        }
    }
}

/// `x` (mapped axis first, per-example rank `from`) broadcast to `[n] + shape`.
fn front_full(x: &Tensor, d: Option<usize>, n: usize, shape: &[usize]) -> Tensor {
    let x = match d {
        Some(d) => moveaxis(x, d, 0),
        None => x.clone(),
    };
    let mut full = vec![n];
    full.extend_from_slice(shape);
    if x.shape() == full.as_slice() {
        return x;
    }
    let rank = full.len();
    let dims: Vec<usize> = match d {
        Some(_) => std::iter::once(0)
            .chain(rank - (x.ndim() - 1)..rank)
            .collect(),
        None => (rank - x.ndim()..rank).collect(),
    };
    lax::broadcast_in_dim(&x, &full, &dims)
}

/// Position in the batched operand of per-example axis `a`, the mapped axis being `bd`.
fn shifted(a: usize, bd: usize) -> usize {
    if a >= bd {
        a + 1
    } else {
        a
    }
}

/// Elementwise primitives: operands of one per-example rank (or rank 0) combine with lax's
/// size-1 broadcasting, so an unmapped operand only gains a size-1 axis.
fn elementwise(prim: &Prim, args: &[Tensor], dims: &[Option<usize>]) -> Batched {
    let mapped: Vec<(usize, usize)> = args
        .iter()
        .zip(dims)
        .filter_map(|(x, d)| d.map(|d| (d, x.ndim())))
        .collect();
    let aligned = mapped.windows(2).all(|w| w[0] == w[1])
        && args
            .iter()
            .zip(dims)
            .all(|(x, d)| d.is_some() || x.ndim() == 0);
    if aligned {
        let outs = crate::core::bind(prim.clone(), args, std::panic::Location::caller());
        let k = outs.len();
        return (outs, vec![Some(mapped[0].0); k]);
    }
    // As JAX's `broadcast_batcher`: first every operand of rank > 0 gets its mapped axis in
    // front (an unmapped one a size-1 axis there), then mapped operands of lower rank gain
    // trailing size-1 axes.
    let fronted: Vec<Tensor> = args
        .iter()
        .zip(dims)
        .map(|(x, d)| match d {
            Some(d) => moveaxis(x, *d, 0),
            None if x.ndim() == 0 => x.clone(),
            None => {
                let mut shape = vec![1];
                shape.extend_from_slice(x.shape());
                let dims: Vec<usize> = (1..shape.len()).collect();
                lax::broadcast_in_dim(x, &shape, &dims)
            }
        })
        .collect();
    let rank = fronted.iter().map(Tensor::ndim).max().unwrap_or(0);
    let moved: Vec<Tensor> = fronted
        .into_iter()
        .zip(dims)
        .map(|(x, d)| {
            if d.is_some() && x.ndim() < rank {
                let mut shape = x.shape().to_vec();
                shape.resize(rank, 1);
                let dims: Vec<usize> = (0..x.ndim()).collect();
                lax::broadcast_in_dim(&x, &shape, &dims)
            } else {
                x
            }
        })
        .collect();
    let outs = crate::core::bind(prim.clone(), &moved, std::panic::Location::caller());
    let k = outs.len();
    (outs, vec![Some(0); k])
}

/// Elementwise primitives whose operands must match exactly (`select_n`, `threefry2x32`):
/// everything is brought to `[n] + shape`, except unmapped scalars.
fn elementwise_full(prim: &Prim, args: &[Tensor], dims: &[Option<usize>], n: usize) -> Batched {
    let shape: Vec<usize> = args
        .iter()
        .zip(dims)
        .map(|(x, d)| {
            let mut s = x.shape().to_vec();
            if let Some(d) = d {
                s.remove(*d);
            }
            s
        })
        .max_by_key(Vec::len)
        .unwrap_or_default();
    let moved: Vec<Tensor> = args
        .iter()
        .zip(dims)
        .map(|(x, d)| {
            if d.is_none() && x.ndim() == 0 {
                x.clone()
            } else {
                front_full(x, *d, n, &shape)
            }
        })
        .collect();
    let outs = crate::core::bind(prim.clone(), &moved, std::panic::Location::caller());
    let k = outs.len();
    (outs, vec![Some(0); k])
}

fn one(t: Tensor, d: usize) -> Batched {
    (vec![t], vec![Some(d)])
}

/// The batching rule of `prim`, with at least one operand mapped.
pub(crate) fn batch(prim: &Prim, args: &[Tensor], dims: &[Option<usize>], n: usize) -> Batched {
    let x = &args[0];
    let bd = dims[0];
    match prim {
        Prim::Unary(_)
        | Prim::Binary(_)
        | Prim::IntegerPow { .. }
        | Prim::ConvertElementType { .. }
        | Prim::BitcastConvertType { .. }
        | Prim::StopGradient => elementwise(prim, args, dims),
        Prim::SelectN => select_n(args, dims, n),
        Prim::Threefry2x32 => elementwise_full(prim, args, dims, n),
        Prim::Iota { .. } => unreachable!("iota has no operands to map"),
        Prim::Control(c) => c.batch(args, dims, n),
        Prim::BroadcastInDim {
            shape,
            broadcast_dimensions,
        } => {
            let x = front(x, bd, n);
            let mut s = vec![n];
            s.extend_from_slice(shape);
            let mut d = vec![0];
            d.extend(broadcast_dimensions.iter().map(|&k| k + 1));
            one(lax::broadcast_in_dim(&x, &s, &d), 0)
        }
        Prim::Reshape { new_sizes } => {
            let x = front(x, bd, n);
            let mut s = vec![n];
            s.extend_from_slice(new_sizes);
            one(lax::reshape(&x, &s), 0)
        }
        Prim::Transpose { permutation } => {
            // One transpose that also brings the mapped axis to the front.
            let b = bd.expect("operand mapped");
            let mut p = vec![b];
            p.extend(permutation.iter().map(|&k| shifted(k, b)));
            one(lax::transpose(x, &p), 0)
        }
        Prim::Rev { dimensions } => {
            let b = bd.expect("operand mapped");
            let d: Vec<usize> = dimensions.iter().map(|&k| shifted(k, b)).collect();
            one(lax::rev(x, &d), b)
        }
        Prim::Squeeze { dimensions } => {
            let x = front(x, bd, n);
            let d: Vec<usize> = dimensions.iter().map(|&k| k + 1).collect();
            one(lax::squeeze(&x, &d), 0)
        }
        Prim::Slice {
            start_indices,
            limit_indices,
            strides,
        } => {
            let b = bd.expect("operand mapped");
            let mut start = start_indices.clone();
            let mut limit = limit_indices.clone();
            start.insert(b, 0);
            limit.insert(b, n);
            let strides = strides.as_ref().map(|s| {
                let mut s = s.clone();
                s.insert(b, 1);
                s
            });
            one(lax::slice(x, &start, &limit, strides.as_deref()), b)
        }
        Prim::Pad { padding_config } => pad(x, bd, &args[1], dims[1], padding_config, n),
        Prim::Concatenate { dimension } => {
            let parts: Vec<Tensor> = args
                .iter()
                .zip(dims)
                .map(|(x, d)| front(x, *d, n))
                .collect();
            one(lax::concatenate(&parts, dimension + 1), 0)
        }
        Prim::Reduce { op, axes } => {
            let b = bd.expect("operand mapped");
            let a: Vec<usize> = axes.iter().map(|&k| shifted(k, b)).collect();
            let out = b - axes.iter().filter(|&&k| k < b).count();
            one(lax::reduce(x, *op, &a), out)
        }
        Prim::ArgReduce {
            op,
            axes,
            index_dtype,
        } => {
            let b = bd.expect("operand mapped");
            let out = b - (axes[0] < b) as usize;
            one(
                lax::arg_reduce(x, *op, shifted(axes[0], b), *index_dtype),
                out,
            )
        }
        Prim::Cumsum { axis, reverse } => {
            let b = bd.expect("operand mapped");
            one(lax::cumsum(x, shifted(*axis, b), *reverse), b)
        }
        Prim::DotGeneral {
            contracting,
            batch: bdims,
            preferred_element_type,
        } => dot_general(args, dims, contracting, bdims, *preferred_element_type),
        Prim::DynamicSlice { slice_sizes } => dynamic_slice(args, dims, slice_sizes, n),
        Prim::DynamicUpdateSlice => dynamic_update_slice(args, dims, n),
        Prim::Gather {
            dims: gd,
            slice_sizes,
            mode,
        } => gather(args, dims, gd, slice_sizes, *mode),
        Prim::ScatterAdd { dims: sd, mode } => scatter_add(args, dims, sd, *mode, n),
        Prim::Sort {
            dimension,
            num_keys,
            ..
        } => {
            let parts: Vec<Tensor> = args
                .iter()
                .zip(dims)
                .map(|(x, d)| front(x, *d, n))
                .collect();
            let outs = lax::sort(&parts, dimension + 1, *num_keys);
            let k = outs.len();
            (outs, vec![Some(0); k])
        }
    }
}

fn pad(
    x: &Tensor,
    bd: Option<usize>,
    value: &Tensor,
    vd: Option<usize>,
    config: &[(i64, i64, i64)],
    n: usize,
) -> Batched {
    let mut cfg = config.to_vec();
    cfg.insert(0, (0, 0, 0));
    let x = front(x, bd, n);
    if vd.is_none() {
        return one(lax::pad(&x, value, &cfg), 0);
    }
    // A mapped padding value: pad with zeros, then select the value where nothing was.
    let zero = scalar_tensor(0.0, x.dtype());
    let padded = lax::pad(&x, &zero, &cfg);
    let inside = lax::broadcast_in_dim(&scalar_tensor(1.0, DType::Bool), x.shape(), &[]);
    let mask = lax::pad(&inside, &scalar_tensor(0.0, DType::Bool), &cfg);
    let v = front_full(value, vd, n, &padded.shape()[1..]);
    one(lax::select_n(&mask, &[v, padded]), 0)
}

fn dot_general(
    args: &[Tensor],
    dims: &[Option<usize>],
    contracting: &(Vec<usize>, Vec<usize>),
    batch: &(Vec<usize>, Vec<usize>),
    preferred: Option<DType>,
) -> Batched {
    // As JAX: the mapped axes stay where they are. Both mapped, they become the leading
    // batch dimension; one mapped, its axis is a free dimension of that side.
    let (l, r) = (&args[0], &args[1]);
    let bump = |v: &[usize], b: usize| v.iter().map(|&k| shifted(k, b)).collect::<Vec<_>>();
    let free_before = |rank: usize, b: usize, batch: &[usize], contract: &[usize]| {
        (0..b)
            .filter(|k| k < &rank && !batch.contains(k) && !contract.contains(k))
            .count()
    };
    let (lc, rc, lb, rb, out) = match (dims[0], dims[1]) {
        (Some(a), Some(b)) => (
            bump(&contracting.0, a),
            bump(&contracting.1, b),
            std::iter::once(a).chain(bump(&batch.0, a)).collect(),
            std::iter::once(b).chain(bump(&batch.1, b)).collect(),
            0,
        ),
        (Some(a), None) => (
            bump(&contracting.0, a),
            contracting.1.clone(),
            bump(&batch.0, a),
            batch.1.clone(),
            batch.0.len() + free_before(l.ndim() - 1, a, &batch.0, &contracting.0),
        ),
        (None, Some(b)) => (
            contracting.0.clone(),
            bump(&contracting.1, b),
            batch.0.clone(),
            bump(&batch.1, b),
            l.ndim() - contracting.0.len() + free_before(r.ndim() - 1, b, &batch.1, &contracting.1),
        ),
        (None, None) => unreachable!("an operand is mapped"),
    };
    one(
        lax::dot_general(l, r, (&lc, &rc), (&lb, &rb), preferred),
        out,
    )
}

/// `select_n` as JAX batches it: with the predicate and the cases mapped alike, or an
/// unmapped scalar predicate, no axis moves; otherwise everything is brought to the front.
fn select_n(args: &[Tensor], dims: &[Option<usize>], n: usize) -> Batched {
    let bind = |which: &Tensor, cases: &[Tensor]| lax::select_n(which, cases);
    let (which, cases) = (&args[0], &args[1..]);
    let (wd, cds) = (dims[0], &dims[1..]);
    if cds.iter().all(|&d| d == wd) {
        let which = if which.shape() == cases[0].shape() {
            which.clone()
        } else {
            // A per-example scalar predicate with array cases.
            let b = wd.expect("a mapped operand");
            lax::broadcast_in_dim(which, cases[0].shape(), &[b])
        };
        return one(bind(&which, cases), wd.expect("a mapped operand"));
    }
    if which.ndim() == 0 && cds.iter().all(Option::is_some) {
        let b = cds[0].expect("mapped");
        if cds.iter().all(|&d| d == Some(b)) {
            return one(bind(which, cases), b);
        }
        if cases.iter().all(|c| c.shape() == cases[0].shape()) {
            let moved: Vec<Tensor> = cases
                .iter()
                .zip(cds)
                .map(|(c, d)| moveaxis(c, d.expect("mapped"), b))
                .collect();
            return one(bind(which, &moved), b);
        }
    }
    let mut which = if which.ndim() > 0 {
        front(which, wd, n)
    } else {
        which.clone()
    };
    let mut cases: Vec<Tensor> = if cases.iter().all(|c| c.ndim() == 0) {
        cases.to_vec()
    } else {
        cases
            .iter()
            .zip(cds)
            .map(|(c, d)| front(c, *d, n))
            .collect()
    };
    if which.ndim() > 0 && which.ndim() < cases[0].ndim() {
        which = lax::broadcast_in_dim(&which, cases[0].shape(), &[0]);
    }
    if which.ndim() > cases[0].ndim() {
        cases = cases
            .iter()
            .map(|c| lax::broadcast_in_dim(c, which.shape(), &[]))
            .collect();
    }
    one(bind(&which, &cases), 0)
}

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

fn dynamic_slice(args: &[Tensor], dims: &[Option<usize>], sizes: &[usize], n: usize) -> Batched {
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

fn dynamic_update_slice(args: &[Tensor], dims: &[Option<usize>], n: usize) -> Batched {
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

fn gather(
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

fn scatter_add(
    args: &[Tensor],
    dims: &[Option<usize>],
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
    one(lax::scatter_add(&x, &idx, &upd, s, mode), 0)
}
