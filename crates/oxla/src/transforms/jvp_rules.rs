//! The JVP rule of every primitive: primal outputs and their tangents from primal inputs and
//! input tangents (`None`: a symbolic zero). Rules emit primitives in the current
//! interpreter, so their results can be traced, batched and differentiated again.

pub(crate) use super::elementwise_jvp::{binary_tangents, integer_pow_tangent, unary_tangent};
use super::scatter_ad::Scatter;
use crate::array::DType;
use crate::core::{bind, Prim, Tensor};
use crate::numpy::scalar_tensor;
use crate::ops as lax;
use crate::prims::{ReduceOp, ScatterOp};

pub(crate) type Tangents = Vec<Option<Tensor>>;

pub(super) fn c(v: f64, like: &Tensor) -> Tensor {
    scalar_tensor(v, like.dtype())
}

/// `t` broadcast to `shape`: lax's implicit broadcasting of size-1 dimensions and of
/// rank 0 made explicit. `t` has the rank of `shape` or rank 0; unlike numpy's
/// `broadcast_to`, no leading axes are added.
pub(crate) fn explicit_broadcast(t: &Tensor, shape: &[usize]) -> Tensor {
    if t.shape() == shape {
        return t.clone();
    }
    let dims: Vec<usize> = if t.ndim() == 0 {
        vec![]
    } else {
        (0..shape.len()).collect()
    };
    lax::broadcast_in_dim(t, shape, &dims)
}

/// `select_n(pred, [on_false, on_true])` with all three broadcast to `shape` by
/// [`explicit_broadcast`]: `on_true` where `pred`, else `on_false`.
pub(crate) fn select_broadcast(
    pred: &Tensor,
    on_false: &Tensor,
    on_true: &Tensor,
    shape: &[usize],
) -> Tensor {
    lax::select_n(
        &explicit_broadcast(pred, shape),
        &[
            explicit_broadcast(on_false, shape),
            explicit_broadcast(on_true, shape),
        ],
    )
}

/// A zero of `x`'s aval (a symbolic zero made concrete), staged as a `broadcast_in_dim` of
/// a literal. Unlike `jnp::zeros_like`, it does not pin its caller's line: the equation
/// records the line in force (in a rule, the transformed equation's).
pub(crate) fn zeros_of_aval(x: &Tensor) -> Tensor {
    lax::broadcast_in_dim(&c(0.0, x), x.shape(), &[])
}

pub(super) fn is_float(x: &Tensor) -> bool {
    x.dtype().is_inexact()
}

/// Sum of tangents, either possibly zero.
pub(super) fn add_opt(a: Option<Tensor>, b: Option<Tensor>, shape: &[usize]) -> Option<Tensor> {
    match (a, b) {
        (None, None) => None,
        (Some(a), None) | (None, Some(a)) => Some(explicit_broadcast(&a, shape)),
        (Some(a), Some(b)) => Some(explicit_broadcast(&lax::add(&a, &b), shape)),
    }
}

