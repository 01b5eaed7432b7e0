//! Typed runs of elements: what the elementwise kernels read and write, whether the
//! elements belong to an eager array or to the lanes of a fused kernel.

use super::{Array, Buffer, DType, Elem};
use crate::array::with_dtype;

/// Elements of one dtype, borrowed. A run of one element stands for that value repeated
/// as often as the kernel's output needs.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Values<'a> {
    Bool(&'a [bool]),
    I32(&'a [i32]),
    U32(&'a [u32]),
    F32(&'a [f32]),
    F64(&'a [f64]),
}

/// Elements of one dtype to write.
#[derive(Debug)]
pub(crate) enum ValuesMut<'a> {
    Bool(&'a mut [bool]),
    I32(&'a mut [i32]),
    U32(&'a mut [u32]),
    F32(&'a mut [f32]),
    F64(&'a mut [f64]),
}

impl Values<'_> {
    /// The elements' dtype.
    pub(crate) fn dtype(&self) -> DType {
        match self {
            Values::Bool(_) => DType::Bool,
            Values::I32(_) => DType::I32,
            Values::U32(_) => DType::U32,
            Values::F32(_) => DType::F32,
            Values::F64(_) => DType::F64,
        }
    }

    /// Number of elements.
    pub(crate) fn len(&self) -> usize {
        match self {
            Values::Bool(s) => s.len(),
            Values::I32(s) => s.len(),
            Values::U32(s) => s.len(),
            Values::F32(s) => s.len(),
            Values::F64(s) => s.len(),
        }
    }
}

impl ValuesMut<'_> {
    /// The elements' dtype.
    pub(crate) fn dtype(&self) -> DType {
        match self {
            ValuesMut::Bool(_) => DType::Bool,
            ValuesMut::I32(_) => DType::I32,
            ValuesMut::U32(_) => DType::U32,
            ValuesMut::F32(_) => DType::F32,
            ValuesMut::F64(_) => DType::F64,
        }
    }

    /// The elements `start..start + len`, to write.
    pub(crate) fn range(&mut self, start: usize, len: usize) -> ValuesMut<'_> {
        let r = start..start + len;
        match self {
            ValuesMut::Bool(s) => ValuesMut::Bool(&mut s[r]),
            ValuesMut::I32(s) => ValuesMut::I32(&mut s[r]),
            ValuesMut::U32(s) => ValuesMut::U32(&mut s[r]),
            ValuesMut::F32(s) => ValuesMut::F32(&mut s[r]),
            ValuesMut::F64(s) => ValuesMut::F64(&mut s[r]),
        }
    }
}

/// The element types, with the conversions between their slices and [`Values`].
pub(crate) trait Lane: Elem {
    /// The run as `Values`.
    fn wrap(s: &[Self]) -> Values<'_>;
    /// The run as `ValuesMut`.
    fn wrap_mut(s: &mut [Self]) -> ValuesMut<'_>;
    /// The typed run; the dtype was checked by the primitive's shape rule.
    fn slice(v: Values<'_>) -> &[Self];
    /// The typed run to write.
    fn slice_mut(v: ValuesMut<'_>) -> &mut [Self];
    /// The element's bits, zero-extended.
    fn to_bits64(self) -> u64;
    /// The element with these (low) bits.
    fn from_bits64(b: u64) -> Self;
}

macro_rules! lane {
    ($t:ty, $v:ident, |$x:ident| $to:expr, |$b:ident| $from:expr) => {
        impl Lane for $t {
            fn wrap(s: &[Self]) -> Values<'_> {
                Values::$v(s)
            }
            fn wrap_mut(s: &mut [Self]) -> ValuesMut<'_> {
                ValuesMut::$v(s)
            }
            fn slice(v: Values<'_>) -> &[Self] {
                match v {
                    Values::$v(s) => s,
                    other => unreachable!("{} elements read as {}", other.dtype(), DType::$v),
                }
            }
            fn slice_mut(v: ValuesMut<'_>) -> &mut [Self] {
                match v {
                    ValuesMut::$v(s) => s,
                    _ => unreachable!("elements written as {} of another dtype", DType::$v),
                }
            }
            fn to_bits64(self) -> u64 {
                let $x = self;
                $to
            }
            fn from_bits64($b: u64) -> Self {
                $from
            }
        }
    };
}
lane!(bool, Bool, |x| x as u64, |b| b & 1 == 1);
lane!(i32, I32, |x| x as u32 as u64, |b| b as u32 as i32);
lane!(u32, U32, |x| x as u64, |b| b as u32);
lane!(f32, F32, |x| x.to_bits() as u64, |b| f32::from_bits(
    b as u32
));
lane!(f64, F64, |x| x.to_bits(), |b| f64::from_bits(b));

impl Array {
    /// The elements as typed values.
    pub(crate) fn values(&self) -> Values<'_> {
        with_dtype!(self.dtype(), T, T::wrap(self.as_slice::<T>()))
    }
}

/// A new array of `dtype` and `shape` whose elements `fill` writes.
pub(crate) fn new_values(dtype: DType, shape: &[usize], fill: impl FnOnce(ValuesMut)) -> Array {
    let bytes = super::checked_nbytes(shape, dtype.size()).expect("results are checked when bound");
    let mut buf = Buffer::zeroed(bytes);
    with_dtype!(dtype, T, fill(T::wrap_mut(buf.as_mut_slice::<T>())));
    Array::from_buffer(dtype, shape, buf)
}
