//! `conv_general_dilated`'s batching rule (JAX's `_conv_general_dilated_batch_rule`): the
//! mapped axis is folded into the input's batch, into feature groups or into the kernel's
//! output features, and split back out of the result.

use super::Batched;
use crate::core::{Prim, Tensor};
use crate::numpy::scalar_tensor;
use crate::ops as lax;
use crate::prims::ConvParams;
use crate::transforms::conv_ad::{axis_into, axis_out_of};

/// The rule, `n` examples, at least one operand mapped.
pub(super) fn conv(args: &[Tensor], dims: &[Option<usize>], p: &ConvParams, n: usize) -> Batched {
    let (lhs, rhs) = (&args[0], &args[1]);
    let dn = &p.dimension_numbers;
    let (lhs_spec, rhs_spec, out_spec) = (&dn.lhs_spec, &dn.rhs_spec, &dn.out_spec);
    if n == 0 {
        let unbatched = |x: &Tensor, d: Option<usize>| {
            let mut s = x.shape().to_vec();
            if let Some(d) = d {
                s.remove(d);
            }
            crate::core::Aval::new(x.dtype(), &s)
        };
        let out = Prim::ConvGeneralDilated(p.clone())
            .abstract_eval(&[unbatched(lhs, dims[0]), unbatched(rhs, dims[1])])
            .expect("the unbatched convolution was checked when traced")
            .remove(0);
        let mut shape = vec![0];
        shape.extend(out.shape.iter());
        let zero = scalar_tensor(0.0, out.dtype);
        return (
            vec![lax::broadcast_in_dim(&zero, &shape, &[])],
            vec![Some(0)],
        );
    }
    let conv = |l: &Tensor, r: &Tensor, groups: usize, batch_groups: usize| {
        lax::conv_with_params(
            l,
            r,
            ConvParams {
                feature_group_count: groups,
                batch_group_count: batch_groups,
                ..p.clone()
            },
        )
    };
    let (g, b) = (p.feature_group_count, p.batch_group_count);
    let (out, at) = match (dims[0], dims[1]) {
        (Some(lb), Some(rb)) => {
            let (new_lhs, g, b) = if b > 1 {
                (axis_into(lb, lhs_spec[0], lhs), g, b * n)
            } else {
                (axis_into(lb, lhs_spec[1], lhs), g * n, b)
            };
            let out = conv(&new_lhs, &axis_into(rb, rhs_spec[0], rhs), g, b);
            (axis_out_of(out_spec[1], n, &out), out_spec[1])
        }
        (Some(lb), None) => {
            let new_lhs = if b == 1 {
                axis_into(lb, lhs_spec[0], lhs)
            } else {
                let x = axis_out_of(lhs_spec[0] + (lb <= lhs_spec[0]) as usize, b, lhs);
                let x = axis_into(lb + (lhs_spec[0] < lb) as usize, lhs_spec[0] + 1, &x);
                axis_into(lhs_spec[0], lhs_spec[0], &x)
            };
            let out = conv(&new_lhs, rhs, g, b);
            (axis_out_of(out_spec[0], n, &out), out_spec[0])
        }
        (None, Some(rb)) => {
            if g == 1 && b == 1 {
                let out = conv(lhs, &axis_into(rb, rhs_spec[0], rhs), g, b);
                (axis_out_of(out_spec[1], n, &out), out_spec[1])
            } else {
                // Groups stay outermost in the kernel's output features: factor them out,
                // fold the mapped axis into the rest, and put them back; likewise after.
                let groups = g.max(b);
                let r = axis_out_of(rhs_spec[0] + (rb <= rhs_spec[0]) as usize, groups, rhs);
                let r = axis_into(rb + (rhs_spec[0] < rb) as usize, rhs_spec[0] + 1, &r);
                let r = axis_into(rhs_spec[0], rhs_spec[0], &r);
                let out = conv(lhs, &r, g, b);
                let out = axis_out_of(out_spec[1], groups, &out);
                let out = axis_out_of(out_spec[1] + 1, n, &out);
                (axis_into(out_spec[1], out_spec[1] + 1, &out), out_spec[1])
            }
        }
        (None, None) => unreachable!("an operand is mapped"),
    };
    (vec![out], vec![Some(at)])
}
