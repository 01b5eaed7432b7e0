//! Reverse mode of `scan`. The step's VJP is traced once, beside the step itself, and split
//! by what each value depends on (`partial`): work on the captured values runs once, work
//! on the slices runs for every step at once, the forward loop carries the primal and
//! stacks what the backward pass reads (residuals, as JAX saves them), the backward loop
//! carries the carry's cotangent, and the cotangents of the captured values and of the
//! slices are computed for every step at once after it. A sum over the steps of per-step
//! weight gradients then compiles to one product over steps and batch, where a loop would
//! accumulate a small product per step.
//!
//! Each step at once costs memory the loop would not: slice work is hoisted only while its
//! stacked results stay within [`HOIST_BYTES`] (or the scanned operands' size), and the
//! cotangent work after the loop only while its plan stays within that much beyond its
//! operands and results; otherwise it stays in the backward loop, which sums the captured
//! values' cotangents in its carry.

use std::collections::{HashMap, HashSet};

use super::partial::{transpose_invariants, Split, Stage};
use super::{stage, ScanSpec};
use crate::compiler::{simplify, Executable};
use crate::core::{eval_jaxpr, is_tracing, trace_avals, Atom, Aval, ClosedJaxpr, Tensor, Var};
use crate::ops::{add, reduce};
use crate::prims::ReduceOp;
use crate::transforms::ad::vjp_jaxpr;
use crate::transforms::batching::batch_jaxpr;
use crate::transforms::bodies::open;
use crate::transforms::jvp_rules::zeros_of_aval;
use crate::transforms::vmap::place_output;

/// The most bytes of stacked per-step values computed before or after the loops (beyond
/// the operands' own size) rather than step by step in them.
const HOIST_BYTES: usize = 64 << 20;

/// The values the outer program holds for the step's variables: stacked along a leading
/// axis of the number of steps, except the invariant ones.
struct Env {
    values: HashMap<u32, Tensor>,
    invariant: HashSet<u32>,
    length: usize,
}

impl Env {
    fn get(&self, v: &Var) -> Tensor {
        self.values[&v.id].clone()
    }

    fn stacked(&self, v: &Var) -> bool {
        !self.invariant.contains(&v.id)
    }

    /// The aval the outer program holds `v` at.
    fn aval(&self, v: &Var) -> Aval {
        let mut s = v.aval.shape.to_vec();
        if self.stacked(v) {
            s.insert(0, self.length);
        }
        Aval::new(v.aval.dtype, &s)
    }

    /// Records a part's extra results (after its first `skip` outputs).
    fn record(&mut self, outvars: &[Atom], skip: usize, values: Vec<Tensor>) {
        for (a, t) in outvars[skip..].iter().zip(values) {
            if let Atom::Var(v) = a {
                self.values.insert(v.id, t);
            }
        }
    }

    /// `part`'s uses split into the stacked ones and the invariant ones, without `own`.
    fn inputs(&self, uses: &[Var], own: &[Var]) -> (Vec<Var>, Vec<Var>) {
        let rest = uses.iter().filter(|v| !own.contains(v)).cloned();
        rest.partition(|v| self.stacked(v))
    }

    /// `jaxpr` for every step at once: its stacked inputs batched along axis 0, results
    /// stacked the same way.
    fn batched(&self, jaxpr: &ClosedJaxpr, uses: &[Var]) -> Vec<Tensor> {
        let args = uses
            .iter()
            .map(|v| (self.get(v), self.stacked(v).then_some(0)))
            .collect();
        batch_jaxpr(jaxpr, args, self.length, None)
            .into_iter()
            .enumerate()
            .map(|(k, (t, d))| place_output(t, d, Some(0), self.length, k))
            .collect()
    }
}

