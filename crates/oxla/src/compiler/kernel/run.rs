//! The interpreter: walks a kernel's loops in its schedule's order and evaluates each node
//! on the lanes of the current block.

use super::ir::{Affine, Kernel, NodeOp};
use crate::array::{with_dtype, Elem, Lane, Values};

use crate::prims::isa::multiversion;

use super::folds::fold_into;
use super::lanes::{load, load_rows, Out, Src};
use super::schedule::{Order, LANES};
use super::scratch::Scratch;
use crate::core::Prim;

/// Operands an elementwise node gathers without allocating.
const MAX_ARGS: usize = 4;

/// `a` at the current loop indices (the vector loop at its block start), and its step
/// from one lane to the next.
#[inline(always)]
fn affine_at(a: &Affine, idx: &[i64], vector: usize) -> (i64, i64) {
    let start = a.base + a.coef.iter().zip(idx).map(|(c, i)| c * i).sum::<i64>();
    (start, a.coef.get(vector).copied().unwrap_or(0))
}

/// `offs[l] += stride * clamp(start[l], 0, max)` (one start: the same for every lane).
#[inline(always)]
fn add_starts<T: Copy>(offs: &mut [i64], start: &[T], stride: i64, max: i64, f: impl Fn(T) -> i64) {
    if start.len() == 1 {
        let add = stride * f(start[0]).clamp(0, max);
        offs.iter_mut().for_each(|o| *o += add);
    } else {
        for (o, &x) in offs.iter_mut().zip(start) {
            *o += stride * f(x).clamp(0, max);
        }
    }
}

/// Evaluation state of one kernel run.
pub(super) struct Run<'a> {
    pub(super) k: &'a Kernel,
    pub(super) inputs: &'a [Src],
    pub(super) order: &'a Order,
    pub(super) out: &'a Out,
    pub(super) out_strides: &'a [i64],
    /// Lanes in the current block.
    pub(super) width: usize,
    /// The loop position split over threads, and the part of it this run covers.
    pub(super) split: (usize, i64, i64),
    /// Every node's values and the loop indices.
    pub(super) s: Box<Scratch>,
}

