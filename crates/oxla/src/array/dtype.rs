//! Element types and JAX's type-promotion lattice.

use std::fmt;

/// The element type of an array.
///
/// Names and promotion follow JAX: `f32` is the default float, `i32` the default integer
/// (`f64` and `i64` with x64 on, see [`crate::config`]), and mixing types follows JAX's
/// lattice ([`DType::promote`]), never silently widening to 64 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// Boolean, stored one byte per element (0 or 1).
    Bool,
    /// 8-bit signed integer.
    I8,
    /// 16-bit signed integer.
    I16,
    /// 32-bit signed integer.
    I32,
    /// 64-bit signed integer.
    I64,
    /// 8-bit unsigned integer.
    U8,
    /// 16-bit unsigned integer.
    U16,
    /// 32-bit unsigned integer.
    U32,
    /// 64-bit unsigned integer.
    U64,
    /// 16-bit IEEE float ([`half::f16`]); kernels compute in `f32` and round, as XLA's CPU
    /// backend does.
    F16,
    /// bfloat16 ([`half::bf16`]); kernels compute in `f32` and round, as XLA's CPU backend
    /// does.
    BF16,
    /// 32-bit IEEE float (the default float type).
    F32,
    /// 64-bit IEEE float.
    F64,
    /// Complex of two `f32` ([`num_complex::Complex<f32>`]), JAX's `complex64`.
    C64,
    /// Complex of two `f64` ([`num_complex::Complex<f64>`]), JAX's `complex128`.
    C128,
}

/// The three kinds of dtype that decide how Rust scalars combine with a tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// `bool`.
    Bool,
    /// Signed or unsigned integers.
    Int,
    /// Floating point.
    Float,
    /// Complex (no Rust scalar has this kind; it orders the kinds above floats).
    Complex,
}

impl DType {
    /// Every dtype, in the order of the enum.
    pub const ALL: [DType; 15] = [
        DType::Bool,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::C64,
        DType::C128,
    ];

    /// Bytes per element.
    pub fn size(self) -> usize {
        use DType::*;
        match self {
            Bool | I8 | U8 => 1,
            I16 | U16 | F16 | BF16 => 2,
            I32 | U32 | F32 => 4,
            I64 | U64 | F64 | C64 => 8,
            C128 => 16,
        }
    }

