//! Products of scaled operands: `dot_general(x * s, y / t)`, where `s` and `t` are constant
//! along the contracted dimensions (a row's norm kept as a size-1 dimension, a weight per
//! example), is `dot_general(x, y) * s / t`, the scales broadcast to the product. The
//! scaled operands are never stored: cosine similarities `(f / |f|) @ (f / |f|).T` hold the
//! images and the result alone, and the product of `f` with itself is symmetric, so one
//! triangle of it is multiplied.
//!
//! Like [`reduce_products`](super::reduce_products) this runs once, on the program the
//! compiler plans: an operand is rewritten away only when the product alone reads it.

use std::collections::HashMap;

use crate::array::{shape_of, DType, Shape};
use crate::core::{Atom, Aval, ClosedJaxpr, Eqn, Prim, Var};
use crate::prims::BinaryOp;

/// The smallest scaled operand worth not storing: below it, the copy costs less than the
/// steps that replace it.
const FROM_BYTES: usize = 1 << 20;

/// Operand `side` of a product, `unscaled` multiplied or divided (`op`) by `factor`
/// broadcast.
struct Scaled {
    side: usize,
    unscaled: Atom,
    op: BinaryOp,
    factor: Atom,
    /// `factor`'s shape without the size-1 dimensions that land on contracted ones.
    kept: Shape,
    /// Where each kept dimension of `factor` lands in the product.
    at: Vec<usize>,
}

/// Rewrites every product of scaled operands that nothing else reads into the scaled
/// product of the unscaled operands.
pub(crate) fn scale_products(cj: ClosedJaxpr) -> ClosedJaxpr {
    let j = &cj.jaxpr;
    let reads = super::reads(j);
    let producer = super::producers(j);
    let mut next_id = super::max_id(j);
    let mut eqns = Vec::with_capacity(j.eqns.len());
    let mut changed = false;
    for e in &j.eqns {
        let sides = scaled_sides(e, &reads, &producer);
        changed |= !sides.is_empty();
        if sides.is_empty() {
            eqns.push(e.clone());
        } else {
            unscale(e, &sides, &mut next_id, &mut eqns);
        }
    }
    if !changed {
        return cj;
    }
    super::with_eqns(cj, eqns)
}

/// The scaled operands of `e`, a product worth rewriting: `f32` or `f64`, the scaled
/// operands at least [`FROM_BYTES`], and the product no more than twice their elements
/// (scaling the product costs what scaling them did).
fn scaled_sides(
    e: &Eqn,
    reads: &HashMap<u32, usize>,
    producer: &HashMap<u32, &Eqn>,
) -> Vec<Scaled> {
    let Prim::DotGeneral {
        contracting,
        batch,
        preferred_element_type,
    } = &e.prim
    else {
        return vec![];
    };
    let out = &e.outputs[0].aval;
    let same_type = e.inputs.iter().all(|a| a.aval().dtype == out.dtype)
        && preferred_element_type.is_none_or(|d| d == out.dtype);
    // Real f32 and f64: scaling after the sum could overflow a half-precision one.
    if !matches!(out.dtype, DType::F32 | DType::F64) || !same_type {
        return vec![];
    }
    let ranks = [e.inputs[0].aval().ndim(), e.inputs[1].aval().ndim()];
    let landing = landings(contracting, batch, ranks);
    let sides: Vec<Scaled> = (0..2)
        .filter_map(|side| scaled(e, side, &landing[side], reads, producer))
        .collect();
    let mut saved: Vec<&Var> = sides
        .iter()
        .filter_map(|s| e.inputs[s.side].var())
        .collect();
    saved.dedup_by_key(|v| v.id);
    let elements: usize = saved.iter().map(|v| v.aval.size()).sum();
    let bytes = elements * out.dtype.size();
    if bytes < FROM_BYTES || out.size() > 2 * elements {
        return vec![];
    }
    sides
}

