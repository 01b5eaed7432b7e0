//! The block interpreter that runs a fused kernel.
//!
//! One loop of the nest is vectorised: the interpreter walks it in blocks of up to
//! [`LANES`] lanes, and every node is a typed vector of lanes, kept in a buffer of its own
//! that every block reuses. The other loops run one index at a time, and each node is
//! evaluated at the innermost loop its value depends on — an index computation that
//! depends only on the site is computed once per block of sites, not once per neighbour.
//! A node that does not depend on the vector loop holds a single value.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::fuse::{Affine, Kernel, NodeOp};
use super::pairwise::Pairwise;

use crate::array::with_dtype;
use crate::array::{strides_of, Array, Buffer, DType, Elem, Lane, Values, ValuesMut};
use crate::core::Prim;
use crate::prims::{fold, fold_by, with_monoid, Monoid, ReduceOp, SHORT_RUN};

/// Lanes per block. Each node's lanes are 4 KiB of `f32`, so a kernel's working set stays
/// in the core's caches; on seed 004, blocks of 1024 lanes run 1.2x faster than blocks of
/// 256 (the dispatch per node and block is spread over more lanes) and as fast as 4096.
const LANES: usize = 1024;

/// Bytes of operands a tile of the outermost loop keeps in cache (half a core's L2).
const TILE_BYTES: usize = 1 << 20;

/// Operands an elementwise node gathers without allocating.
const MAX_ARGS: usize = 4;

/// How the loops are walked.
#[derive(Clone, Debug)]
struct Order {
    /// Loop indices, outermost first.
    loops: Vec<usize>,
    /// The vectorised loop.
    vector: usize,
    /// Iterations of the innermost loop walked together in one block, side by side after
    /// the vector loop's lanes (1: one at a time); see [`rows`].
    rows: usize,
    /// The nodes evaluated on entering each loop position.
    at: Vec<Vec<usize>>,
    /// The nodes that depend on no loop, evaluated once.
    once: Vec<usize>,
    /// Whether the innermost loop is a reduction only the root (a load) depends on, whose
    /// lanes each reduce a strided run of the buffer directly.
    strided: bool,
}

/// Chooses the vector loop: the one most nodes depend on, preferring loops along which
/// loads and stores are contiguous and long loops.
fn order(k: &Kernel) -> Order {
    let n = k.loops.len();
    // The lanes of a block along `d`: short last loops walk several rows per block when
    // the kernel allows it (see [`rows`]), the loop before them giving the rows.
    let lanes = |d: usize| {
        let e = k.loops[d];
        if d + 1 == n && d > 0 && e <= LANES / 2 && rowwise(k) {
            (e * k.loops[d - 1]).min(LANES)
        } else {
            e.min(LANES)
        }
    };
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
        // Without a reduction, a result is stored per point: contiguously along the last
        // loop.
        if k.reduce.is_none() && d + 1 == n {
            s += 4.0;
        }
        s * (lanes(d) as f64).sqrt()
    };
    let vector = (0..n)
        .max_by(|&a, &b| score(a).total_cmp(&score(b)).then(b.cmp(&a)))
        .unwrap_or(0);
    let mut loops: Vec<usize> = Vec::with_capacity(n);
    if n > 0 && !k.reduced(vector) {
        loops.push(vector);
    }
    loops.extend((0..n).filter(|&d| d != vector && !k.reduced(d)));
    loops.extend((0..n).filter(|&d| d != vector && k.reduced(d)));
    if n > 0 && k.reduced(vector) {
        loops.push(vector);
    }
    Order::new(k, vector, loops)
}

/// Rows of the innermost loop to walk in one block: a short vector loop (a bias added to
/// rows of 256) would otherwise run a block of few lanes per row, and pay each node's
/// dispatch per row. Lane `r * e + c` of a block is then row `r`, element `c` of the
/// vector loop (of extent `e`). A node of the vector loop alone is tiled across the rows
/// once, where it is evaluated; a node of the rows alone (a value per row, broadcast
/// along the vector loop) holds every lane, its value repeated along each row.
fn rows(k: &Kernel, order: &Order) -> usize {
    let (Some(&u), v) = (order.loops.last(), order.vector) else {
        return 1;
    };
    let e = k.loops[v];
    if rowwise(k) && u != v && e > 0 && e <= LANES / 2 {
        (LANES / e).min(k.loops[u]).max(1)
    } else {
        1
    }
}

/// Whether a kernel may walk several rows per block: one without a reduction or gather.
fn rowwise(k: &Kernel) -> bool {
    k.reduce.is_none()
        && !k
            .nodes
            .iter()
            .any(|node| matches!(node.op, NodeOp::Gather { .. }))
}

