//! Large freed buffers held for reuse, so that a program called again finds its large
//! results' pages mapped already.

use std::alloc::dealloc;
use std::ptr::NonNull;
use std::sync::Mutex;

use super::buffer::layout;

/// Freed buffers of at least `HELD_FROM` bytes (`buffer.rs`) held for reuse: repeated calls
/// of a program (a training loop) allocate the same large results each time, and memory
/// fresh from the kernel costs a page fault and a clearing of every page before the first
/// write. A buffer of the exact size a large allocation asks for is handed out again, its
/// pages already mapped.
///
/// Holding raises the peak of large buffers by an eighth at most: the cache counts the
/// large buffers alive and the most that were ever alive together, and an allocation that
/// no held buffer fits first releases the smallest held ones (the cheapest to fault in
/// again) until the held and the live ones together take no more than that most and an
/// eighth. The eighth is room for a program whose buffers of one size are not all alive
/// at its peak: holding every buffer of its call then takes a little more than the peak.
/// Held bytes are resident memory outside every plan, so nothing is held while a memory
/// limit is in force.
static HELD: Mutex<Held> = Mutex::new(Held {
    buffers: Vec::new(),
    bytes: 0,
    live: 0,
    peak: 0,
});

/// The most bytes [`HELD`] keeps.
const HELD_LIMIT: usize = 4 << 30;

/// The held and the live large buffers together take at most the most ever alive and this
/// fraction of it.
const ROOM: usize = 8;

/// Freed large allocations, smallest first, and their total size; the bytes of the large
/// buffers alive, and the most of them alive at once so far.
struct Held {
    buffers: Vec<(NonNull<u8>, usize)>,
    bytes: usize,
    live: usize,
    peak: usize,
}

// SAFETY: the held allocations are owned by the cache alone; whoever takes one out owns it.
unsafe impl Send for Held {}

impl Held {
    /// Takes out an allocation of exactly `bytes`, counted alive; or counts a fresh one of
    /// `bytes` alive as [`fresh`](Self::fresh) does.
    fn take(&mut self, bytes: usize) -> Option<NonNull<u8>> {
        if let Ok(i) = self.buffers.binary_search_by_key(&bytes, |&(_, b)| b) {
            self.bytes -= bytes;
            self.live += bytes;
            return Some(self.buffers.remove(i).0);
        }
        self.fresh(bytes);
        None
    }

    /// Counts a fresh allocation of `bytes` alive, releasing the smallest held ones until
    /// the held and the live take no more than the most ever alive and its [`ROOM`]th.
    fn fresh(&mut self, bytes: usize) {
        self.live += bytes;
        self.peak = self.peak.max(self.live);
        let over = (self.bytes + self.live).saturating_sub(self.peak + self.peak / ROOM);
        // The held bytes are at least `over`, since the live never pass the peak.
        let (mut n, mut freed) = (0, 0);
        while freed < over {
            freed += self.buffers[n].1;
            n += 1;
        }
        for (ptr, bytes) in self.buffers.drain(..n) {
            self.bytes -= bytes;
            // SAFETY: each held allocation was made in `uninit` with this layout and is
            // owned by the cache alone.
            unsafe { dealloc(ptr.as_ptr(), layout(bytes)) }
        }
    }

    /// Counts a large buffer of `bytes` freed, and keeps its allocation unless that would
    /// pass [`HELD_LIMIT`] or a memory limit is in force.
    fn keep(&mut self, ptr: NonNull<u8>, bytes: usize) -> bool {
        self.live = self.live.saturating_sub(bytes);
        let room = self.bytes + bytes <= HELD_LIMIT && !super::limit::limited();
        if room {
            let at = self.buffers.partition_point(|&(_, b)| b < bytes);
            self.buffers.insert(at, (ptr, bytes));
            self.bytes += bytes;
        }
        room
    }

    fn release(&mut self) {
        for (ptr, bytes) in self.buffers.drain(..) {
            // SAFETY: each held allocation was made in `uninit` with this layout and is
            // owned by the cache alone.
            unsafe { dealloc(ptr.as_ptr(), layout(bytes)) }
        }
        self.bytes = 0;
    }
}

/// Releases every held buffer.
pub(crate) fn release_held() {
    HELD.lock().unwrap_or_else(|e| e.into_inner()).release();
}

