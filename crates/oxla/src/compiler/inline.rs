//! Calls inlined: a program being compiled holds the bodies of the `jit` calls staged in it
//! (by `make_jaxpr`, an eager transform or a loop body traced outside `jit`) as its own
//! equations, so they fuse and are planned with the rest.

use std::collections::HashMap;

use crate::core::{Atom, ClosedJaxpr, Eqn, Jaxpr, Prim, Tensor, Var};

/// `cj` with every call, at any depth of calls, replaced by its body's equations.
pub(super) fn inline_calls(cj: ClosedJaxpr) -> ClosedJaxpr {
    if !cj.jaxpr.eqns.iter().any(|e| body_of(e).is_some()) {
        return cj;
    }
    let mut s = Splice {
        next_id: super::max_id(&cj.jaxpr),
        eqns: vec![],
        constvars: cj.jaxpr.constvars.clone(),
        consts: cj.consts.clone(),
    };
    let outer = cj.jaxpr.constvars.iter().chain(&cj.jaxpr.invars);
    let mut names: HashMap<u32, Atom> = outer.map(|v| (v.id, Atom::Var(v.clone()))).collect();
    s.splice(&cj.jaxpr.eqns, &mut names);
    let outvars = cj.jaxpr.outvars.iter().map(|a| rename(&names, a)).collect();
    ClosedJaxpr {
        jaxpr: Jaxpr {
            constvars: s.constvars,
            invars: cj.jaxpr.invars,
            eqns: s.eqns,
            outvars,
        },
        consts: s.consts,
    }
}

/// The body of a call equation.
fn body_of(e: &Eqn) -> Option<&ClosedJaxpr> {
    if let Prim::Control(c) = &e.prim {
        c.call_body()
    } else {
        None
    }
}

/// The program being built: equations, and constants gathered from the bodies.
struct Splice {
    next_id: u32,
    eqns: Vec<Eqn>,
    constvars: Vec<Var>,
    consts: Vec<Tensor>,
}

/// What `a` stands for in the program being built.
fn rename(names: &HashMap<u32, Atom>, a: &Atom) -> Atom {
    match a {
        Atom::Var(v) => names
            .get(&v.id)
            .cloned()
            .expect("every variable is bound before it is read"),
        Atom::Lit(_) => a.clone(),
    }
}

impl Splice {
    fn fresh(&mut self, v: &Var) -> Var {
        self.next_id += 1;
        Var {
            id: self.next_id - 1,
            aval: v.aval.clone(),
        }
    }

    /// Appends `eqns`, whose variables `names` renames, giving each result a new variable.
    fn splice(&mut self, eqns: &[Eqn], names: &mut HashMap<u32, Atom>) {
        for e in eqns {
            let inputs: Vec<Atom> = e.inputs.iter().map(|a| rename(names, a)).collect();
            if let Some(body) = body_of(e) {
                let j = &body.jaxpr;
                let mut inner: HashMap<u32, Atom> = j
                    .invars
                    .iter()
                    .zip(inputs)
                    .map(|(v, a)| (v.id, a))
                    .collect();
                for (v, t) in j.constvars.iter().zip(&body.consts) {
                    let c = self.fresh(v);
                    self.constvars.push(c.clone());
                    self.consts.push(t.clone());
                    inner.insert(v.id, Atom::Var(c));
                }
                self.splice(&j.eqns, &mut inner);
                for (o, a) in e.outputs.iter().zip(&j.outvars) {
                    names.insert(o.id, rename(&inner, a));
                }
            } else {
                let outputs: Vec<Var> = e
                    .outputs
                    .iter()
                    .map(|o| {
                        let v = self.fresh(o);
                        names.insert(o.id, Atom::Var(v.clone()));
                        v
                    })
                    .collect();
                self.eqns.push(Eqn {
                    prim: e.prim.clone(),
                    inputs,
                    outputs,
                    source: e.source,
                });
            }
        }
    }
}
