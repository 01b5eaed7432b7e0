//! The lane kernels of the elementwise primitives on complex operands (`complex64`,
//! `complex128`), and of `complex`, which makes them from two floats. The shape rules admit
//! only the operations written here (`admits_complex` of [`UnaryOp`] and [`BinaryOp`]).

use num_complex::Complex as Z;

use super::lanes::{map1, map2};
use super::{BinaryOp, UnaryOp};
use crate::array::{DType, Lane, Values, ValuesMut};

/// The complex kernels of one part type (`f32` for `complex64`, `f64` for `complex128`).
macro_rules! complex_kernels {
    ($unary:ident, $binary:ident, $make:ident, $t:ty) => {
        fn $unary(op: UnaryOp, x: &[Z<$t>], out: ValuesMut) {
            use UnaryOp::*;
            macro_rules! zmap {
                ($f:expr) => {
                    map1(x, <Z<$t>>::slice_mut(out), $f)
                };
            }
            match op {
                Neg => zmap!(|z| -z),
                Exp => zmap!(Z::exp),
                Log => zmap!(Z::ln),
                Sin => zmap!(Z::sin),
                Cos => zmap!(Z::cos),
                Tanh => zmap!(Z::tanh),
                Sqrt => zmap!(Z::sqrt),
                Rsqrt => zmap!(|z| z.sqrt().inv()),
                Conj => zmap!(|z| z.conj()),
                // JAX's sign of a complex number: z / |z|, and 0 at 0.
                Sign => zmap!(|z| if z.norm() == 0.0 { z } else { z / z.norm() }),
                Abs => map1(x, <$t>::slice_mut(out), Z::norm),
                Real => map1(x, <$t>::slice_mut(out), |z| z.re),
                Imag => map1(x, <$t>::slice_mut(out), |z| z.im),
                _ => {
                    unreachable!(
                        "{} of a complex operand (the shape rule rejects it)",
                        op.name()
                    )
                }
            }
        }

        fn $binary(op: BinaryOp, x: &[Z<$t>], y: &[Z<$t>], out: ValuesMut) {
            use BinaryOp::*;
            macro_rules! zip {
                ($f:expr) => {
                    map2(x, y, <Z<$t>>::slice_mut(out), $f)
                };
            }
            match op {
                Add => zip!(|a, b| a + b),
                Sub => zip!(|a, b| a - b),
                Mul => zip!(|a, b| a * b),
                Div => zip!(|a, b| a / b),
                Eq => map2(x, y, bool::slice_mut(out), |a, b| a == b),
                Ne => map2(x, y, bool::slice_mut(out), |a, b| a != b),
                _ => unreachable!(
                    "{} of complex operands (the shape rule rejects it)",
                    op.name()
                ),
            }
        }

        /// `complex(re, im)`.
        fn $make(re: &[$t], im: &[$t], out: ValuesMut) {
            map2(re, im, <Z<$t>>::slice_mut(out), Z::new)
        }
    };
}
complex_kernels!(unary64, binary64, make64, f32);
complex_kernels!(unary128, binary128, make128, f64);

/// A unary operation on complex `x`.
pub(super) fn unary_into(op: UnaryOp, x: Values, out: ValuesMut) {
    match x.dtype() {
        DType::C64 => unary64(op, Z::<f32>::slice(x), out),
        _ => unary128(op, Z::<f64>::slice(x), out),
    }
}

/// A binary operation on complex `x` and `y`, or `complex` of float `x` and `y`.
pub(super) fn binary_into(op: BinaryOp, x: Values, y: Values, out: ValuesMut) {
    match (op, x.dtype()) {
        (BinaryOp::Complex, DType::F32) => make64(f32::slice(x), f32::slice(y), out),
        (BinaryOp::Complex, _) => make128(f64::slice(x), f64::slice(y), out),
        (_, DType::C64) => binary64(op, Z::<f32>::slice(x), Z::<f32>::slice(y), out),
        _ => binary128(op, Z::<f64>::slice(x), Z::<f64>::slice(y), out),
    }
}
