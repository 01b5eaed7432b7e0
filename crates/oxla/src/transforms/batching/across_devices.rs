//! Collectives over an axis split over devices in blocks (`vmap(f).devices`): what a
//! device traces is the batch of its own block of examples, so a collective over the axis
//! is the collective over the block (the batching rule) completed by one across the
//! devices, which the blocks' uneven lengths allow for the reductions (`psum`, `pmax`,
//! `pmin`), for `all_gather` (each device contributes its block's length), for
//! `axis_index` (each device's block starts where the previous one ends) and for
//! `psum_scatter` (the sum over every example, of which each block keeps its slices: the
//! transpose of an `all_gather`). `ppermute` and `all_to_all` exchange blocks between
//! members wherever they are, which uneven blocks have no fixed place for; they are
//! refused.

use super::collectives::{gathered, rebind, reduction};
use super::{one, Batched};
use crate::array::DType;
use crate::core::{current_line, Tensor};
use crate::ops as lax;
use crate::prims::{AxisName, Collective, CollectiveOp};

/// The batching rule of `c` over the axis `name`, `n` of whose examples are on this device
/// (`rows[d]` on device `d`).
pub(super) fn batch(
    c: &Collective,
    args: &[Tensor],
    dims: &[Option<usize>],
    n: usize,
    name: &str,
    rows: &[usize],
) -> Batched {
    let across = |op: CollectiveOp, x: &Tensor| {
        rebind(
            op,
            vec![AxisName::Named(name.into())],
            std::slice::from_ref(x),
        )
    };
    match &c.op {
        CollectiveOp::Psum | CollectiveOp::Pmax | CollectiveOp::Pmin => {
            let (ys, _) = reduction(c, &args[0], dims[0], n, Some(name));
            (vec![across(c.op.clone(), &ys[0])], vec![None])
        }
        CollectiveOp::AllGather {
            dimension, tiled, ..
        } => {
            let (x, d) = (&args[0], dims[0]);
            let here = gathered(x, d, n, *dimension, *tiled);
            let per = if *tiled {
                here.shape()[*dimension] / n.max(1)
            } else {
                1
            };
            let op = CollectiveOp::AllGather {
                dimension: *dimension,
                axis_size: rows.len(),
                tiled: true,
                sizes: Some(rows.iter().map(|r| r * per).collect()),
            };
            (vec![across(op, &here)], vec![None])
        }
        CollectiveOp::AxisIndex => {
            let local = lax::iota(DType::I32, &[n], 0);
            let start = lax::broadcast_in_dim(&block_start(name, rows, 1), &[n], &[]);
            one(lax::add(&local, &start), 0)
        }
        CollectiveOp::ReduceScatter {
            scatter_dimension: s,
            tiled,
            ..
        } => {
            // The sum over every example, then this block's examples' slices of it.
            let (x, d) = (&args[0], dims[0]);
            let here = match d {
                Some(d) => lax::reduce(x, crate::prims::ReduceOp::Sum, &[d]),
                None => lax::mul(x, &crate::numpy::scalar_tensor(n as f64, x.dtype())),
            };
            let total = across(CollectiveOp::Psum, &here);
            let per = total.shape()[*s] / rows.iter().sum::<usize>().max(1);
            let mine =
                lax::dynamic_slice_in_dim(&total, &block_start(name, rows, per), n * per, *s);
            if !*tiled {
                return one(mine, *s);
            }
            let mut shape = mine.shape().to_vec();
            shape.splice(*s..=*s, [n, per]);
            one(lax::reshape(&mine, &shape), *s)
        }
        CollectiveOp::Ppermute { .. } | CollectiveOp::AllToAll { .. } => panic!(
            "{} over {name:?}: the axis is split over devices in blocks (vmap(f).devices), and \
             a {} exchanges fixed blocks between its members, which members spread over \
             devices do not have; over a split axis psum, pmean, pmax, pmin, all_gather, \
             psum_scatter, axis_index and axis_size run. Drop .devices, or map over devices with pmap or \
             shard_map\n  at {}",
            c.name(),
            c.name(),
            current_line()
        ),
    }
}

/// Where this device's block starts along the axis split by `rows` over the devices named
/// `name`, times `per`: an `int32` scalar.
fn block_start(name: &str, rows: &[usize], per: usize) -> Tensor {
    let starts: Vec<i32> = rows
        .iter()
        .scan(0, |at, &r| {
            *at += r;
            Some(((*at - r) * per) as i32)
        })
        .collect();
    let device = rebind(
        CollectiveOp::AxisIndex,
        vec![AxisName::Named(name.into())],
        &[],
    );
    crate::numpy::take(Tensor::from_vec(starts, &[rows.len()]), device, 0, None)
}
