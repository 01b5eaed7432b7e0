//! The block interpreter that runs a fused kernel.
//!
//! One loop of the nest is vectorised: the interpreter walks it in blocks of up to 256
//! lanes, and every node is a vector of lanes. The other loops run one index at a time,
//! and each node is evaluated at the innermost loop its value depends on — an index
//! computation that depends only on the site is computed once per block of sites, not once
//! per neighbour. A node that does not depend on the vector loop holds a single value.

use super::fuse::{Affine, Kernel, NodeOp};
use crate::array::{strides_of, Array, Buffer, DType, Elem};
use crate::prims::{with_dtype, BinaryOp, Prim, ReduceOp};

/// Lanes per block.
const LANES: usize = 256;

/// How the loops are walked.
struct Order {
    /// Loop indices, outermost first.
    loops: Vec<usize>,
    /// The vectorised loop.
    vector: usize,
    /// For each node, the position in `loops` after which it is evaluated (`None`: once).
    level: Vec<Option<usize>>,
}

/// Chooses the vector loop: the one most nodes depend on, preferring loops along which
/// loads are contiguous and long loops.
fn order(k: &Kernel) -> Order {
    let n = k.loops.len();
    let reduced = |d: usize| k.reduce.as_ref().is_some_and(|(_, f)| f[d]);
    let score = |d: usize| {
        let mut s = 0.0;
        for node in &k.nodes {
            if node.deps & (1 << d) != 0 {
                s += 1.0;
            }
            if let NodeOp::Load { offset, .. } | NodeOp::Gather { window: offset, .. } = &node.op {
                if offset.coef[d] == 1 {
                    s += 2.0;
                }
            }
        }
        let extent = k.loops[d] as f64;
        s * extent.min(LANES as f64).sqrt()
    };
    let vector = (0..n)
        .max_by(|&a, &b| score(a).total_cmp(&score(b)).then(b.cmp(&a)))
        .unwrap_or(0);
    let mut loops: Vec<usize> = Vec::with_capacity(n);
    if n > 0 && !reduced(vector) {
        loops.push(vector);
    }
    loops.extend((0..n).filter(|&d| d != vector && !reduced(d)));
    loops.extend((0..n).filter(|&d| d != vector && reduced(d)));
    if n > 0 && reduced(vector) {
        loops.push(vector);
    }
    let pos: Vec<usize> = (0..n)
        .map(|d| {
            loops
                .iter()
                .position(|&l| l == d)
                .expect("every loop placed")
        })
        .collect();
    let level = k
        .nodes
        .iter()
        .map(|node| {
            (0..n)
                .filter(|&d| node.deps & (1 << d) != 0)
                .map(|d| pos[d])
                .max()
        })
        .collect();
    Order {
        loops,
        vector,
        level,
    }
}

/// Evaluation state of one kernel run.
struct Run<'a> {
    k: &'a Kernel,
    inputs: &'a [Array],
    order: Order,
    /// Current index of every loop (the vector loop: its block start).
    idx: Vec<i64>,
    /// Lanes in the current block.
    width: usize,
    values: Vec<Option<Array>>,
    /// Nodes to evaluate after entering each loop position.
    at: Vec<Vec<usize>>,
    out: &'a Out,
    out_strides: Vec<i64>,
    /// The part of the outermost loop this run covers.
    range0: (i64, i64),
    acc: Option<Array>,
}

fn affine_lanes(a: &Affine, idx: &[i64], vector: usize, width: usize) -> Vec<i64> {
    if a.coef.is_empty() {
        return vec![a.base; width];
    }
    let mut base = a.base;
    for (k, (&c, &i)) in a.coef.iter().zip(idx).enumerate() {
        if k != vector {
            base += c * i;
        }
    }
    let start = base + a.coef[vector] * idx[vector];
    (0..width as i64)
        .map(|l| start + a.coef[vector] * l)
        .collect()
}