impl Order {
    /// The order walking `loops` (outermost first) with `vector` vectorised.
    fn new(k: &Kernel, vector: usize, loops: Vec<usize>) -> Order {
        let n = k.loops.len();
        let pos: Vec<usize> = (0..n)
            .map(|d| {
                loops
                    .iter()
                    .position(|&l| l == d)
                    .expect("every loop placed")
            })
            .collect();
        let mut at = vec![Vec::new(); n.max(1)];
        let mut once = Vec::new();
        for (i, node) in k.nodes.iter().enumerate() {
            let level = (0..n)
                .filter(|&d| node.deps & (1 << d) != 0)
                .map(|d| pos[d])
                .max();
            match level {
                Some(p) => at[p].push(i),
                None => once.push(i),
            }
        }
        let root = k.nodes.len().saturating_sub(1);
        let strided = loops.last().is_some_and(|&d| {
            let runs = matches!(
                k.nodes.last().map(|node| &node.op),
                Some(NodeOp::Load { .. } | NodeOp::Gather { .. })
            );
            runs && k.reduced(d) && d != vector && at[n - 1] == [root]
        });
        Order {
            loops,
            vector,
            rows: 1,
            at,
            once,
            strided,
        }
    }

    /// The steps one iteration of loop `d` takes: a block of lanes of the vector loop, a
    /// group of rows of the innermost loop, else one.
    fn step(&self, d: usize) -> usize {
        if d == self.vector {
            LANES
        } else if self.rows > 1 && self.loops.last() == Some(&d) {
            self.rows
        } else {
            1
        }
    }

    /// A tile size for the outermost loop, when the two outermost loops are kept (not
    /// reduced or vectorised), the second one's operands are too large to stay in cache
    /// across iterations of the first, and the first one's are small: walking a tile of
    /// the first loop inside the second reads each of the second's operands once per tile
    /// (from memory) and the tile's operands from cache.
    fn tile(&self, k: &Kernel) -> Option<usize> {
        let [a, b, ..] = self.loops[..] else {
            return None;
        };
        if [a, b].iter().any(|&d| k.reduced(d) || d == self.vector) {
            return None;
        }
        // Bytes one iteration of a loop reads through loads that depend on it and not on
        // the other one.
        let row = |this: usize, other: usize| -> usize {
            k.nodes
                .iter()
                .filter(|n| matches!(n.op, NodeOp::Load { .. } | NodeOp::Gather { .. }))
                .filter(|n| n.deps & (1 << this) != 0 && n.deps & (1 << other) == 0)
                .map(|n| {
                    let inner: usize = self.loops[2..]
                        .iter()
                        .filter(|&&d| n.deps & (1 << d) != 0)
                        .map(|&d| k.loops[d])
                        .product();
                    inner.saturating_mul(n.dtype.size())
                })
                .fold(0, usize::saturating_add)
        };
        let (row_a, row_b) = (row(a, b), row(b, a));
        let tile = TILE_BYTES / row_a.max(1);
        let streamed = row_b.saturating_mul(k.loops[b]) > TILE_BYTES;
        (row_a > 0 && streamed && tile >= 2 && tile < k.loops[a]).then_some(tile)
    }
}

/// The values of one node for the current block: up to [`LANES`] typed values, of which
/// the first `len` are current. One value stands for every lane.
struct Col {
    dtype: DType,
    len: usize,
    buf: Buffer,
    /// Lanes read where they lie in an input, instead of `buf`.
    view: Option<*const u8>,
}

// SAFETY: a view points into an input buffer that outlives the run, and that nothing
// writes during it but the run's own stores of the lanes it viewed (in place); each Col
// belongs to one thread's run, and a Col kept for the next run has its view cleared.
unsafe impl Send for Col {}

impl Col {
    /// Room for `lanes` values.
    fn new(dtype: DType, lanes: usize) -> Col {
        Col {
            dtype,
            len: 0,
            buf: Buffer::zeroed(lanes.max(1) * dtype.size()),
            view: None,
        }
    }