impl Run<'_> {
    #[inline(always)]
    pub(super) fn lanes(&self, node: usize) -> usize {
        let deps = self.k.nodes[node].deps;
        let on = |d: usize| deps & (1 << d) != 0;
        let rows = self.order.rows > 1;
        match self.order.loops.last() {
            // A value per row, repeated along it.
            Some(&u) if rows && on(u) && !on(self.order.vector) => self.width,
            _ if !on(self.order.vector) => 1,
            // Evaluated above the rows: tiled for a full group, whatever group comes next.
            Some(&u) if rows && !on(u) => self.k.loops[self.order.vector] * self.order.rows,
            _ => self.width,
        }
    }

    /// For blocks of several rows: the vector loop's extent (lanes per row) and the step
    /// from one row to the next along `coef` (an index map's coefficients, or the result's
    /// strides), when the rows' lanes do not continue one another along the lane step
    /// `step` (`None`: lane `l` is at `start + step * l`).
    #[inline(always)]
    pub(super) fn rows_apart(&self, coef: &[i64], step: i64) -> Option<(usize, i64)> {
        let u = *self.order.loops.last()?;
        let e = self.k.loops[self.order.vector];
        let row = coef.get(u).copied().unwrap_or(0);
        (self.order.rows > 1 && row != e as i64 * step).then_some((e, row))
    }

    /// The index `a` gives lane `l` of the block: `start + step * l`, or row by row.
    #[inline(always)]
    pub(super) fn lane_index(&self, a: &Affine, start: i64, step: i64) -> impl Fn(usize) -> i64 {
        let apart = self.rows_apart(&a.coef, step);
        move |l| match apart {
            Some((e, row)) => start + row * (l / e) as i64 + step * (l % e) as i64,
            None => start + step * l as i64,
        }
    }

    /// Fills `offs` with the buffer offsets of a load or gather node's lanes.
    #[inline(always)]
    pub(super) fn lane_offsets(&mut self, n: usize, w: usize) {
        let v = self.order.vector;
        let (window, starts) = match &self.k.nodes[n].op {
            NodeOp::Load { offset, .. } => (offset, &[][..]),
            NodeOp::Gather { starts, window, .. } => (window, &starts[..]),
            _ => unreachable!("only loads have offsets"),
        };
        let (start, step) = affine_at(window, &self.s.idx, v);
        self.s.offs.clear();
        self.s.offs.extend((0..w as i64).map(|l| start + step * l));
        for s in starts {
            let st = self.s.cols[self.s.alias[s.node]].get();
            let offs = &mut self.s.offs[..];
            match st {
                Values::I32(x) => add_starts(offs, x, s.stride, s.max, |v| v as i64),
                Values::U32(x) => add_starts(offs, x, s.stride, s.max, |v| v as i64),
                _ => with_dtype!(st.dtype(), T, {
                    add_starts(offs, T::slice(st), s.stride, s.max, |v| v.to_f64() as i64)
                }),
            }
        }
    }

    /// Evaluates node `n` on the lanes of the current block.
    pub(super) fn eval(&mut self, n: usize) {
        eval_node(self, n);
    }

    /// The output offset of the current block's first lane, and the step between lanes.
    pub(super) fn out_lanes(&self) -> (i64, i64) {
        let base = self
            .out_strides
            .iter()
            .zip(&self.s.idx)
            .map(|(s, i)| s * i)
            .sum();
        let step = self.out_strides.get(self.order.vector).copied();
        (base, step.unwrap_or(0))
    }

    pub(super) fn walk(&mut self, p: usize) {
        let k = self.k;
        if p == self.order.loops.len() {
            self.innermost();
            return;
        }
        let d = self.order.loops[p];
        let extent = k.loops[d] as i64;
        let first_reduced = k.reduced(d) && (p == 0 || !k.reduced(self.order.loops[p - 1]));
        if first_reduced {
            self.reset();
        }
        if !self.strided_reduction(p) {
            let step = self.order.step(d) as i64;
            let (mut i, end) = match self.split {
                (q, lo, hi) if q == p => (lo, hi),
                _ => (0, extent),
            };
            let order = self.order;
            while i < end {
                self.s.idx[d] = i;
                if d == self.order.vector {
                    self.width = (end - i).min(LANES as i64) as usize * self.order.rows;
                } else if step > 1 {
                    // A group of rows, each the vector loop's lanes.
                    self.width = k.loops[self.order.vector] * (end - i).min(step) as usize;
                }
                for &n in &order.at[p] {
                    self.eval(n);
                }
                self.walk(p + 1);
                i += step;
            }
        }
        if first_reduced {
            self.finish();
        }
    }

    /// At the innermost loop: store the root, or fold it into the accumulator.
    pub(super) fn innermost(&mut self) {
        let root = self.s.cols[self.s.alias[self.s.cols.len() - 1]].get();
        match &self.k.reduce {
            None => {
                let (base, step) = self.out_lanes();
                match self.rows_apart(self.out_strides, step) {
                    Some((e, row)) => {
                        for r in 0..self.width / e {
                            let lanes = if root.len() == 1 {
                                root
                            } else {
                                with_dtype!(root.dtype(), T, {
                                    T::wrap(&T::slice(root)[r * e..(r + 1) * e])
                                })
                            };
                            self.out.store(lanes, base + row * r as i64, step, e);
                        }
                    }
                    None => self.out.store(root, base, step, self.width),
                }
            }
            Some((op, _)) => fold_into(*op, &mut self.s.acc, root, self.width),
        }
    }
}

