//! The scan as a [`ControlFlow`] primitive: its shape rule, parameters, evaluation and
//! working memory, and its batching, forward- and reverse-mode rules, each of which
//! transforms the body and stages a new scan.

use crate::source::Source;

use super::{stage, ScanSpec};
use crate::array::Array;
use crate::core::ClosedJaxpr;
use crate::core::{trace_avals, Aval, ControlFlow, Tensor};
use crate::memory::{BufferInfo, BufferKind};
use crate::transforms::ad::jvp_jaxpr;
use crate::transforms::batching::batch_jaxpr;
use crate::transforms::batching::moveaxis;
use crate::transforms::bodies::{dense_tangents, float_positions, sparse_tangents};
use crate::transforms::jvp_rules::zeros_of_aval;
use crate::transforms::vmap::place_output;

impl ControlFlow for ScanSpec {
    fn name(&self) -> &'static str {
        "scan"
    }

    /// The shape rule.
    fn abstract_eval(&self, ins: &[Aval]) -> Result<Vec<Aval>, String> {
        let want = self.body.jaxpr.in_avals();
        if ins.len() != want.len() {
            return Err(format!("{} operands for {} inputs", ins.len(), want.len()));
        }
        for (i, (a, w)) in ins.iter().zip(&want).enumerate() {
            let sliced = i >= self.num_carry && i < self.num_carry + self.num_xs;
            let ok = if sliced {
                a.dtype == w.dtype
                    && a.shape.first() == Some(&self.length)
                    && a.shape[1..] == w.shape[..]
            } else {
                a == w
            };
            if !ok {
                return Err(format!("operand {i} has aval {a}, the body expects {w}"));
            }
        }
        let outs = self.body.jaxpr.out_avals();
        Ok(outs
            .iter()
            .enumerate()
            .map(|(k, a)| {
                if k < self.num_carry {
                    a.clone()
                } else {
                    let mut s = vec![self.length];
                    s.extend_from_slice(&a.shape);
                    Aval::new(a.dtype, &s)
                }
            })
            .collect())
    }

    /// The parameters as the jaxpr printer shows them.
    fn params(&self) -> Vec<(&'static str, String)> {
        let consts = self.body.jaxpr.invars.len() - self.num_carry - self.num_xs;
        vec![
            ("jaxpr", format!("{}", self.body)),
            ("length", self.length.to_string()),
            ("num_carry", self.num_carry.to_string()),
            ("num_consts", consts.to_string()),
            (
                "reverse",
                if self.reverse { "True" } else { "False" }.into(),
            ),
            ("unroll", self.unroll.to_string()),
        ]
    }

    /// Runs the steps (`run.rs`).
    fn eval(&self, ins: &[Array]) -> Vec<Array> {
        self.run(ins)
    }

    fn bodies(&self) -> Vec<&ClosedJaxpr> {
        vec![&self.body]
    }

    /// One step's working memory: the body's planned peak less the carry and the captured
    /// values it shares with the loop, with its largest buffers; for a scan run in bands,
    /// every band's at once (`bands.rs`).
    fn working_bytes(&self) -> (usize, Vec<BufferInfo>) {
        let shared = |rows: Option<usize>| -> usize {
            let invars = self.body.jaxpr.invars.iter().enumerate();
            (invars.filter(|(i, _)| *i < self.num_carry || *i >= self.num_carry + self.num_xs))
                .map(|(i, v)| match (rows, self.layout()) {
                    // A band's carry is its rows of the loop's; its captured values are
                    // copies of its own.
                    (Some(n), Some(l)) if l.inputs[i] => v.aval.nbytes() / l.rows * n,
                    (Some(_), _) if i < self.num_carry => v.aval.nbytes(),
                    (Some(_), _) => 0,
                    (None, _) => v.aval.nbytes(),
                })
                .sum()
        };
        let working = |exe: &crate::compiler::Executable, shared: usize| {
            let a = exe.analysis();
            let largest = (a.largest.iter())
                .filter(|b| matches!(b.kind, BufferKind::Temporary | BufferKind::Output))
                .cloned();
            (
                a.peak_bytes.saturating_sub(shared),
                largest.collect::<Vec<_>>(),
            )
        };
        match self.bands() {
            Some(bands) => bands.iter().fold((0, Vec::new()), |(bytes, mut all), b| {
                let (n, largest) = working(&b.exe, shared(Some(b.rows)));
                all.extend(largest);
                (bytes + n, all)
            }),
            None => working(self.compiled(), shared(None)),
        }
    }

    /// Batching: scanned operands carry the batch axis at 1 (axis 0 is the scan's), the others
    /// at 0; a carry becomes batched when its initial value or its update is; stacked results
    /// carry it at axis 1.
    fn batch(
        &self,
        args: &[Tensor],
        dims: &[Option<usize>],
        n: usize,
        name: Option<&str>,
    ) -> (Vec<Tensor>, Vec<Option<usize>>) {
        let (nc, nx) = (self.num_carry, self.num_xs);
        let scanned = |i: usize| i >= nc && i < nc + nx;
        let mut batched: Vec<bool> = dims[..nc].iter().map(Option::is_some).collect();
        // The carry's batched set is a fixpoint: a step may batch a carry that starts unbatched.
        loop {
            let (avals, inner): (Vec<Aval>, Vec<Option<usize>>) = self
                .body
                .jaxpr
                .invars
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let d = if i < nc {
                        batched[i].then_some(0)
                    } else {
                        dims[i].map(|_| 0)
                    };
                    let mut s = v.aval.shape.to_vec();
                    if d.is_some() {
                        s.insert(0, n);
                    }
                    (Aval::new(v.aval.dtype, &s), d)
                })
                .unzip();
            let structure = vec![Tensor::scalar(0.0f32); avals.len()];
            let (out, _) = trace_avals(
                |xs: Vec<Tensor>| -> Vec<Tensor> {
                    let args = xs.into_iter().zip(inner.iter().copied()).collect();
                    let r = batch_jaxpr(&self.body, args, n, name);
                    r.into_iter().map(|(t, _)| t).collect()
                },
                &structure,
                &avals,
            );
            // The carry outputs' batching, read from their staged avals' ranks.
            let grown: Vec<bool> = out.jaxpr.out_avals()[..nc]
                .iter()
                .zip(&self.body.jaxpr.out_avals()[..nc])
                .map(|(b, a)| b.ndim() > a.ndim())
                .collect();
            let next: Vec<bool> = batched.iter().zip(&grown).map(|(&a, &b)| a || b).collect();
            if next == batched {
                break;
            }
            batched = next;
        }
        let moved: Vec<Tensor> = args
            .iter()
            .enumerate()
            .map(|(i, x)| match (dims[i], i < nc && batched[i]) {
                (Some(d), _) => moveaxis(x, d, usize::from(scanned(i))),
                (None, true) => place_output(x.clone(), None, Some(0), n, i),
                (None, false) => x.clone(),
            })
            .collect();
        let inner: Vec<Option<usize>> = (0..args.len())
            .map(|i| {
                if i < nc {
                    batched[i].then_some(0)
                } else {
                    dims[i].map(|_| 0)
                }
            })
            .collect();
        let body = self.trace(&moved, nc, nx, |xs| {
            let outs = batch_jaxpr(
                &self.body,
                xs.into_iter().zip(inner.clone()).collect(),
                n,
                name,
            );
            outs.into_iter()
                .enumerate()
                .map(|(k, (t, d))| {
                    if k < nc && !batched[k] {
                        t
                    } else {
                        place_output(t, d, Some(0), n, k)
                    }
                })
                .collect()
        });
        let outs = stage(&moved, nc, nx, self.length, self.reverse, self.unroll, body);
        let out_dims = (0..outs.len())
            .map(|k| {
                if k < nc {
                    batched[k].then_some(0)
                } else {
                    Some(1)
                }
            })
            .collect();
        (outs, out_dims)
    }

    /// Forward mode: one scan carrying the tangents of the float carries beside them.
    fn jvp(
        &self,
        primals: &[Tensor],
        tangents: &[Option<Tensor>],
    ) -> (Vec<Tensor>, Vec<Option<Tensor>>) {
        let (nc, nx) = (self.num_carry, self.num_xs);
        let na = primals.len();
        let float = |t: &Tensor| t.dtype().is_inexact();
        let tc: Vec<usize> = (0..nc).filter(|&i| float(&primals[i])).collect();
        let tx: Vec<usize> = (nc..nc + nx).filter(|&i| tangents[i].is_some()).collect();
        let tk: Vec<usize> = (nc + nx..na).filter(|&i| tangents[i].is_some()).collect();
        let tan = |i: usize| {
            tangents[i]
                .clone()
                .unwrap_or_else(|| zeros_of_aval(&primals[i]))
        };
        let mut ops: Vec<Tensor> = primals[..nc].to_vec();
        ops.extend(tc.iter().map(|&i| tan(i)));
        ops.extend(primals[nc..nc + nx].iter().cloned());
        ops.extend(tx.iter().map(|&i| tan(i)));
        ops.extend(primals[nc + nx..].iter().cloned());
        ops.extend(tk.iter().map(|&i| tan(i)));
        let n_out = self.body.jaxpr.outvars.len();
        let ty: Vec<usize> = float_positions(&self.body.jaxpr.out_avals())
            .into_iter()
            .filter(|&k| k >= nc)
            .collect();
        let (ncc, nxx) = (nc + tc.len(), nx + tx.len());
        let body = self.trace(&ops, ncc, nxx, |xs| {
            let mut p: Vec<Tensor> = xs[..nc].to_vec();
            p.extend(xs[ncc..ncc + nx].iter().cloned());
            p.extend(xs[ncc + nxx..ncc + nxx + (na - nc - nx)].iter().cloned());
            let mut t: Vec<Option<Tensor>> = vec![None; na];
            for (k, &i) in tc.iter().enumerate() {
                t[i] = Some(xs[nc + k].clone());
            }
            for (k, &i) in tx.iter().enumerate() {
                t[i] = Some(xs[ncc + nx + k].clone());
            }
            for (k, &i) in tk.iter().enumerate() {
                t[i] = Some(xs[ncc + nxx + (na - nc - nx) + k].clone());
            }
            let (outs, touts) = jvp_jaxpr(&self.body, &p, t);
            let mut r: Vec<Tensor> = outs[..nc].to_vec();
            r.extend(dense_tangents(&outs, &touts, &tc));
            r.extend(outs[nc..].iter().cloned());
            r.extend(dense_tangents(&outs, &touts, &ty));
            r
        });
        let mut all = stage(&ops, ncc, nxx, self.length, self.reverse, self.unroll, body);
        let tys = all.split_off(ncc + (n_out - nc));
        let ys = all.split_off(ncc);
        let mut flat = all.split_off(nc);
        flat.extend(tys);
        all.extend(ys);
        (all, sparse_tangents(flat, &[tc, ty].concat(), n_out))
    }

    /// Reverse mode (see `vjp.rs`).
    fn vjp(
        &self,
        ins: &[Tensor],
        cts: &[Option<Tensor>],
        active: &[bool],
        _src: Source,
    ) -> Vec<Option<Tensor>> {
        self.vjp_rule(ins, cts, active)
    }
}
