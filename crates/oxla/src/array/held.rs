//! Large freed buffers held for reuse, so that a program called again finds its large
//! results' pages mapped already.

use std::alloc::dealloc;
use std::ptr::NonNull;
use std::sync::Mutex;

use super::buffer::layout;

/// Freed buffers of at least `HELD_FROM` bytes (`buffer.rs`) held for reuse: repeated calls of a
/// program (a training loop) allocate the same large results each time, and memory fresh from the kernel costs a
/// page fault and a clearing of every page before the first write. A buffer of the exact
/// size a large allocation asks for is handed out again, its pages already mapped. On a miss every held buffer
/// is released first, so holding never raises the peak of large buffers: between two
/// misses the held and the live ones together take no more than the live ones did at the
/// first of them. Held bytes are resident memory outside every plan until then, so
/// nothing is held while a memory limit is in force.
static HELD: Mutex<Held> = Mutex::new(Held {
    buffers: Vec::new(),
    bytes: 0,
});

/// The most bytes [`HELD`] keeps.
const HELD_LIMIT: usize = 4 << 30;

/// Freed large allocations and their total size.
struct Held {
    buffers: Vec<(NonNull<u8>, usize)>,
    bytes: usize,
}

// SAFETY: the held allocations are owned by the cache alone; whoever takes one out owns it.
unsafe impl Send for Held {}

impl Held {
    /// Takes out an allocation of exactly `bytes`, or releases every held one.
    fn take(&mut self, bytes: usize) -> Option<NonNull<u8>> {
        if let Some(i) = self.buffers.iter().position(|&(_, b)| b == bytes) {
            self.bytes -= bytes;
            return Some(self.buffers.swap_remove(i).0);
        }
        self.release();
        None
    }

    /// Keeps a freed allocation, unless that would pass [`HELD_LIMIT`] or a memory limit
    /// is in force.
    fn keep(&mut self, ptr: NonNull<u8>, bytes: usize) -> bool {
        let room = self.bytes + bytes <= HELD_LIMIT && !super::limit::limited();
        if room {
            self.buffers.push((ptr, bytes));
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

/// Takes out a held allocation of exactly `bytes`, or releases every held one.
pub(super) fn take(bytes: usize) -> Option<NonNull<u8>> {
    HELD.lock().unwrap_or_else(|e| e.into_inner()).take(bytes)
}

/// Keeps a freed allocation of `bytes` (made with `layout(bytes)`), unless the cache is
/// full or a memory limit is in force; false when the caller must free it.
pub(super) fn keep(ptr: NonNull<u8>, bytes: usize) -> bool {
    HELD.lock()
        .unwrap_or_else(|e| e.into_inner())
        .keep(ptr, bytes)
}
