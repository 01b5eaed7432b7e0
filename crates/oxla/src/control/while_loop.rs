//! `lax::while_loop`: a carry updated by `body` while `cond` holds, the trip count known
//! only at run time.
//!
//! The operands are the carry and both functions' captured values; `cond` and `body` take
//! all of them and return the predicate and the new carry. Under `vmap` with a batched
//! predicate the loop runs until every lane's predicate fails, a lane that has finished
//! keeping its carry (a `select_n` per step). Forward mode carries the tangents beside the
//! carry; reverse mode is refused, as in JAX: differentiate a `fori_loop` or `scan`.

use crate::source::Source;
use std::sync::{Arc, OnceLock};

use crate::array::{Array, DType};
use crate::compiler::Executable;
use crate::core::control_flow::debug_by_identity;
use crate::core::tree::Tree;
use crate::core::{bind, eval_jaxpr, trace_avals, Aval, ClosedJaxpr, ControlFlow, Prim, Tensor};
use crate::ops as lax;
use crate::prims::ReduceOp;
use crate::transforms::ad::jvp_jaxpr;
use crate::transforms::batching::batch_jaxpr;
use crate::transforms::batching::moveaxis;
use crate::transforms::bodies::open;
use crate::transforms::bodies::{dense_tangents, sparse_tangents, trace_on};
use crate::transforms::jvp_rules::zeros_of_aval;
use crate::transforms::vmap::place_output;

/// The parameters of a while loop (see the module documentation).
pub struct WhileSpec {
    /// `operands -> bool[]`.
    pub(crate) cond: ClosedJaxpr,
    /// `operands -> carry`.
    pub(crate) body: ClosedJaxpr,
    /// Operands that are carried (the rest are captured values).
    pub(crate) num_carry: usize,
    compiled: OnceLock<(Executable, Executable)>,
}

debug_by_identity!(WhileSpec, num_carry);

/// `jax.lax.while_loop(cond_fn, body_fn, init)`: `body_fn` applied to the carry while
/// `cond_fn` (a `bool` scalar) holds. Forward-mode differentiable; reverse mode panics (the
/// trip count is unknown before it runs): use [`fori_loop`](super::fori_loop) or `scan`.
///
/// ```
/// use oxla::{lax, Tensor};
/// let n = lax::while_loop(
///     |x: Tensor| oxla::numpy::less(&x, 100.0),
///     |x: Tensor| &x * 3.0,
///     Tensor::scalar(1.0f32),
/// );
/// assert_eq!(n.item(), 243.0);
/// ```
#[track_caller]
pub fn while_loop<C: Tree>(cond_fn: impl Fn(C) -> Tensor, body_fn: impl Fn(C) -> C, init: C) -> C {
    let here = std::panic::Location::caller();
    let carry = init.leaves();
    let avals: Vec<Aval> = carry.iter().map(Tensor::aval).collect();
    let (cond, pred) = trace_avals(&cond_fn, &init, &avals);
    assert!(
        pred.dtype() == DType::Bool && pred.ndim() == 0,
        "while_loop: cond_fn must return a bool scalar, got {}\n  at {here}",
        pred.aval()
    );
    let (body, _) = trace_avals(|c: C| body_fn(c).leaves(), &init, &avals);
    for (i, (a, w)) in body.jaxpr.out_avals().iter().zip(&avals).enumerate() {
        if a != w {
            panic!(
                "while_loop: body_fn returns a carry leaf {i} of aval {a} for a carry of aval \
                 {w}: the carry must keep its dtype and shape\n  at {here}"
            );
        }
    }
    let outs = stage(&carry, cond, body);
    C::from_def(&init.def(), &mut outs.into_iter()).expect("the carry's structure")
}