pub(crate) fn jvp(
    prim: &Prim,
    primals: &[Tensor],
    tangents: &[Option<Tensor>],
) -> (Vec<Tensor>, Tangents) {
    // A loop's outputs and tangents come from one loop, rather than the loop run twice.
    if let Prim::Control(c) = prim {
        return c.jvp(primals, tangents);
    }
    // A collective may have no operand (`axis_index`).
    if let Prim::Collective(c) = prim {
        return super::collective_ad::jvp(c, primals, tangents);
    }
    let src = std::panic::Location::caller();
    let outs = bind(prim.clone(), primals, src);
    let x = &primals[0];
    let t0 = tangents[0].as_ref();
    let lin = |p: &Prim, ts: &[Tensor]| bind(p.clone(), ts, src);
    let zero_of = |i: usize| {
        tangents[i]
            .clone()
            .unwrap_or_else(|| zeros_of_aval(&primals[i]))
    };
    let tangent: Tangents = match prim {
        Prim::Unary(op) => vec![t0.and_then(|t| unary_tangent(*op, x, &outs[0], t))],
        Prim::Binary(op) => vec![binary_tangents(
            *op,
            x,
            &primals[1],
            &outs[0],
            t0,
            tangents[1].as_ref(),
        )],
        Prim::IntegerPow { y } => vec![t0.map(|t| integer_pow_tangent(x, *y, t))],
        Prim::ConvertElementType { new_dtype } => vec![t0
            .filter(|_| new_dtype.is_inexact() && is_float(x))
            .map(|t| lax::convert_element_type(t, *new_dtype))],
        Prim::BitcastConvertType { .. }
        | Prim::Iota { .. }
        | Prim::ArgReduce { .. }
        | Prim::Threefry2x32 { .. }
        | Prim::StopGradient => vec![None; outs.len()],
        // A host callback ran on the primals above; tangents are not its business.
        Prim::DebugCallback(_) => vec![],
        Prim::Control(_) => {
            unreachable!("control flow's JVP is staged before its primal")
        }
        Prim::Collective(_) => unreachable!("collectives are differentiated above"),
        Prim::DotReduce(_) => {
            unreachable!("a trace binds dot_reduce as the primitives it fuses")
        }
        Prim::SelectN => {
            if tangents[1..].iter().all(Option::is_none) {
                vec![None]
            } else {
                let cases: Vec<Tensor> = (1..primals.len()).map(zero_of).collect();
                vec![Some(lax::select_n(x, &cases))]
            }
        }
        Prim::BroadcastInDim { .. }
        | Prim::Reshape { .. }
        | Prim::Transpose { .. }
        | Prim::Rev { .. }
        | Prim::Squeeze { .. }
        | Prim::Slice { .. }
        | Prim::Cumsum { .. }
        | Prim::Fft { .. } => vec![t0.map(|t| lin(prim, std::slice::from_ref(t)).remove(0))],
        Prim::Reduce { op, axes } => match op {
            ReduceOp::Sum => vec![t0.map(|t| lin(prim, std::slice::from_ref(t)).remove(0))],
            ReduceOp::Max | ReduceOp::Min => vec![t0.map(|t| {
                // The tangent at the chosen elements, averaged over ties.
                let kept: Vec<usize> = (0..x.ndim()).filter(|d| !axes.contains(d)).collect();
                let ans = lax::broadcast_in_dim(&outs[0], x.shape(), &kept);
                let hit = lax::convert_element_type(&lax::eq(x, &ans), x.dtype());
                let count = lax::reduce(&hit, ReduceOp::Sum, axes);
                let picked = lax::reduce(&lax::mul(t, &hit), ReduceOp::Sum, axes);
                lax::div(&picked, &count)
            })],
            ReduceOp::Prod => {
                vec![t0
                    .map(|t| lax::reduce(&lax::mul(t, &prod_others(x, axes)), ReduceOp::Sum, axes))]
            }
            ReduceOp::And | ReduceOp::Or => vec![None],
        },
        Prim::Pad { .. } => {
            if tangents.iter().all(Option::is_none) {
                vec![None]
            } else {
                vec![Some(lin(prim, &[zero_of(0), zero_of(1)]).remove(0))]
            }
        }
        Prim::Concatenate { .. } => {
            if tangents.iter().all(Option::is_none) {
                vec![None]
            } else {
                let ts: Vec<Tensor> = (0..primals.len()).map(zero_of).collect();
                vec![Some(lin(prim, &ts).remove(0))]
            }
        }
        Prim::DotGeneral { .. } | Prim::ConvGeneralDilated(_) => {
            let y = &primals[1];
            let a = t0.map(|t| lin(prim, &[t.clone(), y.clone()]).remove(0));
            let b = tangents[1]
                .as_ref()
                .map(|t| lin(prim, &[x.clone(), t.clone()]).remove(0));
            vec![add_opt(a, b, outs[0].shape())]
        }
        Prim::Gather {
            dims,
            slice_sizes,
            mode,
        } => vec![t0.map(|t| gather_or_zero(t, &primals[1], dims, slice_sizes, *mode))],
        Prim::DynamicSlice { .. } => vec![t0.map(|t| {
            let mut ins = vec![t.clone()];
            ins.extend_from_slice(&primals[1..]);
            lin(prim, &ins).remove(0)
        })],
        Prim::DynamicUpdateSlice => {
            if tangents[..2].iter().all(Option::is_none) {
                vec![None]
            } else {
                let mut ins = vec![zero_of(0), zero_of(1)];
                ins.extend_from_slice(&primals[2..]);
                vec![Some(lin(prim, &ins).remove(0))]
            }
        }
        Prim::Scatter {
            op: ScatterOp::Add, ..
        } => {
            if tangents[0].is_none() && tangents[2].is_none() {
                vec![None]
            } else {
                vec![Some(
                    lin(prim, &[zero_of(0), primals[1].clone(), zero_of(2)]).remove(0),
                )]
            }
        }
        Prim::Scatter { op, dims, mode } => {
            let s = Scatter {
                op: *op,
                dims,
                mode: *mode,
                x,
                idx: &primals[1],
                upd: &primals[2],
                out: &outs[0],
            };
            vec![s.jvp(tangents[0].clone(), tangents[2].clone())]
        }
        Prim::Sort {
            dimension,
            num_keys,
            ..
        } => sort_tangents(primals, tangents, *dimension, *num_keys),
        Prim::Linalg(op) => super::linalg_rules::tangents(*op, primals, &outs, tangents),
    };
    (outs, tangent)
}

