//! `vmap(f).chunk_size(k)` and `vmap(f).memory_budget(bytes)`: the batched function run
//! over chunks of the mapped axis, staged as one chunked map (`super::chunked`).

use crate::source::Source;

use super::batching::{batch_jaxpr, moveaxis};
use super::vmap::{check_out_axis, place_output, Vmap};
use crate::core::{trace_avals, Aval, ClosedJaxpr, Tensor};
use crate::error::Result;

impl<F, B> Vmap<F, B> {
    /// Panics, naming the collective's line and the user's call `at`, when `cj` holds a
    /// collective over this vmap's axis: a chunk does not hold the whole axis it needs.
    pub(crate) fn refuse_chunked_collective(&self, cj: &ClosedJaxpr, at: Source) {
        let Some(name) = self.axis_name else { return };
        if let Some(e) = cj.jaxpr.eqns.iter().find(|e| e.prim.names_axis(name)) {
            panic!(
                "{}: chunk_size and memory_budget run the axis a chunk at a time, but {} \
                 (at {}) is a collective over {name:?} and needs the whole axis; drop the \
                 chunking, or move the collective out of the chunked function\n  at {at}",
                self.what(),
                e.prim.name(),
                e.source
            );
        }
    }

    /// The batched `cj` run over chunks of the mapped axis, moved first; results placed at
    /// `out_axes`. `at` is the user's call, named by the checks made while the body traces.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn chunked(
        &self,
        cj: &ClosedJaxpr,
        leaves: &[Tensor],
        axes: &[Option<usize>],
        n: usize,
        out_axes: &[Option<isize>],
        budget: Option<usize>,
        at: Source,
    ) -> Result<Vec<Tensor>> {
        let operands: Vec<Tensor> = leaves
            .iter()
            .zip(axes)
            .map(|(t, a)| a.map_or(t.clone(), |a| moveaxis(t, a, 0)))
            .collect();
        let mapped: Vec<bool> = axes.iter().map(Option::is_some).collect();
        let trace = self.chunk_trace(cj, &operands, &mapped, out_axes, at);
        let chunk = match (self.chunk, budget) {
            (Some(k), _) => k,
            (None, Some(b)) => super::chunked::budget::chunk_for_budget(&mapped, n, b, at, &trace)?,
            (None, None) => n,
        };
        let n_out = cj.jaxpr.outvars.len();
        let stacked = super::chunked::stage(
            &operands,
            mapped.clone(),
            vec![false; n_out],
            n,
            chunk,
            self.progress,
            &trace,
        );
        Ok(stacked
            .into_iter()
            .zip(out_axes)
            .map(|(t, a)| match a {
                Some(a) => place_output(t, Some(0), Some(*a), n, 0),
                // Unmapped (`check_out_axis` refused a mapped output): every row is the same.
                None => t.index(0),
            })
            .collect())
    }

    /// The tracer of the body of a chunked map of the batched `cj` over `operands` (their
    /// mapped axes first), for chunks of a given size: every result stacked first.
    pub(crate) fn chunk_trace<'a>(
        &'a self,
        cj: &'a ClosedJaxpr,
        operands: &'a [Tensor],
        mapped: &'a [bool],
        out_axes: &'a [Option<isize>],
        at: Source,
    ) -> impl Fn(usize) -> ClosedJaxpr + 'a {
        move |c: usize| {
            let avals: Vec<Aval> = operands.iter().map(Tensor::aval).collect();
            let avals = super::chunked::chunk_avals(&avals, mapped, c);
            let body = |xs: Vec<Tensor>| -> Vec<Tensor> {
                let args = xs.into_iter().zip(mapped.iter().map(|&m| m.then_some(0)));
                batch_jaxpr(cj, args.collect(), c, self.axis_name)
                    .into_iter()
                    .zip(out_axes)
                    .enumerate()
                    .map(|(i, ((t, d), a))| {
                        check_out_axis(&t, d, *a, i, at);
                        place_output(t, d, Some(0), c, i)
                    })
                    .collect()
            };
            trace_avals(body, &operands.to_vec(), &avals).0
        }
    }
}
