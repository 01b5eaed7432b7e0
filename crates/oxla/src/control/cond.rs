//! `lax::cond` and `lax::switch`: one of several branches, chosen by an index at run time.
//!
//! The operands are the index (`i32`, clamped to the branches), the branches' operands and
//! every branch's captured values; each branch takes all of them but the index. Under
//! `vmap` with a batched index every branch runs and a `select_n` picks each lane's result.

use crate::source::Source;
use std::sync::{Arc, OnceLock};

use crate::array::{Array, DType};
use crate::compiler::Executable;
use crate::core::control_flow::debug_by_identity;
use crate::core::tree::Tree;
use crate::core::{bind, trace_avals, Aval, ClosedJaxpr, ControlFlow, Prim, Tensor};
use crate::ops as lax;
use crate::transforms::ad::vjp_jaxpr;
use crate::transforms::batching::batch_jaxpr;
use crate::transforms::batching::moveaxis;
use crate::transforms::bodies::open;
use crate::transforms::bodies::{
    float_positions, jvp_body, jvp_operands, sparse_tangents, trace_on,
};
use crate::transforms::jvp_rules::zeros_of_aval;
use crate::transforms::vmap::place_output;

/// The parameters of a `cond` (see the module documentation).
pub struct CondSpec {
    /// The branches, each taking every operand but the index.
    pub(crate) branches: Vec<ClosedJaxpr>,
    compiled: OnceLock<Vec<Executable>>,
}

debug_by_identity!(CondSpec, branches);

/// `jax.lax.cond(pred, true_fn, false_fn, operands)`: `true_fn(operands)` where the `bool`
/// scalar `pred` holds, else `false_fn(operands)`; only one runs. Both must return the same
/// avals.
///
/// ```
/// use oxla::{lax, Tensor};
/// let x = Tensor::scalar(3.0f32);
/// let y: Tensor = lax::cond(&Tensor::scalar(true), |x: Tensor| &x * 2.0, |x: Tensor| -x, x);
/// assert_eq!(y.item(), 6.0);
/// ```
#[track_caller]
pub fn cond<A: Tree, O: Tree>(
    pred: &Tensor,
    true_fn: impl Fn(A) -> O,
    false_fn: impl Fn(A) -> O,
    operands: A,
) -> O {
    assert!(
        pred.dtype() == DType::Bool && pred.ndim() == 0,
        "cond: the predicate must be a bool scalar, got {}\n  at {}",
        pred.aval(),
        std::panic::Location::caller()
    );
    let index = lax::convert_element_type(pred, DType::I32);
    switch(&index, &[&false_fn, &true_fn], operands)
}

/// `jax.lax.switch(index, branches, operands)`: `branches[index](operands)`, the `i32`
/// scalar `index` clamped to the branches.
#[track_caller]
pub fn switch<A: Tree, O: Tree>(index: &Tensor, branches: &[&dyn Fn(A) -> O], operands: A) -> O {
    let here = std::panic::Location::caller();
    assert!(
        index.dtype() == DType::I32 && index.ndim() == 0 && !branches.is_empty(),
        "switch: the index must be an i32 scalar and there must be a branch, got {} and {} \
         branches\n  at {here}",
        index.aval(),
        branches.len()
    );
    let leaves = operands.leaves();
    let avals: Vec<Aval> = leaves.iter().map(Tensor::aval).collect();
    let mut def = None;
    let traced: Vec<ClosedJaxpr> = branches
        .iter()
        .map(|b| {
            trace_avals(
                |a: A| {
                    let o = b(a);
                    def = Some(o.def());
                    o.leaves()
                },
                &operands,
                &avals,
            )
            .0
        })
        .collect();
    let want = traced[0].jaxpr.out_avals();
    for (k, t) in traced.iter().enumerate() {
        if t.jaxpr.out_avals() != want {
            let show = |v: Vec<Aval>| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
            panic!(
                "cond: branch {k} returns {:?} where branch 0 returns {:?}; every branch must \
                 return the same avals\n  at {here}",
                show(t.jaxpr.out_avals()),
                show(want)
            );
        }
    }
    let outs = stage(index, &leaves, traced);
    O::from_def(&def.expect("traced"), &mut outs.into_iter()).expect("the branches' structure")
}