    fn get(&self) -> Values<'_> {
        with_dtype!(self.dtype, T, {
            let lanes = match self.view {
                // SAFETY: `view` was set by `set_view` to `len` in-bounds elements of T of
                // an input nothing writes while the block that viewed them runs.
                Some(p) => unsafe { std::slice::from_raw_parts(p as *const T, self.len) },
                None => &self.buf.as_slice::<T>()[..self.len],
            };
            T::wrap(lanes)
        })
    }

    /// The first `w` lanes, or the one value that stands for every lane. (A node tiled
    /// for a full group of rows has more lanes than a last, partial group reads.)
    fn first(&self, w: usize) -> Values<'_> {
        let v = self.get();
        if v.len() > w {
            with_dtype!(self.dtype, T, T::wrap(&T::slice(v)[..w]))
        } else {
            v
        }
    }

    /// Reads `lanes` where they lie (no copy).
    fn set_view<T: Lane>(&mut self, lanes: &[T]) {
        self.len = lanes.len();
        self.view = Some(lanes.as_ptr() as *const u8);
    }

    /// The first `len` values, to overwrite.
    fn typed_mut<T: Lane>(&mut self, len: usize) -> &mut [T] {
        self.len = len;
        self.view = None;
        &mut self.buf.as_mut_slice::<T>()[..len]
    }

    /// The first `len` values, to overwrite, as untyped values.
    fn set(&mut self, len: usize) -> ValuesMut<'_> {
        with_dtype!(self.dtype, T, T::wrap_mut(self.typed_mut::<T>(len)))
    }
}

/// A kernel's view of one input buffer. The buffer a kernel overwrites with its result
/// is never borrowed whole: each thread reads the elements it is about to write, one
/// block at a time.
#[derive(Clone, Copy)]
struct Src {
    ptr: *const u8,
    bytes: usize,
    /// Whether the kernel writes its result into this buffer.
    written: bool,
}

// SAFETY: a Src points into a buffer that outlives the kernel run; threads read it
// concurrently, and the one written in place is read only where the reading thread writes.
unsafe impl Send for Src {}
// SAFETY: as for Send.
unsafe impl Sync for Src {}

impl Src {
    fn of(a: &Array) -> Src {
        let bytes = a.as_bytes();
        Src {
            ptr: bytes.as_ptr(),
            bytes: bytes.len(),
            written: false,
        }
    }

    fn len<T: Lane>(&self) -> usize {
        self.bytes / std::mem::size_of::<T>()
    }

    /// Every element, for a buffer the kernel does not write.
    fn all<T: Lane>(&self) -> &[T] {
        assert!(
            !self.written,
            "a kernel read the buffer it writes as a whole"
        );
        // SAFETY: the buffer holds `len` initialised, aligned elements of T, lives for
        // the whole run, and nothing writes it during the run.
        unsafe { std::slice::from_raw_parts(self.ptr as *const T, self.len::<T>()) }
    }

    /// Elements `start..start + n`.
    fn range<T: Lane>(&self, start: usize, n: usize) -> &[T] {
        assert!(start + n <= self.len::<T>(), "kernel read out of its input");
        // SAFETY: in bounds (checked), aligned and initialised; in a buffer written in
        // place only the reading thread writes these elements, when it stores the block
        // that read them, after the block's last read.
        unsafe { std::slice::from_raw_parts((self.ptr as *const T).add(start), n) }
    }
}

/// `a` at the current loop indices (the vector loop at its block start), and its step
/// from one lane to the next.
fn affine_at(a: &Affine, idx: &[i64], vector: usize) -> (i64, i64) {
    let start = a.base + a.coef.iter().zip(idx).map(|(c, i)| c * i).sum::<i64>();
    (start, a.coef.get(vector).copied().unwrap_or(0))
}

/// `out[l] = src[start + step * l]`. With `clamp`, indices are clamped into the buffer
/// (masked-off lanes of a padded or concatenated operand may point outside it; their
/// values are discarded).
fn load<T: Lane>(src: &Src, start: i64, step: i64, clamp: bool, out: &mut [T]) {
    let len = src.len::<T>() as i64;
    if len == 0 {
        // An empty operand is only ever read under a mask that discards the lanes.
        out.fill(T::default());
        return;
    }
    let last = start + step * (out.len() as i64 - 1).max(0);
    if start.min(last) >= 0 && start.max(last) < len {
        if step == 1 {
            out.copy_from_slice(src.range(start as usize, out.len()));
        } else if src.written {
            for (l, o) in out.iter_mut().enumerate() {
                *o = src.range((start + step * l as i64) as usize, 1)[0];
            }
        } else {
            let s = src.all::<T>();
            for (l, o) in out.iter_mut().enumerate() {
                *o = s[(start + step * l as i64) as usize];
            }
        }
    } else {
        assert!(clamp, "kernel load {start}+{step}*l out of {len} elements");
        let s = src.all::<T>();
        for (l, o) in out.iter_mut().enumerate() {
            *o = s[(start + step * l as i64).clamp(0, len - 1) as usize];
        }
    }
}

/// `acc[l]` combined with every element of the run `src[offs[l] + step * r]`, `r < extent`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn reduce_runs<T: Copy>(
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

