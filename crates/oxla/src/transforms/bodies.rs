//! Helpers for the rules of primitives that hold bodies (the chunked map, `scan`, `cond`,
//! `while`): tracing a body on operands, opening its constants into inputs, the positions
//! tangents travel at, and a body's working memory.

use super::ad::jvp_jaxpr;
use super::jvp_rules::zeros_of_aval;
use crate::compiler::Executable;
use crate::core::{trace_avals, Aval, ClosedJaxpr, Jaxpr, Tensor, Var};
use crate::memory::BufferInfo;

/// Traces `f` on the avals of `operands`.
pub(crate) fn trace_on(
    operands: &[Tensor],
    f: impl FnOnce(Vec<Tensor>) -> Vec<Tensor>,
) -> ClosedJaxpr {
    let avals: Vec<Aval> = operands.iter().map(Tensor::aval).collect();
    trace_avals(f, &operands.to_vec(), &avals).0
}

/// The positions of the float avals: the values forward mode carries tangents for.
pub(crate) fn float_positions(avals: &[Aval]) -> Vec<usize> {
    (0..avals.len())
        .filter(|&k| avals[k].dtype.is_inexact())
        .collect()
}

/// The tangents of `outs` at `positions`, a zero where the JVP gave none: a staged JVP
/// body returns one for every position its loop carries tangents for.
pub(crate) fn dense_tangents(
    outs: &[Tensor],
    touts: &[Option<Tensor>],
    positions: &[usize],
) -> Vec<Tensor> {
    positions
        .iter()
        .map(|&k| touts[k].clone().unwrap_or_else(|| zeros_of_aval(&outs[k])))
        .collect()
}

/// `flat[i]` placed at `positions[i]` among `n` tangents, `None` (a zero) elsewhere.
pub(crate) fn sparse_tangents(
    flat: Vec<Tensor>,
    positions: &[usize],
    n: usize,
) -> Vec<Option<Tensor>> {
    let mut t = vec![None; n];
    for (x, &k) in flat.into_iter().zip(positions) {
        t[k] = Some(x);
    }
    t
}

/// The operands of a staged JVP: the primals, then the tangents that are not zeros,
/// with those tangents' positions.
pub(crate) fn jvp_operands(
    primals: &[Tensor],
    tangents: &[Option<Tensor>],
) -> (Vec<Tensor>, Vec<usize>) {
    let live: Vec<usize> = (0..primals.len())
        .filter(|&i| tangents[i].is_some())
        .collect();
    let mut ops = primals.to_vec();
    ops.extend(live.iter().map(|&i| tangents[i].clone().expect("live")));
    (ops, live)
}

/// The staged JVP of `body` on `xs` ([`jvp_operands`] of its `np` primals, tangents at
/// `live`): its results, then a tangent for each result at `floats`.
pub(crate) fn jvp_body(
    body: &ClosedJaxpr,
    xs: &[Tensor],
    np: usize,
    live: &[usize],
    floats: &[usize],
) -> Vec<Tensor> {
    let t = sparse_tangents(xs[np..].to_vec(), live, np);
    let (mut outs, touts) = jvp_jaxpr(body, &xs[..np], t);
    let tangents = dense_tangents(&outs, &touts, floats);
    outs.extend(tangents);
    outs
}

/// The most bytes any of `bodies` plans beyond the first `shared` bytes of its inputs (the
/// loop's own operands), with the largest buffers of the one that plans the most.
pub(crate) fn body_bytes<'a>(
    bodies: impl IntoIterator<Item = &'a Executable>,
    shared: usize,
) -> (usize, Vec<BufferInfo>) {
    let mut best = (0, vec![]);
    for exe in bodies {
        let a = exe.analysis();
        let bytes = a.peak_bytes.saturating_sub(shared);
        if bytes >= best.0 {
            let largest = a
                .largest
                .iter()
                .filter(|b| {
                    matches!(
                        b.kind,
                        crate::memory::BufferKind::Temporary | crate::memory::BufferKind::Output
                    )
                })
                .cloned()
                .collect();
            best = (bytes, largest);
        }
    }
    best
}

/// `cj` with its constants turned into inputs, between unused inputs of avals `before` and
/// `after` (the other body's constants).
pub(crate) fn open(cj: ClosedJaxpr, before: &[Aval], after: &[Aval]) -> ClosedJaxpr {
    let j = cj.jaxpr;
    let mut next = j
        .constvars
        .iter()
        .chain(&j.invars)
        .chain(j.eqns.iter().flat_map(|e| &e.outputs))
        .map(|v| v.id + 1)
        .max()
        .unwrap_or(0);
    let mut fresh = |a: &Aval| {
        next += 1;
        Var {
            id: next - 1,
            aval: a.clone(),
        }
    };
    let mut invars = j.invars;
    invars.extend(before.iter().map(&mut fresh));
    invars.extend(j.constvars);
    invars.extend(after.iter().map(&mut fresh));
    ClosedJaxpr {
        jaxpr: Jaxpr {
            constvars: vec![],
            invars,
            eqns: j.eqns,
            outvars: j.outvars,
        },
        consts: vec![],
    }
}
