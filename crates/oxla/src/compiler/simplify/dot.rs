//! Rewrites of `dot_general`: a product of a transposed operand reads the operand as it is,
//! a transposed product swaps its operands, an outer product (nothing contracted, or only
//! size-1 dimensions) becomes a product of broadcasts, and a sum over a product's batch
//! dimensions contracts them.

use super::Pass;
use crate::array::DType;
use crate::core::{Atom, Aval, Eqn, Prim};
use crate::prims::BinaryOp;

impl Pass {
    /// `dot_general` of a transposed operand contracts the untransposed one with remapped
    /// dimensions, when that keeps the order of its free dimensions: no transposed copy.
    pub(super) fn transposed_operand(&mut self, e: &Eqn) -> bool {
        let Prim::DotGeneral {
            contracting,
            batch,
            preferred_element_type,
        } = &e.prim
        else {
            return false;
        };
        for side in 0..2 {
            let Atom::Var(v) = &e.inputs[side] else {
                continue;
            };
            let Some(Eqn {
                prim: Prim::Transpose { permutation },
                inputs,
                ..
            }) = self.producer.get(&v.id).cloned()
            else {
                continue;
            };
            let (c, b) = if side == 0 {
                (&contracting.0, &batch.0)
            } else {
                (&contracting.1, &batch.1)
            };
            let free: Vec<usize> = (0..permutation.len())
                .filter(|d| !c.contains(d) && !b.contains(d))
                .map(|d| permutation[d])
                .collect();
            if free.windows(2).any(|w| w[0] > w[1]) {
                continue;
            }
            let map = |ds: &[usize]| ds.iter().map(|&d| permutation[d]).collect::<Vec<_>>();
            let (mut contracting, mut batch) = (contracting.clone(), batch.clone());
            if side == 0 {
                contracting.0 = map(c);
                batch.0 = map(b);
            } else {
                contracting.1 = map(c);
                batch.1 = map(b);
            }
            let mut ins = e.inputs.clone();
            ins[side] = inputs[0].clone();
            self.changed = true;
            self.rewrite(Eqn {
                prim: Prim::DotGeneral {
                    contracting,
                    batch,
                    preferred_element_type: *preferred_element_type,
                },
                inputs: ins,
                outputs: e.outputs.clone(),
                source: e.source,
            });
            return true;
        }
        false
    }

    /// A sum over batch dimensions of a `dot_general` is the product contracting them too:
    /// the batched products (a stack of per-step weight gradients, say) are never written
    /// out. Any free dimensions the sum also covers are summed after.
    pub(super) fn sum_of_product(&mut self, e: &Eqn, axes: &[usize], dot: &Eqn) -> bool {
        let Prim::DotGeneral {
            contracting,
            batch,
            preferred_element_type,
        } = &dot.prim
        else {
            return false;
        };
        let nb = batch.0.len();
        let folded: Vec<usize> = (0..nb).filter(|d| axes.contains(d)).collect();
        let dtype = e.outputs[0].aval.dtype;
        if folded.is_empty() || !dtype.is_inexact() || dot.outputs[0].aval.dtype != dtype {
            return false;
        }
        let mut contracting = contracting.clone();
        let mut kept = (vec![], vec![]);
        for d in 0..nb {
            let (l, r) = if folded.contains(&d) {
                (&mut contracting.0, &mut contracting.1)
            } else {
                (&mut kept.0, &mut kept.1)
            };
            l.push(batch.0[d]);
            r.push(batch.1[d]);
        }
        // Pairs in the lhs's order: leading folded dimensions then read as one.
        let mut pairs: Vec<(usize, usize)> = contracting.0.into_iter().zip(contracting.1).collect();
        pairs.sort_unstable();
        let prim = Prim::DotGeneral {
            contracting: pairs.into_iter().unzip(),
            batch: kept,
            preferred_element_type: *preferred_element_type,
        };
        let rest: Vec<usize> = axes
            .iter()
            .filter(|a| !folded.contains(a))
            .map(|&a| a - folded.iter().filter(|&&f| f < a).count())
            .collect();
        self.changed = true;
        if rest.is_empty() {
            self.rewrite(Eqn {
                prim,
                inputs: dot.inputs.clone(),
                outputs: e.outputs.clone(),
                source: dot.source,
            });
            return true;
        }
        let shape: Vec<usize> = (0..dot.outputs[0].aval.ndim())
            .filter(|d| !folded.contains(d))
            .map(|d| dot.outputs[0].aval.shape[d])
            .collect();
        let product = self.fresh(dtype, &shape);
        self.rewrite(Eqn {
            prim,
            inputs: dot.inputs.clone(),
            outputs: vec![product.clone()],
            source: dot.source,
        });
        let product = self.sub(&Atom::Var(product));
        self.rewrite(Eqn {
            prim: Prim::Reduce {
                op: crate::prims::ReduceOp::Sum,
                axes: rest,
            },
            inputs: vec![product],
            outputs: e.outputs.clone(),
            source: e.source,
        });
        true
    }