    /// The short name JAX prints in avals (`f32`, `i32`, `bool`, ...).
    pub fn short_name(self) -> &'static str {
        use DType::*;
        match self {
            Bool => "bool",
            I8 => "i8",
            I16 => "i16",
            I32 => "i32",
            I64 => "i64",
            U8 => "u8",
            U16 => "u16",
            U32 => "u32",
            U64 => "u64",
            F16 => "f16",
            BF16 => "bf16",
            F32 => "f32",
            F64 => "f64",
            C64 => "c64",
            C128 => "c128",
        }
    }

    /// The numpy name JAX prints in parameters (`float32`, `int32`, ...).
    pub fn numpy_name(self) -> &'static str {
        use DType::*;
        match self {
            Bool => "bool",
            I8 => "int8",
            I16 => "int16",
            I32 => "int32",
            I64 => "int64",
            U8 => "uint8",
            U16 => "uint16",
            U32 => "uint32",
            U64 => "uint64",
            F16 => "float16",
            BF16 => "bfloat16",
            F32 => "float32",
            F64 => "float64",
            C64 => "complex64",
            C128 => "complex128",
        }
    }

    /// The dtype of a numpy name (`"float32"`, `"uint8"`, ...): the inverse of
    /// [`DType::numpy_name`].
    pub fn from_numpy_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.numpy_name() == name)
    }

    /// Whether this is a floating-point type.
    pub fn is_float(self) -> bool {
        self.kind() == Kind::Float
    }

    /// Whether this is a (signed or unsigned) integer type.
    pub fn is_int(self) -> bool {
        self.kind() == Kind::Int
    }

    /// Whether this is a signed integer type.
    pub fn is_signed_int(self) -> bool {
        matches!(self, DType::I8 | DType::I16 | DType::I32 | DType::I64)
    }

    /// Whether this is an unsigned integer type.
    pub fn is_unsigned_int(self) -> bool {
        matches!(self, DType::U8 | DType::U16 | DType::U32 | DType::U64)
    }

    /// Whether this is a 16-bit float, which kernels compute in `f32`.
    pub fn is_half(self) -> bool {
        matches!(self, DType::F16 | DType::BF16)
    }

    /// Whether this type supports arithmetic (everything but `bool`).
    pub fn is_numeric(self) -> bool {
        self != DType::Bool
    }

    /// The kind of this dtype.
    pub fn kind(self) -> Kind {
        use DType::*;
        match self {
            Bool => Kind::Bool,
            I8 | I16 | I32 | I64 | U8 | U16 | U32 | U64 => Kind::Int,
            F16 | BF16 | F32 | F64 => Kind::Float,
            C64 | C128 => Kind::Complex,
        }
    }

    /// Whether this is a complex type (`complex64` or `complex128`).
    pub fn is_complex(self) -> bool {
        self.kind() == Kind::Complex
    }

    /// Whether this is a float or complex type: the dtypes gradients flow through.
    pub fn is_inexact(self) -> bool {
        self.is_float() || self.is_complex()
    }

    /// The real dtype of a complex one (`complex64` → `float32`); any other dtype is itself.
    pub fn real_dtype(self) -> DType {
        match self {
            DType::C64 => DType::F32,
            DType::C128 => DType::F64,
            d => d,
        }
    }

    /// The complex dtype whose parts are this float dtype (`float64` → `complex128`;
    /// `float32` and the 16-bit floats → `complex64`); a complex dtype is itself.
    pub fn complex_dtype(self) -> DType {
        match self {
            DType::F64 | DType::C128 => DType::C128,
            _ => DType::C64,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.numpy_name())
    }
}

/// A Rust type that can be an array element.
pub trait Elem: Copy + Send + Sync + PartialEq + fmt::Debug + Default + 'static {
    /// The dtype of this element type.
    const DTYPE: DType;
    /// Converts from `f64` with Rust's `as` semantics (saturating for integers, rounding
    /// to nearest even for floats).
    fn from_f64(v: f64) -> Self;
    /// Converts to `f64` (exact but for 64-bit integers past 2^53).
    fn to_f64(self) -> f64;
    /// Converts from an integer with wrapping (two's complement truncation), as XLA
    /// converts between integer types; floats round and bool tests for non-zero.
    fn from_i128(v: i128) -> Self;
    /// Converts to an integer: exact for integers and bool, truncating toward zero (and
    /// saturating) for floats.
    fn to_i128(self) -> i128;
}

macro_rules! elem_int {
    ($($t:ty => $d:ident),*) => {$(
        impl Elem for $t {
            const DTYPE: DType = DType::$d;
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn from_i128(v: i128) -> Self {
                v as $t
            }
            fn to_i128(self) -> i128 {
                self as i128
            }
        }
    )*};
}
elem_int!(i8 => I8, i16 => I16, i32 => I32, i64 => I64, u8 => U8, u16 => U16, u32 => U32, u64 => U64);

macro_rules! elem_float {
    ($($t:ty => $d:ident, $from:expr, $to:expr);*) => {$(
        impl Elem for $t {
            const DTYPE: DType = DType::$d;
            fn from_f64(v: f64) -> Self {
                $from(v)
            }
            fn to_f64(self) -> f64 {
                $to(self)
            }
            fn from_i128(v: i128) -> Self {
                $from(v as f64)
            }
            fn to_i128(self) -> i128 {
                $to(self) as i128
            }
        }
    )*};
}
elem_float!(
    f32 => F32, |v: f64| v as f32, |x: f32| f64::from(x);
    f64 => F64, |v: f64| v, |x: f64| x;
    half::f16 => F16, half::f16::from_f64, half::f16::to_f64;
    half::bf16 => BF16, half::bf16::from_f64, half::bf16::to_f64
);

