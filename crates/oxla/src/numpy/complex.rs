//! Complex numbers: `real`, `imag`, `conj`/`conjugate`, and the predicates `iscomplex`,
//! `isreal`, `iscomplexobj`, `isrealobj`, and `angle`.

use super::{zeros_like, Operand};
use crate::core::Tensor;
use crate::ops as lax;

/// The real part of `x`; a real `x` itself (`jnp.real`).
///
/// ```
/// use oxla::{numpy as jnp, Tensor};
/// use num_complex::Complex;
/// let z = Tensor::from_vec(vec![Complex::new(1.0f32, 2.0)], &[1]);
/// assert_eq!(jnp::real(&z).to_vec::<f32>(), vec![1.0]);
/// assert_eq!(jnp::imag(&z).to_vec::<f32>(), vec![2.0]);
/// ```
#[track_caller]
pub fn real(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    if x.dtype().is_complex() {
        lax::real(&x)
    } else {
        x
    }
}

/// The imaginary part of `x`; zeros for a real `x` (`jnp.imag`).
#[track_caller]
pub fn imag(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    if x.dtype().is_complex() {
        lax::imag(&x)
    } else {
        zeros_like(&x)
    }
}

/// The complex conjugate of `x`; a real `x` itself (`jnp.conj`).
#[track_caller]
pub fn conj(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    if x.dtype().is_complex() {
        lax::conj(&x)
    } else {
        x
    }
}

/// The complex conjugate of `x` (`jnp.conjugate`, the same as [`conj`]).
#[track_caller]
pub fn conjugate(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    conj(x)
}

/// Whether each element has a non-zero imaginary part (`jnp.iscomplex`).
#[track_caller]
pub fn iscomplex(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let i = imag(x);
    lax::ne(&i, &zeros_like(&i))
}

/// Whether each element's imaginary part is zero (`jnp.isreal`).
#[track_caller]
pub fn isreal(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let i = imag(x);
    lax::eq(&i, &zeros_like(&i))
}

/// Whether `x` has a complex dtype (`jnp.iscomplexobj`).
pub fn iscomplexobj(x: &Tensor) -> bool {
    x.dtype().is_complex()
}

/// Whether `x` has a real (not complex) dtype (`jnp.isrealobj`).
pub fn isrealobj(x: &Tensor) -> bool {
    !x.dtype().is_complex()
}

/// The angle of `z` in the complex plane, `atan2(imag(z), real(z))`, in radians or, with
/// `deg`, degrees (`jnp.angle`).
///
/// ```
/// use oxla::numpy as jnp;
/// assert_eq!(jnp::angle(-1.0, false).item(), std::f32::consts::PI as f64);
/// ```
#[track_caller]
pub fn angle(z: impl Into<Operand>, deg: bool) -> Tensor {
    let _line = crate::core::user_line();
    let z = z.into().into_tensor();
    let a = super::arctan2(imag(&z), real(&z));
    if deg {
        super::degrees(a)
    } else {
        a
    }
}
