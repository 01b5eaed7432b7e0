//! A 64-byte-aligned host allocation, shared between arrays through `Arc`.

use std::alloc::{alloc, alloc_zeroed, dealloc, Layout};
use std::cell::Cell;
use std::ptr::NonNull;

use super::dtype::Elem;

/// The alignment of every buffer: one cache line, and a full AVX-512 register.
pub const ALIGN: usize = 64;

/// Buffers up to this size are recycled through a per-thread pool: small results and the
/// lane buffers of kernels that are not refitted are allocated often, and aligned
/// allocation is slow.
const POOLED: usize = 4096;

/// Buffers of at least this size are aligned to [`HUGE_PAGE`], so that where the system
/// backs memory with transparent huge pages unasked (`enabled=always`) they are whole.
/// They are not advised (`MADV_HUGEPAGE`): under `defrag=madvise` that makes the first
/// touch wait for compaction, and in a VM that hands freed memory back to its host, huge
/// pages came back from the host several times slower than small ones
/// (`docs/performance.md`, "Huge pages").
const LARGE: usize = 4 << 20;

/// Freed buffers of at least this size are held for reuse (`held.rs`): a fresh mebibyte
/// costs 256 page faults, more than a collective of it across processes takes to move.
const HELD_FROM: usize = 1 << 20;

/// The size of a transparent huge page.
const HUGE_PAGE: usize = 2 << 20;

/// The most bytes one buffer can hold: an allocation is limited to `isize::MAX` bytes, and
/// a large one is rounded up to a whole huge page.
pub const MAX_BYTES: usize = (isize::MAX as usize + 1) - HUGE_PAGE;

/// The layout of a buffer of `bytes` bytes, at most [`MAX_BYTES`].
pub(super) fn layout(bytes: usize) -> Layout {
    let align = if bytes >= LARGE { HUGE_PAGE } else { ALIGN };
    Layout::from_size_align(bytes, align).expect("buffer sizes are at most MAX_BYTES")
}

/// An allocation the system refused: `bytes` could not be had.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocError {
    /// The bytes asked for.
    pub bytes: usize,
}

impl std::fmt::Display for AllocError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "memory allocation of {} bytes failed: the system refused it",
            self.bytes
        )
    }
}

impl std::error::Error for AllocError {}

thread_local! {
    /// How many [`quietly`] calls are running on this thread.
    static QUIET: Cell<usize> = const { Cell::new(0) };
}

/// Runs `f` with this thread's allocation failures unwinding quietly, an [`AllocError`] as
/// the payload, for a caller above to catch and report: a compiled call returns it as
/// `Error::OutOfMemory`, an eager primitive panics naming the user's line.
pub(crate) fn quietly<R>(f: impl FnOnce() -> R) -> R {
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            QUIET.with(|q| q.set(q.get() - 1));
        }
    }
    QUIET.with(|q| q.set(q.get() + 1));
    let _leave = Leave;
    f()
}

/// Whether this thread is inside [`quietly`].
pub(crate) fn is_quiet() -> bool {
    QUIET.with(Cell::get) > 0
}

/// Reports a refused allocation: quietly inside [`quietly`], else as a panic at the
/// caller's line naming the bytes (an unwinding panic, never the allocator's abort).
#[track_caller]
fn refused(bytes: usize) -> ! {
    let e = AllocError { bytes };
    if is_quiet() {
        std::panic::resume_unwind(Box::new(e))
    }
    panic!("{e}")
}

/// Free buffers kept per size.
const POOL_DEPTH: usize = 64;

/// Free small allocations of one thread, by size in 8-byte words; freed when the thread ends.
struct Pool(Vec<Vec<NonNull<u8>>>);

impl Drop for Pool {
    fn drop(&mut self) {
        for (words, free) in self.0.iter().enumerate() {
            for p in free {
                let layout = Layout::from_size_align(words * 8, ALIGN).expect("valid layout");
                // SAFETY: each pooled pointer was allocated with this layout and is owned
                // by the pool alone.
                unsafe { dealloc(p.as_ptr(), layout) }
            }
        }
    }
}

