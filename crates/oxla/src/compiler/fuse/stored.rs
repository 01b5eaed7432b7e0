//! What fusion stores: which values are materialised (arguments, results, outputs of
//! primitives that run alone, operands that need a buffer, values too large to recompute
//! in every consumer or that would make a kernel too large), and the steps those choices
//! give. Every pass is linear in the program and none recurses along it.

use std::collections::{HashMap, HashSet};

use smallvec::SmallVec;

use super::builder::Builder;
use super::Step;
use crate::core::prim::Kind;
use crate::core::{Atom, ClosedJaxpr, Eqn, Jaxpr, Var};
use crate::prims::Lanewise;

/// Whether an equation can become index arithmetic inside its consumer's kernel.
pub(super) fn fusable(e: &Eqn) -> bool {
    match e.prim.kind() {
        Kind::Lanewise(_)
        | Kind::Iota { .. }
        | Kind::Remap(_)
        | Kind::View
        | Kind::Pad { .. }
        | Kind::Concatenate { .. }
        | Kind::Gather { .. } => true,
        Kind::Reduce { .. } | Kind::Alone => false,
    }
}

/// Whether an equation is a reduction that can be a kernel's root.
pub(super) fn fusable_reduce(e: &Eqn) -> bool {
    matches!(e.prim.kind(), Kind::Reduce { .. }) && e.outputs[0].aval.dtype.is_numeric()
}

/// The operands an equation reads from a buffer of their own, wherever it runs.
fn needs_buffer(e: &Eqn) -> Vec<usize> {
    match e.prim.kind() {
        Kind::Gather { .. } | Kind::View => vec![0],
        Kind::Reduce { .. } if fusable_reduce(e) => vec![],
        Kind::Reduce { .. } | Kind::Alone => (0..e.inputs.len()).collect(),
        Kind::Lanewise(_)
        | Kind::Iota { .. }
        | Kind::Remap(_)
        | Kind::Pad { .. }
        | Kind::Concatenate { .. } => vec![],
    }
}

/// Whether an elementwise operation can be a reduction's epilogue: one whose operands
/// other than the reduced value are literals, computed on the reduced lanes.
fn epilogue_op(e: &Eqn) -> bool {
    match e.prim.kind() {
        Kind::Lanewise(l) => match l {
            Lanewise::Unary(_) | Lanewise::Binary(_) | Lanewise::IntegerPow(_) => true,
            Lanewise::Convert => true,
            Lanewise::SelectN | Lanewise::Bitcast | Lanewise::Threefry(_) => false,
        },
        Kind::Iota { .. }
        | Kind::Remap(_)
        | Kind::View
        | Kind::Pad { .. }
        | Kind::Concatenate { .. }
        | Kind::Gather { .. }
        | Kind::Reduce { .. }
        | Kind::Alone => false,
    }
}

/// Largest fused expression (in equations) recomputed in each consumer rather than stored.
const RECOMPUTE_LIMIT: usize = 48;

/// Longest chain of equations one kernel computes; see [`cap_kernels`]. (The programs of
/// the seeds and the tests fuse chains of at most about 20.)
const DEPTH_LIMIT: usize = 128;

/// Largest fused expression (in equations, counted as a tree) of one kernel; see
/// [`cap_kernels`]. (The seeds' and the tests' largest count 1,355, of 73 equations.)
const TREE_LIMIT: usize = 1 << 14;

/// The steps of a program: which equations become kernels and which run alone.
pub(crate) fn fuse(cj: &ClosedJaxpr) -> Vec<Step> {
    let j = &cj.jaxpr;
    let producer: HashMap<u32, usize> = j
        .eqns
        .iter()
        .enumerate()
        .flat_map(|(i, e)| e.outputs.iter().map(move |o| (o.id, i)))
        .collect();
    // Decide which values are materialised.
    let mut stored: HashSet<u32> = HashSet::new();
    for v in j.constvars.iter().chain(&j.invars) {
        stored.insert(v.id);
    }
    for a in &j.outvars {
        if let Atom::Var(v) = a {
            stored.insert(v.id);
        }
    }
    for e in &j.eqns {
        let alone = !fusable(e);
        if alone || fusable_reduce(e) {
            for o in &e.outputs {
                stored.insert(o.id);
            }
        }
        for i in needs_buffer(e) {
            if let Atom::Var(v) = &e.inputs[i] {
                stored.insert(v.id);
            }
        }
    }
    // A reduction read only by an elementwise operation with literal operands runs that
    // operation on its result in the same kernel (its epilogue) instead of being stored.
    let mut epilogues: HashMap<usize, usize> = HashMap::new();
    let out_ids: HashSet<u32> = j
        .outvars
        .iter()
        .filter_map(Atom::var)
        .map(|v| v.id)
        .collect();
    let mut uses: HashMap<u32, usize> = HashMap::new();
    for v in j.eqns.iter().flat_map(|e| &e.inputs).filter_map(Atom::var) {
        *uses.entry(v.id).or_default() += 1;
    }
    for (i, e) in j.eqns.iter().enumerate() {
        let elementwise = epilogue_op(e);
        let vars: Vec<&Var> = e
            .inputs
            .iter()
            .filter_map(|a| match a {
                Atom::Var(v) => Some(v),
                Atom::Lit(_) => None,
            })
            .collect();
        let [v] = vars[..] else { continue };
        let Some(&r) = producer.get(&v.id) else {
            continue;
        };
        let re = &j.eqns[r];
        let single_use = uses.get(&v.id) == Some(&1);
        if elementwise
            && fusable_reduce(re)
            && single_use
            && !out_ids.contains(&v.id)
            && e.outputs[0].aval.shape == re.outputs[0].aval.shape
        {
            stored.remove(&v.id);
            stored.insert(e.outputs[0].id);
            epilogues.insert(i, r);
        }
    }
    let epilogues = &epilogues;
    cap_kernels(j, &mut stored);
    // A value fused into several kernels is recomputed by each; one with a large
    // expression is stored instead, and the kernels are formed again.
    for _ in 0..4 {
        let (steps, shared) = form(cj, &producer, &stored, epilogues);
        let mut size: HashMap<u32, usize> = HashMap::new();
        let mut heavy = Vec::new();
        for e in &j.eqns {
            let own = 1 + e
                .inputs
                .iter()
                .filter_map(Atom::var)
                .filter(|v| !stored.contains(&v.id))
                .filter_map(|v| size.get(&v.id).copied())
                .sum::<usize>();
            for o in &e.outputs {
                size.insert(o.id, own);
                if shared.contains(&o.id) && own > RECOMPUTE_LIMIT {
                    heavy.push(o.id);
                }
            }
        }
        if heavy.is_empty() {
            return steps;
        }
        stored.extend(heavy);
    }
    form(cj, &producer, &stored, epilogues).0
}