    /// A `dot_general` that contracts nothing, or only size-1 dimensions, is a product of
    /// broadcasts: elementwise work that fuses with its neighbours and writes the result
    /// once, where a matrix multiply with an inner dimension of 1 runs far below the memory
    /// bandwidth. (Per-example gradients of a dense layer are such outer products.)
    pub(super) fn outer_product(&mut self, e: &Eqn) -> bool {
        let Prim::DotGeneral {
            contracting, batch, ..
        } = &e.prim
        else {
            return false;
        };
        let out = e.outputs[0].aval.clone();
        let lhs = e.inputs[0].aval();
        if contracting.0.iter().any(|&d| lhs.shape[d] != 1) || !out.dtype.is_numeric() {
            return false;
        }
        let nb = batch.0.len();
        let lhs_free = lhs.ndim() - nb - contracting.0.len();
        let l = self.broadcast_side(e, 0, &batch.0, &contracting.0, nb, &out);
        let r = self.broadcast_side(e, 1, &batch.1, &contracting.1, nb + lhs_free, &out);
        self.changed = true;
        self.rewrite(Eqn {
            prim: Prim::Binary(BinaryOp::Mul),
            inputs: vec![l, r],
            outputs: e.outputs.clone(),
            source: e.source,
        });
        true
    }

    /// Operand `side` of an outer-product `dot_general` broadcast to the result: its batch
    /// dimensions first, its free dimensions at `at`, its size-1 contracted ones dropped.
    fn broadcast_side(
        &mut self,
        e: &Eqn,
        side: usize,
        batch: &[usize],
        contracting: &[usize],
        at: usize,
        out: &Aval,
    ) -> Atom {
        let aval = e.inputs[side].aval();
        let free: Vec<usize> = (0..aval.ndim())
            .filter(|d| !batch.contains(d) && !contracting.contains(d))
            .collect();
        let perm: Vec<usize> = batch
            .iter()
            .chain(&free)
            .chain(contracting)
            .copied()
            .collect();
        let mut cur = e.inputs[side].clone();
        let mut step = |this: &mut Self, prim: Prim, dtype: DType, shape: &[usize]| {
            let v = this.fresh(dtype, shape);
            this.rewrite(Eqn {
                prim,
                inputs: vec![cur.clone()],
                outputs: vec![v.clone()],
                source: e.source,
            });
            cur = this.sub(&Atom::Var(v));
        };
        let permuted: Vec<usize> = perm.iter().map(|&d| aval.shape[d]).collect();
        if perm.iter().enumerate().any(|(i, &p)| i != p) {
            step(
                self,
                Prim::Transpose {
                    permutation: perm.clone(),
                },
                aval.dtype,
                &permuted,
            );
        }
        let kept = &permuted[..batch.len() + free.len()];
        if !contracting.is_empty() {
            let new_sizes = crate::array::shape_of(kept);
            step(self, Prim::Reshape { new_sizes }, aval.dtype, kept);
        }
        if aval.dtype != out.dtype {
            let new_dtype = out.dtype;
            step(
                self,
                Prim::ConvertElementType { new_dtype },
                new_dtype,
                kept,
            );
        }
        let broadcast_dimensions = (0..batch.len()).chain(at..at + free.len()).collect();
        let shape = out.shape.clone();
        step(
            self,
            Prim::BroadcastInDim {
                shape: shape.clone(),
                broadcast_dimensions,
            },
            out.dtype,
            &shape,
        );
        cur
    }
}

/// Whether `perm` keeps a dot_general's batch dimensions first and swaps its block of lhs
/// free dimensions with its block of rhs free dimensions.
pub(super) fn swaps_dot_operands(perm: &[usize], dot: &Eqn) -> bool {
    let Prim::DotGeneral {
        contracting, batch, ..
    } = &dot.prim
    else {
        return false;
    };
    let nb = batch.0.len();
    let free = |i: usize, c: &[usize]| dot.inputs[i].aval().ndim() - c.len() - nb;
    let (fl, fr) = (free(0, &contracting.0), free(1, &contracting.1));
    let want: Vec<usize> = (0..nb)
        .chain(nb + fl..nb + fl + fr)
        .chain(nb..nb + fl)
        .collect();
    fl > 0 && fr > 0 && perm == want.as_slice()
}

#[cfg(test)]
mod tests {
    use super::super::testing::{arg, assert_simplifies, assert_unchanged, op};
    use crate::core::Prim;
    use crate::core::Tensor;

    /// `dot_general` contracting `lhs` dimensions with `rhs` ones, without batch dimensions.
    fn dot(x: &Tensor, y: &Tensor, lhs: &[usize], rhs: &[usize]) -> Tensor {
        let prim = Prim::DotGeneral {
            contracting: (lhs.to_vec(), rhs.to_vec()),
            batch: (vec![], vec![]),
            preferred_element_type: None,
        };
        op(prim, &[x, y])
    }

    fn transpose(x: &Tensor, permutation: &[usize]) -> Tensor {
        let permutation = permutation.to_vec();
        op(Prim::Transpose { permutation }, &[x])
    }

