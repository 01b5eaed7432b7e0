//! Array creation: `zeros`, `ones`, `full`, `arange`, `linspace`, `eye`, `array`.
//!
//! Inside a trace these stage primitives (`broadcast_in_dim` of a literal, `iota`), as JAX
//! does, rather than embedding constants.

use super::{astype, scalar_tensor, Operand};
use crate::array::{Array, DType, Elem, Kind};
use crate::core::Tensor;
use crate::ops as lax;

/// An array of `shape` filled with `value`; the dtype is the value's (`f32`, `i32`, `bool`, ...).
#[track_caller]
pub fn full(shape: &[usize], value: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let v = value.into();
    let t = v.to_tensor_in("full", v.dtype());
    lax::broadcast_in_dim(&t, shape, &[])
}

/// Zeros of `shape` in the default float dtype (`f32`; `f64` with x64 on).
#[track_caller]
pub fn zeros(shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    full(shape, 0.0f32)
}

/// Ones of `shape` in the default float dtype (`f32`; `f64` with x64 on).
#[track_caller]
pub fn ones(shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    full(shape, 1.0f32)
}

/// An array like `x` (shape and dtype) filled with `value`.
#[track_caller]
pub fn full_like(x: impl Into<Operand>, value: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let v = value.into().to_tensor_in("full_like", x.dtype());
    lax::broadcast_in_dim(&v, x.shape(), &[])
}

/// Zeros like `x`.
#[track_caller]
pub fn zeros_like(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    full_like(x, 0)
}

/// Ones like `x`.
#[track_caller]
pub fn ones_like(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    full_like(x, 1)
}

/// `0, 1, ..., stop - 1`; the dtype is the stop value's (`arange(5)` is `i32`,
/// `arange(5.0)` is `f32`).
#[track_caller]
pub fn arange(stop: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let stop = stop.into();
    let Operand::Scalar(n, _) = stop else {
        panic!(
            "arange: stop must be a Rust number, got a tensor\n  at {}",
            std::panic::Location::caller()
        );
    };
    lax::iota(stop.dtype(), &[n.ceil().max(0.0) as usize], 0)
}

/// `start, start + step, ...` below `stop` (above it for a negative step).
#[track_caller]
pub fn arange_step(
    start: impl Into<Operand>,
    stop: impl Into<Operand>,
    step: impl Into<Operand>,
) -> Tensor {
    let _line = crate::core::user_line();
    let at = std::panic::Location::caller();
    let ops = [start.into(), stop.into(), step.into()];
    let value = |o: &Operand| match o {
        Operand::Scalar(v, _) => *v,
        Operand::Tensor(_) => panic!("arange_step: bounds must be Rust numbers\n  at {at}"),
    };
    let (a, b, s) = (value(&ops[0]), value(&ops[1]), value(&ops[2]));
    if s == 0.0 {
        panic!("arange_step: step must not be zero\n  at {at}");
    }
    let dtype = super::result_type(&ops);
    let n = ((b - a) / s).ceil().max(0.0) as usize;
    let i = lax::iota(dtype, &[n], 0);
    lax::add(
        &ops[0].to_tensor_in("arange_step", dtype),
        &lax::mul(&ops[2].to_tensor_in("arange_step", dtype), &i),
    )
}

/// `num` evenly spaced `f32` values from `start` to `stop` inclusive, computed as JAX does
/// (`start * (1 - t) + stop * t`, the last value exactly `stop`).
#[track_caller]
pub fn linspace(start: f64, stop: f64, num: usize) -> Tensor {
    let _line = crate::core::user_line();
    let dtype = Kind::Float.default_dtype();
    let s = |v: f64| scalar_tensor(v, dtype);
    match num {
        0 => lax::iota(dtype, &[0], 0),
        1 => full(&[1], start as f32),
        _ => {
            let div = (num - 1) as f64;
            let t = lax::div(&lax::iota(dtype, &[num - 1], 0), &s(div));
            let body = lax::add(
                &lax::mul(&s(start), &lax::sub(&s(1.0), &t)),
                &lax::mul(&s(stop), &t),
            );
            lax::concatenate(&[body, full(&[1], stop as f32)], 0)
        }
    }
}

/// The `n x n` identity matrix, `f32`.
#[track_caller]
pub fn eye(n: usize) -> Tensor {
    let _line = crate::core::user_line();
    let r = lax::iota(DType::I32, &[n, n], 0);
    let c = lax::iota(DType::I32, &[n, n], 1);
    astype(lax::eq(&r, &c), Kind::Float.default_dtype())
}

/// A concrete tensor with the given elements and shape (`jnp.array`).
#[track_caller]
pub fn array<T: Elem>(data: &[T], shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    Tensor::new(Array::from_slice(data, shape))
}
