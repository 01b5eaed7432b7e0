//! The `jit` primitive: a call of a closed jaxpr, compiled once when it first runs. Its
//! batching, forward- and reverse-mode rules transform the jaxpr and stage a new call,
//! cached by what the transform depends on, so `vmap(jit(f))` and `grad(jit(f))` run
//! compiled programs, each compiled once. Inside a program being compiled a call is
//! inlined ([`ControlFlow::call_body`]).

use crate::source::Source;
use std::panic::Location;
use std::sync::{Arc, Mutex, OnceLock};

use rustc_hash::FxHashMap;

use super::split::split;
use crate::array::{Array, Aval};
use crate::compiler::Executable;
use crate::core::axis_env::{bound_axes, Bound};
use crate::core::callback::effects_dropped;
use crate::core::control_flow::debug_by_identity;
use crate::core::{
    bind, trace_avals_for_compiler, trace_for_compiler, ClosedJaxpr, ControlFlow, Prim, Pullback,
    Tensor,
};
use crate::transforms::ad::vjp_jaxpr_outs;
use crate::transforms::batching::{batch_jaxpr, moveaxis};
use crate::transforms::bodies::{float_positions, jvp_body, jvp_operands, open, sparse_tangents};
use crate::transforms::jvp_rules::zeros_of_aval;

/// The parameters of a `jit` call: the callee's name and its jaxpr, whose inputs are the
/// call's operands (the arguments, then the values the function captures).
pub struct JitCall {
    name: String,
    body: ClosedJaxpr,
    compiled: OnceLock<Executable>,
    derived: Mutex<FxHashMap<Key, Derived>>,
    /// Reverse mode in two halves, by the operands differentiated.
    linearized: Mutex<FxHashMap<Key, Arc<Linearized>>>,
}

/// The two halves of a call's reverse mode ([`split`]) as calls, with their captured
/// values.
struct Linearized {
    known: Derived,
    unknown: Derived,
    /// The operands the backward half reads, by position.
    operands: Vec<usize>,
    /// The operands differentiated.
    active: Vec<usize>,
    /// The results with cotangents (the float ones), and every result's aval.
    floats: Vec<usize>,
    out_avals: Vec<Aval>,
}

debug_by_identity!(JitCall, name);

/// What a transformed call depends on besides the body.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Derivation {
    /// Which operands are batched (at axis 0), the batch size and the mapped axis's name.
    Batch(Vec<bool>, usize, Option<String>),
    /// Which operands carry tangents.
    Jvp(Vec<usize>),
    /// Which operands are differentiated.
    Linearize(Vec<usize>),
}

/// A cache key: the derivation and what its trace reads of the context (see [`context`]).
type Key = (Derivation, Context);

/// A transformed call, its captured values (operands after the transform's own), and for
/// a batched call which results are batched.
#[derive(Clone)]
struct Derived {
    call: Arc<JitCall>,
    captured: Vec<Tensor>,
    batched: Vec<bool>,
}

impl JitCall {
    /// A call named `name` of `cj`, whose captured values become operands after its inputs.
    pub(crate) fn new(name: String, cj: ClosedJaxpr) -> JitCall {
        JitCall {
            name,
            body: open(cj, &[], &[]),
            compiled: OnceLock::new(),
            derived: Mutex::new(FxHashMap::default()),
            linearized: Mutex::new(FxHashMap::default()),
        }
    }

    /// A call of `cj` and the values it captures.
    fn derived(&self, cj: ClosedJaxpr) -> Derived {
        Derived {
            captured: cj.consts.clone(),
            call: Arc::new(JitCall::new(self.name.clone(), cj)),
            batched: vec![],
        }
    }

