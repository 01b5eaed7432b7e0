//! The scalar semantics of the elementwise primitives: what each operation does to one
//! element of each dtype, with JAX's (XLA's) answers at the edges — wrapping integer
//! arithmetic, integer division and remainder by zero, NaN through max/min, `nextafter`,
//! rounding half away from zero, and XLA:CPU's own `exp`/`log`/`tanh` for f32.

use crate::array::Elem;
use crate::prims::{polynomial, special};

/// Arithmetic shared by the numeric element types, with XLA's semantics at the edges
/// (integer division by zero gives -1, remainder by zero gives the dividend, NaN propagates
/// through max/min).
pub(crate) trait Num: Elem {
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    fn rem(self, o: Self) -> Self;
    fn max(self, o: Self) -> Self;
    fn min(self, o: Self) -> Self;
    fn neg(self) -> Self;
    fn abs(self) -> Self;
    fn sign(self) -> Self;
    fn one() -> Self;
}

macro_rules! num_int {
    ($t:ty, $signed:expr) => {
        impl Num for $t {
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            fn sub(self, o: Self) -> Self {
                self.wrapping_sub(o)
            }
            fn mul(self, o: Self) -> Self {
                self.wrapping_mul(o)
            }
            fn div(self, o: Self) -> Self {
                if o == 0 {
                    (0 as $t).wrapping_sub(1)
                } else {
                    self.wrapping_div(o)
                }
            }
            fn rem(self, o: Self) -> Self {
                if o == 0 {
                    self
                } else {
                    self.wrapping_rem(o)
                }
            }
            fn max(self, o: Self) -> Self {
                Ord::max(self, o)
            }
            fn min(self, o: Self) -> Self {
                Ord::min(self, o)
            }
            fn neg(self) -> Self {
                (0 as $t).wrapping_sub(self)
            }
            #[allow(unused_comparisons)]
            fn abs(self) -> Self {
                if $signed && self < 0 {
                    self.neg()
                } else {
                    self
                }
            }
            #[allow(unused_comparisons)]
            fn sign(self) -> Self {
                if self > 0 {
                    1
                } else if self == 0 {
                    0
                } else {
                    (0 as $t).wrapping_sub(1)
                }
            }
            fn one() -> Self {
                1
            }
        }
    };
}
num_int!(i8, true);
num_int!(i16, true);
num_int!(i32, true);
num_int!(i64, true);
num_int!(u8, false);
num_int!(u16, false);
num_int!(u32, false);
num_int!(u64, false);

macro_rules! num_float {
    ($t:ty) => {
        impl Num for $t {
            fn add(self, o: Self) -> Self {
                self + o
            }
            fn sub(self, o: Self) -> Self {
                self - o
            }
            fn mul(self, o: Self) -> Self {
                self * o
            }
            fn div(self, o: Self) -> Self {
                self / o
            }
            fn rem(self, o: Self) -> Self {
                self % o
            }
            fn max(self, o: Self) -> Self {
                if self.is_nan() || o.is_nan() {
                    <$t>::NAN
                } else {
                    <$t>::max(self, o)
                }
            }
            fn min(self, o: Self) -> Self {
                if self.is_nan() || o.is_nan() {
                    <$t>::NAN
                } else {
                    <$t>::min(self, o)
                }
            }
            fn neg(self) -> Self {
                -self
            }
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            fn sign(self) -> Self {
                if self.is_nan() || self == 0.0 {
                    self
                } else {
                    <$t>::signum(self)
                }
            }
            fn one() -> Self {
                1.0
            }
        }
    };
}
num_float!(f32);
num_float!(f64);

