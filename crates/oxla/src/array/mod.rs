//! Concrete arrays: row-major, `Arc`-shared host buffers (64-byte-aligned, or a run of
//! leading rows of one).

mod aval;
mod buffer;
mod dtype;
mod held;
pub(crate) mod limit;
pub mod npy;
mod npy_header;
mod print;
mod promote;
mod rows;
mod values;

use std::sync::Arc;

use smallvec::SmallVec;

pub use aval::{aval_of, Aval};
pub(crate) use buffer::{is_quiet, quietly};
pub use buffer::{AllocError, Buffer, ALIGN, MAX_BYTES};
pub(crate) use dtype::with_dtype;
pub use dtype::{DType, Elem, Kind};
pub(crate) use held::{held_bytes, release_held};
pub use print::{get_printoptions, printoptions, set_printoptions, PrintOptions};
pub(crate) use rows::Rows;
pub(crate) use values::{new_values, Lane, Values, ValuesMut};

/// The dimensions of an array, outermost first.
pub type Shape = SmallVec<[usize; 6]>;

/// Builds a [`Shape`] from anything that lists dimensions.
pub fn shape_of(dims: &[usize]) -> Shape {
    Shape::from_slice(dims)
}

/// Number of elements of a shape.
///
/// Panics when the count does not fit in `usize`; the shapes of arrays and avals never
/// pass [`checked_nbytes`], so theirs always fits.
#[track_caller]
pub fn numel(shape: &[usize]) -> usize {
    checked_numel(shape)
        .unwrap_or_else(|| panic!("shape {shape:?} has more elements than usize can count"))
}

/// Number of elements of a shape, or `None` when it does not fit in `usize`.
pub fn checked_numel(shape: &[usize]) -> Option<usize> {
    if shape.contains(&0) {
        return Some(0);
    }
    shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
}

/// Bytes of an array of `shape` with elements of `item_size` bytes, or `None` when such an
/// array could not exist in memory.
///
/// As numpy does, the product of the dimensions other than zero, times the item size, must
/// not pass [`MAX_BYTES`] (the most one allocation can hold), even when a zero dimension
/// leaves the array empty: its strides, and the sizes of what is sliced or reduced from
/// it, then never overflow.
///
/// ```
/// use oxla::array::checked_nbytes;
/// assert_eq!(checked_nbytes(&[2, 3], 4), Some(24));
/// assert_eq!(checked_nbytes(&[1 << 20, 0], 4), Some(0));
/// assert_eq!(checked_nbytes(&[1 << 32, 1 << 32], 4), None);
/// assert_eq!(checked_nbytes(&[1 << 62, 0], 4), None);
/// ```
pub fn checked_nbytes(shape: &[usize], item_size: usize) -> Option<usize> {
    let mut bytes = item_size;
    for &d in shape.iter().filter(|&&d| d != 0) {
        bytes = bytes.checked_mul(d).filter(|&b| b <= MAX_BYTES)?;
    }
    Some(if shape.contains(&0) { 0 } else { bytes })
}

/// Bytes of an array of `dtype` and `shape`, or a message saying why it cannot exist.
pub(crate) fn check_shape(dtype: DType, shape: &[usize]) -> Result<usize, String> {
    checked_nbytes(shape, dtype.size()).ok_or_else(|| {
        let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
        format!(
            "shape {}[{}] is too large: its dimensions other than zero times {} bytes an \
             element pass the {MAX_BYTES} bytes one array can take",
            dtype.short_name(),
            dims.join(","),
            dtype.size()
        )
    })
}

/// Bytes of an array of `dtype` and `shape`; panics at the caller's line when it cannot
/// exist.
#[track_caller]
fn nbytes_or_panic(what: &str, dtype: DType, shape: &[usize]) -> usize {
    match check_shape(dtype, shape) {
        Ok(bytes) => bytes,
        Err(m) => panic!("{what}: {m}\n  at {}", std::panic::Location::caller()),
    }
}

