//! Operators and methods on [`Tensor`], as on a JAX array.
//!
//! `+ - * / %` take tensors (owned or borrowed) and Rust scalars on either side, with numpy
//! promotion and broadcasting; `/` is true division and `%` takes the divisor's sign.

use std::ops::{Add, Div, Mul, Neg, Rem, Sub};

use super::index::{index, Index};
use super::{reductions as r, shape, Axes, Operand};
use crate::array::DType;
use crate::core::Tensor;

macro_rules! binop {
    ($Trait:ident, $method:ident, $f:path) => {
        impl<R: Into<Operand>> $Trait<R> for Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: R) -> Tensor {
                $f(self, rhs)
            }
        }
        impl<R: Into<Operand>> $Trait<R> for &Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: R) -> Tensor {
                $f(self, rhs)
            }
        }
        binop!(@scalars $Trait, $method, $f, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64, usize);
    };
    (@scalars $Trait:ident, $method:ident, $f:path, $($s:ty),*) => {$(
        impl $Trait<Tensor> for $s {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: Tensor) -> Tensor {
                $f(self, rhs)
            }
        }
        impl $Trait<&Tensor> for $s {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: &Tensor) -> Tensor {
                $f(self, rhs)
            }
        }
    )*};
}
binop!(Add, add, super::add);
binop!(Sub, sub, super::subtract);
binop!(Mul, mul, super::multiply);
binop!(Div, div, super::divide);
binop!(Rem, rem, super::remainder);

impl Neg for Tensor {
    type Output = Tensor;
    #[track_caller]
    fn neg(self) -> Tensor {
        super::negative(&self)
    }
}

impl Neg for &Tensor {
    type Output = Tensor;
    #[track_caller]
    fn neg(self) -> Tensor {
        super::negative(self)
    }
}

/// A dimension size in a shape argument (`-1` allowed where numpy allows it).
pub trait Dim: Copy {
    /// The size as a signed integer.
    fn as_isize(self) -> isize;
}
macro_rules! dim {
    ($($t:ty),*) => {$(impl Dim for $t { fn as_isize(self) -> isize { self as isize } })*};
}
dim!(i32, i64, isize, usize);

macro_rules! unary_methods {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {$(
        $(#[$doc])*
        #[track_caller]
        pub fn $name(&self) -> Tensor {
            let _line = crate::core::user_line();
            super::$name(self)
        }
    )*};
}

impl Tensor {
    /// `self[idx]` with numpy's indexing; see [`Index`].
    #[track_caller]
    pub fn index(&self, idx: impl Index) -> Tensor {
        let _line = crate::core::user_line();
        index(self, idx.items())
    }

    /// A new shape of as many elements; one entry may be `-1`.
    #[track_caller]
    pub fn reshape<D: Dim>(&self, shape: &[D]) -> Tensor {
        let _line = crate::core::user_line();
        let s: Vec<isize> = shape.iter().map(|d| d.as_isize()).collect();
        shape::reshape(self, &s)
    }

    /// Dimensions reversed (`x.T`).
    #[track_caller]
    pub fn t(&self) -> Tensor {
        let _line = crate::core::user_line();
        shape::transpose(self, None)
    }

    /// Dimensions permuted.
    #[track_caller]
    pub fn transpose(&self, axes: &[isize]) -> Tensor {
        let _line = crate::core::user_line();
        shape::transpose(self, Some(axes))
    }

    /// Flattened to one dimension.
    #[track_caller]
    pub fn ravel(&self) -> Tensor {
        let _line = crate::core::user_line();
        shape::ravel(self)
    }

    /// Converted to `dtype`.
    #[track_caller]
    pub fn astype(&self, dtype: DType) -> Tensor {
        let _line = crate::core::user_line();
        super::astype(self, dtype)
    }

    /// Sum over `axes` (`None` for all).
    #[track_caller]
    pub fn sum(&self, axes: impl Axes) -> Tensor {
        let _line = crate::core::user_line();
        r::sum(self, axes)
    }

    /// Sum over `axes`, keeping them as size 1.
    #[track_caller]
    pub fn sum_keepdims(&self, axes: impl Axes) -> Tensor {
        let _line = crate::core::user_line();
        r::sum_keepdims(self, axes)
    }

    /// Mean over `axes`.
    #[track_caller]
    pub fn mean(&self, axes: impl Axes) -> Tensor {
        let _line = crate::core::user_line();
        r::mean(self, axes)
    }

    /// Maximum over `axes`.
    #[track_caller]
    pub fn max(&self, axes: impl Axes) -> Tensor {
        let _line = crate::core::user_line();
        r::max(self, axes)
    }

    /// Minimum over `axes`.
    #[track_caller]
    pub fn min(&self, axes: impl Axes) -> Tensor {
        let _line = crate::core::user_line();
        r::min(self, axes)
    }

    /// Index of the first maximum along `axis` (`None`: flattened).
    #[track_caller]
    pub fn argmax(&self, axis: Option<isize>) -> Tensor {
        let _line = crate::core::user_line();
        r::argmax(self, axis)
    }

    /// Matrix product (`self @ other`).
    #[track_caller]
    pub fn matmul(&self, other: &Tensor) -> Tensor {
        let _line = crate::core::user_line();
        super::matmul(self, other)
    }

    unary_methods!(
        /// `e^x`.
        exp,
        /// Natural logarithm.
        log,
        /// Sine.
        sin,
        /// Cosine.
        cos,
        /// Hyperbolic tangent.
        tanh,
        /// Square root.
        sqrt,
        /// Absolute value.
        abs,
        /// Sign.
        sign,
        /// Floor.
        floor,
    );
}
