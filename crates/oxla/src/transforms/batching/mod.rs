//! The batching rule of every primitive: given operands with their mapped axes (`None` for
//! unmapped), emit the batched computation and say where each result's mapped axis is.
//!
//! Rules move mapped axes rather than broadcast unmapped operands wherever the primitive
//! allows (JAX's `not_mapped`): elementwise operations give an unmapped operand a size-1
//! axis, reductions and slices keep the mapped axis where it is, `dot_general` and `gather`
//! gain batch dimensions, and a gather from an unmapped operand never copies it.
//!
//! This file holds the rule table (`batch`), the axis helpers the rules share and the
//! rules of the shape operations; the elementwise, indexing and collective families have
//! their own files, and `replay.rs` the replay of a jaxpr with the rules (`batch_jaxpr`).

mod across_devices;
mod collectives;
mod conv;
mod elementwise;
mod indexing;
mod replay;

use crate::array::DType;
use crate::core::prim::Kind;
use crate::core::Prim;
use crate::core::Tensor;
use crate::numpy::scalar_tensor;
use crate::ops as lax;
use crate::prims::Lanewise;
use elementwise::{elementwise, elementwise_full, select_n};
use indexing::{dynamic_slice, dynamic_update_slice, gather, scatter};
pub(crate) use replay::batch_jaxpr;

type Batched = (Vec<Tensor>, Vec<Option<usize>>);

/// Where this member's block starts, the members along the axis `name` holding blocks of
/// `lengths` in member order: an `int32` scalar.
pub(crate) fn block_start(name: &str, lengths: &[usize]) -> Tensor {
    let starts: Vec<i32> = lengths
        .iter()
        .scan(0, |at, &r| {
            *at += r;
            Some((*at - r) as i32)
        })
        .collect();
    let index = crate::prims::Collective {
        op: crate::prims::CollectiveOp::AxisIndex,
        axes: vec![crate::prims::AxisName::Named(name.into())],
    };
    let me = crate::core::bind(Prim::Collective(index), &[], crate::core::current_line()).remove(0);
    crate::numpy::take(Tensor::from_vec(starts, &[lengths.len()]), me, 0, None)
}

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

fn one(t: Tensor, d: usize) -> Batched {
    (vec![t], vec![Some(d)])
}

/// A host callback's batching rule (JAX's `debug_callback`): one call per example, in
/// order, each on that example's slice of the mapped operands and the whole of the others.
fn unbatch(prim: &Prim, args: &[Tensor], dims: &[Option<usize>], n: usize) -> Batched {
    for i in 0..n {
        let example: Vec<Tensor> = args
            .iter()
            .zip(dims)
            .map(|(x, d)| match *d {
                Some(d) => {
                    let mut start = vec![0; x.ndim()];
                    let mut limit = x.shape().to_vec();
                    (start[d], limit[d]) = (i, i + 1);
                    lax::squeeze(&lax::slice(x, &start, &limit, None), &[d])
                }
                None => x.clone(),
            })
            .collect();
        crate::core::bind(prim.clone(), &example, std::panic::Location::caller());
    }
    (vec![], vec![])
}

/// The batching rule of `prim` over the mapped axis called `name` (if it has one), with at
/// least one operand mapped or `prim` a collective over `name` (or holding one).
pub(crate) fn batch(
    prim: &Prim,
    args: &[Tensor],
    dims: &[Option<usize>],
    n: usize,
    name: Option<&str>,
) -> Batched {
    // The elementwise family, as the compiler classifies it, batches as one.
    if let Kind::Lanewise(op) = prim.kind() {
        return match op {
            Lanewise::SelectN => select_n(args, dims, n),
            Lanewise::Unary(_)
            | Lanewise::Binary(_)
            | Lanewise::IntegerPow(_)
            | Lanewise::Convert
            | Lanewise::Bitcast => elementwise(prim, args, dims),
            Lanewise::Threefry(_) => elementwise_full(prim, args, dims, n),
        };
    }
    // A collective may have no operand (`axis_index`).
    if let Prim::Collective(c) = prim {
        return collectives::batch(c, args, dims, n, name);
    }
    let x = &args[0];
    let bd = dims[0];
    match prim {
        Prim::Unary(_)
        | Prim::Binary(_)
        | Prim::IntegerPow { .. }
        | Prim::ConvertElementType { .. }
        | Prim::BitcastConvertType { .. }
        | Prim::SelectN => unreachable!("elementwise primitives batch above"),
        Prim::StopGradient => elementwise(prim, args, dims),
        Prim::Threefry2x32 { .. } => elementwise_full(prim, args, dims, n),
        Prim::Iota { .. } => unreachable!("iota has no operands to map"),
        Prim::Control(c) => c.batch(args, dims, n, name),
        Prim::Collective(_) => unreachable!("collectives batch above"),
        Prim::DotReduce(_) => {
            unreachable!("a trace binds dot_reduce as the primitives it fuses")
        }
        Prim::DebugCallback(_) => unbatch(prim, args, dims, n),
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
        Prim::Scatter { op, dims: sd, mode } => scatter(args, dims, *op, sd, *mode, n),
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
        Prim::ConvGeneralDilated(p) => conv::conv(args, dims, p, n),
        Prim::Linalg(op) => {
            // The decompositions batch over leading dimensions: the mapped axis goes first.
            let parts: Vec<Tensor> = args
                .iter()
                .zip(dims)
                .map(|(x, d)| front(x, *d, n))
                .collect();
            let outs = lax::linalg_prim(*op, &parts);
            let k = outs.len();
            (outs, vec![Some(0); k])
        }
        Prim::Fft {
            fft_type,
            fft_lengths,
        } => one(lax::fft(&front(x, bd, n), *fft_type, fft_lengths), 0),
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
