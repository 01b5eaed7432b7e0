//! Constant folding and algebraic identities: an equation whose operands are known is
//! computed at compile time, and one whose result is an existing value (`x + 0`, `x * 1`,
//! `neg(neg(x))`, a view that changes nothing) is replaced by it.

use super::Pass;
use crate::core::{Atom, Eqn, Prim, Tensor};
use crate::prims::{BinaryOp, UnaryOp};

/// Largest result (in elements) that constant folding computes at compile time.
const FOLD_LIMIT: usize = 4096;

impl Pass {
    /// Computes equations of known operands and small results at compile time.
    pub(super) fn fold(&mut self, e: &Eqn) -> bool {
        let size: usize = e.outputs.iter().map(|o| o.aval.size()).sum();
        // A collective over a named axis (or a loop holding one) has a value only on the
        // members of that axis.
        if size > FOLD_LIMIT || e.prim.names_any_axis() {
            return false;
        }
        let Some(vals) = e
            .inputs
            .iter()
            .map(|a| self.value(a))
            .collect::<Option<Vec<_>>>()
        else {
            return false;
        };
        let outs = e.prim.eval(&vals);
        for (o, v) in e.outputs.iter().zip(outs) {
            if v.ndim() == 0 {
                self.alias(o, Atom::Lit(v));
            } else {
                let c = self.fresh(v.dtype(), v.shape());
                self.known.insert(c.id, v.clone());
                self.constvars.push(c.clone());
                self.consts.push(Tensor::new(v));
                self.alias(o, Atom::Var(c));
            }
        }
        true
    }

    /// Rewrites that make an equation's result an existing value.
    pub(super) fn identity(&mut self, e: &Eqn) -> bool {
        let out = &e.outputs[0];
        let same = |a: &Atom| a.aval() == out.aval;
        let x = e.inputs.first().cloned();
        let pick = match &e.prim {
            Prim::Binary(op) => {
                let (a, b) = (&e.inputs[0], &e.inputs[1]);
                let (sa, sb) = (self.scalar(a), self.scalar(b));
                // The neutral operand on each side: `x + 0`, `0 + x`, `x - 0`, `x * 1`,
                // `1 * x`, `x / 1`.
                let (left, right) = match op {
                    BinaryOp::Add => (Some(0.0), Some(0.0)),
                    BinaryOp::Sub => (None, Some(0.0)),
                    BinaryOp::Mul => (Some(1.0), Some(1.0)),
                    BinaryOp::Div => (None, Some(1.0)),
                    BinaryOp::Rem
                    | BinaryOp::Complex
                    | BinaryOp::Pow
                    | BinaryOp::Max
                    | BinaryOp::Min
                    | BinaryOp::Nextafter
                    | BinaryOp::Eq
                    | BinaryOp::Ne
                    | BinaryOp::Lt
                    | BinaryOp::Le
                    | BinaryOp::Gt
                    | BinaryOp::Ge
                    | BinaryOp::And
                    | BinaryOp::Or
                    | BinaryOp::Xor
                    | BinaryOp::ShiftLeft
                    | BinaryOp::ShiftRightLogical
                    | BinaryOp::Polygamma
                    | BinaryOp::Zeta
                    | BinaryOp::Atan2
                    | BinaryOp::ShiftRightArithmetic
                    | BinaryOp::Igamma
                    | BinaryOp::Igammac
                    | BinaryOp::IgammaGradA
                    | BinaryOp::RandomGammaGrad => (None, None),
                };
                if right.is_some() && sb == right && same(a) {
                    Some(a.clone())
                } else if left.is_some() && sa == left && same(b) {
                    Some(b.clone())
                } else {
                    None
                }
            }
            Prim::Unary(UnaryOp::Neg) => {
                let inner = e.inputs[0].var().and_then(|v| self.producer.get(&v.id));
                if let Some(Eqn {
                    prim: Prim::Unary(UnaryOp::Neg),
                    inputs,
                    ..
                }) = inner
                {
                    Some(inputs[0].clone())
                } else {
                    None
                }
            }
            Prim::StopGradient => x,
            Prim::ConvertElementType { .. }
            | Prim::Reshape { .. }
            | Prim::BroadcastInDim { .. }
            | Prim::Squeeze { .. }
            | Prim::Slice { .. } => x.filter(same),
            Prim::Pad { padding_config } => {
                x.filter(|_| padding_config.iter().all(|&c| c == (0, 0, 0)))
            }
            Prim::Transpose { permutation } => {
                x.filter(|_| permutation.iter().enumerate().all(|(i, &p)| i == p))
            }
            Prim::Rev { dimensions } => x.filter(|_| dimensions.is_empty()),
            Prim::Reduce { axes, .. } => x.filter(|_| axes.is_empty()),
            Prim::Concatenate { .. } => x.filter(|_| e.inputs.len() == 1),
            Prim::SelectN => self
                .scalar(&e.inputs[0])
                .filter(|_| e.inputs.len() > 1)
                .map(|w| e.inputs[1 + (w as usize).min(e.inputs.len() - 2)].clone())
                .filter(same),
            Prim::Unary(_)
            | Prim::IntegerPow { .. }
            | Prim::BitcastConvertType { .. }
            | Prim::Iota { .. }
            | Prim::ArgReduce { .. }
            | Prim::Cumsum { .. }
            | Prim::DotGeneral { .. }
            | Prim::DotReduce(_)
            | Prim::DynamicSlice { .. }
            | Prim::DynamicUpdateSlice
            | Prim::Gather { .. }
            | Prim::Scatter { .. }
            | Prim::Sort { .. }
            | Prim::Threefry2x32 { .. }
            | Prim::Control(_)
            | Prim::DebugCallback(_)
            | Prim::ConvGeneralDilated(_) => None,
            Prim::Linalg(_) | Prim::Fft { .. } | Prim::Collective(_) => None,
        };
        match pick {
            Some(a) => {
                self.alias(out, a);
                true
            }
            None => false,
        }
    }

