//! The split of a scan's backward step by what each value depends on, as JAX's partial
//! evaluation of `scan` splits it into a known and an unknown loop, with one more cut on
//! each side: work on the captured values alone runs once, work on the slices alone runs
//! for every step at once, and cotangent work the carry's cotangent does not need runs
//! for every step at once after the loops (where a sum over the steps of per-step weight
//! gradients becomes one product). A cheap elementwise value of the forward loop that a
//! later part reads is recomputed there from what it reads anyway, rather than stacked.

use std::collections::{HashMap, HashSet};

use crate::core::{Atom, Aval, ClosedJaxpr, Eqn, Jaxpr, Prim, Var};
use crate::prims::{BinaryOp, UnaryOp};

/// Where a value of the step is computed, in the order the parts run.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(super) enum Stage {
    /// From the captured values alone: once, before the loops.
    Invariant,
    /// From the slices (and captured values): every step at once, before the loops.
    Slices,
    /// From the primal carry: the forward loop, which stacks what later parts read.
    Forward,
    /// From the cotangents, for the carry's cotangent: the backward loop.
    Backward,
    /// From the cotangents, for the other outputs only: every step at once, after.
    After,
}

const STAGES: [Stage; 5] = [
    Stage::Invariant,
    Stage::Slices,
    Stage::Forward,
    Stage::Backward,
    Stage::After,
];

/// One part of the split step: its equations, the values it reads from elsewhere (in
/// first-use order), and its results.
pub(super) struct Part {
    pub(super) eqns: Vec<Eqn>,
    pub(super) uses: Vec<Var>,
    pub(super) outvars: Vec<Atom>,
}

impl Part {
    /// The part as a closed jaxpr of `invars` (which must cover its uses).
    pub(super) fn jaxpr(&self, invars: Vec<Var>) -> ClosedJaxpr {
        ClosedJaxpr {
            jaxpr: Jaxpr {
                constvars: vec![],
                invars,
                eqns: self.eqns.clone(),
                outvars: self.outvars.clone(),
            },
            consts: vec![],
        }
    }
}

/// The split of a step jaxpr (no constvars) into its five parts.
pub(super) struct Split {
    /// The stage of every variable.
    pub(super) stage: HashMap<u32, Stage>,
    /// One part per stage, in [`Stage`] order.
    pub(super) parts: Vec<Part>,
}

impl Split {
    /// Splits `j`, given each input's stage; `outs[s]` are the outputs the part of stage
    /// `s` returns first (the loops' new carries and the final results), and the equations
    /// that must stay in a loop are marked by `pinned` (effects run once per step, in the
    /// forward loop or, on cotangents, in the backward loop). A part's other results are the
    /// values of its stage that later parts read, except for `direct` inputs (available to
    /// every part as they are). Without `after`, all cotangent work stays in the backward
    /// loop.
    pub(super) fn new(
        j: &Jaxpr,
        inputs: &[Stage],
        outs: &[Vec<Atom>; 5],
        direct: &HashSet<u32>,
        after: bool,
    ) -> Split {
        let mut stage: HashMap<u32, Stage> = j
            .invars
            .iter()
            .zip(inputs)
            .map(|(v, &s)| (v.id, s))
            .collect();
        let read = |stage: &HashMap<u32, Stage>, a: &Atom| match a {
            Atom::Var(v) => stage[&v.id],
            Atom::Lit(_) => Stage::Invariant,
        };
        let mut of_eqn = Vec::with_capacity(j.eqns.len());
        for e in &j.eqns {
            let mut s = e
                .inputs
                .iter()
                .map(|a| read(&stage, a))
                .max()
                .unwrap_or(Stage::Invariant);
            if e.prim.has_effects() {
                s = s.max(Stage::Forward);
            }
            // Cotangent work is After until the carry's cotangent is found to need it.
            if s == Stage::Backward {
                s = Stage::After;
            }
            for v in &e.outputs {
                stage.insert(v.id, s);
            }
            of_eqn.push(s);
        }
        // What the backward loop's results need (and what has effects) stays in the loop.
        let mut needed: HashSet<u32> = outs[Stage::Backward as usize]
            .iter()
            .filter_map(|a| a.var().map(|v| v.id))
            .collect();
        for (k, e) in j.eqns.iter().enumerate().rev() {
            let wanted = !after || e.outputs.iter().any(|v| needed.contains(&v.id));
            if of_eqn[k] == Stage::After && (wanted || e.prim.has_effects()) {
                of_eqn[k] = Stage::Backward;
                for v in &e.outputs {
                    stage.insert(v.id, Stage::Backward);
                }
            }
            if of_eqn[k] >= Stage::Backward && (wanted || e.prim.has_effects()) {
                needed.extend(e.inputs.iter().filter_map(|a| a.var().map(|v| v.id)));
            }
        }
        let placed = recompute(j, &of_eqn, &stage, outs, direct);
        let mut parts: Vec<Part> = STAGES
            .iter()
            .map(|&s| {
                let eqns: Vec<Eqn> = j
                    .eqns
                    .iter()
                    .zip(&placed)
                    .filter(|(_, p)| p.contains(&s))
                    .map(|(e, _)| e.clone())
                    .collect();
                let outvars = outs[s as usize].clone();
                let uses = uses(&eqns, &outvars);
                Part {
                    eqns,
                    uses,
                    outvars,
                }
            })
            .collect();
        // Each part also returns the values of its stage that later parts read.
        for s in (0..STAGES.len()).rev() {
            let later: Vec<Var> = parts[s + 1..]
                .iter()
                .flat_map(|p| p.uses.iter().cloned())
                .collect();
            let mut seen = HashSet::new();
            for v in later {
                if stage[&v.id] == STAGES[s] && !direct.contains(&v.id) && seen.insert(v.id) {
                    parts[s].outvars.push(Atom::Var(v));
                }
            }
            parts[s].uses = uses(&parts[s].eqns, &parts[s].outvars);
        }
        Split { stage, parts }
    }

