//! `convolve` and `correlate` of one-dimensional arrays, on `conv_general_dilated`.

use super::{inexact, promote_dtypes, Operand};
use crate::core::Tensor;
use crate::ops::{self as lax, ConvLayout};

/// JAX's `_conv`: `x` slid over `y` (flipped for a convolution) with `mode`'s padding.
#[track_caller]
fn conv1d(a: Operand, v: Operand, mode: &str, op: &str) -> Tensor {
    let at = std::panic::Location::caller();
    let ts = promote_dtypes(op, &[a, v]);
    let (mut x, mut y) = (inexact(&ts[0]), inexact(&ts[1]));
    if x.ndim() != 1 || y.ndim() != 1 {
        panic!(
            "{op}() only supports 1-dimensional inputs, got {} and {}\n  at {at}",
            x.aval(),
            y.aval()
        );
    }
    if x.size() == 0 || y.size() == 0 {
        panic!(
            "{op}: inputs cannot be empty, got shapes {:?} and {:?}\n  at {at}",
            x.shape(),
            y.shape()
        );
    }
    let mut reversed = false;
    if x.shape()[0] < y.shape()[0] {
        std::mem::swap(&mut x, &mut y);
        reversed = op == "correlate";
    }
    if op == "convolve" {
        y = lax::rev(&y, &[0]);
    }
    let k = y.shape()[0] as i64;
    let padding = match mode {
        "valid" => (0, 0),
        "same" => (k / 2, k - k / 2 - 1),
        "full" => (k - 1, k - 1),
        _ => panic!("{op}: mode must be one of ['full', 'same', 'valid'], got {mode:?}\n  at {at}"),
    };
    let lift = |t: &Tensor| lax::reshape(t, &[1, 1, t.shape()[0]]);
    let out = lax::conv_general_dilated(
        &lift(&x),
        &lift(&y),
        &[1],
        [padding],
        None,
        None,
        ConvLayout::Default,
        1,
        1,
        None,
    );
    let n = out.shape()[2];
    let out = lax::reshape(&out, &[n]);
    if reversed {
        lax::rev(&out, &[0])
    } else {
        out
    }
}

/// `jnp.convolve`: the discrete convolution of two one-dimensional arrays, promoted to an
/// inexact dtype; `mode` is `"full"` (JAX's default), `"same"` or `"valid"`.
///
/// # Panics
/// On operands that are not one-dimensional, empty operands, or another mode.
#[track_caller]
pub fn convolve(a: impl Into<Operand>, v: impl Into<Operand>, mode: &str) -> Tensor {
    let _line = crate::core::user_line();
    conv1d(a.into(), v.into(), mode, "convolve")
}

/// `jnp.correlate`: the cross-correlation of two one-dimensional (real) arrays, promoted
/// to an inexact dtype; `mode` is `"valid"` (JAX's default), `"same"` or `"full"`.
///
/// # Panics
/// On operands that are not one-dimensional, empty operands, or another mode.
#[track_caller]
pub fn correlate(a: impl Into<Operand>, v: impl Into<Operand>, mode: &str) -> Tensor {
    let _line = crate::core::user_line();
    conv1d(a.into(), v.into(), mode, "correlate")
}
