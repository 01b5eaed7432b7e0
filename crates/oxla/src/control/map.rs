//! The chunked map, and `lax::map` built on it: a loop primitive that runs a batched body over chunks of its mapped
//! operands, one chunk at a time, so that a vectorised function's intermediates exist for
//! one chunk only. It is what `vmap(f).chunk_size(k)`, `vmap(f).memory_budget(bytes)` and
//! `lax::map(f).batch_size(k)` stage.
//!
//! The body is a closed jaxpr traced for a chunk of `chunk` examples (and a second one for
//! the remainder, when `chunk` does not divide the length). Its outputs are either stacked
//! (chunk after chunk, into one preallocated result) or summed over the chunks (the
//! cotangents of unmapped operands). Batching, forward- and reverse-mode differentiation
//! each transform the body and stage a new map; reverse mode recomputes each chunk's
//! forward pass inside the backward body, so the backward pass holds one chunk's residuals
//! at a time.

use std::panic::Location;
use std::sync::OnceLock;

use super::budget::{chunk_for_budget, replanned_budget};
use super::{dense_tangents, float_positions, sparse_tangents};
use crate::array::{Array, Buffer};
use crate::compiler::Executable;
use crate::core::{trace_avals, Aval, ClosedJaxpr, Jaxpr, Tensor, Var};
use crate::error::Result;
use crate::memory::{BufferInfo, BufferKind};
use crate::prims::{aval_of, BinaryOp, Prim};

/// The parameters of a chunked map (see the module documentation).
pub struct MapSpec {
    /// The body for one chunk: one input per operand (mapped ones with a leading axis of
    /// `chunk`), no constants.
    pub(crate) body: ClosedJaxpr,
    /// The body for the last, shorter chunk.
    pub(crate) tail: Option<ClosedJaxpr>,
    /// The number of examples.
    pub(crate) length: usize,
    /// Examples per chunk.
    pub(crate) chunk: usize,
    /// Per operand: whether it is split along its leading axis.
    pub(crate) mapped: Vec<bool>,
    /// Per output: summed over the chunks instead of stacked.
    pub(crate) summed: Vec<bool>,
    /// Whether running it draws a progress bar.
    pub(crate) progress: bool,
    compiled: OnceLock<(Executable, Option<Executable>)>,
}

identity!(MapSpec, length, chunk, mapped, summed);

/// What one chunked map of a program plans to hold while it runs.
#[derive(Clone, Debug)]
pub struct ChunkPlan {
    /// The number of examples.
    pub length: usize,
    /// Examples per chunk.
    pub chunk: usize,
    /// Bytes the map holds beyond its operands and results while a chunk runs.
    pub chunk_bytes: usize,
    /// The user's source line of the map.
    pub source: &'static Location<'static>,
    /// The step of the program that runs the map.
    pub step: usize,
    /// Bytes live while the map runs that are not its own (neither its operands, its
    /// results nor a chunk's working memory).
    pub outside_bytes: usize,
}

/// A body traced for chunks of a given size: its closed jaxpr takes the operands in order.
pub(crate) type TraceBody<'a> = dyn Fn(usize) -> ClosedJaxpr + 'a;

/// Stages (or runs) a chunked map of `operands`: `trace(c)` traces the body for chunks of
/// `c` examples. Values the body captures become extra unmapped operands.
#[track_caller]
pub(crate) fn stage(
    operands: &[Tensor],
    mapped: Vec<bool>,
    summed: Vec<bool>,
    length: usize,
    chunk: usize,
    progress: bool,
    trace: &TraceBody,
) -> Vec<Tensor> {
    let here = Location::caller();
    let chunk = match replanned_budget(here) {
        // Planned for advice only: a budget that one example does not fit plans chunks of
        // one, which the advice then finds over the limit and does not name.
        Some(budget) => chunk_for_budget(&mapped, length, budget, here, trace).unwrap_or(1),
        None => chunk,
    };
    let chunk = chunk.clamp(1, length.max(1));
    let body = trace(chunk);
    let rem = length % chunk;
    let tail = (rem > 0).then(|| trace(rem));
    let body_consts = body.consts.clone();
    let tail_consts = tail.as_ref().map_or(vec![], |t| t.consts.clone());
    let avals = |c: &[Tensor]| c.iter().map(Tensor::aval).collect::<Vec<_>>();
    let (ba, ta) = (avals(&body_consts), avals(&tail_consts));
    let spec = MapSpec {
        body: open(body, &[], &ta),
        tail: tail.map(|t| open(t, &ba, &[])),
        length,
        chunk,
        mapped: mapped
            .into_iter()
            .chain(std::iter::repeat_n(false, ba.len() + ta.len()))
            .collect(),
        summed,
        progress,
        compiled: OnceLock::new(),
    };
    let mut ins = operands.to_vec();
    ins.extend(body_consts);
    ins.extend(tail_consts);
    crate::core::bind(
        Prim::Map(std::sync::Arc::new(spec)),
        &ins,
        Location::caller(),
    )
}

