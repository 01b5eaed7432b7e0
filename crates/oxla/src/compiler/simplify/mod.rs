//! Simplification of a jaxpr before it is planned, one file per family of rewrites:
//!
//! - `identities.rs`: constant folding and algebraic identities (`x + 0`, `x * 1`,
//!   `neg(neg(x))`, views that change nothing);
//! - `chains.rs`: chains of reshapes, transposes and broadcasts collapsed into one;
//! - `dot.rs`: products of transposed operands, transposed products and outer products;
//! - `reductions.rs`: sums of broadcasts and of sums, reductions of one element, batched
//!   collectives;
//! - `gather.rs`: reductions of gathered windows;
//! - `products.rs`: reductions of products made into one `dot_reduce`, which never stores
//!   the product (after the others, on the program the compiler plans);
//! - `scaled.rs`: products of scaled operands scale the product instead, so the scaled
//!   operands are never stored (last, on the program the compiler plans);
//! - `random.rs`: the words of the Threefry cipher computed where they are read;
//! - `redundant.rs`: common subexpressions and dead code.
//!
//! An equation with effects (a host callback, or a loop holding one) is kept as it is,
//! where it is: never folded, rewritten, merged with an equal one, or removed as dead.
//!
//! A [`Pass`] sweeps the equations once, rewriting each as it goes; [`simplify`] repeats
//! sweeps until nothing changes. Every rewrite keeps the equation's source line.

mod chains;
mod dot;
mod gather;
mod identities;
mod products;
mod random;
mod reductions;
mod redundant;
mod scaled;

use std::collections::HashMap;

pub(crate) use products::reduce_products;
pub(crate) use scaled::scale_products;

use crate::array::{Array, DType};
use crate::core::{Atom, ClosedJaxpr, Eqn, Jaxpr, Prim, Tensor, Var};

/// Simplifies `cj` until nothing changes.
pub(crate) fn simplify(mut cj: ClosedJaxpr) -> ClosedJaxpr {
    for _ in 0..8 {
        let (next, changed) = Pass::run(&cj);
        cj = redundant::dce(next);
        if !changed {
            break;
        }
    }
    cj
}

/// One rewriting sweep over the equations.
struct Pass {
    subst: HashMap<u32, Atom>,
    /// Concrete values of constvars and folded results.
    known: HashMap<u32, Array>,
    /// The equation that produced each variable (after rewriting).
    producer: HashMap<u32, Eqn>,
    /// The results of each computation emitted so far.
    cse: HashMap<redundant::CseKey, Vec<Var>>,
    eqns: Vec<Eqn>,
    constvars: Vec<Var>,
    consts: Vec<Tensor>,
    next_id: u32,
    changed: bool,
}

/// How many times each variable is read, by equations and by the program's outputs; an
/// output counts twice, so that a value the program returns is never rewritten away.
fn reads(j: &Jaxpr) -> HashMap<u32, usize> {
    let mut uses: HashMap<u32, usize> = HashMap::new();
    let read = j.eqns.iter().flat_map(|e| &e.inputs).chain(&j.outvars);
    for v in read.chain(&j.outvars).filter_map(Atom::var) {
        *uses.entry(v.id).or_default() += 1;
    }
    uses
}

/// The equation that makes each variable.
fn producers(j: &Jaxpr) -> HashMap<u32, &Eqn> {
    j.eqns
        .iter()
        .flat_map(|e| e.outputs.iter().map(move |o| (o.id, e)))
        .collect()
}

/// `cj` with the equations `eqns` (a rewrite of its own), without those no result needs.
fn with_eqns(cj: ClosedJaxpr, eqns: Vec<Eqn>) -> ClosedJaxpr {
    let jaxpr = Jaxpr { eqns, ..cj.jaxpr };
    redundant::dce(ClosedJaxpr {
        jaxpr,
        consts: cj.consts,
    })
}

/// One more than the largest variable id of `j`: where new variables start.
pub(super) fn max_id(j: &Jaxpr) -> u32 {
    let vars = j
        .constvars
        .iter()
        .chain(&j.invars)
        .chain(j.eqns.iter().flat_map(|e| &e.outputs));
    vars.map(|v| v.id + 1).max().unwrap_or(0)
}