/// Binds a while loop; both functions' captured values become operands.
#[track_caller]
fn stage(carry: &[Tensor], cond: ClosedJaxpr, body: ClosedJaxpr) -> Vec<Tensor> {
    let (cc, bc) = (cond.consts.clone(), body.consts.clone());
    let avals = |c: &[Tensor]| c.iter().map(Tensor::aval).collect::<Vec<_>>();
    let spec = WhileSpec {
        cond: open(cond, &[], &avals(&bc)),
        body: open(body, &avals(&cc), &[]),
        num_carry: carry.len(),
        compiled: OnceLock::new(),
    };
    let mut ins = carry.to_vec();
    ins.extend(cc);
    ins.extend(bc);
    bind(
        Prim::Control(Arc::new(spec)),
        &ins,
        std::panic::Location::caller(),
    )
}

impl WhileSpec {
    fn compiled(&self) -> &(Executable, Executable) {
        self.compiled.get_or_init(|| {
            (
                Executable::new(self.cond.clone()),
                Executable::new(self.body.clone()),
            )
        })
    }
}

/// Binds a while loop of `cond` and `body` traced on all of `ops` (carry first).
#[track_caller]
fn stage_ops(ops: &[Tensor], nc: usize, cond: ClosedJaxpr, body: ClosedJaxpr) -> Vec<Tensor> {
    // Both take every operand, so the extra ones are passed to each and the functions'
    // own captured values appended.
    let n = ops.len();
    let mut carry = ops[..nc].to_vec();
    let extra = ops[nc..].to_vec();
    let wrap = |j: ClosedJaxpr| {
        let structure = carry.clone();
        let avals: Vec<Aval> = structure.iter().map(Tensor::aval).collect();
        trace_avals(
            |c: Vec<Tensor>| {
                let mut all = c;
                all.extend(extra.iter().cloned());
                eval_jaxpr(&j, &all)
            },
            &structure,
            &avals,
        )
        .0
    };
    debug_assert_eq!(n, nc + extra.len());
    let (cond, body) = (wrap(cond), wrap(body));
    stage(&std::mem::take(&mut carry), cond, body)
}