    /// A broadcast that only inserts dimensions of size 1 (as `pmap`'s stacked results do)
    /// of a collective's or a loop's result, which has its own buffer anyway: a reshape,
    /// which the compiled program runs as a view of it, not a copy. Other broadcasts stay,
    /// for the kernels and rewrites that read broadcasts.
    pub(super) fn unit_broadcast(&mut self, e: &Eqn) -> bool {
        let Prim::BroadcastInDim {
            shape,
            broadcast_dimensions,
        } = &e.prim
        else {
            return false;
        };
        let stored = match &e.inputs[0] {
            Atom::Lit(_) => false,
            Atom::Var(v) => self
                .producer
                .get(&v.id)
                .is_some_and(|p| matches!(p.prim, Prim::Collective(_) | Prim::Control(_))),
        };
        if !stored {
            return false;
        }
        let x = e.inputs[0].aval();
        let kept = broadcast_dimensions
            .iter()
            .zip(&x.shape)
            .all(|(&d, &n)| shape[d] == n);
        let inserted = (0..shape.len())
            .filter(|d| !broadcast_dimensions.contains(d))
            .all(|d| shape[d] == 1);
        if !kept || !inserted || !broadcast_dimensions.is_sorted() || x.shape == *shape {
            return false;
        }
        self.changed = true;
        self.rewrite(Eqn {
            prim: Prim::Reshape {
                new_sizes: shape.clone(),
            },
            inputs: e.inputs.clone(),
            outputs: e.outputs.clone(),
            source: e.source,
        });
        true
    }

    /// `x * 1` and `x + 0` where `x` has size-1 (or no) dimensions the result broadcasts:
    /// a broadcast of `x`, which later rules can fold into reductions.
    pub(super) fn broadcast_identity(&mut self, e: &Eqn) -> bool {
        let Prim::Binary(op) = e.prim else {
            return false;
        };
        let out = &e.outputs[0];
        let neutral = if op == BinaryOp::Mul {
            1.0
        } else if op == BinaryOp::Add {
            0.0
        } else {
            return false;
        };
        let (a, b) = (&e.inputs[0], &e.inputs[1]);
        let x = if self.scalar(b) == Some(neutral) {
            a
        } else if self.scalar(a) == Some(neutral) {
            b
        } else {
            return false;
        };
        let xa = x.aval();
        if xa.dtype != out.aval.dtype || xa.shape == out.aval.shape {
            return false;
        }
        let dims: Vec<usize> = if xa.ndim() == 0 {
            vec![]
        } else {
            (0..xa.ndim()).collect()
        };
        self.changed = true;
        self.rewrite(Eqn {
            prim: Prim::BroadcastInDim {
                shape: out.aval.shape.clone(),
                broadcast_dimensions: dims,
            },
            inputs: vec![x.clone()],
            outputs: e.outputs.clone(),
            source: e.source,
        });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{arg, assert_simplifies, assert_unchanged, op};
    use crate::array::shape_of;
    use crate::core::Prim;
    use crate::core::Tensor;
    use crate::prims::{BinaryOp, UnaryOp};

    const EXP: Prim = Prim::Unary(UnaryOp::Exp);
    const NEG: Prim = Prim::Unary(UnaryOp::Neg);
    const MUL: Prim = Prim::Binary(BinaryOp::Mul);

    #[test]
    fn known_operands_fold() {
        let f = |x: Tensor| op(MUL, &[&x, &op(EXP, &[&Tensor::scalar(2.0f32)])]);
        assert_simplifies(
            f,
            arg(&[3]),
            "\
{ lambda ; a:f32[3]. let b:f32[] = exp 2.0:f32[]; c:f32[3] = mul a b in (c,) }",
            "\
{ lambda ; a:f32[3]. let b:f32[3] = mul a 7.389056205749512:f32[] in (b,) }",
        );
    }

    #[test]
    fn neutral_operands_and_empty_views_vanish() {
        let (zero, one) = (Tensor::scalar(0.0f32), Tensor::scalar(1.0f32));
        let f = |x: Tensor| {
            let a = op(Prim::Binary(BinaryOp::Add), &[&zero, &x]);
            let b = op(Prim::Binary(BinaryOp::Div), &[&a, &one]);
            let c = op(NEG, &[&op(NEG, &[&b])]);
            let d = op(
                Prim::Transpose {
                    permutation: vec![0, 1],
                },
                &[&c],
            );
            let e = op(
                Prim::Reshape {
                    new_sizes: shape_of(&[2, 3]),
                },
                &[&d],
            );
            op(Prim::StopGradient, &[&e])
        };
        assert_simplifies(
            f,
            arg(&[2, 3]),
            "\
{ lambda ; a:f32[2,3]. let
    b:f32[2,3] = add 0.0:f32[] a
    c:f32[2,3] = div b 1.0:f32[]
    d:f32[2,3] = neg c
    e:f32[2,3] = neg d
    f:f32[2,3] = transpose[permutation=(0, 1)] e
    g:f32[2,3] = reshape[dimensions=None new_sizes=(2, 3)] f
    h:f32[2,3] = stop_gradient g
  in (h,) }",
            "\
{ lambda ; a:f32[2,3]. let  in (a,) }",
        );
    }