fn gather_lanes(src: &Array, offsets: &[i64], clamp: bool) -> Array {
    let len = src.size() as i64;
    if len == 0 {
        // An empty operand is only ever read under a mask that discards the lanes.
        return Array::zeros(src.dtype(), &[offsets.len()]);
    }
    with_dtype!(src.dtype(), T, {
        let s = src.as_slice::<T>();
        let v: Vec<T> = offsets
            .iter()
            .map(|&o| {
                let o = if clamp { o.clamp(0, len - 1) } else { o };
                s[o as usize]
            })
            .collect();
        let n = v.len();
        Array::from_vec(v, &[n])
    })
}

fn from_i64(values: &[i64], dtype: DType) -> Array {
    with_dtype!(dtype, T, {
        let v: Vec<T> = values.iter().map(|&x| T::from_f64(x as f64)).collect();
        let n = v.len();
        Array::from_vec(v, &[n])
    })
}

fn nan_max(a: f64, x: f64) -> f64 {
    if a.is_nan() || x.is_nan() {
        f64::NAN
    } else {
        a.max(x)
    }
}

fn nan_min(a: f64, x: f64) -> f64 {
    if a.is_nan() || x.is_nan() {
        f64::NAN
    } else {
        a.min(x)
    }
}

/// The kernel's epilogue applied to reduced values.
fn epilogue(k: &Kernel, mut v: Array) -> Array {
    for (prim, operands) in &k.epilogue {
        let args: Vec<Array> = operands
            .iter()
            .map(|o| o.clone().unwrap_or_else(|| v.clone()))
            .collect();
        v = prim.eval(&args).remove(0);
    }
    v
}

/// `value`'s lanes followed by the identity of `op` up to `width` lanes.
fn pad_identity(value: &Array, width: usize, op: ReduceOp) -> Array {
    let id = Prim::Reduce { op, axes: vec![0] }
        .eval(&[Array::zeros(value.dtype(), &[0])])
        .remove(0);
    let hi = (width - value.size()) as i64;
    Prim::Pad {
        padding_config: vec![(0, hi, 0)],
    }
    .eval(&[value.clone(), id])
    .remove(0)
}

/// `a` as `width` lanes (a single value is repeated).
fn widen(a: &Array, width: usize) -> Array {
    if a.ndim() == 1 && a.size() == width {
        return a.clone();
    }
    Prim::BroadcastInDim {
        shape: crate::array::shape_of(&[width]),
        broadcast_dimensions: vec![],
    }
    .eval(&[a.reshaped(&[])])
    .remove(0)
}

