//! The VJP rule of every primitive: input cotangents from output cotangents and the primal
//! values of the forward pass. For linear primitives this is the transpose; elementwise
//! rules reuse the JVP formulas, which are linear and elementwise in the tangent.

use super::jvp_rules::{
    binary_tangents, gather_or_zero, integer_pow_tangent, prod_others, take_along, unary_tangent,
    zeros_of_aval,
};
use super::scatter_ad::{inverse_gather, Scatter};
use crate::array::DType;
use crate::core::{bind, Prim, Tensor};
use crate::numpy::scalar_tensor;
use crate::ops as lax;
use crate::prims::{BinaryOp, ReduceOp, ScatterDims, ScatterOp, UnaryOp};
use crate::source::Source;

pub(crate) type Cotangents = Vec<Option<Tensor>>;

/// `ct` summed down to `shape` (undoing lax's rank-0 and size-1 broadcasting).
pub(crate) fn unbroadcast(ct: &Tensor, shape: &[usize]) -> Tensor {
    if ct.shape() == shape {
        return ct.clone();
    }
    if shape.is_empty() {
        let all: Vec<usize> = (0..ct.ndim()).collect();
        return lax::reduce(ct, ReduceOp::Sum, &all);
    }
    let axes: Vec<usize> = (0..shape.len())
        .filter(|&d| shape[d] == 1 && ct.shape()[d] != 1)
        .collect();
    lax::reshape(&lax::reduce(ct, ReduceOp::Sum, &axes), shape)
}

fn argsort(v: &[usize]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by_key(|&i| v[i]);
    idx
}

fn kept(rank: usize, contract: &[usize], batch: &[usize]) -> Vec<usize> {
    (0..rank)
        .filter(|d| !contract.contains(d) && !batch.contains(d))
        .collect()
}

/// Cotangent of one dot_general operand. `ct` has dims `[batch, lhs_kept, rhs_kept]`;
/// `swap` selects the rhs.
fn dot_transpose(
    ct: &Tensor,
    other: &Tensor,
    mine: (&[usize], &[usize]),
    theirs: (&[usize], &[usize]),
    mine_rank: usize,
    swap: bool,
    dtype: DType,
) -> Tensor {
    let (my_contract, my_batch) = mine;
    let (their_contract, their_batch) = theirs;
    let my_kept = kept(mine_rank, my_contract, my_batch);
    let their_kept = kept(other.ndim(), their_contract, their_batch);
    let nb = my_batch.len();
    let ct_batch: Vec<usize> = (0..nb).collect();
    let ct_theirs: Vec<usize> = if swap {
        (nb..nb + their_kept.len()).collect()
    } else {
        (nb + my_kept.len()..nb + my_kept.len() + their_kept.len()).collect()
    };
    let out = lax::dot_general(
        ct,
        other,
        (&ct_theirs, &their_kept),
        (&ct_batch, their_batch),
        Some(ct.dtype()),
    );
    // `out` is [batch, my_kept, my_contract sorted by their contracting order].
    let order = argsort(their_contract);
    let mine_sorted: Vec<usize> = order.iter().map(|&i| my_contract[i]).collect();
    let unsorted: Vec<usize> = my_batch
        .iter()
        .chain(&my_kept)
        .chain(&mine_sorted)
        .copied()
        .collect();
    let out = lax::transpose(&out, &argsort(&unsorted));
    if out.dtype() == dtype {
        out
    } else {
        lax::convert_element_type(&out, dtype)
    }
}