thread_local! {
    static POOL: std::cell::RefCell<Pool> =
        std::cell::RefCell::new(Pool(vec![Vec::new(); POOLED / 8 + 1]));
}

/// An immutable-after-construction block of bytes: 64-byte aligned when allocated here, at
/// least 8-byte aligned (enough for every element type) when adopted from a `Vec` or
/// borrowed from a foreign owner.
pub struct Buffer {
    ptr: NonNull<u8>,
    bytes: usize,
    origin: Origin,
}

/// Where a buffer's bytes come from, and so how they are freed.
enum Origin {
    /// Allocated here: pooled, held or freed with [`layout`].
    Own,
    /// A `Vec`'s allocation taken over ([`Buffer::from_vec`]), freed as the `Vec` would
    /// free it, never pooled or held.
    Vec(Layout),
    /// Memory another owner keeps alive ([`Buffer::from_foreign`]): never written, never
    /// freed here; the owner is dropped with the buffer.
    /// (The owner is never touched, only dropped, so a panic cannot see it half-changed:
    /// buffers stay unwind-safe.)
    Foreign {
        _owner: std::panic::AssertUnwindSafe<Box<dyn std::any::Any + Send + Sync>>,
    },
}

// SAFETY: a Buffer owns its allocation and is only written while uniquely owned.
unsafe impl Send for Buffer {}
// SAFETY: shared access is read-only.
unsafe impl Sync for Buffer {}

impl Buffer {
    /// Allocates `bytes` zeroed bytes.
    ///
    /// Panics at the caller's line, naming the bytes, when the system refuses them (see
    /// [`try_zeroed`](Self::try_zeroed)).
    #[track_caller]
    pub fn zeroed(bytes: usize) -> Buffer {
        match Buffer::try_zeroed(bytes) {
            Ok(b) => b,
            Err(e) => refused(e.bytes),
        }
    }