/// `cj` with its constants turned into inputs, between unused inputs of avals `before` and
/// `after` (the other body's constants).
pub(super) fn open(cj: ClosedJaxpr, before: &[Aval], after: &[Aval]) -> ClosedJaxpr {
    let j = cj.jaxpr;
    let mut next = j
        .constvars
        .iter()
        .chain(&j.invars)
        .chain(j.eqns.iter().flat_map(|e| &e.outputs))
        .map(|v| v.id + 1)
        .max()
        .unwrap_or(0);
    let mut fresh = |a: &Aval| {
        next += 1;
        Var {
            id: next - 1,
            aval: a.clone(),
        }
    };
    let mut invars = j.invars;
    invars.extend(before.iter().map(&mut fresh));
    invars.extend(j.constvars);
    invars.extend(after.iter().map(&mut fresh));
    ClosedJaxpr {
        jaxpr: Jaxpr {
            constvars: vec![],
            invars,
            eqns: j.eqns,
            outvars: j.outvars,
        },
        consts: vec![],
    }
}

/// The avals of `operands` with the mapped ones `c` long.
pub(crate) fn chunk_avals(operands: &[Aval], mapped: &[bool], c: usize) -> Vec<Aval> {
    operands
        .iter()
        .zip(mapped)
        .map(|(a, &m)| {
            let mut s = a.shape.to_vec();
            if m {
                s[0] = c;
            }
            Aval::new(a.dtype, &s)
        })
        .collect()
}

impl MapSpec {
    /// The shape rule: the operands must be the body's inputs with the mapped ones `length`
    /// long; stacked results are `length` long.
    pub(crate) fn abstract_eval(&self, ins: &[Aval]) -> Result<Vec<Aval>, String> {
        let want = chunk_avals(&self.body.jaxpr.in_avals(), &self.mapped, self.length);
        if ins.len() != want.len() {
            return Err(format!("{} operands for {} inputs", ins.len(), want.len()));
        }
        for (i, (a, w)) in ins.iter().zip(&want).enumerate() {
            if a != w {
                return Err(format!("operand {i} has aval {a}, the body expects {w}"));
            }
        }
        Ok(self
            .body
            .jaxpr
            .out_avals()
            .into_iter()
            .zip(&self.summed)
            .map(|(a, &s)| {
                if s {
                    a
                } else {
                    let mut sh = a.shape.to_vec();
                    sh[0] = self.length;
                    Aval::new(a.dtype, &sh)
                }
            })
            .collect())
    }

    /// The parameters as the jaxpr printer shows them.
    pub(crate) fn params(&self) -> Vec<(&'static str, String)> {
        let flags = |v: &[bool]| {
            let s: Vec<String> = v
                .iter()
                .map(|&b| if b { "True" } else { "False" }.to_string())
                .collect();
            crate::prims::tuple_of_strings(&s)
        };
        vec![
            ("chunk", self.chunk.to_string()),
            ("jaxpr", format!("{}", self.body)),
            ("length", self.length.to_string()),
            ("mapped", flags(&self.mapped)),
            ("summed", flags(&self.summed)),
        ]
    }

    fn compiled(&self) -> &(Executable, Option<Executable>) {
        self.compiled.get_or_init(|| {
            (
                Executable::new(self.body.clone()),
                self.tail.clone().map(Executable::new),
            )
        })
    }

