//! The batching replay: a traced jaxpr run again with the batching rule of every
//! primitive, in the current interpreter.

use std::collections::HashMap;

use super::batch;
use crate::core::{with_line, Atom, ClosedJaxpr, Tensor};

/// Replays `cj` on batched arguments (each with its mapped axis, if any) with the batching
/// rules, in the current interpreter, over the mapped axis called `name` if it has one.
/// Returns each output with its mapped axis.
///
/// An equation none of whose operands is mapped is bound as it is, unless it is (or holds)
/// a collective over `name`: that goes to its rule, as in JAX (`psum` of a value the same
/// on every member is the value times `n`; `axis_index` is an `iota`).
pub(crate) fn batch_jaxpr(
    cj: &ClosedJaxpr,
    args: Vec<(Tensor, Option<usize>)>,
    n: usize,
    name: Option<&str>,
) -> Vec<(Tensor, Option<usize>)> {
    let j = &cj.jaxpr;
    let mut env: HashMap<u32, (Tensor, Option<usize>)> = HashMap::new();
    for (v, t) in j.constvars.iter().zip(&cj.consts) {
        env.insert(v.id, (t.clone(), None));
    }
    for (v, a) in j.invars.iter().zip(args) {
        env.insert(v.id, a);
    }
    let read = |env: &HashMap<u32, (Tensor, Option<usize>)>, a: &Atom| match a {
        Atom::Var(v) => env[&v.id].clone(),
        Atom::Lit(l) => (Tensor::new(l.clone()), None),
    };
    for e in &j.eqns {
        let (ins, dims): (Vec<Tensor>, Vec<Option<usize>>) =
            e.inputs.iter().map(|a| read(&env, a)).unzip();
        let (outs, out_dims) = with_line(e.source, || {
            let collective = name.is_some_and(|a| e.prim.names_axis(a));
            if dims.iter().all(Option::is_none) && !collective {
                let outs = crate::core::bind(e.prim.clone(), &ins, e.source);
                let none = vec![None; outs.len()];
                (outs, none)
            } else {
                batch(&e.prim, &ins, &dims, n, name)
            }
        });
        for ((v, t), d) in e.outputs.iter().zip(outs).zip(out_dims) {
            env.insert(v.id, (t, d));
        }
    }
    j.outvars.iter().map(|a| read(&env, a)).collect()
}