impl ControlFlow for WhileSpec {
    fn name(&self) -> &'static str {
        "while"
    }

    fn vjp(
        &self,
        ins: &[Tensor],
        cts: &[Option<Tensor>],
        active: &[bool],
        src: Source,
    ) -> Vec<Option<Tensor>> {
        let _ = (ins, cts, active);
        panic!(
            "reverse-mode differentiation does not work for lax::while_loop: its trip count \
             is known only when it runs. Use lax::fori_loop with static bounds or lax::scan \
             (forward mode, jvp and jacfwd, works)\n  at {src}"
        )
    }

    /// The shape rule.
    fn abstract_eval(&self, ins: &[Aval]) -> Result<Vec<Aval>, String> {
        let want = self.body.jaxpr.in_avals();
        if ins != want.as_slice() {
            let show = |v: &[Aval]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
            return Err(format!(
                "operands {:?}, the loop expects {:?}",
                show(ins),
                show(&want)
            ));
        }
        Ok(want[..self.num_carry].to_vec())
    }

    /// The parameters as the jaxpr printer shows them.
    fn params(&self) -> Vec<(&'static str, String)> {
        vec![
            ("body_jaxpr", self.body.to_string()),
            ("cond_jaxpr", self.cond.to_string()),
            ("num_carry", self.num_carry.to_string()),
        ]
    }

    /// Runs the loop.
    fn eval(&self, ins: &[Array]) -> Vec<Array> {
        let (cond, body) = self.compiled();
        let mut ops = ins.to_vec();
        while cond.run_arrays(ops.clone())[0].item() != 0.0 {
            let next = body.run_arrays(ops.clone());
            ops.splice(..self.num_carry, next);
        }
        ops.truncate(self.num_carry);
        ops
    }

    fn bodies(&self) -> Vec<&ClosedJaxpr> {
        vec![&self.cond, &self.body]
    }

    /// One step's working memory beyond the operands (the carry is replaced as it goes).
    fn working_bytes(&self) -> (usize, Vec<crate::memory::BufferInfo>) {
        let (cond, body) = self.compiled();
        let shared = self.body.jaxpr.in_avals().iter().map(Aval::nbytes).sum();
        crate::transforms::bodies::body_bytes([cond, body], shared)
    }

    /// Batching: every carry is batched (at axis 0) when any operand is; a batched predicate
    /// becomes "any lane continues", and a finished lane keeps its carry.
    fn batch(
        &self,
        args: &[Tensor],
        dims: &[Option<usize>],
        n: usize,
        name: Option<&str>,
    ) -> (Vec<Tensor>, Vec<Option<usize>>) {
        let nc = self.num_carry;
        let ops: Vec<Tensor> = args
            .iter()
            .zip(dims)
            .enumerate()
            .map(|(i, (x, d))| match d {
                Some(d) => moveaxis(x, *d, 0),
                None if i < nc => place_output(x.clone(), None, Some(0), n, i),
                None => x.clone(),
            })
            .collect();
        let inner: Vec<Option<usize>> = (0..args.len())
            .map(|i| if i < nc { Some(0) } else { dims[i].map(|_| 0) })
            .collect();
        let run = |j: &ClosedJaxpr, xs: Vec<Tensor>| -> Vec<Tensor> {
            batch_jaxpr(j, xs.into_iter().zip(inner.clone()).collect(), n, name)
                .into_iter()
                .enumerate()
                .map(|(k, (t, d))| place_output(t, d, Some(0), n, k))
                .collect()
        };
        let cond = trace_on(&ops, |xs| {
            let p = run(&self.cond, xs).remove(0);
            vec![lax::reduce(&p, ReduceOp::Or, &[0])]
        });
        let body = trace_on(&ops, |xs| {
            let p = run(&self.cond, xs.clone()).remove(0);
            let next = run(&self.body, xs.clone());
            next.into_iter()
                .zip(&xs)
                .map(|(new, old)| {
                    let which = lax::broadcast_in_dim(&p, new.shape(), &[0]);
                    lax::select_n(&which, &[old.clone(), new])
                })
                .collect()
        });
        let outs = stage_ops(&ops, nc, cond, body);
        let d = vec![Some(0); outs.len()];
        (outs, d)
    }

    /// Forward mode: the float carries' tangents carried beside them.
    fn jvp(
        &self,
        primals: &[Tensor],
        tangents: &[Option<Tensor>],
    ) -> (Vec<Tensor>, Vec<Option<Tensor>>) {
        let nc = self.num_carry;
        let na = primals.len();
        let tc: Vec<usize> = (0..nc)
            .filter(|&i| primals[i].dtype().is_inexact())
            .collect();
        let tk: Vec<usize> = (nc..na).filter(|&i| tangents[i].is_some()).collect();
        let tan = |i: usize| {
            tangents[i]
                .clone()
                .unwrap_or_else(|| zeros_of_aval(&primals[i]))
        };
        let mut ops: Vec<Tensor> = primals[..nc].to_vec();
        ops.extend(tc.iter().map(|&i| tan(i)));
        let ncc = ops.len();
        ops.extend(primals[nc..].iter().cloned());
        ops.extend(tk.iter().map(|&i| tan(i)));
        let split = |xs: &[Tensor]| {
            let mut p: Vec<Tensor> = xs[..nc].to_vec();
            p.extend(xs[ncc..ncc + na - nc].iter().cloned());
            let mut t = vec![None; na];
            for (k, &i) in tc.iter().enumerate() {
                t[i] = Some(xs[nc + k].clone());
            }
            for (k, &i) in tk.iter().enumerate() {
                t[i] = Some(xs[ncc + na - nc + k].clone());
            }
            (p, t)
        };
        let cond = trace_on(&ops, |xs| eval_jaxpr(&self.cond, &split(&xs).0));
        let body = trace_on(&ops, |xs| {
            let (p, t) = split(&xs);
            let (o, to) = jvp_jaxpr(&self.body, &p, t);
            let mut r = o.clone();
            r.extend(dense_tangents(&o, &to, &tc));
            r
        });
        let mut outs = stage_ops(&ops, ncc, cond, body);
        let touts = sparse_tangents(outs.split_off(nc), &tc, nc);
        (outs, touts)
    }
}
