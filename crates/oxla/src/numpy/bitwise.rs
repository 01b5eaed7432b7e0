//! Logic and bits: `logical_and`/`or`/`xor`/`not` (truth values, any dtype) and
//! `bitwise_and`/`or`/`xor`, `invert` (`bitwise_not`) on integer and bool arrays, which the
//! operators `&`, `|`, `^` and `!` on [`Tensor`] are.

use super::{promote, promote_dtypes, promote_shapes, scalar_tensor, Operand};
use crate::array::DType;
use crate::core::Tensor;
use crate::ops as lax;

/// `x` as truth values: itself if bool, else `x != 0`, as JAX's logical functions convert.
#[track_caller]
fn truth(x: &Tensor) -> Tensor {
    if x.dtype() == DType::Bool {
        x.clone()
    } else {
        lax::ne(x, &scalar_tensor(0.0, x.dtype()))
    }
}

/// Panics at the caller's line, naming the numpy function `what`, unless every operand is
/// an integer or bool array (JAX's `and`, `or`, `xor` and `not` accept no floats).
#[track_caller]
fn int_or_bool(what: &str, ts: &[Tensor]) {
    if let Some(t) = ts.iter().find(|t| t.dtype().is_float()) {
        panic!(
            "{what}: needs integer or bool operands, got {} (JAX: does not accept dtype {}); \
             for truth values use the logical_ functions\n  at {}",
            t.aval(),
            t.dtype(),
            std::panic::Location::caller()
        );
    }
}

macro_rules! logical_fn {
    ($($(#[$doc:meta])* $name:ident => $lax:ident),* $(,)?) => {$(
        $(#[$doc])*
        #[track_caller]
        pub fn $name(x: impl Into<Operand>, y: impl Into<Operand>) -> Tensor {
            let _line = crate::core::user_line();
            // As JAX: dtypes promoted, then truth values taken, then shapes broadcast.
            let t = promote_dtypes(stringify!($name), &[x.into(), y.into()]);
            let t = promote_shapes(stringify!($name), vec![truth(&t[0]), truth(&t[1])]);
            lax::$lax(&t[0], &t[1])
        }
    )*};
}
logical_fn!(
    /// Whether both are true (nonzero), elementwise; a bool array.
    logical_and => and,
    /// Whether either is true (nonzero), elementwise; a bool array.
    logical_or => or,
    /// Whether exactly one is true (nonzero), elementwise; a bool array.
    logical_xor => xor,
);

/// Whether `x` is false (zero), elementwise; a bool array.
#[track_caller]
pub fn logical_not(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    lax::not(&truth(&x.into().into_tensor()))
}

macro_rules! bitwise_fn {
    ($($(#[$doc:meta])* $name:ident => $lax:ident),* $(,)?) => {$(
        $(#[$doc])*
        #[track_caller]
        pub fn $name(x: impl Into<Operand>, y: impl Into<Operand>) -> Tensor {
            let _line = crate::core::user_line();
            let t = promote(stringify!($name), &[x.into(), y.into()]);
            int_or_bool(stringify!($name), &t);
            lax::$lax(&t[0], &t[1])
        }
    )*};
}
bitwise_fn!(
    /// Bitwise and of integer arrays, logical and of bool ones (`x & y`); panics on floats.
    bitwise_and => and,
    /// Bitwise or of integer arrays, logical or of bool ones (`x | y`); panics on floats.
    bitwise_or => or,
    /// Bitwise exclusive or of integer arrays, logical one of bool ones (`x ^ y`); panics on
    /// floats.
    bitwise_xor => xor,
);

/// Bitwise not of an integer array, logical not of a bool one (`!x`, numpy's `~x`); panics
/// on floats.
#[track_caller]
pub fn invert(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    int_or_bool("invert", std::slice::from_ref(&x));
    lax::not(&x)
}

/// [`invert`], by its other numpy name.
#[track_caller]
pub fn bitwise_not(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    invert(x)
}