    #[test]
    fn a_transposed_operand_is_read_as_it_is() {
        let f = |(x, y): (Tensor, Tensor)| dot(&transpose(&x, &[1, 0]), &y, &[1], &[0]);
        assert_simplifies(
            f,
            (arg(&[3, 2]), arg(&[3, 4])),
            "\
{ lambda ; a:f32[3,2] b:f32[3,4]. let
    c:f32[2,3] = transpose[permutation=(1, 0)] a
    d:f32[2,4] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      precision=None
      preferred_element_type=None
    ] c b
  in (d,) }",
            "\
{ lambda ; a:f32[3,2] b:f32[3,4]. let
    c:f32[2,4] = dot_general[
      dimension_numbers=(([0], [0]), ([], []))
      precision=None
      preferred_element_type=None
    ] a b
  in (c,) }",
        );
    }

    #[test]
    fn a_sum_over_batch_dimensions_contracts_them() {
        let f = |(x, y): (Tensor, Tensor)| {
            let prim = Prim::DotGeneral {
                contracting: (vec![1], vec![1]),
                batch: (vec![0], vec![0]),
                preferred_element_type: None,
            };
            let p = op(prim, &[&x, &y]);
            let axes = vec![0, 2];
            op(
                Prim::Reduce {
                    op: crate::prims::ReduceOp::Sum,
                    axes,
                },
                &[&p],
            )
        };
        assert_simplifies(
            f,
            (arg(&[5, 2, 3]), arg(&[5, 2, 4])),
            "\
{ lambda ; a:f32[5,2,3] b:f32[5,2,4]. let
    c:f32[5,3,4] = dot_general[
      dimension_numbers=(([1], [1]), ([0], [0]))
      precision=None
      preferred_element_type=None
    ] a b
    d:f32[3] = reduce_sum[axes=(0, 2)] c
  in (d,) }",
            "\
{ lambda ; a:f32[5,2,3] b:f32[5,2,4]. let
    c:f32[3,4] = dot_general[
      dimension_numbers=(([0, 1], [0, 1]), ([], []))
      precision=None
      preferred_element_type=None
    ] a b
    d:f32[3] = reduce_sum[axes=(1,)] c
  in (d,) }",
        );
    }

    #[test]
    fn a_transposed_product_swaps_its_operands() {
        let f = |(x, y): (Tensor, Tensor)| transpose(&dot(&x, &y, &[1], &[0]), &[1, 0]);
        assert_simplifies(
            f,
            (arg(&[2, 3]), arg(&[3, 4])),
            "\
{ lambda ; a:f32[2,3] b:f32[3,4]. let
    c:f32[2,4] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      precision=None
      preferred_element_type=None
    ] a b
    d:f32[4,2] = transpose[permutation=(1, 0)] c
  in (d,) }",
            "\
{ lambda ; a:f32[2,3] b:f32[3,4]. let
    c:f32[4,2] = dot_general[
      dimension_numbers=(([0], [1]), ([], []))
      precision=None
      preferred_element_type=None
    ] b a
  in (c,) }",
        );
    }

    #[test]
    fn an_outer_product_is_a_product_of_broadcasts() {
        let f = |(x, y): (Tensor, Tensor)| dot(&x, &y, &[1], &[0]);
        assert_simplifies(
            f,
            (arg(&[3, 1]), arg(&[1, 4])),
            "\
{ lambda ; a:f32[3,1] b:f32[1,4]. let
    c:f32[3,4] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      precision=None
      preferred_element_type=None
    ] a b
  in (c,) }",
            "\
{ lambda ; a:f32[3,1] b:f32[1,4]. let
    c:f32[3] = reshape[dimensions=None new_sizes=(3,)] a
    d:f32[3,4] = broadcast_in_dim[broadcast_dimensions=(0,) shape=(3, 4)] c
    e:f32[4,1] = transpose[permutation=(1, 0)] b
    f:f32[4] = reshape[dimensions=None new_sizes=(4,)] e
    g:f32[3,4] = broadcast_in_dim[broadcast_dimensions=(1,) shape=(3, 4)] f
    h:f32[3,4] = mul d g
  in (h,) }",
        );
    }

    #[test]
    fn products_that_would_reorder_or_contract_stay() {
        let f = |(x, y): (Tensor, Tensor)| {
            // Reading `x` as it is would reorder the product's free dimensions.
            let a = dot(&transpose(&x, &[2, 0, 1]), &y, &[2], &[0]);
            (a, dot(&y, &y, &[1], &[1]))
        };
        assert_unchanged(
            f,
            (arg(&[4, 3, 2]), arg(&[3, 5])),
            "\
{ lambda ; a:f32[4,3,2] b:f32[3,5]. let
    c:f32[2,4,3] = transpose[permutation=(2, 0, 1)] a
    d:f32[2,4,5] = dot_general[
      dimension_numbers=(([2], [0]), ([], []))
      precision=None
      preferred_element_type=None
    ] c b
    e:f32[3,3] = dot_general[
      dimension_numbers=(([1], [1]), ([], []))
      precision=None
      preferred_element_type=None
    ] b b
  in (d, e) }",
        );
    }
}