impl ScanSpec {
    /// The scan's VJP: cotangents of the operands from those of the results.
    pub(super) fn vjp_rule(
        &self,
        ins: &[Tensor],
        cts: &[Option<Tensor>],
        active: &[bool],
    ) -> Vec<Option<Tensor>> {
        let (nc, nx, len) = (self.num_carry, self.num_xs, self.length);
        let na = ins.len();
        if cts.iter().all(Option::is_none) || !active.iter().any(|&a| a) {
            return vec![None; na];
        }
        let float = |i: usize| ins[i].dtype().is_inexact();
        let fc: Vec<usize> = (0..nc).filter(|&i| float(i)).collect();
        let fx: Vec<usize> = (nc..nc + nx).filter(|&i| float(i) && active[i]).collect();
        let fk: Vec<usize> = (nc + nx..na).filter(|&i| float(i) && active[i]).collect();
        let n_out = self.body.jaxpr.outvars.len();
        let fy: Vec<usize> = (nc..n_out)
            .filter(|&k| self.body.jaxpr.outvars[k].aval().dtype.is_inexact())
            .collect();
        // Output `k`'s cotangent, a zero (a broadcast scalar) where there is none.
        let ct = |k: usize| {
            cts[k].clone().unwrap_or_else(|| {
                let a = self.body.jaxpr.outvars[k].aval();
                let mut s = if k < nc { vec![] } else { vec![len] };
                s.extend_from_slice(&a.shape);
                crate::ops::broadcast_in_dim(&crate::numpy::scalar_tensor(0.0, a.dtype), &s, &[])
            })
        };
        // The step: (carry cotangents, carry, slices, result cotangents, captured values) ->
        // (carry cotangents, captured values' cotangents, slices' cotangents, carry).
        let mut ops: Vec<Tensor> = fc.iter().map(|&i| ct(i)).collect();
        ops.extend(ins[..nx + nc].iter().cloned());
        ops.extend(fy.iter().map(|&k| ct(k)));
        ops.extend(ins[nc + nx..].iter().cloned());
        let (nf, ny) = (fc.len(), fy.len());
        let step = self.trace(&ops, nf + nc, nx + ny, |xs| {
            let (ct_c, rest) = xs.split_at(nf);
            let (p, ct_y) = (
                [&rest[..nc + nx], &rest[nc + nx + ny..]].concat(),
                &rest[nc + nx..nc + nx + ny],
            );
            let mut c: Vec<Option<Tensor>> = vec![None; n_out];
            for (t, &i) in ct_c.iter().zip(&fc) {
                c[i] = Some(t.clone());
            }
            for (t, &k) in ct_y.iter().zip(&fy) {
                c[k] = Some(t.clone());
            }
            let act: Vec<bool> = (0..na).map(|i| float(i) && (i < nc || active[i])).collect();
            let g = vjp_jaxpr(&self.body, &p, &act, &c);
            let grad = |i: usize| g[i].clone().unwrap_or_else(|| zeros_of_aval(&p[i]));
            let mut r: Vec<Tensor> = fc.iter().map(|&i| grad(i)).collect();
            r.extend(fk.iter().map(|&i| grad(i)));
            r.extend(fx.iter().map(|&i| grad(i)));
            r.extend(eval_jaxpr(&self.body, &p).into_iter().take(nc));
            r
        });
        // One copy of the primal work the VJP and the step share; constants become inputs.
        let step = simplify(step);
        let consts = step.consts.clone();
        let mut step = open(step, &[], &[]).jaxpr;
        let mut values: HashMap<u32, Tensor> = HashMap::new();
        let mut stages = Vec::with_capacity(step.invars.len());
        let mut operand = ops.iter().chain(&consts);
        for (k, v) in step.invars.iter().enumerate() {
            let t = operand.next().expect("one operand per input").clone();
            let s = match k {
                k if k < nf => Stage::Backward,
                k if k < nf + nc => Stage::Forward,
                k if k < nf + nc + nx => Stage::Slices,
                k if k < nf + nc + nx + ny => Stage::Backward,
                _ => Stage::Invariant,
            };
            if k >= nf + nc {
                values.insert(v.id, t);
            }
            stages.push(s);
        }
        transpose_invariants(&mut step, &stages);
        let direct: HashSet<u32> = values.keys().copied().collect();
        let outs = |after: bool| {
            let o = &step.outvars;
            let ncx = fk.len() + fx.len();
            let mut outs: [Vec<Atom>; 5] = Default::default();
            outs[Stage::Forward as usize] = o[nf + ncx..].to_vec();
            outs[Stage::Backward as usize] = o[..nf].to_vec();
            if after {
                outs[Stage::After as usize] = o[nf..nf + ncx].to_vec();
            } else {
                outs[Stage::Backward as usize].extend(o[nf..nf + ncx].iter().cloned());
            }
            outs
        };
        // Slice work is hoisted while its stacked results stay small and its plan fits.
        let xs_bytes: usize = ins[nc..nc + nx].iter().map(|x| x.aval().nbytes()).sum();
        let mut split = Split::new(&step, &stages, &outs(true), &direct, true);
        let invariant = split
            .stage
            .iter()
            .filter(|(_, &s)| s == Stage::Invariant)
            .map(|(&id, _)| id)
            .collect();
        let mut env = Env {
            values,
            invariant,
            length: len,
        };
        let stacked: usize = split
            .part(Stage::Slices)
            .outvars
            .iter()
            .map(|a| a.aval().nbytes())
            .sum();
        let mut slices = hoisted(&split, Stage::Slices, &env, 0);
        if stacked * len > HOIST_BYTES.max(xs_bytes) || slices.is_none() {
            for s in &mut stages[nf + nc..nf + nc + nx] {
                *s = Stage::Forward;
            }
            split = Split::new(&step, &stages, &outs(true), &direct, true);
            slices = hoisted(&split, Stage::Slices, &env, 0);
        }
        let after = hoisted(&split, Stage::After, &env, fk.len());
        if after.is_none() {
            // The same slice work, its results possibly in another order.
            split = Split::new(&step, &stages, &outs(false), &direct, false);
            slices = hoisted(&split, Stage::Slices, &env, 0);
        }
        // Once, then every step at once, before the loops.
        let part = split.part(Stage::Invariant);
        let vals = eval_jaxpr(&part.jaxpr(part.uses.clone()), &gather(&env, &part.uses));
        env.record(&part.outvars, 0, vals);
        let vals = slices
            .expect("an empty part fits")
            .run(&split, Stage::Slices, &env);
        env.record(&split.part(Stage::Slices).outvars, 0, vals);
        // The forward loop, stacking what later parts read.
        let part = split.part(Stage::Forward);
        if part.outvars.len() > nc {
            let carry = step.invars[nf..nf + nc].to_vec();
            let (scanned, fixed) = env.inputs(&part.uses, &carry);
            let body = part.jaxpr([carry.clone(), scanned.clone(), fixed.clone()].concat());
            let mut args = ins[..nc].to_vec();
            args.extend(gather(&env, &scanned));
            args.extend(gather(&env, &fixed));
            let n = scanned.len();
            let res = stage(&args, nc, n, len, self.reverse, self.unroll, body);
            env.record(&part.outvars, nc, res[nc..].to_vec());
        }
        // The backward loop: the carry's cotangent, and the captured values' summed in its
        // carry when their work stays in the loop.
        let part = split.part(Stage::Backward);
        let nacc = if after.is_some() { 0 } else { fk.len() };
        let (mut res, frontier) = if part.outvars.is_empty() {
            (vec![], vec![])
        } else {
            let carry = step.invars[..nf].to_vec();
            let (scanned, fixed) = env.inputs(&part.uses, &carry);
            let body = part.jaxpr([carry.clone(), scanned.clone(), fixed.clone()].concat());
            let mut args: Vec<Tensor> = fc.iter().map(|&i| ct(i)).collect();
            args.extend(fk[..nacc].iter().map(|&i| zeros_of_aval(&ins[i])));
            args.extend(gather(&env, &scanned));
            args.extend(gather(&env, &fixed));
            let (ncb, nxb) = (nf + nacc, scanned.len());
            let looped = self.trace(&args, ncb, nxb, |xs| {
                let mut inputs = xs[..nf].to_vec();
                inputs.extend(xs[ncb..].iter().cloned());
                let mut r = eval_jaxpr(&body, &inputs);
                for k in 0..nacc {
                    r[nf + k] = add(&xs[nf + k], &r[nf + k]);
                }
                r
            });
            let mut res = stage(&args, ncb, nxb, len, !self.reverse, self.unroll, looped);
            let frontier = res.split_off(ncb);
            (res, frontier)
        };
        let (summed, sliced) = if let Some(plan) = after {
            env.record(&part.outvars, nf, frontier);
            let mut r = plan.run(&split, Stage::After, &env);
            let sliced = r.split_off(fk.len());
            (r, sliced)
        } else {
            (res.split_off(nf), frontier)
        };
        let mut grads: Vec<Option<Tensor>> = vec![None; na];
        for (t, &i) in res.into_iter().zip(&fc) {
            grads[i] = Some(t).filter(|_| active[i]);
        }
        for (t, &i) in summed.into_iter().zip(&fk) {
            grads[i] = Some(t);
        }
        for (t, &i) in sliced.into_iter().zip(&fx) {
            grads[i] = Some(t);
        }
        grads
    }
}

