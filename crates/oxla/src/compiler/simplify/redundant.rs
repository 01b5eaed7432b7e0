//! Redundant equations: one computed twice (common subexpressions, merged as each equation
//! is emitted) or never used (dead code, removed after each sweep).

use std::collections::HashSet;

use smallvec::SmallVec;

use super::Pass;
use crate::array::DType;
use crate::core::{Atom, ClosedJaxpr, Eqn, Jaxpr, Prim, Tensor, Var};

/// What makes two equations one computation: the primitive with its parameters, and the
/// operands. Equations of equal keys compute equal values. A control-flow primitive's
/// parameters compare by identity, so two loops are one only if they are one object.
#[derive(PartialEq, Eq, Hash)]
pub(super) struct CseKey {
    prim: Prim,
    inputs: Vec<Operand>,
}

/// An operand, as a [`CseKey`] compares it.
#[derive(PartialEq, Eq, Hash)]
enum Operand {
    /// A variable, by id.
    Var(u32),
    /// A rank-0 literal, by dtype and the bytes of its value: two literals are one only if
    /// their bits are equal, so `0.0` and `-0.0` stay two values and a NaN is one only with
    /// a NaN of the same bits (the merging of the `Debug`-text key this replaced).
    Lit(DType, SmallVec<[u8; 8]>),
}

impl CseKey {
    /// The key of `e`, whose operands are already substituted.
    fn of(e: &Eqn) -> CseKey {
        let inputs = e.inputs.iter().map(|a| match a {
            Atom::Var(v) => Operand::Var(v.id),
            Atom::Lit(l) => Operand::Lit(l.dtype(), SmallVec::from_slice(l.as_bytes())),
        });
        CseKey {
            prim: e.prim.clone(),
            inputs: inputs.collect(),
        }
    }
}

impl Pass {
    /// Appends `e`, or aliases its results to those of an equal equation emitted before
    /// (unless `e` has effects: each of those runs).
    pub(super) fn emit(&mut self, e: Eqn) {
        if !e.prim.has_effects() {
            let key = CseKey::of(&e);
            if let Some(prev) = self.cse.get(&key).cloned() {
                for (o, p) in e.outputs.iter().zip(prev) {
                    self.alias(o, Atom::Var(p));
                }
                return;
            }
            self.cse.insert(key, e.outputs.clone());
        }
        for o in &e.outputs {
            self.producer.insert(o.id, e.clone());
        }
        self.eqns.push(e);
    }
}

