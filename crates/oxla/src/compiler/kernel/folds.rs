//! Reductions: folding a block's lanes into the running values, runs of a buffer folded
//! straight from memory, and the values written when the reduced loops end.

use crate::array::{with_dtype, Lane, Values};
use crate::prims::isa::multiversion;
use crate::prims::{fold, fold_by, with_monoid, Monoid, ReduceOp, SHORT_RUN};

use super::ir::{Kernel, NodeOp};
use super::lanes::Col;
use super::run::Run;

multiversion! {
    /// `acc[l]` combined with every element of the run `src[offs[l] + step * r]`, `r < extent`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn reduce_runs[T: Copy](
        src: &[T],
        offs: &[i64],
        step: i64,
        extent: usize,
        pairwise: bool,
        acc: &mut [T],
        id: T,
        f: impl Fn(T, T) -> T + Copy,
    ) {
        let len = src.len() as i64;
        let span = step * (extent as i64 - 1);
        let lo = offs.iter().min().map_or(0, |&o| o + span.min(0));
        let hi = offs.iter().max().map_or(0, |&o| o + span.max(0));
        if step == 1 && extent < SHORT_RUN && lo >= 0 && hi < len {
            // Short contiguous runs, four lanes at a time: their folds interleave.
            let mut groups = acc.chunks_exact_mut(4);
            let mut at = offs.chunks_exact(4);
            for (a, o) in (&mut groups).zip(&mut at) {
                let run = |g: usize| &src[o[g] as usize..][..extent];
                let r = fold_short([run(0), run(1), run(2), run(3)], id, f);
                for (a, r) in a.iter_mut().zip(r) {
                    *a = f(*a, r);
                }
            }
            for (a, &o) in groups.into_remainder().iter_mut().zip(at.remainder()) {
                *a = f(*a, fold_by(&src[o as usize..][..extent], pairwise, id, f));
            }
            return;
        }
        for (a, &off) in acc.iter_mut().zip(offs) {
            let run = if len == 0 {
                id
            } else if step == 1 && off >= 0 && off + span < len {
                fold_by(&src[off as usize..][..extent], pairwise, id, f)
            } else {
                (0..extent as i64).fold(id, |a, r| {
                    f(a, src[(off + step * r).clamp(0, len - 1) as usize])
                })
            };
            *a = f(*a, run);
        }
    }
}

multiversion! {
    /// `acc[l]` combined with `src[start + l + step * r]` for every `r < extent`: runs side by
    /// side (a sum over the rows of a matrix), folded a whole row of lanes at a time, reading
    /// the buffer in order (in the order a fold of each run takes).
    #[inline(never)]
    fn fold_rows[T: Copy](
        src: &[T],
        start: i64,
        step: i64,
        extent: usize,
        acc: &mut [T],
        f: impl Fn(T, T) -> T + Copy,
    ) {
        for r in 0..extent as i64 {
            let row = &src[(start + step * r) as usize..][..acc.len()];
            for (a, &x) in acc.iter_mut().zip(row) {
                *a = f(*a, x);
            }
        }
    }
}

/// [`fold_by`] of four runs of one length below [`SHORT_RUN`] at once, in the same order.
#[inline(always)]
fn fold_short<T: Copy>(runs: [&[T]; 4], id: T, f: impl Fn(T, T) -> T + Copy) -> [T; 4] {
    let n = runs[0].len();
    let runs = runs.map(|r| &r[..n]);
    let full = n / 4 * 4;
    let mut part = [[id; 4]; 4];
    for c in (0..full).step_by(4) {
        for (p, r) in part.iter_mut().zip(runs) {
            for (q, &v) in p.iter_mut().zip(&r[c..c + 4]) {
                *q = f(*q, v);
            }
        }
    }
    let mut out = [id; 4];
    for ((o, p), r) in out.iter_mut().zip(part).zip(runs) {
        let rest = r[full..].iter().fold(id, |a, &v| f(a, v));
        *o = f(rest, f(f(p[0], p[2]), f(p[1], p[3])));
    }
    out
}

multiversion! {
    /// Folds `v`'s first `width` lanes (one value: repeated) into the accumulator.
    pub(super) fn fold_into(op: ReduceOp, acc: &mut Col, v: Values, width: usize) {
        with_dtype!(acc.dtype, T, Arith, {
            let a = &mut acc.buf.as_mut_slice::<T>()[..width];
            let x = T::slice(v);
            with_monoid!(op, T, |_id, f| {
                if x.len() == 1 {
                    let x = x[0];
                    a.iter_mut().for_each(|a| *a = f(*a, x));
                } else {
                    for (a, &x) in a.iter_mut().zip(x) {
                        *a = f(*a, x);
                    }
                }
            })
        });
        acc.len = acc.len.max(width);
    }
}

