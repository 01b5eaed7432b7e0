//! The batching rules of the collectives (JAX's `lax/parallel.py` batchers).
//!
//! Over the vmap's own axis a collective becomes the array operation it means across the
//! examples: `psum` a sum over the mapped axis (printed as JAX prints it,
//! `psum[axes=(0,)]`), `all_gather` the mapped axis moved into place, `axis_index` an
//! `iota`, `ppermute` a take of the examples, and so on. An unmapped operand is the same
//! on every example: its `psum` is the value times the axis size. Over another axis the
//! collective stays, its positions moved past the mapped axis. Over an axis split over
//! devices (`vmap(f).devices`), `across_devices.rs` completes each one across them.

use super::{moveaxis, one, shifted, Batched};
use crate::array::DType;
use crate::core::axis_env::split_rows;
use crate::core::{bind, current_line, Prim, Tensor};
use crate::numpy::scalar_tensor;
use crate::ops as lax;
use crate::prims::{AxisName, Collective, CollectiveOp};

/// The collective `c` bound on `x` with `op` and `axes`.
pub(super) fn rebind(op: CollectiveOp, axes: Vec<AxisName>, x: &[Tensor]) -> Tensor {
    bind(Prim::Collective(Collective { op, axes }), x, current_line()).remove(0)
}

/// The batching rule of collective `c` over the axis `name` (of `n` examples).
pub(super) fn batch(
    c: &Collective,
    args: &[Tensor],
    dims: &[Option<usize>],
    n: usize,
    name: Option<&str>,
) -> Batched {
    let own = name.filter(|a| c.names_axis(a));
    if let Some(rows) = own.and_then(split_rows) {
        return super::across_devices::batch(c, args, dims, n, own.expect("named"), &rows);
    }
    if let CollectiveOp::AxisIndex = c.op {
        return match own {
            Some(_) => one(lax::iota(DType::I32, &[n], 0), 0),
            None => (vec![rebind(c.op.clone(), c.axes.clone(), &[])], vec![None]),
        };
    }
    let (x, d) = (&args[0], dims[0]);
    if c.monoid().is_some() {
        return reduction(c, x, d, n, own);
    }
    let Some(_) = own else {
        return elsewhere(c, x, d);
    };
    match &c.op {
        CollectiveOp::AllGather {
            dimension, tiled, ..
        } => (vec![gathered(x, d, n, *dimension, *tiled)], vec![None]),
        CollectiveOp::ReduceScatter {
            scatter_dimension: s,
            tiled,
            ..
        } => {
            let total = match d {
                Some(d) => lax::reduce(x, crate::prims::ReduceOp::Sum, &[d]),
                None => lax::mul(x, &scalar_tensor(n as f64, x.dtype())),
            };
            if !*tiled {
                return one(total, *s);
            }
            let mut shape = total.shape().to_vec();
            let block = shape[*s] / n;
            shape.splice(*s..=*s, [n, block]);
            one(lax::reshape(&total, &shape), *s)
        }
        CollectiveOp::Ppermute { perm, .. } => ppermute(x, d, perm, n),
        CollectiveOp::AllToAll {
            split_axis,
            concat_axis,
            ..
        } => {
            let x = super::front(x, d, n);
            one(all_to_all(&x, *split_axis, *concat_axis, n), 0)
        }
        CollectiveOp::Psum | CollectiveOp::Pmax | CollectiveOp::Pmin | CollectiveOp::AxisIndex => {
            unreachable!("answered above")
        }
    }
}

/// The examples' `x` (mapped at `d`) stacked along `dimension`, or concatenated along it
/// when `tiled`: `all_gather` over the vmap's own axis.
pub(super) fn gathered(
    x: &Tensor,
    d: Option<usize>,
    n: usize,
    dimension: usize,
    tiled: bool,
) -> Tensor {
    let stacked = match d {
        Some(d) => moveaxis(x, d, dimension),
        None => {
            let mut shape = x.shape().to_vec();
            shape.insert(dimension, n);
            let kept: Vec<usize> = (0..shape.len()).filter(|&k| k != dimension).collect();
            lax::broadcast_in_dim(x, &shape, &kept)
        }
    };
    if tiled {
        merge_next(&stacked, dimension)
    } else {
        stacked
    }
}

/// `x` with dimensions `k` and `k + 1` merged into one.
fn merge_next(x: &Tensor, k: usize) -> Tensor {
    let mut shape = x.shape().to_vec();
    let m = shape.remove(k + 1);
    shape[k] *= m;
    lax::reshape(x, &shape)
}

