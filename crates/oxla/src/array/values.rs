//! Typed runs of elements: what the elementwise kernels read and write, whether the
//! elements belong to an eager array or to the lanes of a fused kernel.

use super::{Array, Buffer, DType, Elem};
use crate::array::with_dtype;

macro_rules! values {
    ($($d:ident($t:ty)),*) => {
        /// Elements of one dtype, borrowed. A run of one element stands for that value
        /// repeated as often as the kernel's output needs.
        #[derive(Clone, Copy, Debug)]
        pub(crate) enum Values<'a> {
            $($d(&'a [$t]),)*
        }

        /// Elements of one dtype to write.
        #[derive(Debug)]
        pub(crate) enum ValuesMut<'a> {
            $($d(&'a mut [$t]),)*
        }

        impl Values<'_> {
            /// The elements' dtype.
            pub(crate) fn dtype(&self) -> DType {
                match self {
                    $(Values::$d(_) => DType::$d,)*
                }
            }

            /// Number of elements.
            pub(crate) fn len(&self) -> usize {
                match self {
                    $(Values::$d(s) => s.len(),)*
                }
            }
        }

        impl ValuesMut<'_> {
            /// The elements' dtype.
            pub(crate) fn dtype(&self) -> DType {
                match self {
                    $(ValuesMut::$d(_) => DType::$d,)*
                }
            }

            /// The elements `start..start + len`, to write.
            pub(crate) fn range(&mut self, start: usize, len: usize) -> ValuesMut<'_> {
                let r = start..start + len;
                match self {
                    $(ValuesMut::$d(s) => ValuesMut::$d(&mut s[r]),)*
                }
            }
        }
    };
}
values!(
    Bool(bool),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    F16(half::f16),
    BF16(half::bf16),
    F32(f32),
    F64(f64),
    C64(num_complex::Complex<f32>),
    C128(num_complex::Complex<f64>)
);

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
lane!(i8, I8, |x| x as u8 as u64, |b| b as u8 as i8);
lane!(i16, I16, |x| x as u16 as u64, |b| b as u16 as i16);
lane!(i32, I32, |x| x as u32 as u64, |b| b as u32 as i32);
lane!(i64, I64, |x| x as u64, |b| b as i64);
lane!(u8, U8, |x| x as u64, |b| b as u8);
lane!(u16, U16, |x| x as u64, |b| b as u16);
lane!(u32, U32, |x| x as u64, |b| b as u32);
lane!(u64, U64, |x| x, |b| b);
lane!(half::f16, F16, |x| x.to_bits() as u64, |b| {
    half::f16::from_bits(b as u16)
});
lane!(half::bf16, BF16, |x| x.to_bits() as u64, |b| {
    half::bf16::from_bits(b as u16)
});
lane!(f32, F32, |x| x.to_bits() as u64, |b| f32::from_bits(
    b as u32
));
lane!(f64, F64, |x| x.to_bits(), |b| f64::from_bits(b));
// complex64's bits: the real part's in the low half, the imaginary part's in the high half.
lane!(
    num_complex::Complex<f32>,
    C64,
    |x| u64::from(x.re.to_bits()) | (u64::from(x.im.to_bits()) << 32),
    |b| num_complex::Complex::new(f32::from_bits(b as u32), f32::from_bits((b >> 32) as u32))
);
// complex128 has no 64-bit image: the primitives that move bits (bitcast_convert_type,
// shifts) reject complex operands in their shape rules.
lane!(
    num_complex::Complex<f64>,
    C128,
    |x| unreachable!("complex128 {x} has no 64-bit image"),
    |b| unreachable!("no complex128 from the 64 bits {b}")
);

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