/// `acc[l]` combined with `src[start + l + step * r]` for every `r < extent`: runs side by
/// side (a sum over the rows of a matrix), folded a whole row of lanes at a time, reading
/// the buffer in order (in the order a fold of each run takes).
#[inline(never)]
fn fold_rows<T: Copy>(
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

/// Folds `v`'s first `width` lanes (one value: repeated) into the accumulator.
fn fold_into(op: ReduceOp, acc: &mut Col, v: Values, width: usize) {
    with_dtype!(acc.dtype, T, [I32, U32, F32, F64], {
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

/// The kernel's epilogue applied to `value`'s lanes: the values to store.
fn epilogue<'c>(k: &Kernel, value: &'c Col, scratch: &'c mut Col) -> &'c Col {
    if k.apply_epilogue(value.get(), scratch.set(value.len)) {
        scratch
    } else {
        value
    }
}

/// A run's lane buffers and index state, which a kernel that runs on the calling thread
/// keeps from one call to the next: a small call spends more on allocating them than on
/// its arithmetic.
struct Scratch {
    /// Every node's values.
    cols: Vec<Col>,
    /// Current index of every loop (the vector loop: its block start).
    idx: Vec<i64>,
    /// The node whose values each node's are: itself, or the case a `select_n` with a
    /// predicate uniform over the block picked.
    alias: Vec<usize>,
    /// Buffer offsets of the lanes of a load.
    offs: Vec<i64>,
    /// The reduction's running values, a lane each.
    acc: Col,
    /// A reduction over the vector loop, combined across lanes.
    total: Col,
    /// The epilogue's results.
    epi: Col,
}

impl Scratch {
    /// Buffers for a run of `k` in blocks of up to `lanes` lanes.
    fn new(k: &Kernel, lanes: usize) -> Box<Scratch> {
        let root_dtype = k.nodes.last().map_or(k.out.aval.dtype, |n| n.dtype);
        // A literal holds one value.
        let room = |op: &NodeOp| {
            if matches!(op, NodeOp::Lit(_)) {
                1
            } else {
                lanes
            }
        };
        Box::new(Scratch {
            cols: k
                .nodes
                .iter()
                .map(|n| Col::new(n.dtype, room(&n.op)))
                .collect(),
            idx: vec![0; k.loops.len()],
            alias: (0..k.nodes.len()).collect(),
            offs: Vec::with_capacity(lanes),
            acc: Col::new(root_dtype, lanes),
            total: Col::new(root_dtype, 1),
            epi: Col::new(k.out.aval.dtype, lanes),
        })
    }

    /// Bytes of its lane buffers.
    fn bytes(&self) -> usize {
        let cols = self.cols.iter().chain([&self.acc, &self.total, &self.epi]);
        cols.map(|c| c.buf.len_bytes()).sum()
    }

    /// Clears what a run leaves behind: views into its inputs, and aliases.
    fn clear(&mut self) {
        for (i, c) in self.cols.iter_mut().enumerate() {
            (c.len, c.view) = (0, None);
            self.alias[i] = i;
        }
        self.idx.fill(0);
    }
}

/// The [`Scratch`] a kernel keeps between calls (none while a call uses it), with its
/// bytes.
#[derive(Default)]
pub(crate) struct Kept(std::sync::Mutex<Option<(Box<Scratch>, usize)>>);

/// Bytes of lane buffers that all kernels keep between calls.
static KEPT_BYTES: AtomicUsize = AtomicUsize::new(0);

/// The most bytes of lane buffers kernels keep between calls, all together: a program of
/// hundreds of kernels (a chain of 100,000 operations) allocates the buffers of those
/// beyond it on each call, rather than holding a few KiB per node for as long as it lives.
const KEPT_LIMIT: usize = 64 << 20;

impl Kept {
    fn take(&self) -> Option<Box<Scratch>> {
        let (s, bytes) = self.0.lock().ok()?.take()?;
        KEPT_BYTES.fetch_sub(bytes, Ordering::Relaxed);
        Some(s)
    }

    fn put(&self, mut s: Box<Scratch>) {
        let bytes = s.bytes();
        if KEPT_BYTES.fetch_add(bytes, Ordering::Relaxed) + bytes > KEPT_LIMIT {
            KEPT_BYTES.fetch_sub(bytes, Ordering::Relaxed);
            return;
        }
        s.clear();
        match self.0.lock() {
            Ok(mut kept) => {
                if let Some((_, old)) = kept.replace((s, bytes)) {
                    KEPT_BYTES.fetch_sub(old, Ordering::Relaxed);
                }
            }
            Err(_) => {
                KEPT_BYTES.fetch_sub(bytes, Ordering::Relaxed);
            }
        }
    }
}

impl Drop for Kept {
    fn drop(&mut self) {
        let kept = self.0.get_mut().unwrap_or_else(|e| e.into_inner());
        if let Some((_, bytes)) = kept.take() {
            KEPT_BYTES.fetch_sub(bytes, Ordering::Relaxed);
        }
    }
}

impl Clone for Kept {
    /// A copy of the kernel keeps buffers of its own.
    fn clone(&self) -> Kept {
        Kept::default()
    }
}

impl std::fmt::Debug for Kept {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Kept")
    }
}

/// Evaluation state of one kernel run.
struct Run<'a> {
    k: &'a Kernel,
    inputs: &'a [Src],
    order: &'a Order,
    out: &'a Out,
    out_strides: &'a [i64],
    /// Lanes in the current block.
    width: usize,
    /// The loop position split over threads, and the part of it this run covers.
    split: (usize, i64, i64),
    /// Every node's values and the loop indices.
    s: Box<Scratch>,
}

impl Run<'_> {
    fn lanes(&self, node: usize) -> usize {
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
    fn rows_apart(&self, coef: &[i64], step: i64) -> Option<(usize, i64)> {
        let u = *self.order.loops.last()?;
        let e = self.k.loops[self.order.vector];
        let row = coef.get(u).copied().unwrap_or(0);
        (self.order.rows > 1 && row != e as i64 * step).then_some((e, row))
    }

    /// The index `a` gives lane `l` of the block: `start + step * l`, or row by row.
    fn lane_index(&self, a: &Affine, start: i64, step: i64) -> impl Fn(usize) -> i64 {
        let apart = self.rows_apart(&a.coef, step);
        move |l| match apart {
            Some((e, row)) => start + row * (l / e) as i64 + step * (l % e) as i64,
            None => start + step * l as i64,
        }
    }

    /// Fills `offs` with the buffer offsets of a load or gather node's lanes.
    fn lane_offsets(&mut self, n: usize, w: usize) {
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

    /// The innermost reduced loop `p`, when only the root (a load) depends on it: each lane
    /// reduces a strided run of the buffer directly.
    fn strided_reduction(&mut self, p: usize) -> bool {
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
        // Runs side by side (a sum over the rows of a matrix), all in bounds. (Checked on
        // the offsets, per block: deriving it from the load's index map instead moved seed
        // 004's gather kernel, which never comes here, by 10% in code layout alone.)
        let rows = |len: usize| {
            let span = step * (extent as i64 - 1);
            let (first, last) = (offs[0], offs[offs.len() - 1]);
            step != 1
                && first + span.min(0) >= 0
                && last + span.max(0) < len as i64
                && offs.windows(2).all(|p| p[1] == p[0] + 1)
        };
        with_dtype!(col.dtype, T, [I32, U32, F32, F64], {
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

    fn eval(&mut self, n: usize) {
        let node = &self.k.nodes[n];
        let w = self.lanes(n);
        let v = self.order.vector;
        match &node.op {
            NodeOp::Lit(l) => {
                let col = &mut self.s.cols[n];
                with_dtype!(col.dtype, T, {
                    col.typed_mut::<T>(1)[0] = l.as_slice::<T>()[0]
                })
            }
            NodeOp::Load {
                slot,
                offset,
                clamp,
            } => {
                let (start, step) = affine_at(offset, &self.s.idx, v);
                let apart = self.rows_apart(&offset.coef, step);
                let src = &self.inputs[*slot];
                let col = &mut self.s.cols[n];
                with_dtype!(col.dtype, T, {
                    let end = start + w as i64;
                    let rows = apart.filter(|_| w > 1);
                    if let Some((e, row)) =
                        rows.filter(|_| step == 0 && !src.written && src.len::<T>() > 0)
                    {
                        // A value per row, repeated along it, filled here: a `load` call
                        // per row made the softmax gradient over rows of 10 a fifth slower.
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
                        for (r, lanes) in col.typed_mut::<T>(w).chunks_mut(e).enumerate() {
                            load(src, start + row * r as i64, step, *clamp, lanes);
                        }
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
                self.lane_offsets(n, w);
                let col = &mut self.s.cols[n];
                with_dtype!(col.dtype, T, {
                    let src = self.inputs[*slot].all::<T>();
                    // Points masked off by a pad or concatenation around the gather may
                    // index outside the operand: clamp them, as loads do.
                    let last = (src.len() as i64 - 1).max(0);
                    for (o, &off) in col.typed_mut::<T>(w).iter_mut().zip(&self.s.offs) {
                        *o = src[off.clamp(0, last) as usize];
                    }
                })
            }
            NodeOp::Iota { value } => {
                let (start, step) = affine_at(value, &self.s.idx, v);
                let at = self.lane_index(value, start, step);
                let col = &mut self.s.cols[n];
                with_dtype!(col.dtype, T, {
                    for (l, o) in col.typed_mut::<T>(w).iter_mut().enumerate() {
                        *o = T::from_f64(at(l) as f64);
                    }
                })
            }
            NodeOp::InRange { value, lo, hi } => {
                let (start, step) = affine_at(value, &self.s.idx, v);
                let at = self.lane_index(value, start, step);
                for (l, o) in self.s.cols[n].typed_mut::<bool>(w).iter_mut().enumerate() {
                    *o = (*lo..*hi).contains(&at(l));
                }
            }
            NodeOp::Apply { prim, args } => {
                let (before, rest) = self.s.cols.split_at_mut(n);
                let alias = &self.s.alias;
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
                self.s.alias[n] = target;
            }
        }
    }

    /// The output offset of the current block's first lane, and the step between lanes.
    fn out_lanes(&self) -> (i64, i64) {
        let base = self
            .out_strides
            .iter()
            .zip(&self.s.idx)
            .map(|(s, i)| s * i)
            .sum();
        let step = self.out_strides.get(self.order.vector).copied();
        (base, step.unwrap_or(0))
    }

    fn walk(&mut self, p: usize) {
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

    /// Sets every lane of the accumulator to the reduction's identity.
    fn reset(&mut self) {
        let (op, _) = self.k.reduce.as_ref().expect("a reduction");
        let acc = &mut self.s.acc;
        with_dtype!(acc.dtype, T, [I32, U32, F32, F64], {
            let lanes = acc.buf.len_bytes() / std::mem::size_of::<T>();
            acc.typed_mut::<T>(lanes).fill(T::identity(*op))
        });
        acc.len = 0;
    }

    /// At the innermost loop: store the root, or fold it into the accumulator.
    fn innermost(&mut self) {
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

    /// After the reduced loops: write the accumulated values.
    fn finish(&mut self) {
        let (op, flags) = self.k.reduce.as_ref().expect("a reduction");
        let (base, step) = self.out_lanes();
        if flags.get(self.order.vector).copied().unwrap_or(false) {
            let acc = &self.s.acc;
            let total = &mut self.s.total;
            with_dtype!(acc.dtype, T, [I32, U32, F32, F64], {
                let lanes = &acc.buf.as_slice::<T>()[..acc.len];
                let pairwise = *op == ReduceOp::Sum && acc.dtype.is_float();
                total.typed_mut::<T>(1)[0] = fold(*op, lanes, pairwise);
            });
            let v = epilogue(self.k, &self.s.total, &mut self.s.epi);
            self.out.store(v.get(), base, 0, 1);
        } else {
            self.s.acc.len = self.width;
            let v = epilogue(self.k, &self.s.acc, &mut self.s.epi);
            self.out.store(v.get(), base, step, self.width);
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
    /// Writes `v`'s lanes (one value: repeated) at `base + step * l` for `l < width`.
    fn store(&self, v: Values, base: i64, step: i64, width: usize) {
        if width == 0 {
            return;
        }
        let last = base + step * (width as i64 - 1);
        assert!(
            base.min(last) >= 0 && (base.max(last) as usize) < self.len,
            "kernel output offsets {base}..={last} out of {}",
            self.len
        );
        with_dtype!(self.dtype, T, {
            let s = T::slice(v);
            let p = self.buf as *mut T;
            // SAFETY: `base` is in bounds (checked above).
            let at = unsafe { p.add(base as usize) };
            if (step == 1 || width == 1) && s.len() >= width && std::ptr::eq(s.as_ptr(), at) {
                // The lanes were read in place from this very run: already stored.
                return;
            }
            if step == 1 && s.len() >= width {
                // SAFETY: as below, for the contiguous run `base..=last`, which `s` (a
                // different run, or another buffer) does not overlap.
                let run = unsafe { std::slice::from_raw_parts_mut(at, width) };
                run.copy_from_slice(&s[..width]);
                return;
            }
            for l in 0..width {
                let x = if s.len() == 1 { s[0] } else { s[l] };
                // SAFETY: `buf` holds `len` elements of T, every offset lies between `base`
                // and `last`, which are in bounds, and no other thread writes these elements.
                unsafe { p.offset((base + step * l as i64) as isize).write(x) }
            }
        })
    }
}

/// Where a kernel writes its result.
pub(crate) enum Target {
    /// A new buffer.
    Fresh,
    /// A buffer of the result's size that an earlier value no longer needs.
    Reuse(Buffer),
    /// The buffer of this input slot, which dies here (see [`Kernel::in_place_slots`]).
    InPlace(usize),
}

/// What a kernel's runs share, worked out on its first run: the loop order (tiled or
/// not), the loop split over threads and the result's layout.
#[derive(Clone, Debug)]
pub(crate) struct Prepared {
    order: Order,
    /// The tile size of the outermost loop and the tiled walk (the two outermost loops
    /// swapped), when tiling pays.
    tiled: Option<(usize, Order)>,
    /// The loop position split over threads.
    split: Option<usize>,
    out_len: usize,
    out_strides: Vec<i64>,
    /// The kernel as a pairwise sum, run by its micro-kernel instead of the interpreter.
    pairwise: Option<Pairwise>,
    /// Lane buffers kept between runs on the calling thread.
    kept: Kept,
}

/// The least work (loop iterations times nodes) of a kernel split over threads.
const PARALLEL_WORK: usize = 1 << 18;

fn prepare(k: &Kernel) -> Prepared {
    let mut order = order(k);
    order.rows = rows(k, &order);
    let n = k.loops.len();
    let out_shape: Vec<usize> = (0..n)
        .filter(|&d| !k.reduced(d))
        .map(|d| k.loops[d])
        .collect();
    let compact = strides_of(&out_shape);
    let mut it = compact.iter();
    let out_strides: Vec<i64> = (0..n)
        .map(|d| {
            if k.reduced(d) {
                0
            } else {
                *it.next().expect("stride") as i64
            }
        })
        .collect();
    // A small kernel runs on the calling thread: waking another costs more than it saves.
    let work = k
        .loops
        .iter()
        .fold(k.nodes.len(), |w, &d| w.saturating_mul(d));
    let parallel = work >= PARALLEL_WORK;
    let tiled = order.tile(k).filter(|_| parallel).map(|t| {
        let mut loops = order.loops.clone();
        loops.swap(0, 1);
        (t, Order::new(k, order.vector, loops))
    });
    // The outermost loop is split over threads, unless it has fewer steps than there are
    // threads and a loop inside it (not reduced) has more.
    let parts = crate::env::parts();
    let steps_at = |p: usize| {
        let d = order.loops[p];
        k.loops[d].div_ceil(order.step(d))
    };
    let open: Vec<usize> = (0..n).take_while(|&p| !k.reduced(order.loops[p])).collect();
    let split = open
        .iter()
        .copied()
        .find(|&p| steps_at(p) >= parts)
        .or_else(|| open.iter().copied().max_by_key(|&p| steps_at(p)))
        .filter(|&p| parallel && parts > 1 && steps_at(p) >= 2);
    Prepared {
        order,
        tiled,
        split,
        out_len: out_shape.iter().product(),
        out_strides,
        pairwise: Pairwise::detect(k),
        kept: Kept::default(),
    }
}

/// The most bytes a run of `k` holds beyond its inputs and result: the lane buffers of
/// every thread that runs a part of it (a block of lanes for each node, the running
/// reduction, the epilogue and the load offsets), or the pairwise micro-kernel's.
pub(crate) fn scratch_bytes(k: &Kernel) -> usize {
    let p = k.prepared.get_or_init(|| prepare(k));
    let threads = rayon::current_num_threads();
    if p.pairwise.is_some() {
        return threads * 1024 * std::mem::size_of::<f32>();
    }
    let lanes = k.loops.get(p.order.vector).map_or(1, |&e| e.min(LANES)) * p.order.rows;
    let root = k.nodes.last().map_or(k.out.aval.dtype, |n| n.dtype);
    let per_lane: usize = k.nodes.iter().map(|n| n.dtype.size()).sum::<usize>()
        + root.size()
        + k.out.aval.dtype.size()
        + std::mem::size_of::<i64>();
    let runs = if p.split.is_some() || p.tiled.is_some() {
        threads
    } else {
        1
    };
    runs * lanes.max(1) * per_lane
}

/// Runs kernel `k` on its input buffers, writing the result into `target`.
pub(crate) fn run(k: &Kernel, mut inputs: Vec<Array>, target: Target) -> Array {
    let Prepared {
        order,
        tiled,
        split,
        out_len,
        out_strides,
        pairwise,
        kept,
    } = k.prepared.get_or_init(|| prepare(k));
    let out_len = *out_len;
    let n = k.loops.len();
    let dtype = k.out.aval.dtype;
    let bytes = k.out.aval.nbytes();
    if let Some(p) = pairwise {
        let mut buffer = Buffer::zeroed(bytes);
        p.run(k, &inputs, buffer.as_mut_slice::<f32>());
        return Array::from_buffer(dtype, &k.out.aval.shape, buffer);
    }
    // Every element of the result is written, so its buffer needs no clearing.
    // SAFETY: every output element is stored exactly once below (the loops cover the
    // result; an empty reduction stores the identity everywhere).
    let fresh = || unsafe { Buffer::uninit(bytes) };
    let (mut buffer, written) = match target {
        Target::InPlace(slot) => {
            debug_assert!(k.in_place_slots().contains(&slot), "planned in place");
            let placeholder = Array::zeros(DType::U32, &[0]);
            match std::mem::replace(&mut inputs[slot], placeholder).into_buffer() {
                Ok(b) => (b, Some(slot)),
                Err(shared) => {
                    // Another owner still reads it: leave it be.
                    inputs[slot] = shared;
                    (fresh(), None)
                }
            }
        }
        Target::Reuse(b) if b.len_bytes() == bytes => (b, None),
        _ => (fresh(), None),
    };
    let mut srcs: Vec<Src> = inputs.iter().map(Src::of).collect();
    let out = Out {
        buf: buffer.as_mut_ptr(),
        len: out_len,
        dtype,
    };
    if let Some(slot) = written {
        srcs[slot] = Src {
            ptr: out.buf as *const u8,
            bytes,
            written: true,
        };
    }
    let inputs = &srcs[..];
    // A block never has more lanes than the vector loop.
    let lanes = k.loops.get(order.vector).map_or(1, |&e| e.min(LANES)) * order.rows;
    let new_run = |split: (usize, i64, i64), scratch: Option<Box<Scratch>>| Run {
        k,
        inputs,
        order: tiled.as_ref().map_or(order, |(_, o)| o),
        out: &out,
        out_strides,
        width: 1,
        split,
        s: scratch.unwrap_or_else(|| Scratch::new(k, lanes)),
    };
    if k.loops.contains(&0) {
        if let Some((op, _)) = &k.reduce {
            // Reducing an empty loop gives the monoid's identity.
            let mut r = new_run((0, 0, 0), None);
            with_dtype!(r.s.acc.dtype, T, [I32, U32, F32, F64], {
                r.s.acc.typed_mut::<T>(1)[0] = T::identity(*op)
            });
            let v = epilogue(k, &r.s.acc, &mut r.s.epi);
            out.store(v.get(), 0, 1, out_len);
        }
        return Array::from_buffer(dtype, &k.out.aval.shape, buffer);
    }
    let go = |mut r: Run<'_>| -> Box<Scratch> {
        for &i in &order.once {
            r.eval(i);
        }
        if n > 0 {
            r.walk(0);
        } else if k.reduce.is_some() {
            // A reduction over no loops: the value itself.
            r.reset();
            r.innermost();
            r.finish();
        } else {
            r.innermost();
        }
        r.s
    };
    let parts = crate::env::parts() as i64;
    match (tiled, split) {
        (&Some((t, _)), _) => {
            // Each thread walks tiles of its part of the outermost loop, the tile loop
            // inside the second (position 1 of the tiled order).
            let extent = k.loops[order.loops[0]] as i64;
            let per = (extent + parts - 1) / parts;
            rayon::scope(|s| {
                let mut lo = 0;
                while lo < extent {
                    let hi = (lo + per).min(extent);
                    let go = &go;
                    let new_run = &new_run;
                    s.spawn(move |_| {
                        let mut t0 = lo;
                        while t0 < hi {
                            let t1 = (t0 + t as i64).min(hi);
                            go(new_run((1, t0, t1), None));
                            t0 = t1;
                        }
                    });
                    lo = hi;
                }
            });
        }
        (None, &Some(p)) => {
            let d = order.loops[p];
            let extent = k.loops[d] as i64;
            let step = order.step(d) as i64;
            let steps = (extent + step - 1) / step;
            let per = (steps + parts - 1) / parts * step;
            rayon::scope(|s| {
                let mut lo = 0;
                while lo < extent {
                    let hi = (lo + per).min(extent);
                    let run = new_run((p, lo, hi), None);
                    s.spawn(move |_| {
                        go(run);
                    });
                    lo = hi;
                }
            });
        }
        _ => {
            let extent0 = order.loops.first().map_or(1, |&d| k.loops[d] as i64);
            kept.put(go(new_run((0, 0, extent0), kept.take())));
        }
    }
    // The loops may be coalesced: the result has the shape of the value computed.
    Array::from_buffer(dtype, &k.out.aval.shape, buffer)
}
