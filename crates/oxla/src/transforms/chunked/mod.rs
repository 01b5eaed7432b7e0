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

use crate::compiler::Executable;
use crate::core::control_flow::debug_by_identity;
use crate::core::{trace_avals, Aval, ClosedJaxpr, Prim, Tensor};
use crate::memory::replanned_budget;
use crate::transforms::bodies::open;
use budget::chunk_for_budget;

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
    let here = crate::core::current_line();
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
    fn compiled(&self) -> &(Executable, Option<Executable>) {
        self.compiled.get_or_init(|| {
            (
                Executable::new(self.body.clone()),
                self.tail.clone().map(Executable::new),
            )
        })
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