    /// The halves of reverse mode for the `active` operands, shaped like `ins`: the body's
    /// forward and backward passes traced together on the first call, split, and cached.
    fn linearized(&self, active: &[usize], ins: &[Tensor]) -> Arc<Linearized> {
        let key = (Derivation::Linearize(active.to_vec()), context());
        let cached = self
            .linearized
            .lock()
            .expect("jit linearized")
            .get(&key)
            .cloned();
        if let Some(l) = cached {
            return l;
        }
        let (np, n_out) = (ins.len(), self.body.jaxpr.outvars.len());
        let out_avals = self.body.jaxpr.out_avals();
        let floats = float_positions(&out_avals);
        let mut avals: Vec<Aval> = ins.iter().map(Tensor::aval).collect();
        avals.extend(floats.iter().map(|&k| out_avals[k].clone()));
        let activity: Vec<bool> = (0..np).map(|i| active.contains(&i)).collect();
        let (cj, _) = trace_avals_for_compiler(
            |xs: Vec<Tensor>| {
                let mut cts = vec![None; n_out];
                for (j, &k) in floats.iter().enumerate() {
                    cts[k] = Some(xs[np + j].clone());
                }
                let (mut outs, g) = vjp_jaxpr_outs(&self.body, &xs[..np], &activity, &cts);
                let grads = active
                    .iter()
                    .map(|&i| g[i].clone().unwrap_or_else(|| zeros_of_aval(&xs[i])));
                outs.extend(grads);
                outs
            },
            &vec![ins[0].clone(); avals.len()],
            &avals,
        );
        let halves = split(&cj, np, n_out);
        let l = Arc::new(Linearized {
            known: self.derived(halves.known),
            unknown: self.derived(halves.unknown),
            operands: halves.operands,
            active: active.to_vec(),
            floats,
            out_avals,
        });
        let captured = l.known.captured.iter().chain(&l.unknown.captured);
        if !captured.clone().any(Tensor::is_tracer) {
            let mut cache = self.linearized.lock().expect("jit linearized");
            cache.insert(key, l.clone());
        }
        l
    }

    fn compiled(&self) -> &Executable {
        self.compiled
            .get_or_init(|| Executable::new(self.body.clone()))
    }

    /// Calls the transform of the body that `key` names on `ops`: traced by `derive` on
    /// the first call with `key`, cached after.
    fn derive(
        &self,
        key: Derivation,
        ops: &[Tensor],
        derive: impl FnOnce(Vec<Tensor>) -> (Vec<Tensor>, Vec<bool>),
    ) -> (Vec<Tensor>, Vec<bool>) {
        let key = (key, context());
        let cached = self
            .derived
            .lock()
            .expect("jit derived calls")
            .get(&key)
            .cloned();
        let d = cached.unwrap_or_else(|| {
            let mut batched = vec![];
            // Staged for the compiler, which is where a call runs.
            let (cj, _) = trace_for_compiler(
                |xs: Vec<Tensor>| {
                    let (outs, b) = derive(xs);
                    batched = b;
                    outs
                },
                &ops.to_vec(),
            );
            let d = Derived {
                batched,
                ..self.derived(cj)
            };
            // A transform run inside another trace may capture its tracers: not reusable.
            if !d.captured.iter().any(Tensor::is_tracer) {
                let mut cache = self.derived.lock().expect("jit derived calls");
                cache.insert(key, d.clone());
            }
            d
        });
        let outs = d.call_on(ops.to_vec());
        (outs, d.batched)
    }
}

/// What tracing reads of its context besides the operands' avals: the bound axes (a
/// collective's size) and whether host callbacks are dropped.
type Context = (Vec<Bound>, bool);

fn context() -> Context {
    (bound_axes(), effects_dropped())
}

/// Zeros of `aval`.
fn zeros(aval: &Aval) -> Tensor {
    let zero = Tensor::new(Array::zeros(aval.dtype, &[]));
    crate::ops::broadcast_in_dim(&zero, &aval.shape, &[])
}

impl Derived {
    /// Binds the call on `ops` and the values it captures.
    fn call_on(&self, mut ops: Vec<Tensor>) -> Vec<Tensor> {
        ops.extend(self.captured.iter().cloned());
        bind(Prim::Control(self.call.clone()), &ops, Location::caller())
    }
}