/// Removes equations whose results are unused and that have no effects, and unused
/// constvars.
pub(super) fn dce(cj: ClosedJaxpr) -> ClosedJaxpr {
    let j = cj.jaxpr;
    let mut live: HashSet<u32> = j
        .outvars
        .iter()
        .filter_map(Atom::var)
        .map(|v| v.id)
        .collect();
    let mut kept = Vec::new();
    for e in j.eqns.into_iter().rev() {
        if e.prim.has_effects() || e.outputs.iter().any(|o| live.contains(&o.id)) {
            for a in &e.inputs {
                if let Atom::Var(v) = a {
                    live.insert(v.id);
                }
            }
            kept.push(e);
        }
    }
    kept.reverse();
    let (constvars, consts): (Vec<Var>, Vec<Tensor>) = j
        .constvars
        .into_iter()
        .zip(cj.consts)
        .filter(|(v, _)| live.contains(&v.id))
        .unzip();
    ClosedJaxpr {
        jaxpr: Jaxpr {
            constvars,
            invars: j.invars,
            eqns: kept,
            outvars: j.outvars,
        },
        consts,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{arg, assert_simplifies, assert_unchanged, op};
    use crate::core::Prim;
    use crate::core::Tensor;
    use crate::prims::{BinaryOp, UnaryOp};

    const EXP: Prim = Prim::Unary(UnaryOp::Exp);
    const MUL: Prim = Prim::Binary(BinaryOp::Mul);
    const MAX: Prim = Prim::Binary(BinaryOp::Max);
    const ADD: Prim = Prim::Binary(BinaryOp::Add);
    const MIN: Prim = Prim::Binary(BinaryOp::Min);

    #[test]
    fn cse_merges_equal_equations() {
        let two = Tensor::scalar(2.0f32);
        let f = |x: Tensor| {
            let (a, b) = (op(EXP, &[&x]), op(EXP, &[&x]));
            let (c, d) = (op(MUL, &[&a, &two]), op(MUL, &[&b, &two]));
            op(ADD, &[&c, &d])
        };
        assert_simplifies(
            f,
            arg(&[3]),
            "\
{ lambda ; a:f32[3]. let
    b:f32[3] = exp a
    c:f32[3] = exp a
    d:f32[3] = mul b 2.0:f32[]
    e:f32[3] = mul c 2.0:f32[]
    f:f32[3] = add d e
  in (f,) }",
            "\
{ lambda ; a:f32[3]. let
    b:f32[3] = exp a
    c:f32[3] = mul b 2.0:f32[]
    d:f32[3] = add c c
  in (d,) }",
        );
    }

    #[test]
    fn cse_keeps_equations_of_other_operands() {
        let f = |(x, y): (Tensor, Tensor)| (op(EXP, &[&x]), op(EXP, &[&y]));
        let text = "\
{ lambda ; a:f32[3] b:f32[3]. let c:f32[3] = exp a; d:f32[3] = exp b in (c, d) }";
        assert_unchanged(f, (arg(&[3]), arg(&[3])), text);
    }

    #[test]
    fn cse_compares_literals_by_bits() {
        let (zero, minus_zero) = (Tensor::scalar(0.0f32), Tensor::scalar(-0.0f32));
        let nan = Tensor::scalar(f32::NAN);
        let f = |x: Tensor| {
            let (a, b) = (op(MAX, &[&x, &zero]), op(MAX, &[&x, &minus_zero]));
            let (c, d) = (op(MIN, &[&x, &nan]), op(MIN, &[&x, &nan]));
            (a, b, c, d)
        };
        let before = "\
{ lambda ; a:f32[3]. let
    b:f32[3] = max a 0.0:f32[]
    c:f32[3] = max a -0.0:f32[]
    d:f32[3] = min a nan:f32[]
    e:f32[3] = min a nan:f32[]
  in (b, c, d, e) }";
        let after = "\
{ lambda ; a:f32[3]. let
    b:f32[3] = max a 0.0:f32[]
    c:f32[3] = max a -0.0:f32[]
    d:f32[3] = min a nan:f32[]
  in (b, c, d, d) }";
        assert_simplifies(f, arg(&[3]), before, after);
    }

    #[test]
    fn dce_drops_unused_equations() {
        let f = |x: Tensor| {
            let unused = op(EXP, &[&x]);
            op(Prim::Unary(UnaryOp::Neg), &[&op(EXP, &[&unused])]);
            op(Prim::Unary(UnaryOp::Sin), &[&x])
        };
        assert_simplifies(
            f,
            arg(&[3]),
            "\
{ lambda ; a:f32[3]. let
    b:f32[3] = exp a
    c:f32[3] = exp b
    d:f32[3] = neg c
    e:f32[3] = sin a
  in (e,) }",
            "\
{ lambda ; a:f32[3]. let b:f32[3] = sin a in (b,) }",
        );
    }

    #[test]
    fn effects_are_never_folded_merged_or_removed() {
        use crate::core::{bind, HostCallback};
        let print = Prim::DebugCallback(std::sync::Arc::new(HostCallback::new(
            "debug_print",
            vec![],
            |_| {},
        )));
        let here = std::panic::Location::caller();
        let f = |x: Tensor| {
            // Read by the callbacks alone; one callback twice on one operand; a callback of
            // a constant.
            let dead = op(EXP, &[&x]);
            bind(print.clone(), std::slice::from_ref(&dead), here);
            bind(print.clone(), &[dead], here);
            bind(print.clone(), &[Tensor::scalar(1.0f32)], here);
            x
        };
        assert_unchanged(
            f,
            arg(&[3]),
            "\
{ lambda ; a:f32[3]. let
    b:f32[3] = exp a
    debug_print b
    debug_print b
    debug_print 1.0:f32[]
  in (a,) }",
        );
    }

    #[test]
    fn dce_keeps_every_used_equation() {
        let f = |x: Tensor| {
            let a = op(EXP, &[&x]);
            (op(Prim::Unary(UnaryOp::Sin), &[&a]), a)
        };
        assert_unchanged(
            f,
            arg(&[3]),
            "\
{ lambda ; a:f32[3]. let b:f32[3] = exp a; c:f32[3] = sin b in (c, b) }",
        );
    }
}