/// `psum`, `pmax` or `pmin` of `x` (mapped at `d`): the vmap's own axis, if named, becomes
/// the mapped position; the other positions move past it.
pub(super) fn reduction(
    c: &Collective,
    x: &Tensor,
    d: Option<usize>,
    n: usize,
    own: Option<&str>,
) -> Batched {
    let is_own = |a: &AxisName| matches!((a, own), (AxisName::Named(m), Some(o)) if &**m == o);
    let axes: Vec<AxisName> = c
        .axes
        .iter()
        .filter_map(|a| match (a, d) {
            (a, None) if is_own(a) => None,
            (a, Some(d)) if is_own(a) => Some(AxisName::Pos(d)),
            (AxisName::Pos(p), Some(d)) => Some(AxisName::Pos(shifted(*p, d))),
            (a, _) => Some(a.clone()),
        })
        .collect();
    let y = if axes.is_empty() {
        x.clone()
    } else {
        rebind(c.op.clone(), axes.clone(), std::slice::from_ref(x))
    };
    match d {
        // The same value on every example: a sum over the axis multiplies it.
        None => {
            let summed = own.is_some() && c.op == CollectiveOp::Psum;
            let y = if summed {
                lax::mul(&scalar_tensor(n as f64, y.dtype()), &y)
            } else {
                y
            };
            (vec![y], vec![None])
        }
        Some(_) if own.is_some() => (vec![y], vec![None]),
        Some(d) => {
            let before = axes
                .iter()
                .filter(|a| matches!(a, AxisName::Pos(p) if *p < d))
                .count();
            one(y, d - before)
        }
    }
}

/// A collective over another axis than the vmap's, on `x` mapped at `d`: the mapped axis
/// goes first and the collective's own dimensions move past it.
fn elsewhere(c: &Collective, x: &Tensor, d: Option<usize>) -> Batched {
    let Some(d) = d else {
        return (
            vec![rebind(
                c.op.clone(),
                c.axes.clone(),
                std::slice::from_ref(x),
            )],
            vec![None],
        );
    };
    let op = match c.op.clone() {
        CollectiveOp::Ppermute { .. } => {
            return one(
                rebind(c.op.clone(), c.axes.clone(), std::slice::from_ref(x)),
                d,
            )
        }
        CollectiveOp::AllGather {
            dimension,
            axis_size,
            tiled,
            sizes,
        } => CollectiveOp::AllGather {
            dimension: dimension + 1,
            axis_size,
            tiled,
            sizes,
        },
        CollectiveOp::ReduceScatter {
            scatter_dimension,
            axis_size,
            tiled,
        } => CollectiveOp::ReduceScatter {
            scatter_dimension: scatter_dimension + 1,
            axis_size,
            tiled,
        },
        CollectiveOp::AllToAll {
            split_axis,
            concat_axis,
            axis_size,
            tiled,
        } => CollectiveOp::AllToAll {
            split_axis: split_axis + 1,
            concat_axis: concat_axis + 1,
            axis_size,
            tiled,
        },
        CollectiveOp::Psum | CollectiveOp::Pmax | CollectiveOp::Pmin | CollectiveOp::AxisIndex => {
            unreachable!("batched by their own rules")
        }
    };
    one(rebind(op, c.axes.clone(), &[moveaxis(x, d, 0)]), 0)
}

/// `ppermute` over the vmap's axis: example `dst` takes example `src`'s value for each
/// pair; an example no pair sends to gets zeros.
fn ppermute(x: &Tensor, d: Option<usize>, perm: &[(usize, usize)], n: usize) -> Batched {
    let mut source = vec![None; n];
    for &(s, t) in perm {
        source[t] = Some(s);
    }
    let full = source.iter().all(Option::is_some);
    if full && d.is_none() {
        return (vec![x.clone()], vec![None]);
    }
    let (x, d) = match d {
        Some(d) => (x.clone(), d),
        None => (super::front(x, None, n), 0),
    };
    let from: Vec<i32> = source.iter().map(|s| s.unwrap_or(0) as i32).collect();
    let taken = crate::numpy::take(x, Tensor::from_vec(from, &[n]), d as isize, None);
    if full {
        return one(taken, d);
    }
    let receives: Vec<bool> = source.iter().map(Option::is_some).collect();
    let mask = lax::broadcast_in_dim(&Tensor::from_vec(receives, &[n]), taken.shape(), &[d]);
    let zeros = lax::broadcast_in_dim(&scalar_tensor(0.0, taken.dtype()), taken.shape(), &[]);
    one(lax::select_n(&mask, &[zeros, taken]), d)
}

/// `all_to_all` over the vmap's axis, the examples along axis 0 of `x`: example `j`'s
/// block `k` along `split` goes to example `k`, which joins the blocks along `concat` in
/// example order.
fn all_to_all(x: &Tensor, split: usize, concat: usize, n: usize) -> Tensor {
    let one_shape = &x.shape()[1..];
    let rank = one_shape.len();
    let block = one_shape[split] / n;
    // [j, e.., k, m, e..]: the split axis cut into (block index k, block m).
    let mut cut = x.shape().to_vec();
    cut.splice(split + 1..=split + 1, [n, block]);
    let z = lax::reshape(x, &cut);
    // Where each example axis is in `z`: before the split one, shifted by j; the split
    // axis is now the block `m`; after it, shifted by j and k.
    let at = |t: usize| match t.cmp(&split) {
        std::cmp::Ordering::Less => t + 1,
        std::cmp::Ordering::Equal => split + 2,
        std::cmp::Ordering::Greater => t + 2,
    };
    let mut perm = vec![split + 1];
    for t in 0..rank {
        if t == concat {
            perm.push(0);
        }
        perm.push(at(t));
    }
    let moved = lax::transpose(&z, &perm);
    let mut out = vec![n];
    out.extend((0..rank).map(|t| {
        let size = if t == split { block } else { one_shape[t] };
        size * if t == concat { n } else { 1 }
    }));
    lax::reshape(&moved, &out)
}
