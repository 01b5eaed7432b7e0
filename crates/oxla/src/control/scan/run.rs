//! Running a scan's steps: each step's compiled body on the carry and the step's slices
//! (views of the scanned operands), its stacked results written row by row.

use super::bands::{private, Band};
use super::rows::Layout;
use super::ScanSpec;
use crate::array::{aval_of, numel, Array, Rows};
use crate::compiler::Executable;
use crate::core::{Aval, ControlFlow};

/// Where one stacked result's rows go in one loop: a whole buffer, this band's piece of
/// each row, or nowhere (a result that is a view of another, or a whole one another band
/// writes).
pub(super) enum Writer<'a> {
    /// Every row, whole.
    Rows(&'a mut Rows),
    /// This band's piece of each row, by row.
    Pieces(Vec<&'a mut [u8]>),
    /// Nothing to write.
    Skip,
}

impl ScanSpec {
    /// Runs the steps. A stacked carry input whose output the step also stacks shares its
    /// buffer, one row longer: forward, row `i` holds the carry before step `i` and row
    /// `i + 1` the carry after it (in reverse, row `i + 1` before and row `i` after), each
    /// result a view of it. (An RNN's backward pass reads both `h` and the `h` before.)
    pub(super) fn run(&self, ins: &[Array]) -> Vec<Array> {
        let avals: Vec<Aval> = ins.iter().map(aval_of).collect();
        let outs = self.abstract_eval(&avals).expect("checked when bound");
        let (nc, len) = (self.num_carry, self.length);
        let shifted = self.shifted_inputs();
        // For each stacked result, the carry whose input fills its extra row, if any.
        let initial: Vec<Option<usize>> = (0..outs.len() - nc)
            .map(|y| shifted.iter().flatten().find(|s| s.1 == y).map(|s| s.0))
            .collect();
        // The row step `i` writes for each stacked result: forward, one row further on.
        let skip: Vec<usize> = initial
            .iter()
            .map(|c| usize::from(c.is_some() && !self.reverse))
            .collect();
        let at = |y: usize, i: usize| i + skip[y];
        let mut stacked: Vec<Option<Rows>> = outs[nc..]
            .iter()
            .enumerate()
            .map(|(y, a)| {
                let extra = usize::from(initial[y].is_some());
                let row = numel(&a.shape[1..]) * a.dtype.size();
                shifted[y].is_none().then(|| Rows::new(len + extra, row))
            })
            .collect();
        for (y, rows) in stacked.iter_mut().enumerate() {
            if let (Some(c), Some(rows)) = (initial[y], rows) {
                rows.set(if self.reverse { len } else { 0 }, ins[c].as_bytes());
            }
        }
        let carry = match self.bands() {
            Some(bands) => self.run_bands(&bands, ins, &mut stacked, &at),
            None => {
                let writers = (stacked.iter_mut())
                    .map(|r| r.as_mut().map_or(Writer::Skip, Writer::Rows))
                    .collect();
                self.steps(self.compiled(), None, ins, writers, &at)
            }
        };
        let whole: Vec<Option<Array>> = outs[nc..]
            .iter()
            .zip(stacked)
            .enumerate()
            .map(|(y, (a, rows))| {
                let mut shape = a.shape.to_vec();
                shape[0] += usize::from(initial[y].is_some());
                rows.map(|r| Array::from_buffer(a.dtype, &shape, r.finish()))
            })
            .collect();
        let ys = (0..whole.len()).map(|y| match (&whole[y], shifted[y]) {
            (Some(w), _) => w.rows(at(y, 0), len),
            (None, Some((_, from))) => {
                let w = whole[from].as_ref().expect("a shared buffer is stacked");
                w.rows(usize::from(self.reverse), len)
            }
            (None, None) => unreachable!("a stacked result without rows"),
        });
        let ys: Vec<Array> = ys.collect();
        carry.into_iter().chain(ys).collect()
    }

    /// Runs every step on one band of the batch's rows (`bands.rs`), or on all of them,
    /// handing each stacked result's row to its writer; returns the final carry.
    pub(super) fn steps(
        &self,
        exe: &Executable,
        band: Option<(&Layout, &Band)>,
        ins: &[Array],
        mut writers: Vec<Writer>,
        at: &(dyn Fn(usize, usize) -> usize + Sync),
    ) -> Vec<Array> {
        let (nc, nx, len) = (self.num_carry, self.num_xs, self.length);
        let split = |i: usize| band.is_some_and(|(l, _)| l.inputs[i]);
        let (first, n, rows) = band.map_or((0, 0, 0), |(l, b)| (b.first, b.rows, l.rows));
        let mut carry: Vec<Array> = (0..nc)
            .map(|c| match split(c) {
                true => ins[c].rows(first, n),
                false => ins[c].clone(),
            })
            .collect();
        // A split slice's band of step `i` is one run of rows of the operand read as
        // `[steps * rows, ...]`.
        let xs: Vec<Array> = (nc..nc + nx)
            .map(|k| {
                let x = &ins[k];
                if !split(k) {
                    return x.clone();
                }
                let mut shape = x.shape()[1..].to_vec();
                shape[0] = len * rows;
                x.reshaped(&shape)
            })
            .collect();
        // A band's captured values are copies of its own, so that the bands' threads do not
        // count references to one buffer at every step.
        let consts: Vec<Array> = (ins[nc + nx..].iter())
            .map(|a| {
                if band.is_some() {
                    private(a)
                } else {
                    a.clone()
                }
            })
            .collect();
        for t in 0..len {
            let i = if self.reverse { len - 1 - t } else { t };
            let mut args = carry;
            args.extend(xs.iter().enumerate().map(|(k, x)| match split(nc + k) {
                true => x.rows(i * rows + first, n),
                false => x.rows(i, 1).reshaped(&x.shape()[1..]),
            }));
            args.extend(consts.iter().cloned());
            let mut results = exe.run_arrays(args);
            let ys = results.split_off(nc);
            carry = results;
            for (y, (w, v)) in writers.iter_mut().zip(ys).enumerate() {
                match w {
                    Writer::Rows(r) => r.set(at(y, i), v.as_bytes()),
                    Writer::Pieces(p) => p[at(y, i)].copy_from_slice(v.as_bytes()),
                    Writer::Skip => {}
                }
            }
        }
        carry
    }

    /// For each stacked result of the step, whether it is the input of carry `c` while
    /// stacked result `from` is that carry's output, computed by the step: `Some((c, from))`.
    /// Another carry whose output is the same value is left alone (its first row differs).
    fn shifted_inputs(&self) -> Vec<Option<(usize, usize)>> {
        let j = &self.body.jaxpr;
        let nc = self.num_carry;
        let ys = &j.outvars[nc..];
        let found: Vec<Option<(usize, usize)>> = ys
            .iter()
            .map(|y| {
                let c = (0..nc).find(|&c| y.var() == Some(&j.invars[c]))?;
                let out = j.outvars[c].var().filter(|v| !j.invars.contains(v))?;
                let from = ys.iter().position(|z| z.var() == Some(out))?;
                Some((c, from))
            })
            .collect();
        found
            .iter()
            .map(|&s| {
                s.filter(|&(c, from)| found.iter().flatten().all(|&(d, f)| f != from || d == c))
            })
            .collect()
    }
}
