//! The jaxpr-level interpreters of automatic differentiation: [`jvp_jaxpr`] replays a traced
//! jaxpr with the JVP rule of every primitive; [`vjp_jaxpr`] replays it forward, keeping
//! every value, then walks the equations backwards with the VJP rule of every primitive.
//! The public transforms and the control-flow rules are built on these two.

use std::collections::{HashMap, HashSet};

use crate::core::callback::without_effects;
use crate::core::control_flow::Pullback;
use crate::core::{bind, with_line, Atom, ClosedJaxpr, Prim, Tensor};
use crate::transforms::{jvp_rules, vjp_rules};

/// Values of a forward pass, kept for the backward pass.
pub(super) struct Forward {
    cj: ClosedJaxpr,
    env: HashMap<u32, Tensor>,
    active: HashSet<u32>,
    /// The backward halves of the equations run in two halves, by index.
    pullbacks: HashMap<usize, Pullback>,
}

impl Forward {
    /// Runs `cj` on `args`, marking as active every float value that depends on an input
    /// whose `active_in` is set.
    pub(super) fn run(
        cj: ClosedJaxpr,
        args: &[Tensor],
        active_in: &[bool],
    ) -> (Forward, Vec<Tensor>) {
        let j = &cj.jaxpr;
        let mut env = HashMap::new();
        let mut active = HashSet::new();
        for (v, t) in j.constvars.iter().zip(&cj.consts) {
            env.insert(v.id, t.clone());
        }
        for ((v, t), &a) in j.invars.iter().zip(args).zip(active_in) {
            env.insert(v.id, t.clone());
            if a {
                active.insert(v.id);
            }
        }
        let mut pullbacks = HashMap::new();
        for (i, e) in j.eqns.iter().enumerate() {
            let ins: Vec<Tensor> = e.inputs.iter().map(|a| read(&env, a)).collect();
            let is_active = |a: &Atom| matches!(a, Atom::Var(v) if active.contains(&v.id));
            let live = e.inputs.iter().any(is_active);
            let outs = with_line(e.source, || {
                if let (Prim::Control(c), true) = (&e.prim, live) {
                    let act: Vec<bool> = e.inputs.iter().map(is_active).collect();
                    if let Some((outs, pullback)) = c.linearize(&ins, &act) {
                        pullbacks.insert(i, pullback);
                        return outs;
                    }
                }
                bind(e.prim.clone(), &ins, e.source)
            });
            for (v, t) in e.outputs.iter().zip(outs) {
                if live && t.dtype().is_inexact() {
                    active.insert(v.id);
                }
                env.insert(v.id, t);
            }
        }
        let outs = j.outvars.iter().map(|a| read(&env, a)).collect();
        let forward = Forward {
            cj,
            env,
            active,
            pullbacks,
        };
        (forward, outs)
    }

    fn is_active(&self, a: &Atom) -> bool {
        matches!(a, Atom::Var(v) if self.active.contains(&v.id))
    }

    /// Cotangents of the inputs from cotangents of the outputs (`None`: zero). Host
    /// callbacks ran on the forward pass; the forward values a loop's VJP recomputes here
    /// call none of them again (as in JAX, a callback does not run on the backward pass).
    pub(super) fn backward(&self, cts_out: &[Option<Tensor>]) -> Vec<Option<Tensor>> {
        without_effects(|| self.pull_back(cts_out))
    }