macro_rules! elem_complex {
    ($($t:ty => $d:ident),*) => {$(
        /// A complex element: real values convert to and from its real part, as numpy's
        /// `astype` does.
        impl Elem for num_complex::Complex<$t> {
            const DTYPE: DType = DType::$d;
            fn from_f64(v: f64) -> Self {
                num_complex::Complex::new(v as $t, 0.0)
            }
            fn to_f64(self) -> f64 {
                self.re as f64
            }
            fn from_i128(v: i128) -> Self {
                num_complex::Complex::new(v as $t, 0.0)
            }
            fn to_i128(self) -> i128 {
                self.re as i128
            }
        }
    )*};
}
elem_complex!(f32 => C64, f64 => C128);

impl Elem for bool {
    const DTYPE: DType = DType::Bool;
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    fn to_f64(self) -> f64 {
        if self {
            1.0
        } else {
            0.0
        }
    }
    fn from_i128(v: i128) -> Self {
        v != 0
    }
    fn to_i128(self) -> i128 {
        i128::from(self)
    }
}

/// Runs `$body` with `$T` bound to the Rust element type of `$dt`, for the dtypes listed
/// (or a group: `Int`, `Float`, `Num` (both), `Bits` (`Int` and `Bool`), `Complex`, `Arith`
/// (`Num` and `Complex`), `Real` (all but `Complex`); all without a list). A dtype outside the list is a kernel called on a dtype its shape rule admitted:
/// a bug, named in the panic.
macro_rules! with_dtype {
    ($dt:expr, $T:ident, Int, $body:expr) => {
        $crate::array::with_dtype!($dt, $T, [I8, I16, I32, I64, U8, U16, U32, U64], $body)
    };
    ($dt:expr, $T:ident, Float, $body:expr) => {
        $crate::array::with_dtype!($dt, $T, [F16, BF16, F32, F64], $body)
    };
    ($dt:expr, $T:ident, Num, $body:expr) => {
        $crate::array::with_dtype!(
            $dt,
            $T,
            [I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64],
            $body
        )
    };
    ($dt:expr, $T:ident, Bits, $body:expr) => {
        $crate::array::with_dtype!($dt, $T, [Bool, I8, I16, I32, I64, U8, U16, U32, U64], $body)
    };
    ($dt:expr, $T:ident, Arith, $body:expr) => {
        $crate::array::with_dtype!(
            $dt,
            $T,
            [I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64, C64, C128],
            $body
        )
    };
    ($dt:expr, $T:ident, Complex, $body:expr) => {
        $crate::array::with_dtype!($dt, $T, [C64, C128], $body)
    };
    ($dt:expr, $T:ident, Real, $body:expr) => {
        $crate::array::with_dtype!(
            $dt,
            $T,
            [Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64],
            $body
        )
    };
    ($dt:expr, $T:ident, [$($d:ident),*], $body:expr) => {
        match $dt {
            $(crate::array::DType::$d => {
                type $T = $crate::array::with_dtype!(@ty $d);
                $body
            })*
            #[allow(unreachable_patterns)]
            other => unreachable!("kernel called on dtype {other} (the shape rule admits it)"),
        }
    };
    ($dt:expr, $T:ident, $body:expr) => {
        $crate::array::with_dtype!(
            $dt,
            $T,
            [Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64, C64, C128],
            $body
        )
    };
    (@ty Bool) => { bool };
    (@ty I8) => { i8 };
    (@ty I16) => { i16 };
    (@ty I32) => { i32 };
    (@ty I64) => { i64 };
    (@ty U8) => { u8 };
    (@ty U16) => { u16 };
    (@ty U32) => { u32 };
    (@ty U64) => { u64 };
    (@ty F16) => { half::f16 };
    (@ty BF16) => { half::bf16 };
    (@ty F32) => { f32 };
    (@ty F64) => { f64 };
    (@ty C64) => { num_complex::Complex<f32> };
    (@ty C128) => { num_complex::Complex<f64> };
}
pub(crate) use with_dtype;