/// The cotangent of `x` from the cotangent `ct` of `real`, `imag`, `conj` or a complex
/// `abs` of it, as JAX transposes them (`real`'s is `complex(ct, 0)`, `imag`'s
/// `complex(0, -ct)`, `conj`'s `conj(ct)`, `abs`'s `ct * conj(x) / |x|` with |x| = 0 read as
/// 1); `None` for the other operations, whose VJP is their JVP formula applied to `ct`.
fn complex_unary_vjp(op: UnaryOp, x: &Tensor, ct: &Tensor) -> Option<Tensor> {
    use UnaryOp::*;
    let zero = scalar_tensor(0.0, ct.dtype());
    Some(match op {
        Real => lax::complex(ct, &zero),
        Imag => lax::complex(&zero, &lax::neg(ct)),
        Conj => lax::conj(ct),
        Abs if x.dtype().is_complex() => {
            let r = lax::abs(x);
            let at_zero = lax::eq(&r, &zero);
            let safe = lax::add(&r, &lax::convert_element_type(&at_zero, r.dtype()));
            let unit = lax::div(&lax::conj(x), &lax::complex(&safe, &zero));
            lax::mul(&lax::complex(ct, &zero), &unit)
        }
        Neg
        | Exp
        | Log
        | Log1p
        | Sin
        | Cos
        | Tanh
        | Logistic
        | Sqrt
        | Cbrt
        | Rsqrt
        | Abs
        | Sign
        | Floor
        | Ceil
        | Round
        | Not
        | ErfInv
        | IsFinite
        | Erf
        | Erfc
        | Lgamma
        | Digamma
        | Tan
        | Asin
        | Acos
        | Atan
        | Sinh
        | Cosh
        | Asinh
        | Acosh
        | Atanh
        | Expm1
        | Exp2
        | Square
        | RoundEven
        | PopulationCount
        | Clz
        | BesselI0e
        | BesselI1e
        | ReducePrecision { .. } => return None,
    })
}