    /// Allocates `bytes` zeroed bytes, or says that the system refused them.
    pub fn try_zeroed(bytes: usize) -> Result<Buffer, AllocError> {
        if bytes == 0 {
            return Ok(Buffer {
                ptr: NonNull::<Aligned>::dangling().cast(),
                bytes: 0,
                origin: Origin::Own,
            });
        }
        if bytes <= POOLED && bytes.is_multiple_of(8) {
            let reused = POOL.with(|p| p.borrow_mut().0[bytes / 8].pop());
            if let Some(ptr) = reused {
                // SAFETY: the pooled allocation has exactly `bytes` bytes and no other owner.
                unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0, bytes) };
                return Ok(Buffer {
                    ptr,
                    bytes,
                    origin: Origin::Own,
                });
            }
        }
        if bytes >= HELD_FROM && !super::limit::limited() {
            // A held buffer when one fits (its pages mapped already), cleared here; under
            // a memory limit nothing is held, and the system's zeroed pages cost less.
            // SAFETY: the caller of `try_uninit` must write every byte; here they are zeroed.
            let b = unsafe { Buffer::try_uninit(bytes) }?;
            // SAFETY: `b` owns `bytes` bytes that nothing else references.
            unsafe { std::ptr::write_bytes(b.ptr.as_ptr(), 0, bytes) };
            return Ok(b);
        }
        let large = bytes >= HELD_FROM;
        if large {
            super::held::fresh(bytes);
        }
        let layout = layout(bytes);
        // SAFETY: layout has non-zero size.
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).ok_or_else(|| refused_large(bytes, large))?;
        Ok(Buffer {
            ptr,
            bytes,
            origin: Origin::Own,
        })
    }

    /// Allocates `bytes` bytes without clearing them, for a kernel that writes all of them;
    /// panics as [`zeroed`](Self::zeroed) does when the system refuses them.
    ///
    /// # Safety
    /// Every byte must be written before the buffer is read or dropped into an `Array`.
    #[track_caller]
    pub(crate) unsafe fn uninit(bytes: usize) -> Buffer {
        // SAFETY: passed on to our caller.
        match unsafe { Buffer::try_uninit(bytes) } {
            Ok(b) => b,
            Err(e) => refused(e.bytes),
        }
    }

    /// [`uninit`](Self::uninit), or says that the system refused the bytes.
    ///
    /// # Safety
    /// As for [`uninit`](Self::uninit).
    pub(crate) unsafe fn try_uninit(bytes: usize) -> Result<Buffer, AllocError> {
        if bytes <= POOLED {
            return Buffer::try_zeroed(bytes);
        }
        if bytes > MAX_BYTES {
            return Err(AllocError { bytes });
        }
        if bytes >= HELD_FROM {
            let held = super::held::take(bytes);
            if let Some(ptr) = held {
                return Ok(Buffer {
                    ptr,
                    bytes,
                    origin: Origin::Own,
                });
            }
        }
        let layout = layout(bytes);
        // SAFETY: layout has non-zero size.
        let raw = unsafe { alloc(layout) };
        let ptr = NonNull::new(raw).ok_or_else(|| refused_large(bytes, bytes >= HELD_FROM))?;
        Ok(Buffer {
            ptr,
            bytes,
            origin: Origin::Own,
        })
    }

    /// Copies a typed slice into a new buffer.
    #[track_caller]
    pub fn from_slice<T: Elem>(data: &[T]) -> Buffer {
        let mut b = Buffer::zeroed(std::mem::size_of_val(data));
        b.as_mut_slice::<T>().copy_from_slice(data);
        b
    }

    /// Takes over a `Vec`'s allocation without copying when it is aligned to 8 bytes, as
    /// the system allocator's are (else copies it). Spare capacity stays allocated with
    /// the buffer; `shrink_to_fit` first to free it.
    #[track_caller]
    pub fn from_vec<T: Elem>(data: Vec<T>) -> Buffer {
        if !(data.as_ptr() as usize).is_multiple_of(8) || data.capacity() == 0 {
            return Buffer::from_slice(&data);
        }
        let mut data = std::mem::ManuallyDrop::new(data);
        let layout = Layout::array::<T>(data.capacity()).expect("a Vec's capacity has a layout");
        let ptr =
            NonNull::new(data.as_mut_ptr().cast::<u8>()).expect("a Vec's pointer is not null");
        Buffer {
            ptr,
            bytes: std::mem::size_of_val(data.as_slice()),
            origin: Origin::Vec(layout),
        }
    }

    /// Borrows `bytes` bytes at `ptr` that `owner` keeps alive (a numpy array's data, say),
    /// without copying; the owner is dropped with the buffer. Such a buffer is never
    /// written: an array holding it is never reused as a kernel's output.
    ///
    /// # Safety
    /// `ptr` must be 8-byte aligned and point to `bytes` initialised bytes that stay valid
    /// and unchanged while `owner` lives.
    pub unsafe fn from_foreign(
        ptr: NonNull<u8>,
        bytes: usize,
        owner: Box<dyn std::any::Any + Send + Sync>,
    ) -> Buffer {
        assert!(
            (ptr.as_ptr() as usize).is_multiple_of(8),
            "from_foreign: the bytes must be 8-byte aligned"
        );
        Buffer {
            ptr,
            bytes,
            origin: Origin::Foreign {
                _owner: std::panic::AssertUnwindSafe(owner),
            },
        }
    }

    /// Whether the bytes belong to a foreign owner ([`from_foreign`](Self::from_foreign)),
    /// so that they must never be written.
    pub fn is_foreign(&self) -> bool {
        matches!(self.origin, Origin::Foreign { .. })
    }

    /// Copies raw bytes into a new buffer.
    #[track_caller]
    pub fn from_bytes(bytes: &[u8]) -> Buffer {
        // SAFETY: every byte is written by the copy below before the buffer is returned.
        let b = unsafe { Buffer::uninit(bytes.len()) };
        // SAFETY: `b` owns `bytes.len()` freshly allocated bytes that nothing else references.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), b.ptr.as_ptr(), bytes.len()) };
        b
    }

    /// Size in bytes.
    pub fn len_bytes(&self) -> usize {
        self.bytes
    }

    /// The contents viewed as elements of `T`.
    pub fn as_slice<T: Elem>(&self) -> &[T] {
        let n = self.bytes / std::mem::size_of::<T>();
        // SAFETY: the allocation is at least 8-byte aligned (enough for every Elem), `bytes` long and
        // zero-initialised or written as T; every Elem is valid for the bit patterns we store
        // (bools are only ever written as 0 or 1).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr() as *const T, n) }
    }

    /// The contents viewed mutably as elements of `T`.
    pub fn as_mut_slice<T: Elem>(&mut self) -> &mut [T] {
        let n = self.bytes / std::mem::size_of::<T>();
        // SAFETY: as in `as_slice`, and `&mut self` guarantees unique access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr() as *mut T, n) }
    }

    /// The contents as possibly uninitialised elements of `T`, for a kernel that writes
    /// every one of them into a buffer from [`uninit`](Self::uninit).
    pub(crate) fn as_uninit_mut<T: Elem>(&mut self) -> &mut [std::mem::MaybeUninit<T>] {
        let n = self.bytes / std::mem::size_of::<T>();
        // SAFETY: the allocation is 64-byte aligned and `bytes` long; MaybeUninit<T> has
        // T's layout and admits any bytes; `&mut self` guarantees unique access.
        unsafe {
            std::slice::from_raw_parts_mut(self.ptr.as_ptr().cast::<std::mem::MaybeUninit<T>>(), n)
        }
    }

    /// A pointer to the bytes, for kernels that write them from several threads.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// The raw bytes, mutably.
    pub fn as_mut_bytes(&mut self) -> &mut [u8] {
        // SAFETY: the allocation is `bytes` long and initialised; `&mut self` is unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.bytes) }
    }

    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8] {
        // SAFETY: the allocation is `bytes` long and initialised.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.bytes) }
    }
}

