//! The lane buffers of a run: the small ones a kernel keeps between calls, and the spare
//! set each thread keeps for the next kernel it runs.

use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::ir::{Kernel, NodeOp};

use super::lanes::Col;
use crate::array::DType;

/// A run's lane buffers and index state. A kernel whose lane buffers are small (at most
/// [`KEPT_MOST`] bytes) and that runs on the calling thread keeps them from one call to
/// the next: a small call spends more on allocating them than on its arithmetic. Larger
/// ones are the thread's spare set ([`Scratch::take`]), refitted to each kernel and given
/// back after the run, so that the kernels of a program share the same few buffers, in
/// cache, instead of each touching its own cold ones on every call, and allocate nothing.
pub(super) struct Scratch {
    /// Every node's values.
    pub(super) cols: Vec<Col>,
    /// Current index of every loop (the vector loop: its block start).
    pub(super) idx: Vec<i64>,
    /// The node whose values each node's are: itself, or the case a `select_n` with a
    /// predicate uniform over the block picked.
    pub(super) alias: Vec<usize>,
    /// Buffer offsets of the lanes of a load.
    pub(super) offs: Vec<i64>,
    /// The reduction's running values, a lane each.
    pub(super) acc: Col,
    /// How many lanes the reduction folds (what `acc` holds for this kernel).
    pub(super) folded: usize,
    /// A reduction over the vector loop, combined across lanes.
    pub(super) total: Col,
    /// The epilogue's results.
    pub(super) epi: Col,
    /// Lane buffers beyond the current kernel's nodes, kept for a later one with more.
    extra: Vec<Col>,
}

/// The most bytes of lane buffers a thread keeps spare between runs.
const SPARE_MOST: usize = 256 << 10;

thread_local! {
    /// The lane buffers the last run on this thread gave back, for the next to refit.
    static SPARE: RefCell<Option<Box<Scratch>>> = const { RefCell::new(None) };
}

/// What a kernel's nodes hold: a literal one value, any other node a value per lane.
fn room(op: &NodeOp, lanes: usize) -> usize {
    if matches!(op, NodeOp::Lit(_)) {
        1
    } else {
        lanes
    }
}

impl Scratch {
    /// Buffers for a run of `k` in blocks of up to `lanes` lanes.
    pub(super) fn new(k: &Kernel, lanes: usize) -> Box<Scratch> {
        let (root, folded) = Scratch::folds(k, lanes);
        Box::new(Scratch {
            cols: k
                .nodes
                .iter()
                .map(|n| Col::new(n.dtype, room(&n.op, lanes)))
                .collect(),
            idx: vec![0; k.loops.len()],
            alias: (0..k.nodes.len()).collect(),
            offs: Vec::new(),
            acc: Col::new(root, folded),
            folded,
            total: Col::new(root, 1),
            epi: Col::new(k.out.aval.dtype, folded),
            extra: Vec::new(),
        })
    }

    /// The reduced value's dtype, and the lanes of the accumulator and the epilogue: only
    /// a reduction accumulates lanes and runs an epilogue on them.
    fn folds(k: &Kernel, lanes: usize) -> (DType, usize) {
        let root = k.nodes.last().map_or(k.out.aval.dtype, |n| n.dtype);
        (root, if k.reduce.is_some() { lanes } else { 1 })
    }

    /// Buffers for a run of `k` on this thread: the spare set the last run gave back,
    /// refitted (a buffer too small for its node is replaced), or new ones.
    pub(super) fn take(k: &Kernel, lanes: usize) -> Box<Scratch> {
        let Some(mut s) = SPARE.with(|s| s.borrow_mut().take()) else {
            return Scratch::new(k, lanes);
        };
        let n = k.nodes.len();
        let set = &mut *s;
        set.extra.extend(set.cols.drain(n.min(set.cols.len())..));
        while s.cols.len() < n {
            let c = s.extra.pop().unwrap_or_else(|| Col::new(DType::U8, 0));
            s.cols.push(c);
        }
        for (c, node) in s.cols.iter_mut().zip(&k.nodes) {
            c.fit(node.dtype, room(&node.op, lanes));
        }
        s.idx.clear();
        s.idx.resize(k.loops.len(), 0);
        s.alias.clear();
        s.alias.extend(0..n);
        if k.reduce.is_some() {
            // Only a reduction reads these.
            let (root, folded) = Scratch::folds(k, lanes);
            s.acc.fit(root, folded);
            s.folded = folded;
            s.total.fit(root, 1);
            s.epi.fit(k.out.aval.dtype, folded);
        }
        s
    }

    /// Gives the buffers back to this thread for its next run, unless they are large or a
    /// memory limit is in force (memory outside every plan, as held buffers are).
    pub(super) fn give_back(mut self: Box<Self>) {
        if self.bytes() > SPARE_MOST || crate::array::limit::limited() {
            return;
        }
        self.clear();
        SPARE.with(|s| *s.borrow_mut() = Some(self));
    }

