//! Reverse mode of a call in two halves, as JAX's partial evaluation of a linearized
//! `jit`: the body's forward and backward passes, traced together once, are split into
//! the equations that need only the operands (run with the forward pass, keeping the
//! residuals the others read) and those that need the cotangents (run by the pullback). No
//! forward work is done twice.
//!
//! Elementwise work and views that only the backward half reads move to it, where they
//! fuse into its kernels: their operands are kept instead of their results (`tanh`'s
//! output rather than `1 - tanh^2`), never more than the forward pass makes anyway.

use std::collections::HashSet;

use crate::core::prim::Kind;
use crate::core::{Atom, ClosedJaxpr, Eqn, Jaxpr, Var};

/// The two halves of a program whose inputs are `n_known` operands then cotangents, and
/// whose outputs are `n_results` results then the operands' cotangents.
pub(super) struct Halves {
    /// `operands -> (results, residuals)`.
    pub(super) known: ClosedJaxpr,
    /// `(operands read again, residuals, cotangents) -> operands' cotangents`.
    pub(super) unknown: ClosedJaxpr,
    /// The operands the second half reads, by position.
    pub(super) operands: Vec<usize>,
}

/// Splits `cj` (see [`Halves`]). Panics if a result depends on a cotangent.
pub(super) fn split(cj: &ClosedJaxpr, n_known: usize, n_results: usize) -> Halves {
    let j = &cj.jaxpr;
    let (results, cts_out) = j.outvars.split_at(n_results);
    let backward = backward_eqns(j, n_known, results);
    let reads = |a: &Atom, set: &HashSet<u32>| a.var().is_some_and(|v| set.contains(&v.id));
    let unknown: HashSet<u32> = j.invars[n_known..]
        .iter()
        .chain(
            j.eqns
                .iter()
                .zip(&backward)
                .filter(|(_, &b)| b)
                .flat_map(|(e, _)| &e.outputs),
        )
        .map(|v| v.id)
        .collect();
    assert!(
        !results.iter().any(|a| reads(a, &unknown)),
        "a call's results depend on its cotangents"
    );
    let (mut known_eqns, mut unknown_eqns) = (vec![], vec![]);
    for (e, &b) in j.eqns.iter().zip(&backward) {
        if b {
            unknown_eqns.push(e.clone());
        } else {
            known_eqns.push(e.clone());
        }
    }
    // What the second half reads of the first: operands and values, not the constants
    // (both hold those) or literals.
    let consts: HashSet<u32> = j.constvars.iter().map(|v| v.id).collect();
    let mut residuals: Vec<Var> = vec![];
    let read = unknown_eqns.iter().flat_map(|e| &e.inputs).chain(cts_out);
    for v in read.filter_map(Atom::var) {
        let known = !unknown.contains(&v.id) && !consts.contains(&v.id);
        if known && !residuals.iter().any(|r| r.id == v.id) {
            residuals.push(v.clone());
        }
    }
    let operand = |v: &Var| j.invars[..n_known].iter().position(|i| i.id == v.id);
    let operands: Vec<usize> = residuals.iter().filter_map(operand).collect();
    let (from_operands, values): (Vec<Var>, Vec<Var>) =
        residuals.into_iter().partition(|v| operand(v).is_some());
    let mut known_out = results.to_vec();
    known_out.extend(values.iter().cloned().map(Atom::Var));
    let mut unknown_in = from_operands;
    unknown_in.extend(values);
    unknown_in.extend(j.invars[n_known..].iter().cloned());
    let half = |invars, eqns, outvars| ClosedJaxpr {
        jaxpr: Jaxpr {
            constvars: j.constvars.clone(),
            invars,
            eqns,
            outvars,
        },
        consts: cj.consts.clone(),
    };
    Halves {
        known: half(j.invars[..n_known].to_vec(), known_eqns, known_out),
        unknown: half(unknown_in, unknown_eqns, cts_out.to_vec()),
        operands,
    }
}

/// Which equations of `j` belong to the second half: those that read a cotangent, and the
/// elementwise ones and views that nothing of the first half or its `results` reads.
fn backward_eqns(j: &Jaxpr, n_known: usize, results: &[Atom]) -> Vec<bool> {
    let mut unknown: HashSet<u32> = j.invars[n_known..].iter().map(|v| v.id).collect();
    let mut backward: Vec<bool> = j
        .eqns
        .iter()
        .map(|e| {
            let b = e
                .inputs
                .iter()
                .any(|a| a.var().is_some_and(|v| unknown.contains(&v.id)));
            if b {
                unknown.extend(e.outputs.iter().map(|v| v.id));
            }
            b
        })
        .collect();
    let consts: HashSet<u32> = j.constvars.iter().map(|v| v.id).collect();
    // Walking back, what the first half still needs.
    let mut needed: HashSet<u32> = results.iter().filter_map(Atom::var).map(|v| v.id).collect();
    for (e, b) in j.eqns.iter().zip(backward.iter_mut()).rev() {
        if *b {
            continue;
        }
        if movable(e, &consts) && !e.outputs.iter().any(|v| needed.contains(&v.id)) {
            *b = true;
        } else {
            needed.extend(e.inputs.iter().filter_map(Atom::var).map(|v| v.id));
        }
    }
    backward
}

/// Whether `e` is work a kernel of the second half does as cheaply as it reads a stored
/// value (elementwise arithmetic, a view or a remapped read) whose operands, kept instead
/// of its result, take no more bytes than the result (not a slice of a larger value, nor
/// a sum of two values as large).
fn movable(e: &Eqn, consts: &HashSet<u32>) -> bool {
    let kind = matches!(
        e.prim.kind(),
        Kind::Lanewise(_) | Kind::View | Kind::Remap(_)
    );
    let mut operands: Vec<&Var> = e
        .inputs
        .iter()
        .filter_map(Atom::var)
        .filter(|v| !consts.contains(&v.id))
        .collect();
    operands.sort_by_key(|v| v.id);
    operands.dedup_by_key(|v| v.id);
    let kept: usize = operands.iter().map(|v| v.aval.nbytes()).sum();
    let made: usize = e.outputs.iter().map(|v| v.aval.nbytes()).sum();
    kind && !e.prim.has_effects() && kept <= made
}