multiversion! {
    /// Evaluates node `n` on the lanes of `run`'s current block.
    fn eval_node['a](run: &mut Run<'a>, n: usize) {
        let node = &run.k.nodes[n];
        let w = run.lanes(n);
        let v = run.order.vector;
        match &node.op {
            NodeOp::Lit(l) => {
                let col = &mut run.s.cols[n];
                with_dtype!(col.dtype, T, {
                    col.typed_mut::<T>(1)[0] = l.as_slice::<T>()[0]
                })
            }
            NodeOp::Load {
                slot,
                offset,
                clamp,
            } => {
                let (start, step) = affine_at(offset, &run.s.idx, v);
                let apart = run.rows_apart(&offset.coef, step);
                let src = &run.inputs[*slot];
                let col = &mut run.s.cols[n];
                with_dtype!(col.dtype, T, {
                    let end = start + w as i64;
                    let rows = apart.filter(|_| w > 1);
                    if let Some((e, row)) =
                        rows.filter(|_| step == 0 && !src.written && src.len::<T>() > 0)
                    {
                        // A value per row, repeated along it, filled here rather than by
                        // a `load` call per row.
                        let s = src.all::<T>();
                        for (r, lanes) in col.typed_mut::<T>(w).chunks_mut(e).enumerate() {
                            let at = start + row * r as i64;
                            let at = if *clamp {
                                at.clamp(0, s.len() as i64 - 1)
                            } else {
                                at
                            };
                            lanes.fill(s[at as usize]);
                        }
                    } else if let Some((e, row)) = rows {
                        // Each row of the block apart (or the same one, tiled).
                        load_rows(src, (start, row, step), *clamp, e, col.typed_mut::<T>(w));
                    } else if (step == 1 || w == 1) && start >= 0 && end as usize <= src.len::<T>()
                    {
                        // Contiguous lanes: read where they lie. In the buffer written in
                        // place, they are the lanes this block stores, once every node
                        // has read them.
                        col.set_view(src.range::<T>(start as usize, w));
                    } else {
                        load(src, start, step, *clamp, col.typed_mut::<T>(w))
                    }
                })
            }
            NodeOp::Gather { slot, .. } => {
                run.lane_offsets(n, w);
                let col = &mut run.s.cols[n];
                with_dtype!(col.dtype, T, {
                    let src = run.inputs[*slot].all::<T>();
                    // Points masked off by a pad or concatenation around the gather may
                    // index outside the operand: clamp them, as loads do.
                    let last = (src.len() as i64 - 1).max(0);
                    for (o, &off) in col.typed_mut::<T>(w).iter_mut().zip(&run.s.offs) {
                        *o = src[off.clamp(0, last) as usize];
                    }
                })
            }
            NodeOp::Iota { value } => {
                let (start, step) = affine_at(value, &run.s.idx, v);
                let at = run.lane_index(value, start, step);
                let col = &mut run.s.cols[n];
                with_dtype!(col.dtype, T, {
                    for (l, o) in col.typed_mut::<T>(w).iter_mut().enumerate() {
                        *o = T::from_f64(at(l) as f64);
                    }
                })
            }
            NodeOp::InRange { value, lo, hi } => {
                let (start, step) = affine_at(value, &run.s.idx, v);
                let at = run.lane_index(value, start, step);
                for (l, o) in run.s.cols[n].typed_mut::<bool>(w).iter_mut().enumerate() {
                    *o = (*lo..*hi).contains(&at(l));
                }
            }
            NodeOp::Apply { prim, args } => {
                let (before, rest) = run.s.cols.split_at_mut(n);
                let alias = &run.s.alias;
                let mut fixed = [Values::Bool(&[]); MAX_ARGS];
                let many: Vec<Values>;
                let ins: &[Values] = if args.len() <= MAX_ARGS {
                    for (f, &a) in fixed.iter_mut().zip(args) {
                        *f = before[alias[a]].first(w);
                    }
                    &fixed[..args.len()]
                } else {
                    many = args.iter().map(|&a| before[alias[a]].first(w)).collect();
                    &many
                };
                let uniform = match ins[0] {
                    Values::Bool([p]) if *prim == Prim::SelectN => Some(*p as usize),
                    Values::I32([p]) if *prim == Prim::SelectN => Some((*p).max(0) as usize),
                    _ => None,
                };
                // A predicate that is the same for every lane picks one case whole.
                let target = match uniform {
                    Some(which) => alias[args[1 + which.min(args.len() - 2)]],
                    None => {
                        let len = ins.iter().map(Values::len).max().unwrap_or(1);
                        prim.eval_lanes(ins, rest[0].set(len));
                        n
                    }
                };
                run.s.alias[n] = target;
            }
        }
    }
}
