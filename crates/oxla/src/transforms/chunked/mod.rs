//! The chunked map: a loop primitive that runs a batched body over chunks of its mapped
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

pub(crate) mod budget;
mod rules;

use std::panic::Location;
use std::sync::OnceLock;

use crate::array::aval_of;
use crate::array::{Array, Buffer};
use crate::compiler::Executable;
use crate::core::control_flow::debug_by_identity;
use crate::core::ControlFlow;
use crate::core::Prim;
use crate::core::{trace_avals, Aval, ClosedJaxpr, Tensor};
use crate::error::Result;
use crate::memory::replanned_budget;
use crate::memory::ChunkPlan;
use crate::memory::{BufferInfo, BufferKind};
use crate::prims::BinaryOp;
use crate::transforms::bodies::{open, rows};
use budget::chunk_for_budget;
use rules::{batch, jvp, vjp};

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

debug_by_identity!(MapSpec, length, chunk, mapped, summed);

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
        Prim::Control(std::sync::Arc::new(spec)),
        &ins,
        Location::caller(),
    )
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
            crate::prims::pyfmt::tuple_of_strings(&s)
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
            let own = self
                .tail
                .as_ref()
                .filter(|_| c != self.chunk)
                .unwrap_or(&self.body);
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

impl ControlFlow for MapSpec {
    fn name(&self) -> &'static str {
        "chunked_map"
    }

    fn params(&self) -> Vec<(&'static str, String)> {
        MapSpec::params(self)
    }

    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
        MapSpec::abstract_eval(self, inputs)
    }

    fn eval(&self, inputs: &[Array]) -> Vec<Array> {
        MapSpec::eval(self, inputs)
    }

    fn batch(
        &self,
        args: &[Tensor],
        dims: &[Option<usize>],
        n: usize,
    ) -> (Vec<Tensor>, Vec<Option<usize>>) {
        batch(self, args, dims, n)
    }

    fn jvp(
        &self,
        primals: &[Tensor],
        tangents: &[Option<Tensor>],
    ) -> (Vec<Tensor>, Vec<Option<Tensor>>) {
        jvp(self, primals, tangents)
    }

    fn vjp(
        &self,
        ins: &[Tensor],
        cts: &[Option<Tensor>],
        active: &[bool],
        src: &'static Location<'static>,
    ) -> Vec<Option<Tensor>> {
        let _ = src;
        vjp(self, ins, cts, active)
    }

    fn working_bytes(&self) -> (usize, Vec<BufferInfo>) {
        self.chunk_bytes()
    }

    fn chunk_plan(&self, source: &'static Location<'static>) -> Option<ChunkPlan> {
        Some(ChunkPlan {
            length: self.length,
            chunk: self.chunk,
            chunk_bytes: self.chunk_bytes().0,
            source,
            step: 0,
            outside_bytes: 0,
        })
    }
}