/// Input cotangents of `prim` (for the `active` inputs) from output cotangents `cts`;
/// `src` is the user's line of the equation.
pub(crate) fn vjp(
    prim: &Prim,
    ins: &[Tensor],
    outs: &[Tensor],
    cts: &[Option<Tensor>],
    active: &[bool],
    src: Source,
) -> Cotangents {
    // Any output of a loop may carry a cotangent, not only the first.
    if let Prim::Control(c) = prim {
        return c.vjp(ins, cts, active, src);
    }
    if let Prim::Collective(c) = prim {
        return super::collective_ad::vjp(c, ins, outs, cts);
    }
    // Any output of a decomposition may carry a cotangent, not only the first.
    if let Prim::Linalg(op) = prim {
        return super::linalg_rules::vjp(*op, ins, outs, cts, active);
    }
    let none = || vec![None; ins.len()];
    let Some(ct) = cts[0].clone() else {
        return if matches!(prim, Prim::Sort { .. }) {
            sort_vjp(ins, cts, active, prim)
        } else {
            none()
        };
    };
    let x = &ins[0];
    let only = |i: usize, t: Tensor| {
        let mut v = none();
        v[i] = Some(t);
        v
    };
    let lin = |p: Prim, ts: &[Tensor]| bind(p, ts, src).remove(0);
    match prim {
        Prim::Unary(op) => match complex_unary_vjp(*op, x, &ct) {
            Some(g) => vec![Some(g)],
            None => vec![unary_tangent(*op, x, &outs[0], &ct)],
        },
        // JAX's transpose of `complex`: the real part and minus the imaginary part.
        Prim::Binary(BinaryOp::Complex) => {
            let (re, im) = (lax::real(&ct), lax::neg(&lax::imag(&ct)));
            vec![
                active[0].then(|| unbroadcast(&re, x.shape())),
                active[1].then(|| unbroadcast(&im, ins[1].shape())),
            ]
        }
        Prim::Binary(op) => {
            let y = &ins[1];
            let part = |which: usize| {
                let (tx, ty) = if which == 0 {
                    (Some(&ct), None)
                } else {
                    (None, Some(&ct))
                };
                binary_tangents(*op, x, y, &outs[0], tx, ty)
                    .map(|g| unbroadcast(&g, ins[which].shape()))
            };
            vec![
                if active[0] { part(0) } else { None },
                if active[1] { part(1) } else { None },
            ]
        }
        Prim::IntegerPow { y } => vec![Some(integer_pow_tangent(x, *y, &ct))],
        Prim::ConvertElementType { .. } => {
            if x.dtype().is_inexact() && ct.dtype().is_inexact() {
                vec![Some(lax::convert_element_type(&ct, x.dtype()))]
            } else {
                none()
            }
        }
        Prim::BitcastConvertType { .. } | Prim::Iota { .. } | Prim::ArgReduce { .. } => none(),
        Prim::Threefry2x32 { .. } | Prim::StopGradient | Prim::DebugCallback(_) => none(),
        Prim::Control(_) => {
            unreachable!("control flow's VJP is taken before the first cotangent is read")
        }
        Prim::Collective(_) => unreachable!("collectives are pulled back above"),
        Prim::DotReduce(_) => {
            unreachable!("a trace binds dot_reduce as the primitives it fuses")
        }
        Prim::SelectN => {
            let zero = zeros_of_aval(&ct);
            let case_ct = |i: usize| {
                let cases: Vec<Tensor> = (1..ins.len())
                    .map(|j| if j == i { ct.clone() } else { zero.clone() })
                    .collect();
                lax::select_n(x, &cases)
            };
            (0..ins.len())
                .map(|i| (i > 0 && active[i]).then(|| case_ct(i)))
                .collect()
        }
        Prim::BroadcastInDim {
            shape,
            broadcast_dimensions,
        } => {
            let mut axes: Vec<usize> = (0..shape.len())
                .filter(|d| !broadcast_dimensions.contains(d))
                .collect();
            for (i, &d) in broadcast_dimensions.iter().enumerate() {
                if x.shape()[i] == 1 && shape[d] != 1 {
                    axes.push(d);
                }
            }
            axes.sort_unstable();
            let summed = lax::reduce(&ct, ReduceOp::Sum, &axes);
            vec![Some(lax::reshape(&summed, x.shape()))]
        }
        Prim::Reshape { .. } | Prim::Squeeze { .. } => vec![Some(lax::reshape(&ct, x.shape()))],
        Prim::Transpose { permutation } => vec![Some(lax::transpose(&ct, &argsort(permutation)))],
        Prim::Rev { dimensions } => vec![Some(lax::rev(&ct, dimensions))],
        Prim::Slice {
            start_indices,
            strides,
            ..
        } => {
            if ct.size() == 0 {
                return vec![Some(zeros_of_aval(x))];
            }
            let cfg: Vec<(i64, i64, i64)> = (0..x.ndim())
                .map(|d| {
                    let step = strides.as_ref().map_or(1, |s| s[d]) as i64;
                    let lo = start_indices[d] as i64;
                    let covered = lo + (ct.shape()[d] as i64 - 1) * step + 1;
                    (lo, x.shape()[d] as i64 - covered, step - 1)
                })
                .collect();
            vec![Some(lax::pad(&ct, &scalar_tensor(0.0, ct.dtype()), &cfg))]
        }
        Prim::Pad { padding_config } => {
            let unpad: Vec<(i64, i64, i64)> = padding_config
                .iter()
                .map(|&(l, h, _)| (-l, -h, 0))
                .collect();
            let trimmed = lax::pad(&ct, &scalar_tensor(0.0, ct.dtype()), &unpad);
            let strides: Vec<usize> = padding_config
                .iter()
                .map(|&(_, _, i)| i as usize + 1)
                .collect();
            let zeros = vec![0; x.ndim()];
            let limits = trimmed.shape().to_vec();
            let cx = lax::slice(&trimmed, &zeros, &limits, Some(&strides));
            let cv = active[1].then(|| {
                let all = |t: &Tensor| {
                    let axes: Vec<usize> = (0..t.ndim()).collect();
                    lax::reduce(t, ReduceOp::Sum, &axes)
                };
                lax::sub(&all(&ct), &all(&cx))
            });
            vec![Some(cx), cv]
        }
        Prim::Concatenate { dimension } => {
            let mut start = 0;
            ins.iter()
                .zip(active)
                .map(|(t, &a)| {
                    let n = t.shape()[*dimension];
                    let mut lo = vec![0; t.ndim()];
                    let mut hi = ct.shape().to_vec();
                    lo[*dimension] = start;
                    hi[*dimension] = start + n;
                    start += n;
                    a.then(|| lax::slice(&ct, &lo, &hi, None))
                })
                .collect()
        }
        Prim::Reduce { op, axes } => {
            let kept: Vec<usize> = (0..x.ndim()).filter(|d| !axes.contains(d)).collect();
            let spread = |t: &Tensor| lax::broadcast_in_dim(t, x.shape(), &kept);
            match op {
                ReduceOp::Sum => vec![Some(spread(&ct))],
                ReduceOp::Max | ReduceOp::Min => {
                    let hit = lax::convert_element_type(&lax::eq(x, &spread(&outs[0])), x.dtype());
                    let count = lax::reduce(&hit, ReduceOp::Sum, axes);
                    vec![Some(lax::mul(&spread(&lax::div(&ct, &count)), &hit))]
                }
                ReduceOp::Prod => vec![Some(lax::mul(&spread(&ct), &prod_others(x, axes)))],
                ReduceOp::And | ReduceOp::Or => none(),
            }
        }
        Prim::Cumsum { axis, reverse } => vec![Some(lax::cumsum(&ct, *axis, !reverse))],
        Prim::DotGeneral {
            contracting, batch, ..
        } => {
            let y = &ins[1];
            let cx = active[0].then(|| {
                dot_transpose(
                    &ct,
                    y,
                    (&contracting.0, &batch.0),
                    (&contracting.1, &batch.1),
                    x.ndim(),
                    false,
                    x.dtype(),
                )
            });
            let cy = active[1].then(|| {
                dot_transpose(
                    &ct,
                    x,
                    (&contracting.1, &batch.1),
                    (&contracting.0, &batch.0),
                    y.ndim(),
                    true,
                    y.dtype(),
                )
            });
            vec![cx, cy]
        }
        Prim::ConvGeneralDilated(p) => vec![
            active[0].then(|| super::conv_ad::transpose_lhs(&ct, x, &ins[1], p)),
            active[1].then(|| super::conv_ad::transpose_rhs(&ct, x, &ins[1], p)),
        ],
        Prim::DynamicSlice { .. } => {
            let mut a = vec![zeros_of_aval(x), ct];
            a.extend_from_slice(&ins[1..]);
            only(0, lin(Prim::DynamicUpdateSlice, &a))
        }
        Prim::DynamicUpdateSlice => {
            let upd = &ins[1];
            let idx = &ins[2..];
            let mut v = none();
            if active[0] {
                let mut a = vec![ct.clone(), zeros_of_aval(upd)];
                a.extend_from_slice(idx);
                v[0] = Some(lin(Prim::DynamicUpdateSlice, &a));
            }
            if active[1] {
                v[1] = Some(lax::dynamic_slice(&ct, idx, upd.shape()));
            }
            v
        }
        Prim::Gather {
            dims,
            slice_sizes: _,
            mode,
        } => {
            let sd = ScatterDims {
                update_window_dims: dims.offset_dims.clone(),
                inserted_window_dims: dims.collapsed_slice_dims.clone(),
                scatter_dims_to_operand_dims: dims.start_index_map.clone(),
                operand_batching_dims: dims.operand_batching_dims.clone(),
                scatter_indices_batching_dims: dims.start_indices_batching_dims.clone(),
            };
            // In the gather's own mode, as JAX transposes it: out-of-bounds indices that a
            // PROMISE_IN_BOUNDS gather clamped drop their cotangents, as XLA's scatter does.
            only(
                0,
                lax::scatter_add(&zeros_of_aval(x), &ins[1], &ct, sd, *mode),
            )
        }
        Prim::Scatter {
            op: ScatterOp::Add,
            dims,
            mode,
        } => {
            let mut v = none();
            if active[0] {
                v[0] = Some(ct.clone());
            }
            if active[2] {
                let (gd, sizes) = inverse_gather(dims, x.ndim(), ins[2].shape());
                v[2] = Some(gather_or_zero(&ct, &ins[1], &gd, &sizes, *mode));
            }
            v
        }
        Prim::Scatter { op, dims, mode } => {
            let s = Scatter {
                op: *op,
                dims,
                mode: *mode,
                x,
                idx: &ins[1],
                upd: &ins[2],
                out: &outs[0],
            };
            let [cx, cu] = s.vjp(&ct, [active[0], active[2]]);
            vec![cx, None, cu]
        }
        Prim::Sort { .. } => sort_vjp(ins, cts, active, prim),
        Prim::Linalg(_) => unreachable!("decompositions are pulled back above"),
        Prim::Fft {
            fft_type,
            fft_lengths,
        } => vec![Some(super::fft_rules::transpose(
            *fft_type,
            fft_lengths,
            &ct,
        ))],
    }
}

/// Sorting permutes: cotangents go back through the inverse permutation.
fn sort_vjp(ins: &[Tensor], cts: &[Option<Tensor>], active: &[bool], prim: &Prim) -> Cotangents {
    let Prim::Sort {
        dimension,
        num_keys,
        ..
    } = prim
    else {
        unreachable!("sort only")
    };
    let d = *dimension;
    let iota = lax::iota(DType::I32, ins[0].shape(), d);
    let mut keys = ins[..*num_keys].to_vec();
    keys.push(iota.clone());
    let perm = lax::sort(&keys, d, *num_keys)
        .pop()
        .expect("the permutation");
    let inverse = lax::sort(&[perm, iota], d, 1).pop().expect("the inverse");
    ins.iter()
        .zip(cts)
        .zip(active)
        .map(|((_, ct), &a)| {
            ct.as_ref()
                .filter(|_| a)
                .map(|ct| take_along(ct, &inverse, d))
        })
        .collect()
}
