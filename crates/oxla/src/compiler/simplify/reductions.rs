//! Sums of broadcasts: `sum(broadcast(z), axes)` over axes the broadcast created (or
//! expanded from size 1) is the sum over the others times their size, and the broadcast
//! is never computed. Also: a sum of a sum is one sum, and a reduction over size-1 axes
//! only is a reshape. And a batched `psum`, `pmax` or `pmin`, over positions alone, is the
//! reduction of those axes.

use super::Pass;
use crate::array::{Array, DType};
use crate::core::{Atom, Eqn, Prim};
use crate::prims::{BinaryOp, ReduceOp};

impl Pass {
    /// A `psum`, `pmax` or `pmin` over positions alone (a collective batched over its axis)
    /// is the reduction of those axes, which fusion and the kernels know.
    pub(super) fn positional_collective(&mut self, e: &Eqn) -> bool {
        let Prim::Collective(c) = &e.prim else {
            return false;
        };
        let Some(op) = c.monoid().filter(|_| c.names().is_empty()) else {
            return false;
        };
        self.changed = true;
        self.rewrite(Eqn {
            prim: Prim::Reduce {
                op,
                axes: c.positions(),
            },
            inputs: e.inputs.clone(),
            outputs: e.outputs.clone(),
            source: e.source,
        });
        true
    }

    /// `sum(broadcast(z), axes)` over axes the broadcast created (or expanded from size 1)
    /// is the sum over the others times their size: the broadcast is never computed.
    pub(super) fn sum_of_broadcast(
        &mut self,
        e: &Eqn,
        axes: &[usize],
        inner: &Eqn,
        shape: &[usize],
        bdims: &[usize],
    ) -> bool {
        let operand = inner.inputs[0].aval();
        let created: Vec<usize> = axes
            .iter()
            .copied()
            .filter(|a| !bdims.contains(a))
            .collect();
        let expanded: Vec<usize> = bdims
            .iter()
            .enumerate()
            .filter(|&(i, d)| axes.contains(d) && operand.shape[i] == 1 && shape[*d] != 1)
            .map(|(_, &d)| d)
            .collect();
        let dtype = e.outputs[0].aval.dtype;
        if created.is_empty() && expanded.is_empty() || !dtype.is_numeric() {
            return false;
        }
        let factor: usize = created.iter().chain(&expanded).map(|&a| shape[a]).product();
        let kept: Vec<usize> = (0..shape.len()).filter(|d| !created.contains(d)).collect();
        let new_shape: Vec<usize> = kept
            .iter()
            .map(|&d| if expanded.contains(&d) { 1 } else { shape[d] })
            .collect();
        let pos = |d: usize| kept.iter().position(|&k| k == d).expect("kept axis");
        let narrow = self.fresh(dtype, &new_shape);
        let rest: Vec<usize> = axes
            .iter()
            .copied()
            .filter(|a| !created.contains(a))
            .map(pos)
            .collect();
        let summed = self.fresh(dtype, &e.outputs[0].aval.shape);
        self.changed = true;
        self.rewrite(Eqn {
            prim: Prim::BroadcastInDim {
                shape: crate::array::shape_of(&new_shape),
                broadcast_dimensions: bdims.iter().map(|&d| pos(d)).collect(),
            },
            inputs: inner.inputs.clone(),
            outputs: vec![narrow.clone()],
            source: inner.source,
        });
        let narrow = self.sub(&Atom::Var(narrow));
        self.rewrite(Eqn {
            prim: Prim::Reduce {
                op: ReduceOp::Sum,
                axes: rest,
            },
            inputs: vec![narrow],
            outputs: vec![summed.clone()],
            source: e.source,
        });
        let summed = self.sub(&Atom::Var(summed));
        self.rewrite(Eqn {
            prim: Prim::Binary(BinaryOp::Mul),
            inputs: vec![summed, Atom::Lit(count(factor, dtype))],
            outputs: e.outputs.clone(),
            source: e.source,
        });
        true
    }
}

impl Pass {
    /// `sum(sum(x, inner), outer)` is one sum of `x` over both sets of axes: one pass over
    /// `x` and no intermediate.
    pub(super) fn sum_of_sum(&mut self, e: &Eqn, outer: &[usize], inner: &Eqn) -> bool {
        let Prim::Reduce {
            op: ReduceOp::Sum,
            axes: first,
        } = &inner.prim
        else {
            return false;
        };
        let rank = inner.inputs[0].aval().ndim();
        let kept: Vec<usize> = (0..rank).filter(|d| !first.contains(d)).collect();
        let mut axes: Vec<usize> = first
            .iter()
            .chain(outer.iter().map(|&a| &kept[a]))
            .copied()
            .collect();
        axes.sort_unstable();
        self.changed = true;
        self.rewrite(Eqn {
            prim: Prim::Reduce {
                op: ReduceOp::Sum,
                axes,
            },
            inputs: inner.inputs.clone(),
            outputs: e.outputs.clone(),
            source: e.source,
        });
        true
    }

