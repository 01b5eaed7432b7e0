//! Which results of a map over devices can differ from device to device (JAX's "varying
//! manual axes", `check_vma`): a result whose `out_specs` entry says it is the same on
//! every device (`P()`, `None`) must be so by construction, or the map would return one
//! device's value as if it were every device's.
//!
//! A value varies when it is made from a block of a cut argument, from `axis_index` or
//! from a collective that leaves each device its own part (`ppermute`, `all_to_all`,
//! `psum_scatter`); `psum`, `pmax`, `pmin` and `all_gather` over the axis make it the same
//! everywhere, and so does anything made only of such values, whole arguments and
//! constants. As in JAX this follows the operations, not the values (`x * 0` of a varying
//! `x` varies). A loop or branch whose body names the axis is not looked into: its results
//! are taken as unknown, and only a result known to vary is refused.

use super::OutSpec;
use crate::core::{Atom, ClosedJaxpr, Jaxpr, Prim};
use crate::prims::CollectiveOp;
use crate::source::Source;

/// Whether a value can differ between the devices of the map's axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Vary {
    /// The same on every device.
    Same,
    /// Possibly different on each.
    Varies,
    /// Made by a loop or branch over the axis that is not looked into.
    Unknown,
}

impl Vary {
    /// A value made from values of `self` and `other` by an operation on each device.
    fn join(self, other: Vary) -> Vary {
        match (self, other) {
            (Vary::Varies, _) | (_, Vary::Varies) => Vary::Varies,
            (Vary::Unknown, _) | (_, Vary::Unknown) => Vary::Unknown,
            _ => Vary::Same,
        }
    }
}

/// How each result of `j` varies over the axis `axis`, its inputs varying as `ins` (its
/// constants are the same on every device).
fn walk(j: &Jaxpr, ins: &[Vary], axis: &str) -> Vec<Vary> {
    let mut env = std::collections::HashMap::new();
    for (v, &d) in j.invars.iter().zip(ins) {
        env.insert(v.id, d);
    }
    let of = |env: &std::collections::HashMap<u32, Vary>, a: &Atom| match a {
        Atom::Var(v) => env.get(&v.id).copied().unwrap_or(Vary::Same),
        Atom::Lit(_) => Vary::Same,
    };
    for e in &j.eqns {
        let ins: Vec<Vary> = e.inputs.iter().map(|a| of(&env, a)).collect();
        let joined = ins.iter().fold(Vary::Same, |a, &b| a.join(b));
        let outs = match &e.prim {
            Prim::Collective(c) if c.names_axis(axis) => match c.op {
                CollectiveOp::Psum
                | CollectiveOp::Pmax
                | CollectiveOp::Pmin
                | CollectiveOp::AllGather { .. } => vec![Vary::Same; e.outputs.len()],
                _ => vec![Vary::Varies; e.outputs.len()],
            },
            Prim::Control(c) => match c.call_body() {
                Some(body) if body.jaxpr.invars.len() == ins.len() => walk(&body.jaxpr, &ins, axis),
                _ if e.prim.names_axis(axis) => vec![Vary::Unknown; e.outputs.len()],
                _ => vec![joined; e.outputs.len()],
            },
            _ => vec![joined; e.outputs.len()],
        };
        for (v, d) in e.outputs.iter().zip(outs) {
            env.insert(v.id, d);
        }
    }
    j.outvars.iter().map(|a| of(&env, a)).collect()
}

/// Panics where a result `out_specs` says is the same on every device varies over `axis`
/// (see [`ShardMap::check_vma`]); `dims` are the arguments' cut dimensions.
pub(crate) fn check(
    body: &ClosedJaxpr,
    dims: &[Option<usize>],
    out_specs: &[OutSpec],
    axis: &str,
    at: Source,
) {
    let ins: Vec<Vary> = dims
        .iter()
        .map(|d| {
            if d.is_some() {
                Vary::Varies
            } else {
                Vary::Same
            }
        })
        .collect();
    let vary = walk(&body.jaxpr, &ins, axis);
    for (k, (s, v)) in out_specs.iter().zip(vary).enumerate() {
        if matches!(s, OutSpec::Invariant) && v == Vary::Varies {
            panic!(
                "shard_map: out_specs P() says result leaf {k} is the same on every device of \
                 axis '{axis}', but it varies over the axis: it is made from a block of a cut \
                 argument, axis_index, ppermute, all_to_all or psum_scatter, with no psum, \
                 pmax, pmin or all_gather over '{axis}' after. Reduce it over the axis, join \
                 it along a dimension in out_specs, or pass check_vma=False to take device \
                 0's value\n  at {at}"
            );
        }
    }
}