    /// Bytes held beyond the operands and results while a chunk runs (the body's planned
    /// peak less the unmapped operands it shares), with the body's largest buffers then.
    pub(crate) fn chunk_bytes(&self) -> (usize, Vec<BufferInfo>) {
        let (body, tail) = self.compiled();
        let shared: usize = self
            .body
            .jaxpr
            .in_avals()
            .iter()
            .zip(&self.mapped)
            .filter(|(_, &m)| !m)
            .map(|(a, _)| a.nbytes())
            .sum();
        let own = |e: &Executable| e.analysis().peak_bytes.saturating_sub(shared);
        let bytes = own(body).max(tail.as_ref().map_or(0, own));
        let largest = body
            .analysis()
            .largest
            .iter()
            .filter(|b| matches!(b.kind, BufferKind::Temporary | BufferKind::Output))
            .cloned()
            .collect();
        (bytes, largest)
    }

    /// Runs the body chunk by chunk, stacking or summing its results.
    pub(crate) fn eval(&self, ins: &[Array]) -> Vec<Array> {
        let (body, tail) = self.compiled();
        let avals: Vec<Aval> = ins.iter().map(aval_of).collect();
        let outs = self.abstract_eval(&avals).expect("checked when bound");
        let mut stacked: Vec<Option<Buffer>> = outs
            .iter()
            .zip(&self.summed)
            .map(|(a, &s)| (!s).then(|| Buffer::zeroed(a.nbytes())))
            .collect();
        let mut sums: Vec<Option<Array>> = vec![None; outs.len()];
        let chunks = self.length.div_ceil(self.chunk);
        let bar = (self.progress && chunks > 1).then(|| progress_bar(chunks, self.chunk));
        for c in 0..chunks {
            let start = c * self.chunk;
            let size = self.chunk.min(self.length - start);
            let exe = if size == self.chunk {
                body
            } else {
                tail.as_ref().expect("a shorter last chunk has its body")
            };
            let args = ins
                .iter()
                .zip(&self.mapped)
                .map(|(a, &m)| if m { rows(a, start, size) } else { a.clone() })
                .collect();
            let results = exe.run_arrays(args);
            for (k, r) in results.into_iter().enumerate() {
                match &mut stacked[k] {
                    Some(buf) => {
                        let at = start * (r.nbytes() / size.max(1));
                        buf.as_mut_bytes()[at..at + r.nbytes()].copy_from_slice(r.as_bytes());
                    }
                    None => {
                        sums[k] = Some(match sums[k].take() {
                            Some(s) => Prim::Binary(BinaryOp::Add).eval(&[s, r]).remove(0),
                            None => r,
                        });
                    }
                }
            }
            if let Some(b) = &bar {
                b.inc(1);
            }
        }
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        outs.iter()
            .zip(stacked)
            .zip(sums)
            .map(|((a, st), sum)| match (st, sum) {
                (Some(buf), _) => Array::from_buffer(a.dtype, &a.shape, buf),
                (None, Some(s)) => s,
                (None, None) => Array::zeros(a.dtype, &a.shape),
            })
            .collect()
    }

    /// A map of the same chunking over new operands, its bodies made by `derive(body, c)`
    /// from this map's body for chunks of `c`.
    #[track_caller]
    pub(crate) fn derive(
        &self,
        operands: &[Tensor],
        mapped: Vec<bool>,
        summed: Vec<bool>,
        derive: &dyn Fn(&ClosedJaxpr, usize) -> ClosedJaxpr,
    ) -> Vec<Tensor> {
        let trace = |c: usize| {
            let own = match &self.tail {
                Some(tail) if c != self.chunk => tail,
                _ => &self.body,
            };
            derive(own, c)
        };
        stage(
            operands,
            mapped,
            summed,
            self.length,
            self.chunk,
            self.progress,
            &trace,
        )
    }

    /// Traces `f` on the chunk avals of `operands` (mapped ones `c` long).
    pub(crate) fn trace_chunk(
        &self,
        operands: &[Tensor],
        mapped: &[bool],
        c: usize,
        f: impl FnOnce(Vec<Tensor>) -> Vec<Tensor>,
    ) -> ClosedJaxpr {
        let avals: Vec<Aval> = operands.iter().map(Tensor::aval).collect();
        let avals = chunk_avals(&avals, mapped, c);
        trace_avals(f, &operands.to_vec(), &avals).0
    }
}

