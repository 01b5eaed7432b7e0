//! Element types and JAX's type-promotion lattice.

use std::fmt;

/// The element type of an array.
///
/// Names and promotion follow JAX: `f32` is the default float, `i32` the default integer,
/// and mixing types never silently widens to 64 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// Boolean, stored one byte per element (0 or 1).
    Bool,
    /// 32-bit signed integer.
    I32,
    /// 32-bit unsigned integer.
    U32,
    /// 32-bit IEEE float (the default float type).
    F32,
    /// 64-bit IEEE float.
    F64,
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
}

impl DType {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::Bool => 1,
            DType::I32 | DType::U32 | DType::F32 => 4,
            DType::F64 => 8,
        }
    }

    /// The short name JAX prints in avals (`f32`, `i32`, `bool`, ...).
    pub fn short_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I32 => "i32",
            DType::U32 => "u32",
            DType::F32 => "f32",
            DType::F64 => "f64",
        }
    }

    /// The numpy name JAX prints in parameters (`float32`, `int32`, ...).
    pub fn numpy_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I32 => "int32",
            DType::U32 => "uint32",
            DType::F32 => "float32",
            DType::F64 => "float64",
        }
    }

    /// Whether this is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64)
    }

    /// Whether this is a (signed or unsigned) integer type.
    pub fn is_int(self) -> bool {
        matches!(self, DType::I32 | DType::U32)
    }

    /// Whether this type supports arithmetic (everything but `bool`).
    pub fn is_numeric(self) -> bool {
        self != DType::Bool
    }

    /// The kind of this dtype.
    pub fn kind(self) -> Kind {
        match self {
            DType::Bool => Kind::Bool,
            DType::I32 | DType::U32 => Kind::Int,
            DType::F32 | DType::F64 => Kind::Float,
        }
    }

    /// The least type both `self` and `other` promote to (`jnp.promote_types` restricted to
    /// oxla's dtypes). `i32` with `u32` gives `i32`'s 64-bit cousin in numpy; JAX without x64
    /// gives `i32`, and so does oxla.
    pub fn promote(self, other: DType) -> DType {
        use DType::*;
        if self == other {
            return self;
        }
        match (self, other) {
            (Bool, t) | (t, Bool) => t,
            (F64, _) | (_, F64) => F64,
            (F32, _) | (_, F32) => F32,
            _ => I32,
        }
    }

    /// The dtype a Rust scalar of `kind` takes when combined with a tensor of this dtype:
    /// the tensor's own dtype when the scalar's kind fits in it (weak typing), else the
    /// default dtype of the scalar's kind.
    pub fn with_weak(self, kind: Kind) -> DType {
        if kind <= self.kind() {
            self
        } else {
            kind.default_dtype()
        }
    }
}

impl Kind {
    /// The default dtype of a kind: `bool`, `i32` or `f32`.
    pub fn default_dtype(self) -> DType {
        match self {
            Kind::Bool => DType::Bool,
            Kind::Int => DType::I32,
            Kind::Float => DType::F32,
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.numpy_name())
    }
}

/// A Rust type that can be an array element.
pub trait Elem:
    Copy + Send + Sync + PartialEq + PartialOrd + fmt::Debug + Default + 'static
{
    /// The dtype of this element type.
    const DTYPE: DType;
    /// Converts from `f64` with Rust's `as` semantics (saturating for integers).
    fn from_f64(v: f64) -> Self;
    /// Converts to `f64`.
    fn to_f64(self) -> f64;
}

macro_rules! elem {
    ($t:ty, $d:ident) => {
        impl Elem for $t {
            const DTYPE: DType = DType::$d;
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
        }
    };
}
elem!(f32, F32);
elem!(f64, F64);
elem!(i32, I32);
elem!(u32, U32);

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
}

/// Runs `$body` with `$T` bound to the Rust element type of `$dt`, for the dtypes listed.
macro_rules! with_dtype {
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
        $crate::array::with_dtype!($dt, $T, [Bool, I32, U32, F32, F64], $body)
    };
    (@ty Bool) => { bool };
    (@ty I32) => { i32 };
    (@ty U32) => { u32 };
    (@ty F32) => { f32 };
    (@ty F64) => { f64 };
}
pub(crate) use with_dtype;

#[cfg(test)]
mod tests {
    use super::DType::*;
    use super::*;

    #[test]
    fn promotion_follows_jax_without_x64() {
        assert_eq!(F32.promote(I32), F32);
        assert_eq!(Bool.promote(U32), U32);
        assert_eq!(I32.promote(U32), I32);
        assert_eq!(F32.promote(F64), F64);
        assert_eq!(I32.with_weak(Kind::Float), F32);
        assert_eq!(F64.with_weak(Kind::Float), F64);
        assert_eq!(U32.with_weak(Kind::Int), U32);
        assert_eq!(Bool.with_weak(Kind::Int), I32);
    }
}
