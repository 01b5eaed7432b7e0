//! The lanes of a block and the raw buffers they are read from and stored to: the only
//! unsafe code of the interpreter. Inputs and the result are shared by the threads of a
//! run through raw pointers, each thread reading what it reads and writing its own part.

use crate::array::{with_dtype, Array, Buffer, DType, Lane, Values, ValuesMut};
use crate::prims::isa::multiversion;

/// The values of one node for the current block: up to [`LANES`](super::schedule::LANES) typed values, of which
/// the first `len` are current. One value stands for every lane.
pub(super) struct Col {
    pub(super) dtype: DType,
    pub(super) len: usize,
    pub(super) buf: Buffer,
    /// Lanes read where they lie in an input, instead of `buf`.
    pub(super) view: Option<*const u8>,
}

// SAFETY: a view points into an input buffer that outlives the run, and that nothing
// writes during it but the run's own stores of the lanes it viewed (in place); each Col
// belongs to one thread's run, and a Col kept for the next run has its view cleared.
unsafe impl Send for Col {}

impl Col {
    /// Room for `lanes` values.
    pub(super) fn new(dtype: DType, lanes: usize) -> Col {
        Col {
            dtype,
            len: 0,
            buf: Buffer::zeroed(lanes.max(1) * dtype.size()),
            view: None,
        }
    }

    /// Makes room for `lanes` values of `dtype`, keeping the buffer when it is large enough.
    /// A buffer that held another dtype is cleared before it holds `bool`s, which are only
    /// ever 0 or 1 (its other bytes are viewed as `bool` too, though never read).
    pub(super) fn fit(&mut self, dtype: DType, lanes: usize) {
        let bytes = lanes.max(1) * dtype.size();
        if self.buf.len_bytes() < bytes {
            self.buf = Buffer::zeroed(bytes);
        } else if dtype == DType::Bool && self.dtype != DType::Bool {
            self.buf.as_mut_bytes().fill(0);
        }
        (self.dtype, self.len, self.view) = (dtype, 0, None);
    }

    #[inline(always)]
    pub(super) fn get(&self) -> Values<'_> {
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
    #[inline(always)]
    pub(super) fn first(&self, w: usize) -> Values<'_> {
        let v = self.get();
        if v.len() > w {
            with_dtype!(self.dtype, T, T::wrap(&T::slice(v)[..w]))
        } else {
            v
        }
    }

    /// Reads `lanes` where they lie (no copy).
    #[inline(always)]
    pub(super) fn set_view<T: Lane>(&mut self, lanes: &[T]) {
        self.len = lanes.len();
        self.view = Some(lanes.as_ptr() as *const u8);
    }

    /// The first `len` values, to overwrite.
    #[inline(always)]
    pub(super) fn typed_mut<T: Lane>(&mut self, len: usize) -> &mut [T] {
        self.len = len;
        self.view = None;
        &mut self.buf.as_mut_slice::<T>()[..len]
    }

    /// The first `len` values, to overwrite, as untyped values.
    pub(super) fn set(&mut self, len: usize) -> ValuesMut<'_> {
        with_dtype!(self.dtype, T, T::wrap_mut(self.typed_mut::<T>(len)))
    }
}

/// A kernel's view of one input buffer. The buffer a kernel overwrites with its result
/// is never borrowed whole: each thread reads the elements it is about to write, one
/// block at a time.
#[derive(Clone, Copy)]
pub(super) struct Src {
    pub(super) ptr: *const u8,
    pub(super) bytes: usize,
    /// Whether the kernel writes its result into this buffer.
    pub(super) written: bool,
}

// SAFETY: a Src points into a buffer that outlives the kernel run; threads read it
// concurrently, and the one written in place is read only where the reading thread writes.
unsafe impl Send for Src {}
// SAFETY: as for Send.
unsafe impl Sync for Src {}

impl Src {
    pub(super) fn of(a: &Array) -> Src {
        let bytes = a.as_bytes();
        Src {
            ptr: bytes.as_ptr(),
            bytes: bytes.len(),
            written: false,
        }
    }

    #[inline(always)]
    pub(super) fn len<T: Lane>(&self) -> usize {
        self.bytes / std::mem::size_of::<T>()
    }

    /// Every element, for a buffer the kernel does not write.
    #[inline(always)]
    pub(super) fn all<T: Lane>(&self) -> &[T] {
        assert!(
            !self.written,
            "a kernel read the buffer it writes as a whole"
        );
        // SAFETY: the buffer holds `len` initialised, aligned elements of T, lives for
        // the whole run, and nothing writes it during the run.
        unsafe { std::slice::from_raw_parts(self.ptr as *const T, self.len::<T>()) }
    }