/// Rows `start..start + n` of `a` along its leading axis, copied.
pub(super) fn rows(a: &Array, start: usize, n: usize) -> Array {
    let row = a.nbytes() / a.shape()[0].max(1);
    let mut shape = a.shape().to_vec();
    shape[0] = n;
    let bytes = &a.as_bytes()[start * row..(start + n) * row];
    Array::from_buffer(a.dtype(), &shape, Buffer::from_bytes(bytes))
}

pub(super) fn progress_bar(chunks: usize, chunk: usize) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(chunks as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} chunks (eta {eta})",
        )
        .expect("a valid template"),
    );
    bar.set_message(format!("map, {chunk} per chunk"));
    bar
}

/// The chunk plan of a map primitive staged at `source`; `None` for other primitives.
pub(crate) fn chunk_plan(prim: &Prim, source: &'static Location<'static>) -> Option<ChunkPlan> {
    let Prim::Map(spec) = prim else { return None };
    Some(ChunkPlan {
        length: spec.length,
        chunk: spec.chunk,
        chunk_bytes: spec.chunk_bytes().0,
        source,
        step: 0,
        outside_bytes: 0,
    })
}

/// Batching: the outer batch axis goes to axis 1 of mapped operands (axis 0 stays the
/// map's) and axis 0 of the others; stacked results carry it at axis 1, summed at 0.
pub(crate) fn batch(
    spec: &MapSpec,
    args: &[Tensor],
    dims: &[Option<usize>],
    n: usize,
) -> (Vec<Tensor>, Vec<Option<usize>>) {
    use crate::transforms::batching::moveaxis;
    let at = |m: bool| usize::from(m);
    let moved: Vec<Tensor> = args
        .iter()
        .zip(dims)
        .zip(&spec.mapped)
        .map(|((x, d), &m)| d.map_or(x.clone(), |d| moveaxis(x, d, at(m))))
        .collect();
    let inner: Vec<Option<usize>> = dims
        .iter()
        .zip(&spec.mapped)
        .map(|(d, &m)| d.map(|_| at(m)))
        .collect();
    let summed = spec.summed.clone();
    let derive = |body: &ClosedJaxpr, c: usize| {
        spec.trace_chunk(&moved, &spec.mapped, c, |xs| {
            let outs = crate::transforms::vmap::batch_jaxpr(
                body,
                xs.into_iter().zip(inner.clone()).collect(),
                n,
            );
            outs.into_iter()
                .zip(&summed)
                .enumerate()
                .map(|(i, ((t, d), &s))| {
                    crate::transforms::vmap::place_output(t, d, Some(at(!s) as isize), n, i)
                })
                .collect()
        })
    };
    let outs = spec.derive(&moved, spec.mapped.clone(), summed.clone(), &derive);
    let dims = summed.iter().map(|&s| Some(at(!s))).collect();
    (outs, dims)
}

/// Forward mode: one map computing the outputs and their tangents together.
pub(crate) fn jvp(
    spec: &MapSpec,
    primals: &[Tensor],
    tangents: &[Option<Tensor>],
) -> (Vec<Tensor>, Vec<Option<Tensor>>) {
    let live: Vec<usize> = (0..primals.len())
        .filter(|&i| tangents[i].is_some())
        .collect();
    let float_out = float_positions(&spec.body.jaxpr.out_avals());
    let mut operands = primals.to_vec();
    operands.extend(live.iter().map(|&i| tangents[i].clone().expect("live")));
    let mut mapped = spec.mapped.clone();
    mapped.extend(live.iter().map(|&i| spec.mapped[i]));
    let mut summed = spec.summed.clone();
    summed.extend(float_out.iter().map(|&j| spec.summed[j]));
    let np = primals.len();
    let derive = |body: &ClosedJaxpr, c: usize| {
        spec.trace_chunk(&operands, &mapped, c, |xs| {
            let (p, t) = xs.split_at(np);
            let tans = sparse_tangents(t.to_vec(), &live, np);
            let (outs, touts) = crate::transforms::ad::jvp_jaxpr(body, p, tans);
            let mut all = outs.clone();
            all.extend(dense_tangents(&outs, &touts, &float_out));
            all
        })
    };
    let mut all = spec.derive(&operands, mapped.clone(), summed, &derive);
    let touts = sparse_tangents(all.split_off(spec.summed.len()), &float_out, all.len());
    (all, touts)
}