/// The error for `bytes` the system refused; a large allocation, counted alive by the held
/// cache before it was asked for, is counted freed.
fn refused_large(bytes: usize, large: bool) -> AllocError {
    if large {
        super::held::freed(bytes);
    }
    AllocError { bytes }
}

#[repr(align(64))]
struct Aligned;

impl Drop for Buffer {
    fn drop(&mut self) {
        match self.origin {
            Origin::Own => {}
            Origin::Vec(layout) => {
                // SAFETY: a `Vec<T>` allocated this with the global allocator and the layout
                // of its capacity, and gave it up to us alone (`from_vec`).
                unsafe { dealloc(self.ptr.as_ptr(), layout) };
                return;
            }
            Origin::Foreign { .. } => return,
        }
        if self.bytes > 0 && self.bytes <= POOLED && self.bytes.is_multiple_of(8) {
            let kept = POOL
                .try_with(|p| {
                    let mut p = p.borrow_mut();
                    let free = &mut p.0[self.bytes / 8];
                    let room = free.len() < POOL_DEPTH;
                    if room {
                        free.push(self.ptr);
                    }
                    room
                })
                .unwrap_or(false);
            if kept {
                return;
            }
        }
        if self.bytes >= HELD_FROM && super::held::keep(self.ptr, self.bytes) {
            return;
        }
        if self.bytes > 0 {
            // SAFETY: allocated in `zeroed` or `uninit` with this layout.
            unsafe { dealloc(self.ptr.as_ptr(), layout(self.bytes)) }
        }
    }
}