impl ControlFlow for JitCall {
    fn name(&self) -> &'static str {
        "jit"
    }

    fn params(&self) -> Vec<(&'static str, String)> {
        vec![
            ("name", self.name.clone()),
            ("jaxpr", self.body.to_string()),
        ]
    }

    fn abstract_eval(&self, ins: &[Aval]) -> Result<Vec<Aval>, String> {
        let want = self.body.jaxpr.in_avals();
        if ins != want.as_slice() {
            let show = |v: &[Aval]| v.iter().map(Aval::to_string).collect::<Vec<_>>().join(", ");
            return Err(format!(
                "operands ({}) for a call of ({})",
                show(ins),
                show(&want)
            ));
        }
        Ok(self.body.jaxpr.out_avals())
    }

    /// Runs the compiled body.
    fn eval(&self, ins: &[Array]) -> Vec<Array> {
        self.compiled().run_arrays(ins.to_vec())
    }

    fn bodies(&self) -> Vec<&ClosedJaxpr> {
        vec![&self.body]
    }

    fn call_body(&self) -> Option<&ClosedJaxpr> {
        Some(&self.body)
    }

    /// Reverse mode in two halves: the forward half returns the results and the residuals
    /// its pullback reads, so nothing of the forward pass runs twice.
    fn linearize(&self, ins: &[Tensor], active: &[bool]) -> Option<(Vec<Tensor>, Pullback)> {
        let np = ins.len();
        let act: Vec<usize> = (0..np)
            .filter(|&i| active[i] && ins[i].dtype().is_inexact())
            .collect();
        if act.is_empty() || float_positions(&self.body.jaxpr.out_avals()).is_empty() {
            return None;
        }
        let l = self.linearized(&act, ins);
        let mut outs = l.known.call_on(ins.to_vec());
        let mut residuals: Vec<Tensor> = l.operands.iter().map(|&i| ins[i].clone()).collect();
        residuals.extend(outs.split_off(self.body.jaxpr.outvars.len()));
        let pullback = move |cts: &[Option<Tensor>]| {
            let mut ops = residuals.clone();
            for &k in &l.floats {
                ops.push(cts[k].clone().unwrap_or_else(|| zeros(&l.out_avals[k])));
            }
            let grads = l.unknown.call_on(ops);
            let mut out = vec![None; np];
            for (g, &i) in grads.into_iter().zip(&l.active) {
                out[i] = Some(g);
            }
            out
        };
        Some((outs, Box::new(pullback)))
    }

    /// The body's planned memory beyond its operands.
    fn working_bytes(&self) -> (usize, Vec<crate::memory::BufferInfo>) {
        let operands = self.body.jaxpr.in_avals().iter().map(Aval::nbytes).sum();
        crate::transforms::bodies::body_bytes([self.compiled()], operands)
    }

    /// Batching: a call of the batched body, operands and results batched at axis 0.
    fn batch(
        &self,
        args: &[Tensor],
        dims: &[Option<usize>],
        n: usize,
        name: Option<&str>,
    ) -> (Vec<Tensor>, Vec<Option<usize>>) {
        let ops: Vec<Tensor> = args
            .iter()
            .zip(dims)
            .map(|(x, d)| d.map_or(x.clone(), |d| moveaxis(x, d, 0)))
            .collect();
        let inner: Vec<Option<usize>> = dims.iter().map(|d| d.map(|_| 0)).collect();
        let key = Derivation::Batch(
            dims.iter().map(Option::is_some).collect(),
            n,
            name.map(String::from),
        );
        let (outs, batched) = self.derive(key, &ops, |xs| {
            let args = xs.into_iter().zip(inner).collect();
            batch_jaxpr(&self.body, args, n, name)
                .into_iter()
                .map(|(t, d)| match d {
                    Some(d) => (moveaxis(&t, d, 0), true),
                    None => (t, false),
                })
                .unzip()
        });
        let dims = batched.iter().map(|&b| b.then_some(0)).collect();
        (outs, dims)
    }

    /// Forward mode: a call of the body's JVP, the tangents after the primals.
    fn jvp(
        &self,
        primals: &[Tensor],
        tangents: &[Option<Tensor>],
    ) -> (Vec<Tensor>, Vec<Option<Tensor>>) {
        let (ops, live) = jvp_operands(primals, tangents);
        let n_out = self.body.jaxpr.outvars.len();
        let fo = float_positions(&self.body.jaxpr.out_avals());
        let (mut outs, _) = self.derive(Derivation::Jvp(live.clone()), &ops, |xs| {
            let outs = jvp_body(&self.body, &xs, primals.len(), &live, &fo);
            (outs, vec![])
        });
        let touts = sparse_tangents(outs.split_off(n_out), &fo, n_out);
        (outs, touts)
    }

    /// Reverse mode: the two halves of [`linearize`](Self::linearize), the forward one run
    /// again for its residuals.
    fn vjp(
        &self,
        ins: &[Tensor],
        cts: &[Option<Tensor>],
        active: &[bool],
        _src: Source,
    ) -> Vec<Option<Tensor>> {
        match self.linearize(ins, active) {
            Some((_, pullback)) => pullback(cts),
            None => vec![None; ins.len()],
        }
    }
}