    /// The part of stage `s`.
    pub(super) fn part(&self, s: Stage) -> &Part {
        &self.parts[s as usize]
    }
}

/// Elementwise operations cheap enough to run again where their result is read.
fn cheap(p: &Prim) -> bool {
    use BinaryOp::*;
    matches!(
        p,
        Prim::Binary(Add | Sub | Mul | Max | Min) | Prim::Unary(UnaryOp::Neg | UnaryOp::Abs)
    )
}

/// How deep a chain of cheap operations is recomputed.
const RECOMPUTED_DEPTH: usize = 3;

/// The parts each equation runs in: its stage's, and for a forward value that later parts
/// read but that is a cheap elementwise function of values they read anyway (or of
/// invariant ones), theirs instead. The forward loop stacks every value a later part
/// reads: for a `tanh` step, both `h` and its derivative `1 - h * h`. Recomputing the
/// derivative from the stacked `h` costs the backward step two operations, where stacking
/// it costs a row written per forward step and read per backward step. A forward
/// equation stays in the forward part while the forward part still needs its results.
fn recompute(
    j: &Jaxpr,
    of_eqn: &[Stage],
    stage: &HashMap<u32, Stage>,
    outs: &[Vec<Atom>; 5],
    direct: &HashSet<u32>,
) -> Vec<Vec<Stage>> {
    let mut placed: Vec<Vec<Stage>> = of_eqn.iter().map(|&s| vec![s]).collect();
    let def: HashMap<u32, usize> = j
        .eqns
        .iter()
        .enumerate()
        .flat_map(|(k, e)| e.outputs.iter().map(move |v| (v.id, k)))
        .collect();
    // The values each later stage reads, and (for every stage) those read from earlier ones.
    let mut readers: HashMap<u32, Vec<Stage>> = HashMap::new();
    let mut read_later: HashSet<u32> = HashSet::new();
    for s in [Stage::Backward, Stage::After] {
        let eqns = j.eqns.iter().zip(of_eqn).filter(|(_, &t)| t == s);
        let atoms = eqns.flat_map(|(e, _)| &e.inputs).chain(&outs[s as usize]);
        for v in atoms.filter_map(Atom::var) {
            if stage[&v.id] < s {
                read_later.insert(v.id);
            }
            if stage[&v.id] == Stage::Forward && !direct.contains(&v.id) {
                let r = readers.entry(v.id).or_default();
                if !r.contains(&s) {
                    r.push(s);
                }
            }
        }
    }
    let mut stacked: Vec<u32> = readers.keys().copied().collect();
    stacked.sort_by_key(|id| std::cmp::Reverse(def.get(id).copied()));
    // A value some recomputation reads stays stacked.
    let mut kept: HashSet<u32> = HashSet::new();
    for r in stacked {
        if kept.contains(&r) {
            continue;
        }
        let available = |v: &Var| {
            v.id != r
                && (stage[&v.id] == Stage::Invariant
                    || direct.contains(&v.id)
                    || read_later.contains(&v.id))
        };
        let mut chain = Vec::new();
        let mut reads = Vec::new();
        if !chain_to(
            j,
            &def,
            r,
            &available,
            RECOMPUTED_DEPTH,
            &mut chain,
            &mut reads,
        ) {
            continue;
        }
        read_later.remove(&r);
        kept.extend(reads);
        for &k in &chain {
            for &s in &readers[&r] {
                if !placed[k].contains(&s) {
                    placed[k].push(s);
                }
            }
        }
    }
    // Forward equations whose results the forward part no longer needs leave it.
    let mut live: HashSet<u32> = outs[Stage::Forward as usize]
        .iter()
        .filter_map(|a| a.var().map(|v| v.id))
        .chain(read_later.iter().copied())
        .collect();
    for (k, e) in j.eqns.iter().enumerate().rev() {
        if of_eqn[k] != Stage::Forward {
            continue;
        }
        let needed = e.prim.has_effects() || e.outputs.iter().any(|v| live.contains(&v.id));
        if needed {
            live.extend(e.inputs.iter().filter_map(|a| a.var().map(|v| v.id)));
        } else if placed[k].len() > 1 {
            placed[k].retain(|&s| s != Stage::Forward);
        }
    }
    placed
}

