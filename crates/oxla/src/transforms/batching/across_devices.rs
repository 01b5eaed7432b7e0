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
use super::{block_start, one, Batched};
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
        CollectiveOp::Psum => {
            let (ys, _) = reduction(c, &args[0], dims[0], n, Some(name));
            (vec![across(c.op.clone(), &ys[0])], vec![None])
        }
        CollectiveOp::Pmax | CollectiveOp::Pmin => {
            let (x, d) = (&args[0], dims[0]);
            let (ys, _) = reduction(c, x, d, n, Some(name));
            let y = across(c.op.clone(), &ys[0]);
            let y = match d {
                Some(d) if c.axes.len() == 1 && x.dtype().is_inexact() => {
                    ties_shared(&y, x, d, &|x| across(CollectiveOp::Psum, x))
                }
                Some(_) | None => y,
            };
            (vec![y], vec![None])
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
            let start = lax::broadcast_in_dim(&block_start(name, rows), &[n], &[]);
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
            let lengths: Vec<usize> = rows.iter().map(|r| r * per).collect();
            let mine = lax::dynamic_slice_in_dim(&total, &block_start(name, &lengths), n * per, *s);
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

/// `y`, the extremum over the whole axis of `x` (mapped at `d`), with the derivative of
/// the plain vmap's: the mean of the tangents of every example holding it, on any device
/// (the device's extremum of its block's, then the devices', would weigh ties by device).
/// The value stays `y`'s, an infinite one included.
fn ties_shared(y: &Tensor, x: &Tensor, d: usize, psum: &dyn Fn(&Tensor) -> Tensor) -> Tensor {
    let fixed = lax::stop_gradient(y);
    let kept: Vec<usize> = (0..x.ndim()).filter(|&k| k != d).collect();
    let at = lax::broadcast_in_dim(&fixed, x.shape(), &kept);
    let hit = lax::convert_element_type(&lax::eq(x, &at), x.dtype());
    let count = psum(&lax::reduce(&hit, crate::prims::ReduceOp::Sum, &[d]));
    let picked = psum(&lax::reduce(
        &lax::mul(x, &hit),
        crate::prims::ReduceOp::Sum,
        &[d],
    ));
    let mean = lax::div(&picked, &count);
    let moved = lax::add(&fixed, &lax::sub(&mean, &lax::stop_gradient(&mean)));
    lax::select_n(&crate::numpy::isfinite(&fixed), &[fixed.clone(), moved])
}
