//! Chains of views collapsed into one: a reshape of a reshape (or squeeze), a transpose of
//! a transpose, a broadcast of a broadcast. [`Pass::collapse`] also matches the other
//! rewrites of an equation by its operand's producer and hands them to their families: a
//! transposed product and a sum of a product (`dot.rs`), a sum of a broadcast or of a sum
//! (`reductions.rs`), a reduction of a gather (`gather.rs`).

use super::dot::swaps_dot_operands;
use super::Pass;
use crate::array::Array;
use crate::core::{Atom, Eqn, Prim};
use crate::prims::ReduceOp;

impl Pass {
    /// Merges chains of reshapes, transposes and broadcasts, and sums of broadcasts.
    pub(super) fn collapse(&mut self, e: &Eqn) -> bool {
        let Atom::Var(v) = &e
            .inputs
            .first()
            .cloned()
            .unwrap_or(Atom::Lit(Array::scalar(0.0f32)))
        else {
            return false;
        };
        let Some(inner) = self.producer.get(&v.id).cloned() else {
            return false;
        };
        let pair = (&e.prim, &inner.prim);
        let replaced = if let (
            Prim::Reshape { new_sizes },
            Prim::Reshape { .. } | Prim::Squeeze { .. },
        ) = pair
        {
            Some((
                Prim::Reshape {
                    new_sizes: new_sizes.clone(),
                },
                vec![inner.inputs[0].clone()],
            ))
        } else if let (
            Prim::Transpose { permutation },
            Prim::DotGeneral {
                contracting,
                batch,
                preferred_element_type,
            },
        ) = pair
        {
            swaps_dot_operands(permutation, &inner).then(|| {
                (
                    // The product's free dimensions swapped are the product of the swapped
                    // operands: no transposed copy.
                    Prim::DotGeneral {
                        contracting: (contracting.1.clone(), contracting.0.clone()),
                        batch: (batch.1.clone(), batch.0.clone()),
                        preferred_element_type: *preferred_element_type,
                    },
                    vec![inner.inputs[1].clone(), inner.inputs[0].clone()],
                )
            })
        } else if let (Prim::Transpose { permutation: p2 }, Prim::Transpose { permutation: p1 }) =
            pair
        {
            Some((
                Prim::Transpose {
                    permutation: p2.iter().map(|&i| p1[i]).collect(),
                },
                vec![inner.inputs[0].clone()],
            ))
        } else if let (
            Prim::BroadcastInDim {
                shape,
                broadcast_dimensions: d2,
            },
            Prim::BroadcastInDim {
                broadcast_dimensions: d1,
                ..
            },
        ) = pair
        {
            Some((
                Prim::BroadcastInDim {
                    shape: shape.clone(),
                    broadcast_dimensions: d1.iter().map(|&i| d2[i]).collect(),
                },
                vec![inner.inputs[0].clone()],
            ))
        } else if let (
            Prim::Reduce {
                op: ReduceOp::Sum,
                axes,
            },
            Prim::BroadcastInDim {
                shape,
                broadcast_dimensions,
            },
        ) = pair
        {
            return self.sum_of_broadcast(e, axes, &inner, shape, broadcast_dimensions);
        } else if let (
            Prim::Reduce {
                op: ReduceOp::Sum,
                axes,
            },
            Prim::DotGeneral { .. },
        ) = pair
        {
            return self.sum_of_product(e, axes, &inner);
        } else if let (
            Prim::Reduce {
                op: ReduceOp::Sum,
                axes,
            },
            Prim::Reduce { .. },
        ) = pair
        {
            return self.sum_of_sum(e, axes, &inner);
        } else if let (Prim::Reduce { op, axes }, Prim::Gather { .. }) = pair {
            return self.reduce_of_gather(e, *op, axes, &inner);
        } else {
            None
        };
        match replaced {
            Some((prim, inputs)) => {
                self.changed = true;
                self.rewrite(Eqn {
                    prim,
                    inputs,
                    outputs: e.outputs.clone(),
                    source: e.source,
                });
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{arg, assert_simplifies, assert_unchanged, op};
    use crate::array::shape_of;
    use crate::core::Prim;
    use crate::core::Tensor;
    use crate::prims::UnaryOp;

    fn reshape(x: &Tensor, shape: &[usize]) -> Tensor {
        let new_sizes = shape_of(shape);
        op(Prim::Reshape { new_sizes }, &[x])
    }

    fn transpose(x: &Tensor, permutation: &[usize]) -> Tensor {
        let permutation = permutation.to_vec();
        op(Prim::Transpose { permutation }, &[x])
    }

    fn broadcast(x: &Tensor, shape: &[usize], dims: &[usize]) -> Tensor {
        let prim = Prim::BroadcastInDim {
            shape: shape_of(shape),
            broadcast_dimensions: dims.to_vec(),
        };
        op(prim, &[x])
    }

    #[test]
    fn reshapes_and_transposes_collapse() {
        let f = |(x, y): (Tensor, Tensor)| {
            let a = reshape(&reshape(&x, &[6]), &[3, 2]);
            let b = transpose(&transpose(&y, &[1, 2, 0]), &[1, 2, 0]);
            (a, b)
        };
        assert_simplifies(
            f,
            (arg(&[2, 3]), arg(&[2, 3, 4])),
            "\
{ lambda ; a:f32[2,3] b:f32[2,3,4]. let
    c:f32[6] = reshape[dimensions=None new_sizes=(6,)] a
    d:f32[3,2] = reshape[dimensions=None new_sizes=(3, 2)] c
    e:f32[3,4,2] = transpose[permutation=(1, 2, 0)] b
    f:f32[4,2,3] = transpose[permutation=(1, 2, 0)] e
  in (d, f) }",
            "\
{ lambda ; a:f32[2,3] b:f32[2,3,4]. let
    c:f32[3,2] = reshape[dimensions=None new_sizes=(3, 2)] a
    d:f32[4,2,3] = transpose[permutation=(2, 0, 1)] b
  in (c, d) }",
        );
    }

    #[test]
    fn broadcasts_collapse() {
        let f = |x: Tensor| broadcast(&broadcast(&x, &[2, 3], &[1]), &[4, 2, 3], &[1, 2]);
        assert_simplifies(
            f,
            arg(&[3]),
            "\
{ lambda ; a:f32[3]. let
    b:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,) shape=(2, 3)] a
    c:f32[4,2,3] = broadcast_in_dim[broadcast_dimensions=(1, 2) shape=(4, 2, 3)] b
  in (c,) }",
            "\
{ lambda ; a:f32[3]. let
    b:f32[4,2,3] = broadcast_in_dim[broadcast_dimensions=(2,) shape=(4, 2, 3)] a
  in (b,) }",
        );
    }

    #[test]
    fn views_of_other_kinds_stay() {
        let f = |x: Tensor| {
            let a = reshape(&transpose(&x, &[1, 0]), &[6]);
            let b = transpose(&reshape(&x, &[3, 2]), &[1, 0]);
            let c = broadcast(&op(Prim::Unary(UnaryOp::Exp), &[&a]), &[2, 6], &[1]);
            (b, c)
        };
        assert_unchanged(
            f,
            arg(&[2, 3]),
            "\
{ lambda ; a:f32[2,3]. let
    b:f32[3,2] = transpose[permutation=(1, 0)] a
    c:f32[6] = reshape[dimensions=None new_sizes=(6,)] b
    d:f32[3,2] = reshape[dimensions=None new_sizes=(3, 2)] a
    e:f32[2,3] = transpose[permutation=(1, 0)] d
    f:f32[6] = exp c
    g:f32[2,6] = broadcast_in_dim[broadcast_dimensions=(1,) shape=(2, 6)] f
  in (e, g) }",
        );
    }
}