/// Operand `side` of `e` as a scaled value, when the product alone reads it and it is a
/// product or quotient by a broadcast value constant along the contracted dimensions.
fn scaled(
    e: &Eqn,
    side: usize,
    landing: &[Option<usize>],
    reads: &HashMap<u32, usize>,
    producer: &HashMap<u32, &Eqn>,
) -> Option<Scaled> {
    let v = e.inputs[side].var()?;
    let times = e
        .inputs
        .iter()
        .filter_map(Atom::var)
        .filter(|w| w.id == v.id)
        .count();
    if reads.get(&v.id) != Some(&times) {
        return None;
    }
    let m = producer.get(&v.id)?;
    // The factor of a product is either operand; of a quotient, the divisor.
    let (op, orders): (BinaryOp, &[(usize, usize)]) = if m.prim == Prim::Binary(BinaryOp::Mul) {
        (BinaryOp::Mul, &[(0, 1), (1, 0)])
    } else if m.prim == Prim::Binary(BinaryOp::Div) {
        (BinaryOp::Div, &[(0, 1)])
    } else {
        return None;
    };
    orders.iter().find_map(|&(x, s)| {
        if m.inputs[x].aval().shape != v.aval.shape {
            return None;
        }
        let factor = &m.inputs[s];
        // The factor as it is (its size-1 dimensions broadcast), or what it broadcasts.
        let direct = (0..v.aval.ndim()).collect::<Vec<_>>();
        let mut candidates = vec![(factor.clone(), direct)];
        if let Some(Eqn {
            prim:
                Prim::BroadcastInDim {
                    broadcast_dimensions,
                    ..
                },
            inputs,
            ..
        }) = factor.var().and_then(|f| producer.get(&f.id).copied())
        {
            candidates.push((inputs[0].clone(), broadcast_dimensions.clone()));
        }
        candidates.into_iter().find_map(|(factor, dims)| {
            let shape = factor.aval().shape;
            let mut kept = Shape::new();
            let mut at = vec![];
            for (&n, &d) in shape.iter().zip(&dims) {
                match landing[d] {
                    Some(p) => {
                        kept.push(n);
                        at.push(p);
                    }
                    // Constant along a contracted dimension: it leaves the sum.
                    None if n == 1 => {}
                    None => return None,
                }
            }
            at.windows(2).all(|w| w[0] < w[1]).then(|| Scaled {
                side,
                unscaled: m.inputs[x].clone(),
                op,
                factor,
                kept,
                at,
            })
        })
    })
}

/// Where each dimension of each operand lands in the product: batch dimensions first, then
/// the lhs's free ones, then the rhs's; contracted ones land nowhere.
fn landings(
    contracting: &(Vec<usize>, Vec<usize>),
    batch: &(Vec<usize>, Vec<usize>),
    ranks: [usize; 2],
) -> [Vec<Option<usize>>; 2] {
    let nb = batch.0.len();
    let free_lhs = ranks[0] - nb - contracting.0.len();
    let side = |c: &[usize], b: &[usize], rank: usize, first: usize| {
        let mut next = first;
        (0..rank)
            .map(|d| {
                if let Some(i) = b.iter().position(|&x| x == d) {
                    Some(i)
                } else if c.contains(&d) {
                    None
                } else {
                    next += 1;
                    Some(next - 1)
                }
            })
            .collect()
    };
    [
        side(&contracting.0, &batch.0, ranks[0], nb),
        side(&contracting.1, &batch.1, ranks[1], nb + free_lhs),
    ]
}

