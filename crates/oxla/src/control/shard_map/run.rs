//! How a map over devices runs: each device's blocks of the operands (views along the
//! leading axis), its body run on every device at once (`devices::run`), and each result
//! joined from the devices' (and, for a map spanning the processes whole, the processes').

use super::{OutSpec, ShardMapSpec};
use crate::array::Array;
use crate::prims::{reduce, shape, ReduceOp};

impl ShardMapSpec {
    /// Runs the body on every device at once and joins the results.
    ///
    /// # Panics
    /// Called eagerly, when a device's plan passes the limit on each device
    /// (`memory::set_device_memory_limit`, `OXLA_DEVICE_MEMORY`): as an eager operation out
    /// of memory does, naming the device and a chunk size that fits there, before any
    /// device starts. (A compiled call returns the error before it runs.)
    pub(super) fn run(&self, ins: &[Array]) -> Vec<Array> {
        if let Some(limit) = crate::memory::device_memory_limit() {
            let plans = self.checked_plans(crate::core::current_line());
            if let Some(over) = plans.iter().find(|d| d.peak_bytes > limit) {
                panic!(
                    "{}\n  at {}",
                    over.out_of_memory(limit),
                    crate::core::current_line()
                );
            }
        }
        // Compiled here, before the devices start: none waits at a collective for another
        // that is still compiling.
        for b in &self.bodies {
            Self::compiled(b);
        }
        // Lines the body prints go where the caller's go.
        let sink = crate::core::callback::current_sink();
        let here = self.here();
        let outs = crate::devices::run(&self.axis_name, self.size(), self.span.processes, |d| {
            let exe = Self::compiled(self.body_of(here + d));
            crate::core::callback::with_sink(sink.clone(), || {
                exe.run_arrays(self.blocks(ins, here + d))
            })
        });
        (0..self.out_specs.len())
            .map(|k| {
                let mine: Vec<Array> = outs.iter().map(|o| o[k].clone()).collect();
                match self.out_specs[k] {
                    OutSpec::Concat(d) if self.span.whole && self.span.processes > 1 => {
                        crate::devices::gather_across_processes(
                            shape::concatenate(&mine, d),
                            d,
                            &self.parts(k, d),
                        )
                    }
                    OutSpec::Concat(d) => shape::concatenate(&mine, d),
                    OutSpec::Invariant => mine[0].clone(),
                    OutSpec::Summed => {
                        let stacked = shape::concatenate(
                            &mine
                                .iter()
                                .map(|a| {
                                    let mut s = vec![1];
                                    s.extend_from_slice(a.shape());
                                    a.reshaped(&s)
                                })
                                .collect::<Vec<_>>(),
                            0,
                        );
                        let here = reduce::reduce(ReduceOp::Sum, &stacked, &[0]);
                        crate::devices::sum_across_processes(here, self.span.processes)
                    }
                }
            })
            .collect()
    }

    /// Each process's part of result `k` joined along `dimension` (`Span::whole`): its
    /// devices' blocks' lengths along it.
    fn parts(&self, k: usize, dimension: usize) -> Vec<usize> {
        let length = |g: usize| self.body_of(g).jaxpr.jaxpr.out_avals()[k].shape[dimension];
        (0..self.span.processes)
            .map(|p| (p * self.size()..(p + 1) * self.size()).map(length).sum())
            .collect()
    }

    /// Device `d`'s block of each operand: a view for blocks along the leading axis.
    fn blocks(&self, ins: &[Array], d: usize) -> Vec<Array> {
        let (total, before) = (self.total().max(1), self.rows[..d].iter().sum::<usize>());
        ins.iter()
            .zip(&self.in_dims)
            .map(|(a, dim)| match *dim {
                None => a.clone(),
                Some(k) => {
                    let len = a.shape()[k];
                    let (lo, hi) = (len * before / total, len * (before + self.rows[d]) / total);
                    if k == 0 {
                        return a.rows(lo, hi - lo);
                    }
                    let mut start = vec![0; a.ndim()];
                    let mut limit = a.shape().to_vec();
                    (start[k], limit[k]) = (lo, hi);
                    shape::slice(a, &start, &limit, None)
                }
            })
            .collect()
    }
}
