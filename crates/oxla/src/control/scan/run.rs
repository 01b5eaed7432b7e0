//! Running a scan's steps: each step's compiled body on the carry and the step's slices
//! (views of the scanned operands), its stacked results written row by row.

use super::ScanSpec;
use crate::array::{aval_of, numel, Array, Rows};
use crate::core::{Aval, ControlFlow};

impl ScanSpec {
    /// Runs the steps. A stacked carry input whose output the step also stacks shares its
    /// buffer, one row longer: forward, row `i` holds the carry before step `i` and row
    /// `i + 1` the carry after it (in reverse, row `i + 1` before and row `i` after), each
    /// result a view of it. (An RNN's backward pass reads both `h` and the `h` before.)
    pub(super) fn run(&self, ins: &[Array]) -> Vec<Array> {
        let exe = self.compiled();
        let avals: Vec<Aval> = ins.iter().map(aval_of).collect();
        let outs = self.abstract_eval(&avals).expect("checked when bound");
        let (nc, nx, len) = (self.num_carry, self.num_xs, self.length);
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
        let mut carry: Vec<Array> = ins[..nc].to_vec();
        for t in 0..len {
            let i = if self.reverse { len - 1 - t } else { t };
            let mut args = carry;
            args.extend(
                ins[nc..nc + nx]
                    .iter()
                    .map(|x| x.rows(i, 1).reshaped(&x.shape()[1..])),
            );
            args.extend(ins[nc + nx..].iter().cloned());
            let mut results = exe.run_arrays(args);
            let ys = results.split_off(nc);
            carry = results;
            for (y, (rows, v)) in stacked.iter_mut().zip(ys).enumerate() {
                if let Some(rows) = rows {
                    rows.set(at(y, i), v.as_bytes());
                }
            }
        }
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