impl Run<'_> {
    fn deps_vector(&self, node: usize) -> bool {
        self.k.nodes[node].deps & (1 << self.order.vector) != 0
    }

    fn lanes(&self, node: usize) -> usize {
        if self.deps_vector(node) {
            self.width
        } else {
            1
        }
    }

    /// Buffer offsets of a load or gather node's lanes at the current loop indices.
    fn offsets(&self, n: usize, w: usize) -> Vec<i64> {
        let v = self.order.vector;
        match &self.k.nodes[n].op {
            NodeOp::Load { offset, .. } => affine_lanes(offset, &self.idx, v, w),
            NodeOp::Gather { starts, window, .. } => {
                let mut off = affine_lanes(window, &self.idx, v, w);
                for s in starts {
                    let st = self.values[s.node].as_ref().expect("start evaluated");
                    let add = |off: &mut [i64], at: &dyn Fn(usize) -> i64| {
                        for (l, o) in off.iter_mut().enumerate() {
                            *o += s.stride * at(l).clamp(0, s.max);
                        }
                    };
                    let uniform = st.size() == 1;
                    let pick = |l: usize| if uniform { 0 } else { l };
                    match st.dtype() {
                        DType::I32 => {
                            let v = st.as_slice::<i32>();
                            add(&mut off, &|l| v[pick(l)] as i64)
                        }
                        DType::U32 => {
                            let v = st.as_slice::<u32>();
                            add(&mut off, &|l| v[pick(l)] as i64)
                        }
                        _ => {
                            let v = st.to_f64_vec();
                            add(&mut off, &|l| v[pick(l)] as i64)
                        }
                    }
                }
                off
            }
            _ => unreachable!("only loads have offsets"),
        }
    }

    /// The innermost reduced loop `p`, when only the root (a load) depends on it: each lane
    /// reduces a strided run of the buffer directly.
    fn strided_reduction(&mut self, p: usize) -> Option<Array> {
        let k = self.k;
        let (op, flags) = k.reduce.as_ref()?;
        let d = self.order.loops[p];
        let root = k.nodes.len() - 1;
        if p + 1 != self.order.loops.len()
            || !flags[d]
            || d == self.order.vector
            || self.at[p] != [root]
        {
            return None;
        }
        let (slot, step, clamp) = match &k.nodes[root].op {
            NodeOp::Load {
                slot,
                offset,
                clamp,
            } => (*slot, offset.coef[d], *clamp),
            NodeOp::Gather { slot, window, .. } => (*slot, window.coef[d], false),
            _ => return None,
        };
        self.idx[d] = 0;
        let w = self.lanes(root);
        let offs = self.offsets(root, w);
        let src = &self.inputs[slot];
        let len = src.size() as i64;
        let extent = k.loops[d] as i64;
        let dtype = k.nodes[root].dtype;
        let lanes: Vec<f64> = with_dtype!(dtype, T, {
            let s = src.as_slice::<T>();
            let at = |o: i64| s[(if clamp { o.clamp(0, len - 1) } else { o }) as usize].to_f64();
            offs.iter()
                .map(|&o| {
                    let run = (0..extent).map(|r| at(o + step * r));
                    match op {
                        ReduceOp::Sum => run.sum(),
                        ReduceOp::Max => run.fold(f64::NEG_INFINITY, nan_max),
                        _ => run.fold(f64::INFINITY, nan_min),
                    }
                })
                .collect()
        });
        Some(with_dtype!(dtype, T, {
            let v: Vec<T> = lanes.iter().map(|&x| T::from_f64(x)).collect();
            Array::from_vec(v, &[w])
        }))
    }

    fn eval(&mut self, n: usize) {
        let node = &self.k.nodes[n];
        let w = self.lanes(n);
        let v = self.order.vector;
        let value = match &node.op {
            NodeOp::Lit(l) => l.clone(),
            NodeOp::Load { slot, clamp, .. } => {
                gather_lanes(&self.inputs[*slot], &self.offsets(n, w), *clamp)
            }
            NodeOp::Gather { slot, .. } => {
                gather_lanes(&self.inputs[*slot], &self.offsets(n, w), false)
            }
            NodeOp::Iota { value } => from_i64(&affine_lanes(value, &self.idx, v, w), node.dtype),
            NodeOp::InRange { value, lo, hi } => {
                let lanes: Vec<bool> = affine_lanes(value, &self.idx, v, w)
                    .iter()
                    .map(|x| (*lo..*hi).contains(x))
                    .collect();
                Array::from_vec(lanes, &[w])
            }
            NodeOp::Apply { prim, args } => {
                let mut ins: Vec<Array> = args
                    .iter()
                    .map(|&a| self.values[a].clone().expect("argument evaluated"))
                    .collect();
                match prim {
                    // A predicate that is the same for every lane picks one case whole.
                    Prim::SelectN if ins[0].ndim() == 0 => {
                        let which = ins[0].item() as usize;
                        ins.swap_remove(1 + which.min(ins.len() - 2))
                    }
                    Prim::SelectN if ins.iter().any(|a| a.ndim() == 1) => {
                        let wide = ins.iter().map(|a| a.size()).max().unwrap_or(1);
                        ins = ins.iter().map(|a| widen(a, wide)).collect();
                        prim.eval(&ins).remove(0)
                    }
                    _ => prim.eval(&ins).remove(0),
                }
            }
        };
        // Single values are held as rank-0 arrays, lanes as rank-1.
        let value = if value.size() == 1 && w == 1 {
            value.reshaped(&[])
        } else {
            value
        };
        self.values[n] = Some(value);
    }

    fn root(&self) -> Array {
        let r = self.k.nodes.len() - 1;
        widen(self.values[r].as_ref().expect("root evaluated"), self.width)
    }

    /// Offsets in the output of the current block's lanes.
    fn out_lanes(&self) -> Vec<i64> {
        let v = self.order.vector;
        let mut base = 0;
        let mut lane = 0;
        for (d, &s) in self.out_strides.iter().enumerate() {
            if s == 0 {
                continue;
            }
            if d == v {
                lane = s;
                base += s * self.idx[d];
            } else {
                base += s * self.idx[d];
            }
        }
        (0..self.width as i64).map(|l| base + lane * l).collect()
    }

    fn walk(&mut self, p: usize) {
        let k = self.k;
        if p == self.order.loops.len() {
            self.innermost();
            return;
        }
        let d = self.order.loops[p];
        let extent = k.loops[d] as i64;
        let reduced = k.reduce.as_ref().is_some_and(|(_, f)| f[d]);
        let first_reduced = reduced
            && (p == 0 || {
                let prev = self.order.loops[p - 1];
                !k.reduce.as_ref().is_some_and(|(_, f)| f[prev])
            });
        if first_reduced {
            self.acc = None;
        }
        if let Some(value) = self.strided_reduction(p) {
            self.fold(value);
            if first_reduced {
                self.finish();
            }
            return;
        }
        let step = if d == self.order.vector {
            LANES as i64
        } else {
            1
        };
        let (mut i, end) = if p == 0 { self.range0 } else { (0, extent) };
        while i < end {
            self.idx[d] = i;
            if d == self.order.vector {
                self.width = (end - i).min(LANES as i64) as usize;
            }
            for n in std::mem::take(&mut self.at[p]) {
                self.eval(n);
                self.at[p].push(n);
            }
            self.walk(p + 1);
            i += step;
        }
        if first_reduced {
            self.finish();
        }
    }

    /// At the innermost loop: store the root, or fold it into the accumulator.
    fn innermost(&mut self) {
        let value = self.root();
        match &self.k.reduce {
            None => {
                let offs = self.out_lanes();
                let vals = value.to_f64_vec();
                for (o, x) in offs.iter().zip(vals) {
                    self.out.set(*o as usize, x);
                }
            }
            Some(_) => self.fold(value),
        }
    }

    /// Folds one innermost value into the reduction's accumulator.
    fn fold(&mut self, value: Array) {
        let value = widen(&value, self.width);
        let rop = self
            .k
            .reduce
            .as_ref()
            .map(|(o, _)| *o)
            .expect("a reduction");
        let op = match rop {
            ReduceOp::Sum => BinaryOp::Add,
            ReduceOp::Max => BinaryOp::Max,
            _ => BinaryOp::Min,
        };
        self.acc = Some(match self.acc.take() {
            None => value,
            Some(acc) if acc.size() == value.size() => {
                Prim::Binary(op).eval(&[acc, value]).remove(0)
            }
            Some(acc) => {
                // A shorter last block of the vector loop: pad it with the identity.
                let padded = pad_identity(&value, acc.size(), rop);
                Prim::Binary(op).eval(&[acc, padded]).remove(0)
            }
        });
    }

    fn epilogue(&self, v: Array) -> Array {
        epilogue(self.k, v)
    }

    /// After the reduced loops: write the accumulated values.
    fn finish(&mut self) {
        let Some(acc) = self.acc.take() else { return };
        let (op, flags) = self.k.reduce.as_ref().expect("a reduction");
        let v = self.order.vector;
        if flags[v] {
            let total = Prim::Reduce {
                op: *op,
                axes: (0..acc.ndim()).collect(),
            }
            .eval(&[acc])
            .remove(0);
            let total = self.epilogue(total);
            let mut off = 0;
            for (d, &s) in self.out_strides.iter().enumerate() {
                if d != v {
                    off += s * self.idx[d];
                }
            }
            self.out.set(off as usize, total.item());
        } else {
            let offs = self.out_lanes();
            let acc = self.epilogue(acc);
            for (o, x) in offs.iter().zip(acc.to_f64_vec()) {
                self.out.set(*o as usize, x);
            }
        }
    }
}

