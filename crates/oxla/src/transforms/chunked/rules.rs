//! The chunked map as a [`ControlFlow`] primitive: its shape rule, parameters, evaluation,
//! working memory and chunk plan, and its batching, forward- and reverse-mode rules, each
//! of which transforms the body and stages a new map.

use crate::source::Source;

use super::{chunk_avals, progress_bar, MapSpec};
use crate::array::{aval_of, Array, Buffer};
use crate::compiler::Executable;
use crate::core::{Aval, ClosedJaxpr, ControlFlow, Prim, Tensor};
use crate::memory::{BufferInfo, BufferKind, ChunkPlan};
use crate::prims::BinaryOp;
use crate::transforms::bodies::{dense_tangents, float_positions, sparse_tangents};

impl ControlFlow for MapSpec {
    fn name(&self) -> &'static str {
        "chunked_map"
    }

    fn chunk_plan(&self, source: Source) -> Option<ChunkPlan> {
        Some(ChunkPlan {
            length: self.length,
            chunk: self.chunk,
            chunk_bytes: self.working_bytes().0,
            source,
            step: 0,
            outside_bytes: 0,
        })
    }

    /// The shape rule: the operands must be the body's inputs with the mapped ones `length`
    /// long; stacked results are `length` long.
    fn abstract_eval(&self, ins: &[Aval]) -> Result<Vec<Aval>, String> {
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
    fn params(&self) -> Vec<(&'static str, String)> {
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

    /// Runs the body chunk by chunk, stacking or summing its results.
    fn eval(&self, ins: &[Array]) -> Vec<Array> {
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
                .map(|(a, &m)| if m { a.rows(start, size) } else { a.clone() })
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

    fn bodies(&self) -> Vec<&ClosedJaxpr> {
        std::iter::once(&self.body).chain(&self.tail).collect()
    }

    /// Bytes held beyond the operands and results while a chunk runs (the body's planned
    /// peak less the unmapped operands it shares), with the body's largest buffers then.
    fn working_bytes(&self) -> (usize, Vec<BufferInfo>) {
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

    /// Batching: the outer batch axis goes to axis 1 of mapped operands (axis 0 stays the
    /// map's) and axis 0 of the others; stacked results carry it at axis 1, summed at 0.
    fn batch(
        &self,
        args: &[Tensor],
        dims: &[Option<usize>],
        n: usize,
        name: Option<&str>,
    ) -> (Vec<Tensor>, Vec<Option<usize>>) {
        use crate::transforms::batching::moveaxis;
        let at = |m: bool| usize::from(m);
        let moved: Vec<Tensor> = args
            .iter()
            .zip(dims)
            .zip(&self.mapped)
            .map(|((x, d), &m)| d.map_or(x.clone(), |d| moveaxis(x, d, at(m))))
            .collect();
        let inner: Vec<Option<usize>> = dims
            .iter()
            .zip(&self.mapped)
            .map(|(d, &m)| d.map(|_| at(m)))
            .collect();
        let summed = self.summed.clone();
        let derive = |body: &ClosedJaxpr, c: usize| {
            self.trace_chunk(&moved, &self.mapped, c, |xs| {
                let outs = crate::transforms::batching::batch_jaxpr(
                    body,
                    xs.into_iter().zip(inner.clone()).collect(),
                    n,
                    name,
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
        let outs = self.derive(&moved, self.mapped.clone(), summed.clone(), &derive);
        let dims = summed.iter().map(|&s| Some(at(!s))).collect();
        (outs, dims)
    }

    /// Forward mode: one map computing the outputs and their tangents together.
    fn jvp(
        &self,
        primals: &[Tensor],
        tangents: &[Option<Tensor>],
    ) -> (Vec<Tensor>, Vec<Option<Tensor>>) {
        let live: Vec<usize> = (0..primals.len())
            .filter(|&i| tangents[i].is_some())
            .collect();
        let float_out = float_positions(&self.body.jaxpr.out_avals());
        let mut operands = primals.to_vec();
        operands.extend(live.iter().map(|&i| tangents[i].clone().expect("live")));
        let mut mapped = self.mapped.clone();
        mapped.extend(live.iter().map(|&i| self.mapped[i]));
        let mut summed = self.summed.clone();
        summed.extend(float_out.iter().map(|&j| self.summed[j]));
        let np = primals.len();
        let derive = |body: &ClosedJaxpr, c: usize| {
            self.trace_chunk(&operands, &mapped, c, |xs| {
                let (p, t) = xs.split_at(np);
                let tans = sparse_tangents(t.to_vec(), &live, np);
                let (outs, touts) = crate::transforms::ad::jvp_jaxpr(body, p, tans);
                let mut all = outs.clone();
                all.extend(dense_tangents(&outs, &touts, &float_out));
                all
            })
        };
        let mut all = self.derive(&operands, mapped.clone(), summed, &derive);
        let touts = sparse_tangents(all.split_off(self.summed.len()), &float_out, all.len());
        (all, touts)
    }

    /// Reverse mode: a map over the operands and the output cotangents whose body runs the
    /// chunk's forward pass again and then its backward pass (rematerialisation), stacking the
    /// cotangents of mapped operands and summing those of unmapped ones.
    fn vjp(
        &self,
        ins: &[Tensor],
        cts: &[Option<Tensor>],
        active: &[bool],
        _src: Source,
    ) -> Vec<Option<Tensor>> {
        let with_ct: Vec<usize> = (0..cts.len()).filter(|&j| cts[j].is_some()).collect();
        let act: Vec<usize> = (0..ins.len())
            .filter(|&i| active[i] && ins[i].dtype().is_inexact())
            .collect();
        if with_ct.is_empty() || act.is_empty() {
            return vec![None; ins.len()];
        }
        let mut operands = ins.to_vec();
        operands.extend(with_ct.iter().map(|&j| cts[j].clone().expect("with ct")));
        let mut mapped = self.mapped.clone();
        mapped.extend(with_ct.iter().map(|&j| !self.summed[j]));
        let summed: Vec<bool> = act.iter().map(|&i| !self.mapped[i]).collect();
        let ni = ins.len();
        let n_out = cts.len();
        let derive = |body: &ClosedJaxpr, c: usize| {
            self.trace_chunk(&operands, &mapped, c, |xs| {
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
        let grads = self.derive(&operands, mapped.clone(), summed, &derive);
        let mut out = vec![None; ins.len()];
        for (g, &i) in grads.into_iter().zip(&act) {
            out[i] = Some(g);
        }
        out
    }
}