    /// A reduction over size-1 axes only reads one element per result: a reshape.
    pub(super) fn single_element_reduce(&mut self, e: &Eqn) -> bool {
        let Prim::Reduce { axes, .. } = &e.prim else {
            return false;
        };
        let input = e.inputs[0].aval();
        let shape = &input.shape;
        if axes.is_empty()
            || axes.iter().any(|&a| shape[a] != 1)
            || input.dtype != e.outputs[0].aval.dtype
        {
            return false;
        }
        self.changed = true;
        self.rewrite(Eqn {
            prim: Prim::Reshape {
                new_sizes: crate::array::shape_of(&e.outputs[0].aval.shape),
            },
            inputs: e.inputs.clone(),
            outputs: e.outputs.clone(),
            source: e.source,
        });
        true
    }
}

/// `n` as a rank-0 array of `dtype`.
fn count(n: usize, dtype: DType) -> Array {
    Array::scalar_from_f64(n as f64, dtype)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{arg, assert_simplifies, assert_unchanged, op};
    use crate::array::shape_of;
    use crate::core::Prim;
    use crate::core::Tensor;
    use crate::prims::ReduceOp;

    fn sum_of_broadcast(x: &Tensor, shape: &[usize], dims: &[usize], axes: &[usize]) -> Tensor {
        let b = op(
            Prim::BroadcastInDim {
                shape: shape_of(shape),
                broadcast_dimensions: dims.to_vec(),
            },
            &[x],
        );
        let axes = axes.to_vec();
        op(
            Prim::Reduce {
                op: ReduceOp::Sum,
                axes,
            },
            &[&b],
        )
    }

    #[test]
    fn a_sum_over_broadcast_axes_is_a_product() {
        let f = |(x, y): (Tensor, Tensor)| {
            let a = sum_of_broadcast(&x, &[4, 3], &[1], &[0, 1]);
            // Axis 1 expands from size 1.
            (a, sum_of_broadcast(&y, &[2, 5], &[0, 1], &[1]))
        };
        assert_simplifies(
            f,
            (arg(&[3]), arg(&[2, 1])),
            "\
{ lambda ; a:f32[3] b:f32[2,1]. let
    c:f32[4,3] = broadcast_in_dim[broadcast_dimensions=(1,) shape=(4, 3)] a
    d:f32[] = reduce_sum[axes=(0, 1)] c
    e:f32[2,5] = broadcast_in_dim[broadcast_dimensions=(0, 1) shape=(2, 5)] b
    f:f32[2] = reduce_sum[axes=(1,)] e
  in (d, f) }",
            "\
{ lambda ; a:f32[3] b:f32[2,1]. let
    c:f32[] = reduce_sum[axes=(0,)] a
    d:f32[] = mul c 4.0:f32[]
    e:f32[2] = reshape[dimensions=None new_sizes=(2,)] b
    f:f32[2] = mul e 5.0:f32[]
  in (d, f) }",
        );
    }

    fn sum(x: &Tensor, axes: &[usize]) -> Tensor {
        let axes = axes.to_vec();
        op(
            Prim::Reduce {
                op: ReduceOp::Sum,
                axes,
            },
            &[x],
        )
    }

    #[test]
    fn a_sum_of_a_sum_is_one_sum_and_a_sum_of_one_element_a_reshape() {
        let f = |(x, y): (Tensor, Tensor)| (sum(&sum(&x, &[1]), &[0, 2]), sum(&y, &[1]));
        assert_simplifies(
            f,
            (arg(&[2, 3, 4, 5]), arg(&[2, 1])),
            "\
{ lambda ; a:f32[2,3,4,5] b:f32[2,1]. let
    c:f32[2,4,5] = reduce_sum[axes=(1,)] a
    d:f32[4] = reduce_sum[axes=(0, 2)] c
    e:f32[2] = reduce_sum[axes=(1,)] b
  in (d, e) }",
            "\
{ lambda ; a:f32[2,3,4,5] b:f32[2,1]. let
    c:f32[4] = reduce_sum[axes=(0, 1, 3)] a
    d:f32[2] = reshape[dimensions=None new_sizes=(2,)] b
  in (c, d) }",
        );
    }

    #[test]
    fn a_sum_over_the_operands_own_axes_stays() {
        let f = |x: Tensor| sum_of_broadcast(&x, &[4, 3], &[1], &[1]);
        assert_unchanged(
            f,
            arg(&[3]),
            "\
{ lambda ; a:f32[3]. let
    b:f32[4,3] = broadcast_in_dim[broadcast_dimensions=(1,) shape=(4, 3)] a
    c:f32[4] = reduce_sum[axes=(1,)] b
  in (c,) }",
        );
    }
}
