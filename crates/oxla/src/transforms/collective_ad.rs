//! Derivatives of the collectives.
//!
//! All but `pmax` and `pmin` are linear: the tangent goes through the same collective, and
//! the transposes pair up as in JAX (`psum` with `psum`, with JAX's SPMD convention that
//! the cotangent of a `psum` is the `psum` of the cotangents; `all_gather` with
//! `psum_scatter`; `ppermute` with the inverse permutation; `all_to_all` with the split
//! and concatenated axes swapped). Positions of a batched `psum` transpose to a broadcast.
//!
//! `pmax` and `pmin` have derivatives here, which JAX lacks (jax#7167): the tangent is the
//! mean of the tangents at the members holding the extremum (ties share it, as
//! `reduce_max`'s do), and the cotangent goes back to those members.

use super::jvp_rules::Tangents;
use super::vjp_rules::Cotangents;
use crate::core::{bind, current_line, Prim, Tensor};
use crate::ops as lax;
use crate::prims::{AxisName, Collective, CollectiveOp};

fn apply(c: &Collective, x: &Tensor) -> Tensor {
    bind(
        Prim::Collective(c.clone()),
        std::slice::from_ref(x),
        current_line(),
    )
    .remove(0)
}

/// `c`'s operation with other parameters, over the same axes.
fn with_op(c: &Collective, op: CollectiveOp) -> Collective {
    Collective {
        op,
        axes: c.axes.clone(),
    }
}

/// The `psum` over `axes` of `x`, or `x` when there are none.
fn psum_over(axes: Vec<AxisName>, x: &Tensor) -> Tensor {
    if axes.is_empty() {
        return x.clone();
    }
    let c = Collective {
        op: CollectiveOp::Psum,
        axes,
    };
    apply(&c, x)
}

/// `y` (the shape of `c`'s result on `x`) broadcast back along `c`'s positional axes.
fn widen(c: &Collective, y: &Tensor, x: &Tensor) -> Tensor {
    let pos = c.positions();
    let kept: Vec<usize> = (0..x.ndim()).filter(|d| !pos.contains(d)).collect();
    lax::broadcast_in_dim(y, x.shape(), &kept)
}

/// This member's block (`len` long) of `y` along `dimension`, the members' blocks `sizes`
/// long in member order: the transpose of an all_gather of uneven blocks, after its `psum`.
fn own_block(c: &Collective, y: &Tensor, sizes: &[usize], dimension: usize, len: usize) -> Tensor {
    let name = c.names().first().cloned().expect("a named axis");
    let start = super::batching::block_start(&name, sizes);
    lax::dynamic_slice_in_dim(y, &start, len, dimension)
}

/// Where `x` holds the extremum `y` of a `pmax`/`pmin`, as ones and zeros of `x`'s dtype.
fn hits(c: &Collective, x: &Tensor, y: &Tensor) -> Tensor {
    lax::convert_element_type(&lax::eq(x, &widen(c, y, x)), x.dtype())
}

/// The results and tangents of collective `c` on `primals`.
pub(crate) fn jvp(
    c: &Collective,
    primals: &[Tensor],
    tangents: &[Option<Tensor>],
) -> (Vec<Tensor>, Tangents) {
    let outs = bind(Prim::Collective(c.clone()), primals, current_line());
    let Some(t) = tangents.first().cloned().flatten() else {
        return (outs.clone(), vec![None; outs.len()]);
    };
    let x = &primals[0];
    let tangent = match c.op {
        CollectiveOp::Pmax | CollectiveOp::Pmin => {
            let hit = hits(c, x, &outs[0]);
            let picked = psum_over(c.axes.clone(), &lax::mul(&t, &hit));
            lax::div(&picked, &psum_over(c.axes.clone(), &hit))
        }
        // Linear: the tangent goes through the same collective.
        CollectiveOp::Psum
        | CollectiveOp::AllGather { .. }
        | CollectiveOp::ReduceScatter { .. }
        | CollectiveOp::Ppermute { .. }
        | CollectiveOp::AllToAll { .. }
        | CollectiveOp::AxisIndex => apply(c, &t),
    };
    (outs, vec![Some(tangent)])
}

/// The cotangent of collective `c`'s operand (of `ins`, with results `outs`) from its
/// result's cotangent.
pub(crate) fn vjp(
    c: &Collective,
    ins: &[Tensor],
    outs: &[Tensor],
    cts: &[Option<Tensor>],
) -> Cotangents {
    let Some(ct) = cts.first().cloned().flatten() else {
        return vec![None; ins.len()];
    };
    let x = &ins[0];
    let named = || {
        c.axes
            .iter()
            .filter(|a| matches!(a, AxisName::Named(_)))
            .cloned()
            .collect::<Vec<_>>()
    };
    let g = match &c.op {
        CollectiveOp::AxisIndex => return vec![],
        CollectiveOp::Psum => widen(c, &psum_over(named(), &ct), x),
        CollectiveOp::Pmax | CollectiveOp::Pmin => {
            let hit = hits(c, x, &outs[0]);
            let count = psum_over(c.axes.clone(), &hit);
            let share = lax::div(&psum_over(named(), &ct), &count);
            lax::mul(&hit, &widen(c, &share, x))
        }
        CollectiveOp::AllGather {
            dimension,
            sizes: Some(sizes),
            ..
        } => own_block(
            c,
            &psum_over(named(), &ct),
            sizes,
            *dimension,
            x.shape()[*dimension],
        ),
        CollectiveOp::AllGather {
            dimension,
            axis_size,
            tiled,
            sizes: None,
        } => apply(
            &with_op(
                c,
                CollectiveOp::ReduceScatter {
                    scatter_dimension: *dimension,
                    axis_size: *axis_size,
                    tiled: *tiled,
                },
            ),
            &ct,
        ),
        CollectiveOp::ReduceScatter {
            scatter_dimension,
            axis_size,
            tiled,
        } => apply(
            &with_op(
                c,
                CollectiveOp::AllGather {
                    dimension: *scatter_dimension,
                    axis_size: *axis_size,
                    tiled: *tiled,
                    sizes: None,
                },
            ),
            &ct,
        ),
        CollectiveOp::Ppermute { perm, axis_size } => {
            let inverse = perm.iter().map(|&(s, d)| (d, s)).collect();
            let op = CollectiveOp::Ppermute {
                perm: inverse,
                axis_size: *axis_size,
            };
            apply(&with_op(c, op), &ct)
        }
        CollectiveOp::AllToAll {
            split_axis,
            concat_axis,
            axis_size,
            tiled,
        } => {
            let op = CollectiveOp::AllToAll {
                split_axis: *concat_axis,
                concat_axis: *split_axis,
                axis_size: *axis_size,
                tiled: *tiled,
            };
            apply(&with_op(c, op), &ct)
        }
    };
    vec![Some(g)]
}