/// Bytes of the held buffers.
pub(crate) fn held_bytes() -> usize {
    HELD.lock().unwrap_or_else(|e| e.into_inner()).bytes
}

/// Takes out a held allocation of exactly `bytes`, or counts a fresh one alive (releasing
/// the smallest held ones that would raise the peak past its room); a fresh allocation that fails must be
/// counted freed with [`freed`].
pub(super) fn take(bytes: usize) -> Option<NonNull<u8>> {
    HELD.lock().unwrap_or_else(|e| e.into_inner()).take(bytes)
}

/// Counts a large allocation of `bytes` (made with `layout(bytes)`) freed and keeps it,
/// unless the cache is full or a memory limit is in force; false when the caller must
/// free it.
pub(super) fn keep(ptr: NonNull<u8>, bytes: usize) -> bool {
    HELD.lock()
        .unwrap_or_else(|e| e.into_inner())
        .keep(ptr, bytes)
}

/// Counts a fresh large allocation of `bytes` alive, made without asking for a held one
/// (zeroed memory under a memory limit).
pub(super) fn fresh(bytes: usize) {
    HELD.lock().unwrap_or_else(|e| e.into_inner()).fresh(bytes)
}

/// Counts a large allocation of `bytes` gone without being kept: one that [`take`] or
/// [`fresh`] counted and the system then refused.
pub(super) fn freed(bytes: usize) {
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    held.live = held.live.saturating_sub(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::alloc::alloc;

    const MIB: usize = 1 << 20;

    fn allocation(bytes: usize) -> NonNull<u8> {
        // SAFETY: the layout has non-zero size.
        NonNull::new(unsafe { alloc(layout(bytes)) }).expect("memory")
    }

    fn sizes(held: &Held) -> Vec<usize> {
        held.buffers.iter().map(|&(_, b)| b / MIB).collect()
    }

    /// The per-example gradients' pattern: a call takes a 2 MiB buffer, then a second one
    /// while the first is alive, then 20 MiB, frees the first 2 MiB and takes 100 MiB for
    /// its result. Holding all four takes 2 MiB more than the peak: within the room, so
    /// from the second call on every allocation is a hit.
    #[test]
    fn a_program_called_again_finds_all_its_buffers() {
        let mut held = Held {
            buffers: Vec::new(),
            bytes: 0,
            live: 0,
            peak: 0,
        };
        let mut fresh = 0;
        let mut call = |held: &mut Held| {
            let mut take = |held: &mut Held, b: usize| {
                held.take(b * MIB).unwrap_or_else(|| {
                    fresh += 1;
                    allocation(b * MIB)
                })
            };
            let (a, b, c) = (take(held, 2), take(held, 2), take(held, 20));
            assert!(held.keep(a, 2 * MIB));
            let r = take(held, 100);
            for (p, n) in [(r, 100), (b, 2), (c, 20)] {
                assert!(held.keep(p, n * MIB));
            }
        };
        for _ in 0..3 {
            call(&mut held);
            assert_eq!((sizes(&held), held.peak), (vec![2, 2, 20, 100], 122 * MIB));
            assert_eq!(held.live, 0);
        }
        held.release();
        assert_eq!(held.bytes, 0);
        assert_eq!(fresh, 4, "the first call's only");
    }

    /// A miss past the room releases the smallest held buffers first.
    #[test]
    fn a_miss_releases_the_smallest_held_buffers() {
        let mut held = Held {
            buffers: Vec::new(),
            bytes: 0,
            live: 0,
            peak: 0,
        };
        let bufs = [8, 1, 4, 64].map(|b| (held_fresh(&mut held, b), b));
        for (p, b) in bufs {
            assert!(held.keep(p, b * MIB));
        }
        assert_eq!((sizes(&held), held.peak), (vec![1, 4, 8, 64], 77 * MIB));
        // 12 MiB alive: 77 + 12 = 89 held and alive, the room is 77 + 9: 3 MiB must go.
        let p = held_fresh(&mut held, 12);
        assert_eq!(sizes(&held), [8, 64]);
        assert!(held.keep(p, 12 * MIB));
        held.release();
    }

    fn held_fresh(held: &mut Held, bytes: usize) -> NonNull<u8> {
        held.fresh(bytes * MIB);
        allocation(bytes * MIB)
    }
}