/// Binds a cond of branches traced on `operands`; their captured values become operands.
#[track_caller]
fn stage(index: &Tensor, operands: &[Tensor], branches: Vec<ClosedJaxpr>) -> Vec<Tensor> {
    let consts: Vec<Vec<Tensor>> = branches.iter().map(|b| b.consts.clone()).collect();
    let avals: Vec<Vec<Aval>> = consts
        .iter()
        .map(|c| c.iter().map(Tensor::aval).collect())
        .collect();
    let opened = branches
        .into_iter()
        .enumerate()
        .map(|(k, b)| open(b, &avals[..k].concat(), &avals[k + 1..].concat()))
        .collect();
    let spec = CondSpec {
        branches: opened,
        compiled: OnceLock::new(),
    };
    let mut ins = vec![index.clone()];
    ins.extend(operands.iter().cloned());
    ins.extend(consts.into_iter().flatten());
    bind(
        Prim::Control(Arc::new(spec)),
        &ins,
        std::panic::Location::caller(),
    )
}

impl CondSpec {
    fn compiled(&self) -> &[Executable] {
        self.compiled
            .get_or_init(|| self.branches.iter().cloned().map(Executable::new).collect())
    }

    /// A cond of new branches `derive(branch)` over `index` and `operands`.
    fn derive(
        &self,
        index: &Tensor,
        operands: &[Tensor],
        derive: &dyn Fn(&ClosedJaxpr) -> ClosedJaxpr,
    ) -> Vec<Tensor> {
        stage(index, operands, self.branches.iter().map(derive).collect())
    }
}