/// The kernel's output buffer, written by several threads at disjoint offsets.
struct Out {
    buf: *mut u8,
    len: usize,
    dtype: DType,
}

// SAFETY: threads write disjoint elements (each output element belongs to one part of the
// outermost loop), and the buffer outlives the scoped threads.
unsafe impl Sync for Out {}

impl Out {
    fn set(&self, off: usize, x: f64) {
        assert!(
            off < self.len,
            "kernel output offset {off} out of {}",
            self.len
        );
        with_dtype!(self.dtype, T, {
            // SAFETY: `buf` holds `len` elements of T, `off < len`, and no other thread
            // writes this element.
            unsafe { (self.buf as *mut T).add(off).write(T::from_f64(x)) }
        })
    }
}

/// Runs kernel `k` on its input buffers.
pub(crate) fn run(k: &Kernel, inputs: &[Array]) -> Array {
    let order = order(k);
    let n = k.loops.len();
    let reduced = |d: usize| k.reduce.as_ref().is_some_and(|(_, f)| f[d]);
    let out_shape: Vec<usize> = (0..n)
        .filter(|&d| !reduced(d))
        .map(|d| k.loops[d])
        .collect();
    let out_len: usize = out_shape.iter().product();
    let compact = strides_of(&out_shape);
    let mut it = compact.iter();
    let out_strides: Vec<i64> = (0..n)
        .map(|d| {
            if reduced(d) {
                0
            } else {
                *it.next().expect("stride") as i64
            }
        })
        .collect();
    let mut at = vec![Vec::new(); n.max(1)];
    let mut once = Vec::new();
    for (i, l) in order.level.iter().enumerate() {
        match l {
            Some(p) => at[*p].push(i),
            None => once.push(i),
        }
    }
    let dtype = k.out.aval.dtype;
    let mut buffer = Buffer::zeroed(out_len * dtype.size());
    let out = Out {
        buf: buffer.as_mut_ptr(),
        len: out_len,
        dtype,
    };
    if k.loops.contains(&0) {
        if let Some((op, _)) = &k.reduce {
            // Reducing an empty loop gives the monoid's identity.
            let root = k.nodes.last().map_or(dtype, |n| n.dtype);
            let id = Prim::Reduce {
                op: *op,
                axes: vec![0],
            }
            .eval(&[Array::zeros(root, &[0])])
            .remove(0);
            let id = epilogue(k, id).item();
            (0..out_len).for_each(|o| out.set(o, id));
        }
        return Array::from_buffer(dtype, &out_shape, buffer);
    }
    let first = order.loops.first().copied();
    let extent0 = first.map_or(1, |d| k.loops[d] as i64);
    let step0 = if first == Some(order.vector) {
        LANES as i64
    } else {
        1
    };
    let new_run = |range0: (i64, i64)| Run {
        k,
        inputs,
        idx: vec![0; n],
        width: if n == 0 { 1 } else { 0 },
        values: vec![None; k.nodes.len()],
        at: at.clone(),
        out: &out,
        out_strides: out_strides.clone(),
        range0,
        acc: None,
        order: Order {
            loops: order.loops.clone(),
            vector: order.vector,
            level: order.level.clone(),
        },
    };
    let go = |mut r: Run| {
        for &i in &once {
            r.eval(i);
        }
        if n == 0 {
            r.width = 1;
            r.innermost();
        } else {
            r.walk(0);
        }
    };
    // Split the outermost loop over threads when it is not reduced.
    let parts = rayon::current_num_threads() as i64;
    let steps = (extent0 + step0 - 1) / step0;
    if n > 0 && !reduced(first.expect("a loop")) && parts > 1 && steps >= 2 {
        let per = (steps + parts - 1) / parts * step0;
        rayon::scope(|s| {
            let mut lo = 0;
            while lo < extent0 {
                let hi = (lo + per).min(extent0);
                let run = new_run((lo, hi));
                s.spawn(move |_| go(run));
                lo = hi;
            }
        });
    } else {
        go(new_run((0, extent0)));
    }
    Array::from_buffer(dtype, &out_shape, buffer)
}