    fn pull_back(&self, cts_out: &[Option<Tensor>]) -> Vec<Option<Tensor>> {
        let j = &self.cj.jaxpr;
        let mut ct: HashMap<u32, Tensor> = HashMap::new();
        let add = |ct: &mut HashMap<u32, Tensor>, id: u32, c: Tensor| {
            let sum = match ct.remove(&id) {
                Some(prev) => crate::ops::add(&prev, &c),
                None => c,
            };
            ct.insert(id, sum);
        };
        for (a, c) in j.outvars.iter().zip(cts_out) {
            if let (Atom::Var(v), Some(c)) = (a, c) {
                if self.active.contains(&v.id) {
                    add(&mut ct, v.id, c.clone());
                }
            }
        }
        for (i, e) in j.eqns.iter().enumerate().rev() {
            let cts: Vec<Option<Tensor>> = e.outputs.iter().map(|v| ct.remove(&v.id)).collect();
            let act: Vec<bool> = e.inputs.iter().map(|a| self.is_active(a)).collect();
            if cts.iter().all(Option::is_none) || !act.iter().any(|&a| a) {
                continue;
            }
            let in_cts = with_line(e.source, || match self.pullbacks.get(&i) {
                Some(pullback) => pullback(&cts),
                None => {
                    let ins: Vec<Tensor> = e.inputs.iter().map(|a| read(&self.env, a)).collect();
                    let outs: Vec<Tensor> =
                        e.outputs.iter().map(|v| self.env[&v.id].clone()).collect();
                    vjp_rules::vjp(&e.prim, &ins, &outs, &cts, &act, e.source)
                }
            });
            for ((a, c), &live) in e.inputs.iter().zip(in_cts).zip(&act) {
                if let (Atom::Var(v), Some(c), true) = (a, c, live) {
                    add(&mut ct, v.id, c);
                }
            }
        }
        j.invars.iter().map(|v| ct.remove(&v.id)).collect()
    }
}

/// Cotangents of `cj`'s inputs (for the `active` ones) at `primals` from output cotangents
/// `cts`, in the current interpreter: the forward pass, then the backward pass.
pub(crate) fn vjp_jaxpr(
    cj: &ClosedJaxpr,
    primals: &[Tensor],
    active: &[bool],
    cts: &[Option<Tensor>],
) -> Vec<Option<Tensor>> {
    vjp_jaxpr_outs(cj, primals, active, cts).1
}

/// As [`vjp_jaxpr`], with the outputs of the forward pass too.
pub(crate) fn vjp_jaxpr_outs(
    cj: &ClosedJaxpr,
    primals: &[Tensor],
    active: &[bool],
    cts: &[Option<Tensor>],
) -> (Vec<Tensor>, Vec<Option<Tensor>>) {
    let (forward, outs) = Forward::run(cj.clone(), primals, active);
    let in_cts = forward.backward(cts);
    (outs, in_cts)
}

fn read(env: &HashMap<u32, Tensor>, a: &Atom) -> Tensor {
    match a {
        Atom::Var(v) => env[&v.id].clone(),
        Atom::Lit(l) => Tensor::new(l.clone()),
    }
}

/// Replays `cj` with JVP rules: primal outputs and their tangents (`None`: zero).
pub(crate) fn jvp_jaxpr(
    cj: &ClosedJaxpr,
    primals: &[Tensor],
    tangents: Vec<Option<Tensor>>,
) -> (Vec<Tensor>, Vec<Option<Tensor>>) {
    let j = &cj.jaxpr;
    let mut env: HashMap<u32, Tensor> = HashMap::new();
    let mut tan: HashMap<u32, Tensor> = HashMap::new();
    for (v, t) in j.constvars.iter().zip(&cj.consts) {
        env.insert(v.id, t.clone());
    }
    for ((v, p), t) in j.invars.iter().zip(primals).zip(tangents) {
        env.insert(v.id, p.clone());
        if let Some(t) = t {
            tan.insert(v.id, t);
        }
    }
    let read_t = |tan: &HashMap<u32, Tensor>, a: &Atom| match a {
        Atom::Var(v) => tan.get(&v.id).cloned(),
        Atom::Lit(_) => None,
    };
    for e in &j.eqns {
        let ins: Vec<Tensor> = e.inputs.iter().map(|a| read(&env, a)).collect();
        let tins: Vec<Option<Tensor>> = e.inputs.iter().map(|a| read_t(&tan, a)).collect();
        let (outs, touts) = with_line(e.source, || {
            if tins.iter().all(Option::is_none) {
                let outs = bind(e.prim.clone(), &ins, e.source);
                let n = outs.len();
                (outs, vec![None; n])
            } else {
                jvp_rules::jvp(&e.prim, &ins, &tins)
            }
        });
        for ((v, o), t) in e.outputs.iter().zip(outs).zip(touts) {
            if let Some(t) = t.filter(|_| o.dtype().is_inexact()) {
                tan.insert(v.id, t);
            }
            env.insert(v.id, o);
        }
    }
    let outs = j.outvars.iter().map(|a| read(&env, a)).collect();
    let touts = j.outvars.iter().map(|a| read_t(&tan, a)).collect();
    (outs, touts)
}