/// The part of `stage` for every step at once as one program (its first `nsum` results
/// summed over the steps, the others stacked), compiled: `None` when its plan needs
/// more than [`HOIST_BYTES`] beyond its operands and results.
fn hoisted(split: &Split, stage: Stage, env: &Env, nsum: usize) -> Option<Hoisted> {
    let part = split.part(stage);
    let avals: Vec<Aval> = part.uses.iter().map(|v| env.aval(v)).collect();
    let structure = vec![Tensor::scalar(0.0f32); avals.len()];
    let jaxpr = part.jaxpr(part.uses.clone());
    let (cj, _) = trace_avals(
        |xs: Vec<Tensor>| -> Vec<Tensor> {
            let inner = Env {
                values: part.uses.iter().map(|v| v.id).zip(xs).collect(),
                invariant: env.invariant.clone(),
                length: env.length,
            };
            let mut r = inner.batched(&jaxpr, &part.uses);
            for t in &mut r[..nsum] {
                *t = reduce(t, ReduceOp::Sum, &[0]);
            }
            r
        },
        &structure,
        &avals,
    );
    let exe = Executable::new(cj.clone());
    let a = exe.analysis();
    (a.peak_bytes <= a.argument_bytes + a.output_bytes + HOIST_BYTES)
        .then_some(Hoisted { jaxpr: cj, exe })
}

/// Work for every step at once, traced and compiled: staged into the program being traced,
/// or run compiled (never op by op, which would write out what the plan fuses).
struct Hoisted {
    jaxpr: ClosedJaxpr,
    exe: Executable,
}

impl Hoisted {
    /// The part of `stage` of `split`, run on the outer program's values.
    fn run(&self, split: &Split, stage: Stage, env: &Env) -> Vec<Tensor> {
        let part = split.part(stage);
        let args = gather(env, &part.uses);
        if is_tracing() {
            return eval_jaxpr(&self.jaxpr, &args);
        }
        let arrays = args.iter().map(|t| t.array().clone()).collect();
        self.exe
            .run_arrays(arrays)
            .into_iter()
            .map(Tensor::new)
            .collect()
    }
}

/// The outer program's values of `vars`.
fn gather(env: &Env, vars: &[Var]) -> Vec<Tensor> {
    vars.iter().map(|v| env.get(v)).collect()
}