/// Whether forward value `v` is a chain of at most `depth` cheap operations (appended to
/// `chain` in order) on `available` values (appended to `reads`).
fn chain_to(
    j: &Jaxpr,
    def: &HashMap<u32, usize>,
    v: u32,
    available: &impl Fn(&Var) -> bool,
    depth: usize,
    chain: &mut Vec<usize>,
    reads: &mut Vec<u32>,
) -> bool {
    let Some(&k) = def.get(&v) else {
        return false;
    };
    let e = &j.eqns[k];
    if depth == 0 || !cheap(&e.prim) || e.prim.has_effects() {
        return false;
    }
    for x in e.inputs.iter().filter_map(Atom::var) {
        if available(x) {
            reads.push(x.id);
        } else if !chain_to(j, def, x.id, available, depth - 1, chain, reads) {
            return false;
        }
    }
    if !chain.contains(&k) {
        chain.push(k);
    }
    true
}

/// Gives each product of a varying left operand with a loop-invariant matrix contracted
/// over its last dimension (`dz @ w.T` in an RNN's backward step) the matrix transposed
/// once, by an equation of the invariant part: the loop then reads a right operand with
/// contiguous rows, which small products take in place instead of packing it every step.
/// `inputs` are the stages of `j`'s inputs.
pub(super) fn transpose_invariants(j: &mut Jaxpr, inputs: &[Stage]) {
    let mut invariant: HashSet<u32> = j
        .invars
        .iter()
        .zip(inputs)
        .filter(|(_, &s)| s == Stage::Invariant)
        .map(|(v, _)| v.id)
        .collect();
    let fixed = |inv: &HashSet<u32>, a: &Atom| a.var().is_none_or(|v| inv.contains(&v.id));
    let mut next = j
        .invars
        .iter()
        .chain(j.eqns.iter().flat_map(|e| &e.outputs))
        .map(|v| v.id + 1)
        .max()
        .unwrap_or(0);
    let mut transposed: HashMap<u32, Var> = HashMap::new();
    let mut eqns = Vec::with_capacity(j.eqns.len());
    for mut e in std::mem::take(&mut j.eqns) {
        if !e.prim.has_effects() && e.inputs.iter().all(|a| fixed(&invariant, a)) {
            invariant.extend(e.outputs.iter().map(|v| v.id));
        } else if let (
            Prim::DotGeneral {
                contracting, batch, ..
            },
            Some(w),
        ) = (&mut e.prim, e.inputs.get(1).and_then(Atom::var).cloned())
        {
            let by_last = w.aval.shape.len() == 2 && batch.1.is_empty() && contracting.1 == [1];
            if by_last && invariant.contains(&w.id) && !fixed(&invariant, &e.inputs[0]) {
                let t = transposed.entry(w.id).or_insert_with(|| {
                    let t = Var {
                        id: next,
                        aval: Aval::new(w.aval.dtype, &[w.aval.shape[1], w.aval.shape[0]]),
                    };
                    next += 1;
                    eqns.push(Eqn {
                        prim: Prim::Transpose {
                            permutation: vec![1, 0],
                        },
                        inputs: vec![Atom::Var(w.clone())],
                        outputs: vec![t.clone()],
                        source: e.source,
                    });
                    t
                });
                invariant.insert(t.id);
                *contracting = (contracting.0.clone(), vec![0]);
                e.inputs[1] = Atom::Var(t.clone());
            }
        }
        eqns.push(e);
    }
    j.eqns = eqns;
}

/// The variables `eqns` and `outvars` read that `eqns` do not define, in first-use order.
fn uses(eqns: &[Eqn], outvars: &[Atom]) -> Vec<Var> {
    let defined: HashSet<u32> = eqns
        .iter()
        .flat_map(|e| e.outputs.iter().map(|v| v.id))
        .collect();
    let mut seen = HashSet::new();
    eqns.iter()
        .flat_map(|e| e.inputs.iter())
        .chain(outvars)
        .filter_map(Atom::var)
        .filter(|v| !defined.contains(&v.id) && seen.insert(v.id))
        .cloned()
        .collect()
}