/// Sorting permutes: the tangents follow the permutation that sorts the keys.
fn sort_tangents(
    primals: &[Tensor],
    tangents: &[Option<Tensor>],
    dim: usize,
    num_keys: usize,
) -> Tangents {
    if tangents.iter().all(Option::is_none) {
        return vec![None; primals.len()];
    }
    let shape = primals[0].shape();
    let iota = lax::iota(DType::I32, shape, dim);
    let mut ins = primals[..num_keys].to_vec();
    ins.push(iota);
    let perm = lax::sort(&ins, dim, num_keys)
        .pop()
        .expect("the permutation");
    tangents
        .iter()
        .map(|t| t.as_ref().map(|t| take_along(t, &perm, dim)))
        .collect()
}

/// The gather of a tangent or cotangent `t` in `mode`, with the windows a FILL_OR_DROP
/// gather leaves out of bounds filled with 0, as JAX's rules pass `fill_value=0` (the
/// primitive's own fill is NaN for floats).
pub(crate) fn gather_or_zero(
    t: &Tensor,
    indices: &Tensor,
    dims: &crate::prims::GatherDims,
    slice_sizes: &[usize],
    mode: crate::prims::GatherMode,
) -> Tensor {
    let g = lax::gather(t, indices, dims.clone(), slice_sizes, mode);
    if mode != crate::prims::GatherMode::FillOrDrop {
        return g;
    }
    // Gathered zeros are 0 in bounds and NaN, the fill, out of bounds.
    let probe = lax::gather(&zeros_of_aval(t), indices, dims.clone(), slice_sizes, mode);
    lax::select_n(&lax::eq(&probe, &probe), &[zeros_of_aval(&g), g])
}

/// `x[..., perm[...], ...]` along `dim` (`perm` of `x`'s shape): a gather whose other
/// dimensions are batch dims.
pub(crate) fn take_along(x: &Tensor, perm: &Tensor, dim: usize) -> Tensor {
    use crate::prims::{GatherDims, GatherMode};
    if x.size() == 0 {
        // An empty sort permutes nothing (and a gather of size-1 slices has no room).
        return x.clone();
    }
    let r = x.ndim();
    let mut shape = perm.shape().to_vec();
    shape.push(1);
    let idx = lax::reshape(perm, &shape);
    let others: Vec<usize> = (0..r).filter(|&d| d != dim).collect();
    let gd = GatherDims {
        offset_dims: vec![],
        collapsed_slice_dims: vec![dim],
        start_index_map: vec![dim],
        operand_batching_dims: others.clone(),
        start_indices_batching_dims: others,
    };
    lax::gather(x, &idx, gd, &vec![1; r], GatherMode::PromiseInBounds)
}

/// For every element of `x`, the product of the other elements of its reduction over `axes`
/// (the derivative of `reduce_prod`), computed without division, so that zeros are handled:
/// the reduced axes are flattened to the front and split in halves recursively, as JAX's
/// `_reduce_prod_jvp_rule` does.
pub(crate) fn prod_others(x: &Tensor, axes: &[usize]) -> Tensor {
    let r = x.ndim();
    let kept: Vec<usize> = (0..r).filter(|d| !axes.contains(d)).collect();
    let perm: Vec<usize> = axes.iter().chain(&kept).copied().collect();
    let n: usize = axes.iter().map(|&d| x.shape()[d]).product();
    if n == 0 {
        return zeros_of_aval(x);
    }
    let mut flat_shape = vec![n];
    flat_shape.extend(kept.iter().map(|&d| x.shape()[d]));
    let flat = lax::reshape(&lax::transpose(x, &perm), &flat_shape);
    /// `(product over axis 0 kept as size 1, product of the others for every row)`.
    fn split(v: &Tensor) -> (Tensor, Tensor) {
        let m = v.shape()[0];
        if m == 1 {
            let one = lax::broadcast_in_dim(&c(1.0, v), v.shape(), &[]);
            return (v.clone(), one);
        }
        let half = m.div_ceil(2);
        let part = |lo: usize, hi: usize| {
            let mut start = vec![0; v.ndim()];
            let mut limit = v.shape().to_vec();
            start[0] = lo;
            limit[0] = hi;
            lax::slice(v, &start, &limit, None)
        };
        let (a, b) = (part(0, half), part(half, m));
        let (pa, oa) = split(&a);
        let (pb, ob) = split(&b);
        let others = lax::concatenate(
            &[
                lax::mul(&oa, &explicit_broadcast(&pb, oa.shape())),
                lax::mul(&ob, &explicit_broadcast(&pa, ob.shape())),
            ],
            0,
        );
        (lax::mul(&pa, &pb), others)
    }
    let (_, others) = split(&flat);
    let transposed: Vec<usize> = perm.iter().map(|&d| x.shape()[d]).collect();
    let mut inverse = vec![0; r];
    for (i, &p) in perm.iter().enumerate() {
        inverse[p] = i;
    }
    lax::transpose(&lax::reshape(&others, &transposed), &inverse)
}