    /// Bytes of its lane buffers.
    fn bytes(&self) -> usize {
        let cols = self.cols.iter().chain(&self.extra);
        let cols = cols.chain([&self.acc, &self.total, &self.epi]);
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

/// The [`Scratch`] a kernel keeps between calls (none while a call uses it), and the bytes
/// counted for it in [`KEPT_BYTES`]. The count stays while a call uses the scratch and
/// changes only when the scratch comes back another size, so that a kernel called at every
/// step of a loop touches no counter that loops on other threads touch too.
#[derive(Default)]
pub(crate) struct Kept(std::sync::Mutex<Slot>);

#[derive(Default)]
struct Slot {
    scratch: Option<Box<Scratch>>,
    bytes: usize,
}

/// The most bytes of lane buffers one kernel keeps between calls.
pub(super) const KEPT_MOST: usize = 4 << 10;

/// Bytes of lane buffers that all kernels keep between calls.
static KEPT_BYTES: AtomicUsize = AtomicUsize::new(0);

/// The most bytes of lane buffers kernels keep between calls, all together: a program of
/// hundreds of kernels (a chain of 100,000 operations) allocates the buffers of those
/// beyond it on each call, rather than holding a few KiB per node for as long as it lives.
const KEPT_LIMIT: usize = 64 << 20;

impl Kept {
    fn slot(&self) -> std::sync::MutexGuard<'_, Slot> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn take(&self) -> Option<Box<Scratch>> {
        self.slot().scratch.take()
    }

    pub(super) fn put(&self, mut s: Box<Scratch>) {
        let bytes = s.bytes();
        s.clear();
        let mut slot = self.slot();
        if bytes > slot.bytes {
            let more = bytes - slot.bytes;
            if KEPT_BYTES.fetch_add(more, Ordering::Relaxed) + more > KEPT_LIMIT {
                KEPT_BYTES.fetch_sub(more + slot.bytes, Ordering::Relaxed);
                *slot = Slot::default();
                return;
            }
        } else if bytes < slot.bytes {
            KEPT_BYTES.fetch_sub(slot.bytes - bytes, Ordering::Relaxed);
        }
        *slot = Slot {
            scratch: Some(s),
            bytes,
        };
    }
}

impl Drop for Kept {
    fn drop(&mut self) {
        let slot = self.0.get_mut().unwrap_or_else(|e| e.into_inner());
        KEPT_BYTES.fetch_sub(slot.bytes, Ordering::Relaxed);
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

#[cfg(test)]
mod tests {
    use crate::{disable_jit, jit, numpy as jnp, random, DType, Tensor};

    /// Kernels of other node counts, dtypes and reductions, one after another on this
    /// thread, each with lane buffers past what a kernel keeps: every run refits the spare
    /// set the run before gave back. Their results against the same functions run eagerly.
    #[test]
    fn kernels_refit_the_spare_lane_buffers() {
        // Small enough to run on one thread (a kernel split over threads makes its own).
        let x = random::normal(&random::key(0), &[32, 300]);
        let many = |x: Tensor| {
            let z = jnp::tanh(&(&x * 0.5)) + jnp::exp(&(&x * 0.1)) * &x;
            z - jnp::sin(&x) * jnp::cos(&(&x * 2.0)) + jnp::abs(&x).sqrt()
        };
        let ints = |x: Tensor| {
            let i = (&x * 10.0).astype(DType::I32);
            jnp::where_(x.gt(0.5), &i * 3, i)
        };
        let sums = |x: Tensor| (jnp::exp(&(&x * 0.2)) * &x).sum(1);
        let doubles = |x: Tensor| (x.astype(DType::F64) * 1.5).max(0);
        let fs = (jit(many), jit(ints), jit(sums), jit(doubles));
        for round in 0..3 {
            let x = &x * (1.0 + round as f64);
            let got = [
                fs.0.call(x.clone()).unwrap(),
                fs.1.call(x.clone()).unwrap(),
                fs.2.call(x.clone()).unwrap(),
                fs.3.call(x.clone()).unwrap(),
            ];
            let want = disable_jit(|| {
                [
                    many(x.clone()),
                    ints(x.clone()),
                    sums(x.clone()),
                    doubles(x.clone()),
                ]
            });
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g.dtype(), w.dtype(), "function {i}");
                let (g, w) = (
                    g.astype(DType::F64).to_vec::<f64>(),
                    w.astype(DType::F64).to_vec::<f64>(),
                );
                for (a, b) in g.iter().zip(&w) {
                    assert!(
                        (a - b).abs() <= 1e-5 * (1.0 + b.abs()),
                        "function {i}, round {round}: {a} vs {b}"
                    );
                }
            }
        }
    }
}