    /// Elements `start..start + n`.
    #[inline(always)]
    pub(super) fn range<T: Lane>(&self, start: usize, n: usize) -> &[T] {
        assert!(start + n <= self.len::<T>(), "kernel read out of its input");
        // SAFETY: in bounds (checked), aligned and initialised; in a buffer written in
        // place only the reading thread writes these elements, when it stores the block
        // that read them, after the block's last read.
        unsafe { std::slice::from_raw_parts((self.ptr as *const T).add(start), n) }
    }
}

/// `out[l] = src[start + step * l]`. With `clamp`, indices are clamped into the buffer
/// (masked-off lanes of a padded or concatenated operand may point outside it; their
/// values are discarded).
#[inline(always)]
pub(super) fn load<T: Lane>(src: &Src, start: i64, step: i64, clamp: bool, out: &mut [T]) {
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

/// [`load`] of rows of `e` lanes: row `r` of `out` from `start + row * r`. Contiguous rows
/// all in bounds are copied as fixed-size runs where `e` is a common vector width (a call
/// to `memcpy` per row of 8 lanes costs more than the copy).
#[inline(always)]
pub(super) fn load_rows<T: Lane>(
    src: &Src,
    (start, row, step): (i64, i64, i64),
    clamp: bool,
    e: usize,
    out: &mut [T],
) {
    let n = (out.len() / e) as i64;
    let (a, b) = (start, start + row * (n - 1).max(0));
    let in_bounds = a.min(b) >= 0 && (a.max(b) + e as i64) as usize <= src.len::<T>();
    if step != 1 || src.written || !in_bounds {
        for (r, lanes) in out.chunks_mut(e).enumerate() {
            load(src, start + row * r as i64, step, clamp, lanes);
        }
        return;
    }
    let s = src.all::<T>();
    match e {
        4 => copy_rows::<T, 4>(s, start, row, out),
        8 => copy_rows::<T, 8>(s, start, row, out),
        16 => copy_rows::<T, 16>(s, start, row, out),
        _ => {
            for (r, lanes) in out.chunks_exact_mut(e).enumerate() {
                let at = (start + row * r as i64) as usize;
                lanes.copy_from_slice(&s[at..at + e]);
            }
        }
    }
}

/// Rows of `N` lanes, row `r` from `s[start + row * r..]`.
#[inline(always)]
fn copy_rows<T: Copy, const N: usize>(s: &[T], start: i64, row: i64, out: &mut [T]) {
    let (rows, _) = out.as_chunks_mut::<N>();
    for (r, lanes) in rows.iter_mut().enumerate() {
        let at = (start + row * r as i64) as usize;
        *lanes = *s[at..].first_chunk::<N>().expect("rows checked in bounds");
    }
}

/// A buffer for a kernel's result of `bytes` bytes, left uninitialised: a run stores every
/// element of its result, so the buffer needs no clearing.
pub(super) fn result_buffer(bytes: usize) -> Buffer {
    // SAFETY: every output element is stored exactly once by the run the buffer is made
    // for (its loops cover the result; an empty reduction stores the identity everywhere).
    unsafe { Buffer::uninit(bytes) }
}

/// The kernel's output buffer, written by several threads at disjoint offsets.
pub(super) struct Out {
    pub(super) buf: *mut u8,
    pub(super) len: usize,
    pub(super) dtype: DType,
}

// SAFETY: threads write disjoint elements (each output element belongs to one part of the
// outermost loop), and the buffer outlives the scoped threads.
unsafe impl Sync for Out {}

impl Out {
    /// Writes `v`'s lanes (one value: repeated) at `base + step * l` for `l < width`.
    pub(super) fn store(&self, v: Values, base: i64, step: i64, width: usize) {
        store_lanes(self, v, base, step, width);
    }
}

multiversion! {
    /// [`Out::store`].
    fn store_lanes(out: &Out, v: Values, base: i64, step: i64, width: usize) {
        if width == 0 {
            return;
        }
        let last = base + step * (width as i64 - 1);
        assert!(
            base.min(last) >= 0 && (base.max(last) as usize) < out.len,
            "kernel output offsets {base}..={last} out of {}",
            out.len
        );
        with_dtype!(out.dtype, T, {
            let s = T::slice(v);
            let p = out.buf as *mut T;
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