    #[test]
    fn a_neutral_operand_of_a_larger_shape_broadcasts() {
        let ones = op(
            Prim::BroadcastInDim {
                shape: shape_of(&[3]),
                broadcast_dimensions: vec![],
            },
            &[&Tensor::scalar(1.0f32)],
        );
        let f = |x: Tensor| op(MUL, &[&x, &ones]);
        assert_simplifies(
            f,
            arg(&[]),
            "\
{ lambda a:f32[3]; b:f32[]. let c:f32[3] = mul b a in (c,) }",
            "\
{ lambda ; a:f32[]. let
    b:f32[3] = broadcast_in_dim[broadcast_dimensions=() shape=(3,)] a
  in (b,) }",
        );
    }

    #[test]
    fn other_operands_and_views_stay() {
        let (zero, one, two) = (
            Tensor::scalar(0.0f32),
            Tensor::scalar(1.0f32),
            Tensor::scalar(2.0f32),
        );
        let f = |x: Tensor| {
            let a = op(MUL, &[&op(EXP, &[&x]), &two]);
            let b = op(Prim::Binary(BinaryOp::Sub), &[&zero, &a]);
            let c = op(Prim::Binary(BinaryOp::Div), &[&one, &b]);
            let d = op(NEG, &[&op(EXP, &[&c])]);
            op(
                Prim::Transpose {
                    permutation: vec![1, 0],
                },
                &[&d],
            )
        };
        assert_unchanged(
            f,
            arg(&[2, 3]),
            "\
{ lambda ; a:f32[2,3]. let
    b:f32[2,3] = exp a
    c:f32[2,3] = mul b 2.0:f32[]
    d:f32[2,3] = sub 0.0:f32[] c
    e:f32[2,3] = div 1.0:f32[] d
    f:f32[2,3] = exp e
    g:f32[2,3] = neg f
    h:f32[3,2] = transpose[permutation=(1, 0)] g
  in (h,) }",
        );
    }

    #[test]
    fn a_broadcast_inserting_unit_dimensions_of_a_collective_is_a_reshape() {
        use crate::prims::collective::{AxisName, Collective, CollectiveOp};
        let psum = Prim::Collective(Collective {
            op: CollectiveOp::Psum,
            axes: vec![AxisName::Named("i".into())],
        });
        let unit = |shape: &[usize], dims: Vec<usize>, x: &Tensor| {
            op(
                Prim::BroadcastInDim {
                    shape: shape_of(shape),
                    broadcast_dimensions: dims,
                },
                &[x],
            )
        };
        let f = |x: Tensor| {
            let s = op(psum.clone(), &[&x]);
            (
                unit(&[1, 3], vec![1], &s),
                unit(&[2, 3], vec![1], &s),
                unit(&[1, 3], vec![1], &x),
            )
        };
        crate::core::axis_env::with_axis("i", 2, || {
            assert_simplifies(
                f,
                arg(&[3]),
                "\
{ lambda ; a:f32[3]. let
    b:f32[3] = psum[axes=('i',) axis_index_groups=None] a
    c:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,) shape=(1, 3)] b
    d:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,) shape=(2, 3)] b
    e:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,) shape=(1, 3)] a
  in (c, d, e) }",
                "\
{ lambda ; a:f32[3]. let
    b:f32[3] = psum[axes=('i',) axis_index_groups=None] a
    c:f32[1,3] = reshape[dimensions=None new_sizes=(1, 3)] b
    d:f32[2,3] = broadcast_in_dim[broadcast_dimensions=(1,) shape=(2, 3)] b
    e:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,) shape=(1, 3)] a
  in (c, d, e) }",
            )
        });
    }
}