/// Reverse mode: a map over the operands and the output cotangents whose body runs the
/// chunk's forward pass again and then its backward pass (rematerialisation), stacking the
/// cotangents of mapped operands and summing those of unmapped ones.
pub(crate) fn vjp(
    spec: &MapSpec,
    ins: &[Tensor],
    cts: &[Option<Tensor>],
    active: &[bool],
) -> Vec<Option<Tensor>> {
    let with_ct: Vec<usize> = (0..cts.len()).filter(|&j| cts[j].is_some()).collect();
    let act: Vec<usize> = (0..ins.len())
        .filter(|&i| active[i] && ins[i].dtype().is_float())
        .collect();
    if with_ct.is_empty() || act.is_empty() {
        return vec![None; ins.len()];
    }
    let mut operands = ins.to_vec();
    operands.extend(with_ct.iter().map(|&j| cts[j].clone().expect("with ct")));
    let mut mapped = spec.mapped.clone();
    mapped.extend(with_ct.iter().map(|&j| !spec.summed[j]));
    let summed: Vec<bool> = act.iter().map(|&i| !spec.mapped[i]).collect();
    let ni = ins.len();
    let n_out = cts.len();
    let derive = |body: &ClosedJaxpr, c: usize| {
        spec.trace_chunk(&operands, &mapped, c, |xs| {
            let (p, cs) = xs.split_at(ni);
            let mut cts = vec![None; n_out];
            for (k, &j) in with_ct.iter().enumerate() {
                cts[j] = Some(cs[k].clone());
            }
            let g = crate::transforms::ad::vjp_jaxpr(body, p, active, &cts);
            act.iter()
                .map(|&i| {
                    g[i].clone()
                        .unwrap_or_else(|| crate::transforms::jvp_rules::zeros_of_aval(&p[i]))
                })
                .collect()
        })
    };
    let grads = spec.derive(&operands, mapped.clone(), summed, &derive);
    let mut out = vec![None; ins.len()];
    for (g, &i) in grads.into_iter().zip(&act) {
        out[i] = Some(g);
    }
    out
}

/// `lax::map(f, xs)`: `f` applied to each slice of `xs` along its leading axis, the results
/// stacked; see [`crate::lax::map`].
pub struct LaxMap<F, A> {
    f: F,
    xs: A,
    batch: usize,
}

/// `jax.lax.map`: `f` applied to the slices of `xs` (a tree of tensors) along their leading
/// axis, one after another, the results stacked. `.batch_size(k)` runs `k` slices at a time,
/// as `vmap(f)` over each batch (the last one the remainder): memory for `k` slices, not all.
///
/// ```
/// use oxla::{lax, numpy as jnp, Tensor};
/// let xs = jnp::arange(6.0).reshape(&[3, 2]);
/// let ys: Tensor = lax::map(|x: Tensor| x.sum(None), xs).batch_size(2).call()?;
/// assert_eq!(ys.to_vec::<f32>(), vec![1.0, 5.0, 9.0]);
/// # Ok::<(), oxla::Error>(())
/// ```
pub fn lax_map<F, A>(f: F, xs: A) -> LaxMap<F, A> {
    LaxMap { f, xs, batch: 1 }
}

impl<F, A: crate::tree::Tree> LaxMap<F, A> {
    /// How many slices run together.
    #[track_caller]
    pub fn batch_size(mut self, k: usize) -> Self {
        if k == 0 {
            panic!(
                "lax::map: batch_size must be positive, got 0\n  at {}",
                Location::caller()
            );
        }
        self.batch = k;
        self
    }

    /// Runs the map.
    #[track_caller]
    pub fn call<O: crate::tree::Tree>(self) -> crate::Result<O>
    where
        F: Fn(A) -> O,
    {
        crate::vmap(self.f).chunk_size(self.batch).call(self.xs)
    }
}
