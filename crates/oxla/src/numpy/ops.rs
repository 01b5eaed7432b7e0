//! Operators and methods on [`Tensor`], as on a JAX array.
//!
//! `+ - * / %` take tensors (owned or borrowed) and Rust scalars on either side, with numpy
//! promotion and broadcasting; `/` is true division and `%` takes the divisor's sign.
//!
//! `&`, `|`, `^` and `!` are numpy's bitwise operators ([`bitwise_and`](super::bitwise_and),
//! ..., [`invert`](super::invert)): on bool arrays logical, on integer ones bitwise, a panic
//! on floats; their scalars on the left are `bool` and `i32`. numpy's comparison operators
//! are the methods [`Tensor::gt`], [`Tensor::eq`] and their kin (Rust's `>` and `==` must
//! return `bool`).
//!
//! On the right any Rust scalar goes (`&x * 0.5f32`, `&x + n` for `n: usize`); on the left
//! only `f64` and `i32`, the types Rust gives an unsuffixed literal: with one float and one
//! integer type there, `0.5 * &x` is a `Tensor` as soon as it is written, so
//! `(0.5 * &x).matmul(&a)` compiles (with `f32` too, Rust could not pick the literal's type
//! before the method call: E0282). Other scalar types go on the right, or through
//! [`multiply`](super::multiply) and its kin.

use std::ops::{Add, BitAnd, BitOr, BitXor, Div, Mul, Neg, Not, Rem, Sub};

use super::index::{index, Index};
use super::{reductions as r, shape, Axis, Operand};
use crate::array::DType;
use crate::core::Tensor;

macro_rules! binop {
    ($Trait:ident, $method:ident, $f:path; $($s:ty),*) => {
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
        binop!(@scalars $Trait, $method, $f, $($s),*);
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
binop!(Add, add, super::add; f64, i32);
binop!(Sub, sub, super::subtract; f64, i32);
binop!(Mul, mul, super::multiply; f64, i32);
binop!(Div, div, super::divide; f64, i32);
binop!(Rem, rem, super::remainder; f64, i32);
binop!(BitAnd, bitand, super::bitwise_and; bool, i32);
binop!(BitOr, bitor, super::bitwise_or; bool, i32);
binop!(BitXor, bitxor, super::bitwise_xor; bool, i32);

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

impl Not for Tensor {
    type Output = Tensor;
    #[track_caller]
    fn not(self) -> Tensor {
        super::invert(self)
    }
}

impl Not for &Tensor {
    type Output = Tensor;
    #[track_caller]
    fn not(self) -> Tensor {
        super::invert(self)
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

macro_rules! reductions {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {$(
        $(#[$doc])*
        #[track_caller]
        pub fn $name(&self, axis: impl Into<Axis>) -> Tensor {
            let _line = crate::core::user_line();
            r::$name(self, axis)
        }
    )*};
}

macro_rules! comparisons {
    ($($(#[$doc:meta])* $name:ident => $f:ident),* $(,)?) => {$(
        $(#[$doc])*
        #[track_caller]
        pub fn $name(&self, other: impl Into<Operand>) -> Tensor {
            let _line = crate::core::user_line();
            super::$f(self, other)
        }
    )*};
}

impl Tensor {
    comparisons!(
        /// `self > other` elementwise, a bool array ([`greater`](super::greater)).
        gt => greater,
        /// `self >= other` elementwise, a bool array ([`greater_equal`](super::greater_equal)).
        ge => greater_equal,
        /// `self < other` elementwise, a bool array ([`less`](super::less)).
        lt => less,
        /// `self <= other` elementwise, a bool array ([`less_equal`](super::less_equal)).
        le => less_equal,
        /// `self == other` elementwise, a bool array ([`equal`](super::equal)); `Tensor` has
        /// no `PartialEq`, so this is the only `eq`.
        eq => equal,
        /// `self != other` elementwise, a bool array ([`not_equal`](super::not_equal)).
        ne => not_equal,
    );

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

    /// Dimensions permuted to the order `axes` (`None` reverses them).
    #[track_caller]
    pub fn transpose(&self, axes: impl Into<Axis>) -> Tensor {
        let _line = crate::core::user_line();
        shape::transpose(self, axes)
    }

    /// Size-1 dimensions removed: those of `axis`, or all with `None`.
    #[track_caller]
    pub fn squeeze(&self, axis: impl Into<Axis>) -> Tensor {
        let _line = crate::core::user_line();
        shape::squeeze(self, axis)
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

    reductions!(
        /// Sum over `axis` (`None` for all); see [`numpy::sum`](super::sum).
        sum,
        /// Product over `axis`; see [`numpy::prod`](super::prod).
        prod,
        /// Mean over `axis`; see [`numpy::mean`](super::mean).
        mean,
        /// Maximum over `axis`; see [`numpy::max`](super::max).
        max,
        /// Minimum over `axis`; see [`numpy::min`](super::min).
        min,
        /// Whether all elements over `axis` are true; see [`numpy::all`](super::all).
        all,
        /// Whether any element over `axis` is true; see [`numpy::any`](super::any).
        any,
        /// Index of the first maximum along `axis` (`None`: flattened); see
        /// [`numpy::argmax`](super::argmax).
        argmax,
        /// Index of the first minimum along `axis` (`None`: flattened); see
        /// [`numpy::argmin`](super::argmin).
        argmin,
        /// Cumulative sum along `axis` (`None`: flattened); see
        /// [`numpy::cumsum`](super::cumsum).
        cumsum,
        /// Sorted along `axis` (`None`: flattened); see [`numpy::sort`](super::sort).
        sort,
    );

    /// Matrix product (`self @ other`).
    #[track_caller]
    pub fn matmul(&self, other: impl Into<Operand>) -> Tensor {
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