multiversion! {
    /// Combines the `rows` rows of `e` lanes of the accumulator into its first row.
    fn combine_rows(op: ReduceOp, acc: &mut Col, e: usize, rows: usize) {
        with_dtype!(acc.dtype, T, Arith, {
            let lanes = &mut acc.buf.as_mut_slice::<T>()[..e * rows];
            let (first, rest) = lanes.split_at_mut(e);
            with_monoid!(op, T, |_id, f| {
                for row in rest.chunks_exact(e) {
                    for (a, &x) in first.iter_mut().zip(row) {
                        *a = f(*a, x);
                    }
                }
            })
        });
    }
}

/// The kernel's epilogue applied to `value`'s lanes: the values to store.
pub(super) fn epilogue<'c>(k: &Kernel, value: &'c Col, scratch: &'c mut Col) -> &'c Col {
    if k.apply_epilogue(value.get(), scratch.set(value.len)) {
        scratch
    } else {
        value
    }
}

impl Run<'_> {
    /// The innermost reduced loop `p`, when only the root (a load) depends on it: each lane
    /// reduces a strided run of the buffer directly.
    pub(super) fn strided_reduction(&mut self, p: usize) -> bool {
        let k = self.k;
        if !self.order.strided || p + 1 != self.order.loops.len() {
            return false;
        }
        let (op, _) = k.reduce.as_ref().expect("a reduction");
        let d = self.order.loops[p];
        let root = k.nodes.len() - 1;
        let (slot, step) = match &k.nodes[root].op {
            NodeOp::Load { slot, offset, .. } => (*slot, offset.coef[d]),
            NodeOp::Gather { slot, window, .. } => (*slot, window.coef[d]),
            _ => unreachable!("a strided order reduces a load"),
        };
        self.s.idx[d] = 0;
        let w = self.lanes(root);
        self.lane_offsets(root, w);
        let extent = k.loops[d];
        let op = *op;
        // Runs fold straight into the accumulator when there is one per lane.
        let direct = w == self.width;
        let acc = &mut self.s.acc;
        let col = if direct { acc } else { &mut self.s.cols[root] };
        let pairwise = op == ReduceOp::Sum && col.dtype.is_float();
        let offs = &self.s.offs;
        // Runs side by side (a sum over the rows of a matrix), all in bounds, checked on the
        // offsets of each block.
        let rows = |len: usize| {
            let span = step * (extent as i64 - 1);
            let (first, last) = (offs[0], offs[offs.len() - 1]);
            step != 1
                && first + span.min(0) >= 0
                && last + span.max(0) < len as i64
                && offs.windows(2).all(|p| p[1] == p[0] + 1)
        };
        with_dtype!(col.dtype, T, Arith, {
            let s = self.inputs[slot].all::<T>();
            let lanes = &mut col.buf.as_mut_slice::<T>()[..w];
            if !direct {
                lanes.fill(T::identity(op));
            }
            if w > 0 && rows(s.len()) {
                with_monoid!(op, T, |_id, f| fold_rows(
                    s, offs[0], step, extent, lanes, f
                ))
            } else {
                with_monoid!(op, T, |id, f| {
                    reduce_runs(s, offs, step, extent, pairwise, lanes, id, f)
                })
            }
        });
        if direct {
            self.s.acc.len = self.s.acc.len.max(w);
        } else {
            self.s.cols[root].len = w;
            fold_into(op, &mut self.s.acc, self.s.cols[root].get(), self.width);
        }
        true
    }

    /// Sets every lane of the accumulator to the reduction's identity.
    pub(super) fn reset(&mut self) {
        let (op, _) = self.k.reduce.as_ref().expect("a reduction");
        let (acc, lanes) = (&mut self.s.acc, self.s.folded.max(1));
        with_dtype!(acc.dtype, T, Arith, {
            acc.typed_mut::<T>(lanes).fill(T::identity(*op))
        });
        acc.len = 0;
    }

    /// After the reduced loops: write the accumulated values.
    pub(super) fn finish(&mut self) {
        let (op, flags) = self.k.reduce.as_ref().expect("a reduction");
        let (base, step) = self.out_lanes();
        if flags.get(self.order.vector).copied().unwrap_or(false) {
            let acc = &self.s.acc;
            let total = &mut self.s.total;
            with_dtype!(acc.dtype, T, Arith, {
                let lanes = &acc.buf.as_slice::<T>()[..acc.len];
                let pairwise = *op == ReduceOp::Sum && acc.dtype.is_float();
                total.typed_mut::<T>(1)[0] = fold(*op, lanes, pairwise);
            });
            let v = epilogue(self.k, &self.s.total, &mut self.s.epi);
            self.out.store(v.get(), base, 0, 1);
        } else {
            let width = if self.order.rows > 1 {
                // Rows of the innermost reduced loop, side by side: combined.
                let e = self.k.loops[self.order.vector];
                combine_rows(*op, &mut self.s.acc, e, self.order.rows);
                e
            } else {
                self.width
            };
            self.s.acc.len = width;
            let v = epilogue(self.k, &self.s.acc, &mut self.s.epi);
            self.out.store(v.get(), base, step, width);
        }
    }
}