/// Row-major strides, in elements.
pub fn strides_of(shape: &[usize]) -> SmallVec<[usize; 6]> {
    let mut s: SmallVec<[usize; 6]> = SmallVec::from_elem(1, shape.len());
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// A concrete n-dimensional array on the host.
///
/// Cloning is cheap: the buffer is shared (also by a view of a run of leading rows, such
/// as a scan step's slice). Arrays are immutable; kernels write into fresh buffers.
///
/// ```
/// use oxla::Array;
/// let a = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
/// assert_eq!(a.shape(), &[2, 2]);
/// assert_eq!(a.to_vec::<f32>(), vec![1.0, 2.0, 3.0, 4.0]);
/// ```
#[derive(Clone)]
pub struct Array {
    dtype: DType,
    shape: Shape,
    buf: Arc<Buffer>,
    /// Where the elements start in `buf`, in bytes (non-zero only for a view of rows).
    offset: usize,
}

impl Array {
    /// An array that takes ownership of a freshly written buffer.
    #[track_caller]
    pub fn from_buffer(dtype: DType, shape: &[usize], buf: Buffer) -> Array {
        assert_eq!(
            buf.len_bytes(),
            nbytes_or_panic("from_buffer", dtype, shape),
            "buffer of {} bytes does not hold {}{:?}",
            buf.len_bytes(),
            dtype.short_name(),
            shape
        );
        Array {
            dtype,
            shape: shape_of(shape),
            buf: Arc::new(buf),
            offset: 0,
        }
    }

    /// An array with the given elements in row-major order, taking over the `Vec`'s
    /// allocation without copying (see [`Buffer::from_vec`]).
    ///
    /// ```
    /// let v = vec![1.0f32, 2.0, 3.0, 4.0];
    /// let at = v.as_ptr();
    /// let a = oxla::Array::from_vec(v, &[2, 2]);
    /// assert_eq!(a.as_slice::<f32>().as_ptr(), at);
    /// ```
    #[track_caller]
    pub fn from_vec<T: Elem>(data: Vec<T>, shape: &[usize]) -> Array {
        Array::check_elements(data.len(), T::DTYPE, shape);
        Array::from_buffer(T::DTYPE, shape, Buffer::from_vec(data))
    }

    /// An array copied from a slice of elements in row-major order.
    #[track_caller]
    pub fn from_slice<T: Elem>(data: &[T], shape: &[usize]) -> Array {
        Array::check_elements(data.len(), T::DTYPE, shape);
        Array::from_buffer(T::DTYPE, shape, Buffer::from_slice(data))
    }

    /// Panics at the caller's line unless `len` elements of `dtype` can have `shape`.
    #[track_caller]
    fn check_elements(len: usize, dtype: DType, shape: &[usize]) {
        nbytes_or_panic("from_vec", dtype, shape);
        if len != numel(shape) {
            panic!(
                "from_vec: {len} elements cannot have shape {shape:?}\n  at {}",
                std::panic::Location::caller()
            );
        }
    }

    /// A rank-0 array.
    pub fn scalar<T: Elem>(v: T) -> Array {
        Array::from_slice(&[v], &[])
    }

    /// An array of zeros (`false` for bool).
    ///
    /// Panics at the caller's line when the shape is too large for memory
    /// ([`checked_nbytes`]) or its bytes cannot be allocated.
    #[track_caller]
    pub fn zeros(dtype: DType, shape: &[usize]) -> Array {
        let bytes = nbytes_or_panic("zeros", dtype, shape);
        Array::from_buffer(dtype, shape, Buffer::zeroed(bytes))
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The dimensions.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements.
    pub fn size(&self) -> usize {
        numel(&self.shape)
    }

    /// Size in bytes.
    pub fn nbytes(&self) -> usize {
        self.size() * self.dtype.size()
    }

    /// A rank-0 array of `dtype` holding `v`: an integer dtype takes `v` truncated toward
    /// zero and wrapped into its range (as XLA converts integers), a float rounds to
    /// nearest, `bool` is `v != 0`.
    pub fn scalar_from_f64(v: f64, dtype: DType) -> Array {
        with_dtype!(dtype, T, {
            Array::scalar(if dtype.is_int() {
                T::from_i128(v as i128)
            } else {
                T::from_f64(v)
            })
        })
    }

    /// The elements, which must be of type `T`.
    #[track_caller]
    pub fn as_slice<T: Elem>(&self) -> &[T] {
        if T::DTYPE != self.dtype {
            panic!(
                "as_slice::<{}> of a {} array\n  at {}",
                T::DTYPE,
                self.dtype,
                std::panic::Location::caller()
            );
        }
        let at = self.offset / self.dtype.size();
        &self.buf.as_slice()[at..at + self.size()]
    }

    /// The elements copied into a `Vec`, which must be of type `T`.
    ///
    /// Panics at the caller's line, naming the bytes, when they cannot be allocated.
    #[track_caller]
    pub fn to_vec<T: Elem>(&self) -> Vec<T> {
        let src = self.as_slice::<T>();
        let mut v = Vec::new();
        if v.try_reserve_exact(src.len()).is_err() {
            panic!(
                "to_vec: {}",
                AllocError {
                    bytes: self.nbytes()
                }
            );
        }
        v.extend_from_slice(src);
        v
    }

    /// The elements converted to `f64`, whatever the dtype.
    pub fn to_f64_vec(&self) -> Vec<f64> {
        with_dtype!(self.dtype, T, {
            self.as_slice::<T>().iter().map(|v| v.to_f64()).collect()
        })
    }

    /// The single element of a size-1 array, as `f64`.
    #[track_caller]
    pub fn item(&self) -> f64 {
        if self.size() != 1 {
            panic!(
                "item() of an array of shape {:?}: it needs exactly one element\n  at {}",
                self.shape,
                std::panic::Location::caller()
            );
        }
        self.to_f64_vec()[0]
    }

    /// The same data under another shape with as many elements (no copy).
    #[track_caller]
    pub fn reshaped(&self, shape: &[usize]) -> Array {
        assert_eq!(
            numel(shape),
            self.size(),
            "reshape {:?} to {:?}",
            self.shape,
            shape
        );
        Array {
            dtype: self.dtype,
            shape: shape_of(shape),
            buf: self.buf.clone(),
            offset: self.offset,
        }
    }

    /// Rows `start..start + n` along the leading axis, sharing this array's buffer (no copy).
    #[track_caller]
    pub(crate) fn rows(&self, start: usize, n: usize) -> Array {
        let lead = self.shape.first().copied().unwrap_or(0);
        assert!(
            start + n <= lead,
            "rows {start}..{} of an array of shape {:?}",
            start + n,
            self.shape
        );
        let mut shape = self.shape.clone();
        shape[0] = n;
        Array {
            dtype: self.dtype,
            offset: self.offset + start * numel(&self.shape[1..]) * self.dtype.size(),
            shape,
            buf: self.buf.clone(),
        }
    }

    /// The raw bytes, row-major.
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf.as_bytes()[self.offset..self.offset + self.nbytes()]
    }

    /// Whether two arrays share one buffer.
    pub fn shares_buffer(&self, other: &Array) -> bool {
        Arc::ptr_eq(&self.buf, &other.buf)
    }

    /// The buffer, when this array is its only owner and holds all of it (for reuse by a
    /// kernel), and the bytes are not a foreign owner's.
    pub(crate) fn into_buffer(self) -> Result<Buffer, Array> {
        if self.offset != 0 || self.nbytes() != self.buf.len_bytes() || self.buf.is_foreign() {
            return Err(self);
        }
        let (dtype, shape) = (self.dtype, self.shape);
        Arc::try_unwrap(self.buf).map_err(|buf| Array {
            dtype,
            shape,
            buf,
            offset: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Array;

    #[test]
    fn rows_share_the_buffer_and_read_their_own_elements() {
        let a = Array::from_vec((0..12).map(|i| i as f32).collect(), &[4, 3]);
        let r = a.rows(1, 2);
        assert!(r.shares_buffer(&a));
        assert_eq!(r.shape(), &[2, 3]);
        assert_eq!(r.to_vec::<f32>(), vec![3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
        assert_eq!(r.as_bytes().len(), r.nbytes());
        // Rows of rows, reshaped, and no rows at all.
        let rr = r.rows(1, 1).reshaped(&[3]);
        assert_eq!(rr.to_f64_vec(), vec![6.0, 7.0, 8.0]);
        assert_eq!(a.rows(4, 0).size(), 0);
        assert_eq!(
            Array::zeros(crate::DType::F32, &[0, 3]).rows(0, 0).nbytes(),
            0
        );
        // A view never hands its buffer to a kernel, even as its only owner.
        let only = Array::from_vec(vec![1.0f32; 6], &[3, 2]).rows(1, 2);
        assert!(only.into_buffer().is_err());
        let all = Array::from_vec(vec![1.0f32; 6], &[3, 2]).rows(0, 3);
        assert!(all.into_buffer().is_ok());
    }

    /// A foreign buffer is read in place, never handed to a kernel, and its owner lives
    /// as long as the last array holding it.
    #[test]
    fn foreign_buffers_are_borrowed_and_never_reused() {
        use std::sync::atomic::{AtomicBool, Ordering};
        static DROPPED: AtomicBool = AtomicBool::new(false);
        struct Owner(Vec<f64>);
        impl Drop for Owner {
            fn drop(&mut self) {
                DROPPED.store(true, Ordering::SeqCst);
            }
        }
        let owner = Owner(vec![1.0, 2.0, 3.0]);
        let ptr = std::ptr::NonNull::new(owner.0.as_ptr() as *mut u8).expect("not null");
        // SAFETY: the Vec's 24 bytes are 8-byte aligned and live, unchanged, in the owner.
        let buf = unsafe { super::Buffer::from_foreign(ptr, 24, Box::new(owner)) };
        let a = Array::from_buffer(crate::DType::F64, &[3], buf);
        assert_eq!(a.to_f64_vec(), vec![1.0, 2.0, 3.0]);
        let Err(a) = a.into_buffer() else {
            panic!("a foreign buffer is never reused")
        };
        assert!(!DROPPED.load(Ordering::SeqCst));
        drop(a);
        assert!(DROPPED.load(Ordering::SeqCst));
    }

    #[test]
    #[should_panic(expected = "rows 3..5 of an array of shape [4, 3]")]
    fn rows_past_the_end_panic() {
        Array::zeros(crate::DType::F32, &[4, 3]).rows(3, 2);
    }
}