/// Stores every value whose fused expression would chain [`DEPTH_LIMIT`] equations, or
/// count [`TREE_LIMIT`] as a tree (an operand used twice by one
/// equation counts once; one reached along several paths counts once per path, so the
/// count is never below the kernel's nodes). Each kernel then has a bounded number of
/// nodes, and so of lane buffers: a chain of 100,000 operations becomes 782 kernels
/// of 128 operations, each storing its result for the next, instead of one kernel with
/// 200,000 lane buffers (800 MB at 1,024 lanes of `f32`). Values are computed by the same
/// operations either way, so results are bitwise the same. Linear in the program.
fn cap_kernels(j: &Jaxpr, stored: &mut HashSet<u32>) {
    // Per unstored value: equations of its expression as a tree, and of its longest chain.
    let mut size: HashMap<u32, (usize, usize)> = HashMap::new();
    for e in j.eqns.iter().filter(|e| fusable(e)) {
        let mut operands: SmallVec<[u32; 4]> = SmallVec::new();
        for v in e.inputs.iter().filter_map(Atom::var) {
            if !stored.contains(&v.id) && !operands.contains(&v.id) {
                operands.push(v.id);
            }
        }
        let (mut tree, mut depth) = (1usize, 1usize);
        for id in &operands {
            let (t, d) = size.get(id).copied().unwrap_or((0, 0));
            tree = tree.saturating_add(t);
            depth = depth.max(d + 1);
        }
        for o in &e.outputs {
            if tree >= TREE_LIMIT || depth >= DEPTH_LIMIT {
                stored.insert(o.id);
            } else if !stored.contains(&o.id) {
                size.insert(o.id, (tree, depth));
            }
        }
    }
}

/// The steps for a given set of stored values, and the unstored values that more than one
/// kernel computes.
fn form(
    cj: &ClosedJaxpr,
    producer: &HashMap<u32, usize>,
    stored: &HashSet<u32>,
    epilogues: &HashMap<usize, usize>,
) -> (Vec<Step>, HashSet<u32>) {
    let mut steps = Vec::new();
    let mut seen: HashMap<u32, usize> = HashMap::new();
    for (i, e) in cj.jaxpr.eqns.iter().enumerate() {
        if !e.prim.has_effects() && !e.outputs.iter().any(|o| stored.contains(&o.id)) {
            continue;
        }
        let view = matches!(e.prim.kind(), Kind::View);
        if let Some(&r) = epilogues.get(&i) {
            let re = &cj.jaxpr.eqns[r];
            let mut b = Builder::new(cj, producer, stored, re);
            let mut kernel = b.kernel(r);
            let operands = e
                .inputs
                .iter()
                .map(|a| match a {
                    Atom::Lit(l) => Some(l.clone()),
                    Atom::Var(_) => None,
                })
                .collect();
            kernel.epilogue = Some((e.prim.clone(), operands));
            kernel.out = e.outputs[0].clone();
            kernel.eqns.insert(0, i);
            steps.push(Step::Kernel(Box::new(kernel)));
        } else if (fusable(e) || fusable_reduce(e)) && !view {
            let mut b = Builder::new(cj, producer, stored, e);
            let kernel = b.kernel(i);
            let mine: HashSet<u32> = kernel.eqns[1..]
                .iter()
                .flat_map(|&k| cj.jaxpr.eqns[k].outputs.iter().map(|o| o.id))
                .collect();
            for id in mine {
                *seen.entry(id).or_default() += 1;
            }
            steps.push(Step::Kernel(Box::new(kernel)));
        } else {
            steps.push(Step::Prim(i));
        }
    }
    let shared = seen
        .into_iter()
        .filter(|&(_, n)| n > 1)
        .map(|(v, _)| v)
        .collect();
    (steps, shared)
}