impl Pass {
    fn run(cj: &ClosedJaxpr) -> (ClosedJaxpr, bool) {
        let j = &cj.jaxpr;
        let mut p = Pass {
            subst: HashMap::new(),
            known: HashMap::new(),
            producer: HashMap::new(),
            cse: HashMap::new(),
            eqns: Vec::new(),
            constvars: j.constvars.clone(),
            consts: cj.consts.clone(),
            next_id: max_id(j),
            changed: false,
        };
        for (v, t) in j.constvars.iter().zip(&cj.consts) {
            if let Some(a) = t.try_array() {
                p.known.insert(v.id, a.clone());
            }
        }
        for e in &j.eqns {
            let inputs: Vec<Atom> = e.inputs.iter().map(|a| p.sub(a)).collect();
            p.rewrite(Eqn {
                prim: e.prim.clone(),
                inputs,
                outputs: e.outputs.clone(),
                source: e.source,
            });
        }
        let outvars = j.outvars.iter().map(|a| p.sub(a)).collect();
        let jaxpr = Jaxpr {
            constvars: p.constvars,
            invars: j.invars.clone(),
            eqns: p.eqns,
            outvars,
        };
        (
            ClosedJaxpr {
                jaxpr,
                consts: p.consts,
            },
            p.changed,
        )
    }

    /// The operand `a` stands for after the rewrites so far.
    fn sub(&self, a: &Atom) -> Atom {
        match a {
            Atom::Var(v) => self.subst.get(&v.id).cloned().unwrap_or_else(|| a.clone()),
            Atom::Lit(_) => a.clone(),
        }
    }

    /// The concrete value of `a`, when known at compile time.
    fn value(&self, a: &Atom) -> Option<Array> {
        match a {
            Atom::Lit(l) => Some(l.clone()),
            Atom::Var(v) => self.known.get(&v.id).cloned(),
        }
    }

    /// The single value every element of `a` is known to have.
    fn scalar(&self, a: &Atom) -> Option<f64> {
        // A complex constant is not one f64: no identity is read from it.
        if a.aval().dtype.is_complex() {
            return None;
        }
        if let Some(v) = self.value(a) {
            let vals = v.to_f64_vec();
            let first = *vals.first()?;
            return vals.iter().all(|&x| x == first).then_some(first);
        }
        let Atom::Var(v) = a else { return None };
        let Some(Eqn {
            prim: Prim::BroadcastInDim { .. },
            inputs,
            ..
        }) = self.producer.get(&v.id)
        else {
            return None;
        };
        self.scalar(&inputs[0])
    }

    /// A new variable, numbered after every variable of the jaxpr.
    fn fresh(&mut self, dtype: DType, shape: &[usize]) -> Var {
        let v = Var {
            id: self.next_id,
            aval: crate::core::Aval::new(dtype, shape),
        };
        self.next_id += 1;
        v
    }

    /// Binds `out` to `a` instead of computing it.
    fn alias(&mut self, out: &Var, a: Atom) {
        self.subst.insert(out.id, a);
        self.changed = true;
    }

    /// Rewrites `e` by the first rule that applies, or emits it as it is. A rule that
    /// replaces `e` by new equations passes each of them back through here.
    fn rewrite(&mut self, e: Eqn) {
        if e.prim.has_effects() {
            // Run where it was traced, every time: never folded or rewritten.
            self.emit(e);
            return;
        }
        if self.fold(&e)
            || self.positional_collective(&e)
            || self.identity(&e)
            || self.broadcast_identity(&e)
            || self.single_element_reduce(&e)
            || self.collapse(&e)
            || self.transposed_operand(&e)
            || self.outer_product(&e)
            || self.unit_broadcast(&e)
            || self.cipher_xor(&e)
            || self.cipher_words_apart(&e)
        {
            return;
        }
        self.emit(e);
    }
}

/// Helpers for the families' tests: jaxprs traced from closures over primitives, printed
/// before and after simplification.
#[cfg(test)]
mod testing {
    use std::panic::Location;

    use crate::array::{Array, DType};
    use crate::core::tree::Tree;
    use crate::core::{bind, make_jaxpr, Prim, Tensor};

    /// The one result of `prim` applied to `xs`.
    #[track_caller]
    pub(super) fn op(prim: Prim, xs: &[&Tensor]) -> Tensor {
        let xs: Vec<Tensor> = xs.iter().map(|&x| x.clone()).collect();
        bind(prim, &xs, Location::caller()).remove(0)
    }

    /// A zero f32 argument of `shape` (only its aval matters when traced).
    pub(super) fn arg(shape: &[usize]) -> Tensor {
        Tensor::new(Array::zeros(DType::F32, shape))
    }

    /// Asserts that `f` traced at `args` prints `before`, and prints `after` once
    /// simplified.
    #[track_caller]
    pub(super) fn assert_simplifies<A: Tree, O: Tree>(
        f: impl FnOnce(A) -> O,
        args: A,
        before: &str,
        after: &str,
    ) {
        let cj = make_jaxpr(f, args);
        assert_eq!(cj.to_string(), before, "traced jaxpr");
        assert_eq!(super::simplify(cj).to_string(), after, "simplified jaxpr");
    }

    /// Asserts that `f` traced at `args` prints `text`, before and after simplification.
    #[track_caller]
    pub(super) fn assert_unchanged<A: Tree, O: Tree>(f: impl FnOnce(A) -> O, args: A, text: &str) {
        assert_simplifies(f, args, text, text);
    }
}
