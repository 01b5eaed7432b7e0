//! The lane buffers of a run, and the small ones a kernel keeps between calls.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::ir::{Kernel, NodeOp};

use super::lanes::Col;

/// A run's lane buffers and index state. A kernel whose lane buffers are small (at most
/// [`KEPT_MOST`] bytes) and that runs on the calling thread keeps them from one call to
/// the next: a small call spends more on allocating them than on its arithmetic. Larger
/// ones come from the thread's pool of small buffers (`array::Buffer`) and go back to it
/// after the run, so that the kernels of a program share the same few, in cache, instead
/// of each touching its own cold ones on every call.
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
    /// A reduction over the vector loop, combined across lanes.
    pub(super) total: Col,
    /// The epilogue's results.
    pub(super) epi: Col,
}

impl Scratch {
    /// Buffers for a run of `k` in blocks of up to `lanes` lanes.
    pub(super) fn new(k: &Kernel, lanes: usize) -> Box<Scratch> {
        let root_dtype = k.nodes.last().map_or(k.out.aval.dtype, |n| n.dtype);
        // Only a reduction accumulates lanes and runs an epilogue on them.
        let folded = if k.reduce.is_some() { lanes } else { 1 };
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
            offs: Vec::new(),
            acc: Col::new(root_dtype, folded),
            total: Col::new(root_dtype, 1),
            epi: Col::new(k.out.aval.dtype, folded),
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