impl ControlFlow for CondSpec {
    fn name(&self) -> &'static str {
        "cond"
    }

    /// The shape rule.
    fn abstract_eval(&self, ins: &[Aval]) -> Result<Vec<Aval>, String> {
        let want = self.branches[0].jaxpr.in_avals();
        if ins.len() != want.len() + 1 {
            return Err(format!(
                "{} operands for {} inputs",
                ins.len(),
                want.len() + 1
            ));
        }
        if ins[0] != Aval::new(DType::I32, &[]) {
            return Err(format!("the index has aval {}, not i32[]", ins[0]));
        }
        for (i, (a, w)) in ins[1..].iter().zip(&want).enumerate() {
            if a != w {
                return Err(format!("operand {i} has aval {a}, the branches expect {w}"));
            }
        }
        Ok(self.branches[0].jaxpr.out_avals())
    }

    /// The parameters as the jaxpr printer shows them.
    fn params(&self) -> Vec<(&'static str, String)> {
        let b: Vec<String> = self.branches.iter().map(|b| b.to_string()).collect();
        vec![("branches", crate::prims::pyfmt::tuple_of_strings(&b))]
    }

    /// Runs the chosen branch.
    fn eval(&self, ins: &[Array]) -> Vec<Array> {
        let exes = self.compiled();
        let k = (ins[0].item() as i64).clamp(0, exes.len() as i64 - 1) as usize;
        exes[k].run_arrays(ins[1..].to_vec())
    }

    fn bodies(&self) -> Vec<&ClosedJaxpr> {
        self.branches.iter().collect()
    }

    /// The most working memory a branch plans beyond the operands.
    fn working_bytes(&self) -> (usize, Vec<crate::memory::BufferInfo>) {
        let shared = self.branches[0]
            .jaxpr
            .in_avals()
            .iter()
            .map(Aval::nbytes)
            .sum();
        crate::transforms::bodies::body_bytes(self.compiled(), shared)
    }

    /// Batching. An unbatched index keeps one cond of batched branches (results batched at
    /// axis 0); a batched one runs every branch and selects each lane's result.
    fn batch(
        &self,
        args: &[Tensor],
        dims: &[Option<usize>],
        n: usize,
        name: Option<&str>,
    ) -> (Vec<Tensor>, Vec<Option<usize>>) {
        let ops: Vec<Tensor> = args[1..]
            .iter()
            .zip(&dims[1..])
            .map(|(x, d)| d.map_or(x.clone(), |d| moveaxis(x, d, 0)))
            .collect();
        let inner: Vec<Option<usize>> = dims[1..].iter().map(|d| d.map(|_| 0)).collect();
        let batched = |b: &ClosedJaxpr, xs: Vec<Tensor>| -> Vec<Tensor> {
            batch_jaxpr(b, xs.into_iter().zip(inner.clone()).collect(), n, name)
                .into_iter()
                .enumerate()
                .map(|(k, (t, d))| place_output(t, d, Some(0), n, k))
                .collect()
        };
        let outs = match dims[0] {
            None => self.derive(&args[0], &ops, &|b| trace_on(&ops, |xs| batched(b, xs))),
            Some(d) => {
                let index = moveaxis(&args[0], d, 0);
                let last = Tensor::scalar((self.branches.len() - 1) as i32);
                let clamped = lax::max(&lax::min(&index, &last), &Tensor::scalar(0i32));
                let per_branch: Vec<Vec<Tensor>> = self
                    .branches
                    .iter()
                    .map(|b| batched(b, ops.clone()))
                    .collect();
                (0..per_branch[0].len())
                    .map(|k| {
                        let cases: Vec<Tensor> = per_branch.iter().map(|o| o[k].clone()).collect();
                        let which = lax::broadcast_in_dim(&clamped, cases[0].shape(), &[0]);
                        lax::select_n(&which, &cases)
                    })
                    .collect()
            }
        };
        let d = vec![Some(0); outs.len()];
        (outs, d)
    }

    /// Forward mode: a cond of the branches' JVPs.
    fn jvp(
        &self,
        primals: &[Tensor],
        tangents: &[Option<Tensor>],
    ) -> (Vec<Tensor>, Vec<Option<Tensor>>) {
        let np = primals.len() - 1;
        // The operands (after the index) with tangents.
        let (ops, live) = jvp_operands(&primals[1..], &tangents[1..]);
        let n_out = self.branches[0].jaxpr.outvars.len();
        let fo = float_positions(&self.branches[0].jaxpr.out_avals());
        let mut outs = self.derive(&primals[0], &ops, &|b| {
            trace_on(&ops, |xs| jvp_body(b, &xs, np, &live, &fo))
        });
        let touts = sparse_tangents(outs.split_off(n_out), &fo, n_out);
        (outs, touts)
    }

    /// Reverse mode: a cond of the branches' VJPs, each recomputing its branch.
    fn vjp(
        &self,
        ins: &[Tensor],
        cts: &[Option<Tensor>],
        active: &[bool],
        _src: Source,
    ) -> Vec<Option<Tensor>> {
        let np = ins.len() - 1;
        let with_ct: Vec<usize> = (0..cts.len()).filter(|&k| cts[k].is_some()).collect();
        let act: Vec<usize> = (1..ins.len())
            .filter(|&i| active[i] && ins[i].dtype().is_inexact())
            .collect();
        if with_ct.is_empty() || act.is_empty() {
            return vec![None; ins.len()];
        }
        let mut ops = ins[1..].to_vec();
        ops.extend(with_ct.iter().map(|&k| cts[k].clone().expect("with ct")));
        let n_out = cts.len();
        let grads = self.derive(&ins[0], &ops, &|b| {
            trace_on(&ops, |xs| {
                let mut c = vec![None; n_out];
                for (j, &k) in with_ct.iter().enumerate() {
                    c[k] = Some(xs[np + j].clone());
                }
                let g = vjp_jaxpr(b, &xs[..np], &active[1..], &c);
                act.iter()
                    .map(|&i| {
                        g[i - 1]
                            .clone()
                            .unwrap_or_else(|| zeros_of_aval(&xs[i - 1]))
                    })
                    .collect()
            })
        });
        let mut out = vec![None; ins.len()];
        for (g, &i) in grads.into_iter().zip(&act) {
            out[i] = Some(g);
        }
        out
    }
}