/// Emits the product of the unscaled operands, then each scale applied to it, the last
/// writing `e`'s result.
fn unscale(e: &Eqn, sides: &[Scaled], next_id: &mut u32, eqns: &mut Vec<Eqn>) {
    let out = &e.outputs[0];
    let mut fresh = |aval: &Aval| {
        *next_id += 1;
        Var {
            id: *next_id - 1,
            aval: aval.clone(),
        }
    };
    let mut step = |prim: Prim, inputs: Vec<Atom>, output: &Var| {
        eqns.push(Eqn {
            prim,
            inputs,
            outputs: vec![output.clone()],
            source: e.source,
        });
        Atom::Var(output.clone())
    };
    let mut inputs = e.inputs.clone();
    for s in sides {
        inputs[s.side] = s.unscaled.clone();
    }
    let mut product = step(e.prim.clone(), inputs, &fresh(&out.aval));
    for (i, s) in sides.iter().enumerate() {
        let mut factor = s.factor.clone();
        if s.kept.len() != factor.aval().ndim() {
            let kept = fresh(&Aval::new(out.aval.dtype, &s.kept));
            let new_sizes = shape_of(&s.kept);
            factor = step(Prim::Reshape { new_sizes }, vec![factor], &kept);
        }
        let broadcast = Prim::BroadcastInDim {
            shape: out.aval.shape.clone(),
            broadcast_dimensions: s.at.clone(),
        };
        let factor = step(broadcast, vec![factor], &fresh(&out.aval));
        let result = if i + 1 == sides.len() {
            out.clone()
        } else {
            fresh(&out.aval)
        };
        product = step(Prim::Binary(s.op), vec![product, factor], &result);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::arg;
    use super::*;
    use crate::core::{make_jaxpr, Tensor};
    use crate::numpy as jnp;

    /// `f` traced at `args`, simplified and with its products of scaled operands rewritten.
    fn compiled<A: crate::core::tree::Tree>(f: impl FnOnce(A) -> Tensor, args: A) -> String {
        scale_products(super::super::simplify(make_jaxpr(f, args))).to_string()
    }

    fn cosine(x: Tensor) -> Tensor {
        let f = &x / jnp::linalg::norm(&x, jnp::keepdims(1));
        f.matmul(f.t())
    }

    #[test]
    fn cosine_similarities_scale_the_product_of_the_unnormalised_rows() {
        let text = compiled(cosine, arg(&[512, 1024]));
        // The rows' norms divide the product of the rows themselves, symmetric.
        assert_eq!(
            text,
            "\
{ lambda ; a:f32[512,1024]. let
    b:f32[512,1024] = mul a a
    c:f32[512] = reduce_sum[axes=(1,)] b
    d:f32[512,1] = broadcast_in_dim[broadcast_dimensions=(0,) shape=(512, 1)] c
    e:f32[512,1] = sqrt d
    f:f32[512,512] = dot_general[
      dimension_numbers=(([1], [1]), ([], []))
      precision=None
      preferred_element_type=float32
    ] a a
    g:f32[512] = reshape[dimensions=None new_sizes=(512,)] e
    h:f32[512,512] = broadcast_in_dim[
      broadcast_dimensions=(0,)
      shape=(512, 512)
    ] g
    i:f32[512,512] = div f h
    j:f32[512] = reshape[dimensions=None new_sizes=(512,)] e
    k:f32[512,512] = broadcast_in_dim[
      broadcast_dimensions=(1,)
      shape=(512, 512)
    ] j
    l:f32[512,512] = div i k
  in (l,) }"
        );
    }

    #[test]
    fn an_operand_read_elsewhere_or_scaled_along_the_sum_is_kept() {
        let shared = compiled(
            |x: Tensor| {
                let f = &x / jnp::linalg::norm(&x, jnp::keepdims(1));
                f.matmul(f.t()).sum(None) + f.sum(None)
            },
            arg(&[512, 1024]),
        );
        assert!(shared.contains("div"), "{shared}");
        assert_eq!(shared.matches("broadcast_in_dim").count(), 1, "{shared}");
        let along = compiled(
            |x: Tensor| {
                let f = &x / jnp::linalg::norm(&x, jnp::keepdims(0));
                f.matmul(f.t())
            },
            arg(&[512, 1024]),
        );
        assert!(along.contains("div"), "{along}");
        assert_eq!(along.matches("broadcast_in_dim").count(), 1, "{along}");
    }

    #[test]
    fn scaled_products_equal_the_products_of_the_scaled_operands() {
        use crate::jit;
        let x = crate::random::normal(&crate::random::key(3), &[300, 1024]);
        let w = crate::random::uniform(&crate::random::key(4), &[1024, 600]);
        let scaled = |(x, w): (Tensor, Tensor)| {
            let s = jnp::tanh(jnp::sum(&x, jnp::keepdims(1))) + 2.0;
            let rows = (&x * &s).matmul(&w);
            (cosine(x), rows)
        };
        let program = jit(scaled).lower(&(x.clone(), w.clone())).compile();
        let text = program.jaxpr().to_string();
        // Only the squares the norms sum are as large as `x`: no scaled copy of it.
        assert_eq!(text.matches("f32[300,1024] =").count(), 1, "{text}");
        let (got, want) = (
            program.call((x.clone(), w.clone())).unwrap(),
            scaled((x, w)),
        );
        for (g, w) in [(&got.0, &want.0), (&got.1, &want.1)] {
            let (g, w) = (g.to_vec::<f32>(), w.to_vec::<f32>());
            // Rounded in another order: within a few ulps of the largest element.
            let scale = w.iter().fold(0f32, |m, b| m.max(b.abs()));
            for (a, b) in g.iter().zip(&w) {
                assert!((a - b).abs() <= 1e-5 * scale, "{a} against {b}");
            }
        }
    }
}