/// Transcendental functions of the float types.
pub(super) trait Float: Num {
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn ln_1p(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tanh(self) -> Self;
    fn sqrt(self) -> Self;
    fn cbrt(self) -> Self;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn round(self) -> Self;
    fn powf(self, o: Self) -> Self;
    fn erf_inv(self) -> Self;
    fn is_finite(self) -> bool;
    fn next_after(self, toward: Self) -> Self;
}

macro_rules! float {
    ($t:ty, $erf_inv:path, $exp:path, $ln:path, $tanh:path) => {
        impl Float for $t {
            #[inline(always)]
            fn exp(self) -> Self {
                $exp(self)
            }
            #[inline(always)]
            fn ln(self) -> Self {
                $ln(self)
            }
            fn ln_1p(self) -> Self {
                <$t>::ln_1p(self)
            }
            fn sin(self) -> Self {
                <$t>::sin(self)
            }
            fn cos(self) -> Self {
                <$t>::cos(self)
            }
            #[inline(always)]
            fn tanh(self) -> Self {
                $tanh(self)
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn cbrt(self) -> Self {
                <$t>::cbrt(self)
            }
            fn floor(self) -> Self {
                <$t>::floor(self)
            }
            fn ceil(self) -> Self {
                <$t>::ceil(self)
            }
            fn round(self) -> Self {
                <$t>::round(self)
            }
            fn powf(self, o: Self) -> Self {
                <$t>::powf(self, o)
            }
            #[inline(always)]
            fn erf_inv(self) -> Self {
                $erf_inv(self)
            }
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            fn next_after(self, toward: Self) -> Self {
                if self.is_nan() || toward.is_nan() {
                    return <$t>::NAN;
                }
                if self == toward {
                    return toward;
                }
                if self == 0.0 {
                    let tiny = <$t>::from_bits(1);
                    return if toward > 0.0 { tiny } else { -tiny };
                }
                let bits = self.to_bits();
                let up = (toward > self) == (self > 0.0);
                <$t>::from_bits(if up { bits + 1 } else { bits - 1 })
            }
        }
    };
}
float!(
    f32,
    special::erf_inv_f32,
    polynomial::exp,
    polynomial::ln,
    polynomial::tanh
);
float!(f64, special::erf_inv_f64, f64::exp, f64::ln, f64::tanh);

/// The 16-bit floats compute every operation in `f32` and round the result, as XLA's CPU
/// backend does (its float-normalization pass upcasts each half-precision operation).
macro_rules! half_float {
    ($t:ty) => {
        impl Num for $t {
            fn add(self, o: Self) -> Self {
                <$t>::from_f32(self.to_f32() + o.to_f32())
            }
            fn sub(self, o: Self) -> Self {
                <$t>::from_f32(self.to_f32() - o.to_f32())
            }
            fn mul(self, o: Self) -> Self {
                <$t>::from_f32(self.to_f32() * o.to_f32())
            }
            fn div(self, o: Self) -> Self {
                <$t>::from_f32(self.to_f32() / o.to_f32())
            }
            fn rem(self, o: Self) -> Self {
                <$t>::from_f32(self.to_f32() % o.to_f32())
            }
            fn max(self, o: Self) -> Self {
                <$t>::from_f32(Num::max(self.to_f32(), o.to_f32()))
            }
            fn min(self, o: Self) -> Self {
                <$t>::from_f32(Num::min(self.to_f32(), o.to_f32()))
            }
            fn neg(self) -> Self {
                -self
            }
            fn abs(self) -> Self {
                <$t>::from_bits(self.to_bits() & 0x7fff)
            }
            fn sign(self) -> Self {
                <$t>::from_f32(Num::sign(self.to_f32()))
            }
            fn one() -> Self {
                <$t>::ONE
            }
        }

        impl Float for $t {
            fn exp(self) -> Self {
                <$t>::from_f32(Float::exp(self.to_f32()))
            }
            fn ln(self) -> Self {
                <$t>::from_f32(Float::ln(self.to_f32()))
            }
            fn ln_1p(self) -> Self {
                <$t>::from_f32(self.to_f32().ln_1p())
            }
            fn sin(self) -> Self {
                <$t>::from_f32(self.to_f32().sin())
            }
            fn cos(self) -> Self {
                <$t>::from_f32(self.to_f32().cos())
            }
            fn tanh(self) -> Self {
                <$t>::from_f32(Float::tanh(self.to_f32()))
            }
            fn sqrt(self) -> Self {
                <$t>::from_f32(self.to_f32().sqrt())
            }
            fn cbrt(self) -> Self {
                <$t>::from_f32(self.to_f32().cbrt())
            }
            fn floor(self) -> Self {
                <$t>::from_f32(self.to_f32().floor())
            }
            fn ceil(self) -> Self {
                <$t>::from_f32(self.to_f32().ceil())
            }
            fn round(self) -> Self {
                <$t>::from_f32(self.to_f32().round())
            }
            fn powf(self, o: Self) -> Self {
                <$t>::from_f32(self.to_f32().powf(o.to_f32()))
            }
            fn erf_inv(self) -> Self {
                <$t>::from_f32(Float::erf_inv(self.to_f32()))
            }
            fn is_finite(self) -> bool {
                self.is_finite()
            }
            fn next_after(self, toward: Self) -> Self {
                if self.is_nan() || toward.is_nan() {
                    return <$t>::NAN;
                }
                if self == toward {
                    return toward;
                }
                if self == <$t>::ZERO || self == <$t>::NEG_ZERO {
                    let tiny = <$t>::from_bits(1);
                    return if toward > self { tiny } else { -tiny };
                }
                let bits = self.to_bits();
                let up = (toward > self) == (self > <$t>::ZERO);
                <$t>::from_bits(if up { bits + 1 } else { bits - 1 })
            }
        }
    };
}
half_float!(half::f16);
half_float!(half::bf16);

/// Bitwise operations of the integer types and bool.
pub(super) trait Bits: Elem {
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn not(self) -> Self;
}

macro_rules! bits {
    ($t:ty, $not:expr) => {
        impl Bits for $t {
            fn and(self, o: Self) -> Self {
                self & o
            }
            fn or(self, o: Self) -> Self {
                self | o
            }
            fn xor(self, o: Self) -> Self {
                self ^ o
            }
            fn not(self) -> Self {
                $not(self)
            }
        }
    };
}
bits!(i8, |x: i8| !x);
bits!(i16, |x: i16| !x);
bits!(i32, |x: i32| !x);
bits!(i64, |x: i64| !x);
bits!(u8, |x: u8| !x);
bits!(u16, |x: u16| !x);
bits!(u32, |x: u32| !x);
bits!(u64, |x: u64| !x);
bits!(bool, |x: bool| !x);

/// `x ** y` for an integer `y`, by repeated squaring; a negative `y` gives `1 / x ** -y`.
pub(super) fn powi<T: Num>(mut x: T, y: i32) -> T {
    let mut n = y.unsigned_abs();
    let mut acc = T::one();
    while n > 0 {
        if n & 1 == 1 {
            acc = acc.mul(x);
        }
        x = x.mul(x);
        n >>= 1;
    }
    if y < 0 {
        T::one().div(acc)
    } else {
        acc
    }
}
