//! Concrete arrays: row-major, 64-byte-aligned, `Arc`-shared host buffers.

mod buffer;
mod dtype;
pub mod npy;
mod values;

use std::fmt;
use std::sync::Arc;

use smallvec::SmallVec;

pub(crate) use buffer::{held_bytes, release_held};
pub use buffer::{Buffer, ALIGN};
pub use dtype::{DType, Elem, Kind};
pub(crate) use values::{new_values, Lane, Values, ValuesMut};

/// The dimensions of an array, outermost first.
pub type Shape = SmallVec<[usize; 6]>;

/// Builds a [`Shape`] from anything that lists dimensions.
pub fn shape_of(dims: &[usize]) -> Shape {
    Shape::from_slice(dims)
}

/// Number of elements of a shape.
pub fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
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
/// Cloning is cheap: the buffer is shared. Arrays are immutable; kernels write into fresh
/// buffers.
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
}

impl Array {
    /// An array that takes ownership of a freshly written buffer.
    pub fn from_buffer(dtype: DType, shape: &[usize], buf: Buffer) -> Array {
        assert_eq!(
            buf.len_bytes(),
            numel(shape) * dtype.size(),
            "buffer of {} bytes does not hold {}{:?}",
            buf.len_bytes(),
            dtype.short_name(),
            shape
        );
        Array {
            dtype,
            shape: shape_of(shape),
            buf: Arc::new(buf),
        }
    }

    /// An array with the given elements in row-major order.
    #[track_caller]
    pub fn from_vec<T: Elem>(data: Vec<T>, shape: &[usize]) -> Array {
        Array::from_slice(&data, shape)
    }

    /// An array copied from a slice of elements in row-major order.
    #[track_caller]
    pub fn from_slice<T: Elem>(data: &[T], shape: &[usize]) -> Array {
        if data.len() != numel(shape) {
            panic!(
                "from_vec: {} elements cannot have shape {:?}\n  at {}",
                data.len(),
                shape,
                std::panic::Location::caller()
            );
        }
        Array::from_buffer(T::DTYPE, shape, Buffer::from_slice(data))
    }

    /// A rank-0 array.
    pub fn scalar<T: Elem>(v: T) -> Array {
        Array::from_slice(&[v], &[])
    }

    /// An array of zeros (`false` for bool).
    pub fn zeros(dtype: DType, shape: &[usize]) -> Array {
        Array::from_buffer(dtype, shape, Buffer::zeroed(numel(shape) * dtype.size()))
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
        self.buf.len_bytes()
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
        self.buf.as_slice()
    }

    /// The elements copied into a `Vec`, which must be of type `T`.
    #[track_caller]
    pub fn to_vec<T: Elem>(&self) -> Vec<T> {
        self.as_slice::<T>().to_vec()
    }

    /// The elements converted to `f64`, whatever the dtype.
    pub fn to_f64_vec(&self) -> Vec<f64> {
        match self.dtype {
            DType::Bool => self
                .buf
                .as_slice::<bool>()
                .iter()
                .map(|v| v.to_f64())
                .collect(),
            DType::I32 => self
                .buf
                .as_slice::<i32>()
                .iter()
                .map(|v| v.to_f64())
                .collect(),
            DType::U32 => self
                .buf
                .as_slice::<u32>()
                .iter()
                .map(|v| v.to_f64())
                .collect(),
            DType::F32 => self
                .buf
                .as_slice::<f32>()
                .iter()
                .map(|v| v.to_f64())
                .collect(),
            DType::F64 => self.buf.as_slice::<f64>().to_vec(),
        }
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
        }
    }

    /// The raw bytes, row-major.
    pub fn as_bytes(&self) -> &[u8] {
        self.buf.as_bytes()
    }

    /// Whether two arrays share one buffer.
    pub fn shares_buffer(&self, other: &Array) -> bool {
        Arc::ptr_eq(&self.buf, &other.buf)
    }

    /// The buffer, when this array is its only owner (for reuse by a kernel).
    pub(crate) fn into_buffer(self) -> Result<Buffer, Array> {
        let (dtype, shape) = (self.dtype, self.shape);
        Arc::try_unwrap(self.buf).map_err(|buf| Array { dtype, shape, buf })
    }
}

impl fmt::Debug for Array {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Array({}{:?}, ",
            self.dtype.short_name(),
            self.shape.as_slice()
        )?;
        fmt::Display::fmt(self, f)?;
        f.write_str(")")
    }
}

impl fmt::Display for Array {
    /// Prints nested brackets as numpy does, e.g. `[[1. 2.] [3. 4.]]` on one line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let vals = self.to_f64_vec();
        let dtype = self.dtype;
        let elem = |v: f64| -> String {
            match dtype {
                DType::Bool => if v != 0.0 { "True" } else { "False" }.to_string(),
                DType::I32 | DType::U32 => format!("{}", v as i64),
                DType::F32 => format!("{:?}", v as f32),
                DType::F64 => format!("{v:?}"),
            }
        };
        fn rec(
            f: &mut fmt::Formatter<'_>,
            shape: &[usize],
            vals: &[f64],
            elem: &dyn Fn(f64) -> String,
        ) -> fmt::Result {
            if shape.is_empty() {
                return f.write_str(&elem(vals[0]));
            }
            let inner = numel(&shape[1..]);
            f.write_str("[")?;
            for i in 0..shape[0] {
                if i > 0 {
                    f.write_str(" ")?;
                }
                rec(f, &shape[1..], &vals[i * inner..(i + 1) * inner], elem)?;
            }
            f.write_str("]")
        }
        rec(f, &self.shape, &vals, &elem)
    }
}
