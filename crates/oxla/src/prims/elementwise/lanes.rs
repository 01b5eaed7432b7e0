//! The lane kernels of the elementwise primitives: each operation run on typed runs of
//! elements ([`Values`]), a one-element operand repeating. [`Lanewise`] is the form fusion
//! stores and the block interpreter calls; the eager kernels call the same functions.

use super::math;
use super::scalar::{powi, Bits, Float, Num};
use super::{BinaryOp, UnaryOp};
use crate::array::{with_dtype, DType, Elem, Lane, Values, ValuesMut};
use crate::prims::isa::multiversion;
use crate::prims::threefry::threefry_lanes;
use crate::prims::ThreefryWords;

/// `out[i] = f(x[i])`; a one-element `x` is repeated.
#[inline(always)]
pub(super) fn map1<T: Copy, U: Copy>(x: &[T], out: &mut [U], f: impl Fn(T) -> U) {
    if x.len() == out.len() {
        for (o, &v) in out.iter_mut().zip(x) {
            *o = f(v);
        }
    } else {
        out.fill(f(x[0]));
    }
}

/// `out[i] = erf_inv(x[i])`; a one-element `x` is repeated.
#[inline(always)]
fn erf_inv_lanes<T: Float>(x: &[T], out: &mut [T]) {
    if x.len() == out.len() {
        for (o, &v) in out.iter_mut().zip(x) {
            *o = v.erf_inv();
        }
    } else {
        out.fill(x[0].erf_inv());
    }
}

/// `out[i] = f(x[i], y[i])`; one-element operands are repeated.
#[inline(always)]
pub(super) fn map2<T: Copy, S: Copy, U: Copy>(
    x: &[T],
    y: &[S],
    out: &mut [U],
    f: impl Fn(T, S) -> U,
) {
    match (x.len() == out.len(), y.len() == out.len()) {
        (true, true) => {
            for ((o, &u), &v) in out.iter_mut().zip(x).zip(y) {
                *o = f(u, v);
            }
        }
        (true, false) => {
            let v = y[0];
            for (o, &u) in out.iter_mut().zip(x) {
                *o = f(u, v);
            }
        }
        (false, true) => {
            let u = x[0];
            for (o, &v) in out.iter_mut().zip(y) {
                *o = f(u, v);
            }
        }
        (false, false) => out.fill(f(x[0], y[0])),
    }
}

/// An elementwise primitive as a kernel runs it on lanes: what fusion turns into a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lanewise {
    /// A function of one operand.
    Unary(UnaryOp),
    /// A function of two operands.
    Binary(BinaryOp),
    /// `x ** y` for a constant integer `y`.
    IntegerPow(i32),
    /// `cases[which]`.
    SelectN,
    /// Value conversion to the output's dtype.
    Convert,
    /// Reinterpretation of the bits as the output's dtype.
    Bitcast,
    /// One word of the Threefry cipher of `(k0, k1, x0, x1)` (never [`ThreefryWords::Both`]).
    Threefry(ThreefryWords),
}

impl Lanewise {
    /// Runs the operation on typed runs (one-element operands repeat) into `out`.
    pub(crate) fn apply_into(self, args: &[Values], out: ValuesMut) {
        match self {
            Lanewise::Unary(op) => unary_into(op, args[0], out),
            Lanewise::Binary(op) => binary_into(op, args[0], args[1], out),
            Lanewise::IntegerPow(y) => integer_pow_into(y, args[0], out),
            Lanewise::SelectN => select_into(args[0], &args[1..], out),
            Lanewise::Convert => convert_into(args[0], out),
            Lanewise::Bitcast => bitcast_into(args[0], out),
            Lanewise::Threefry(words) => {
                let [k0, k1, x0, x1] = [0, 1, 2, 3].map(|i| u32::slice(args[i]));
                threefry_lanes(k0, k1, x0, x1, words, u32::slice_mut(out), &mut [])
            }
        }
    }
}
multiversion! {
    pub(super) fn unary_into(op: UnaryOp, x: Values, out: ValuesMut) {
        use UnaryOp::*;
        if x.dtype().is_complex() {
            return super::complex::unary_into(op, x, out);
        }
        macro_rules! float_map {
            ($f:expr) => {
                with_dtype!(x.dtype(), T, Float, map1(T::slice(x), T::slice_mut(out), $f))
            };
        }
        macro_rules! num_map {
            ($f:expr) => {
                with_dtype!(x.dtype(), T, Num, map1(T::slice(x), T::slice_mut(out), $f))
            };
        }
        // Computed in f64 and rounded to the operand's dtype.
        macro_rules! wide_map {
            ($f:path) => {
                float_map!(|v: T| T::from_f64($f(v.to_f64())))
            };
        }
        match op {
            Neg => num_map!(Num::neg),
            Abs => num_map!(Num::abs),
            Sign => num_map!(Num::sign),
            Exp => float_map!(Float::exp),
            Log => float_map!(Float::ln),
            Log1p => float_map!(Float::ln_1p),
            Sin => float_map!(Float::sin),
            Cos => float_map!(Float::cos),
            Tanh => float_map!(Float::tanh),
            Logistic => float_map!(|x: T| T::one().div(T::one().add(x.neg().exp()))),
            Sqrt => float_map!(Float::sqrt),
            Cbrt => float_map!(Float::cbrt),
            Rsqrt => float_map!(|x: T| T::one().div(x.sqrt())),
            Floor => float_map!(Float::floor),
            Ceil => float_map!(Float::ceil),
            Round => float_map!(Float::round),
            // A long polynomial: called here, not through a function value, so that it is
            // compiled into each instruction set's version of this kernel.
            ErfInv => with_dtype!(
                x.dtype(),
                T,
                Float,
                erf_inv_lanes(T::slice(x), T::slice_mut(out))
            ),
            IsFinite => with_dtype!(
                x.dtype(),
                T,
                Float,
                map1(T::slice(x), bool::slice_mut(out), Float::is_finite)
            ),
            Not => with_dtype!(
                x.dtype(),
                T,
                Bits,
                map1(T::slice(x), T::slice_mut(out), Bits::not)
            ),
            Erf => wide_map!(math::erf),
            Erfc => wide_map!(math::erfc),
            Lgamma => wide_map!(math::lgamma),
            Digamma => wide_map!(math::digamma),
            Tan => wide_map!(f64::tan),
            Asin => wide_map!(f64::asin),
            Acos => wide_map!(f64::acos),
            Atan => wide_map!(f64::atan),
            Sinh => wide_map!(f64::sinh),
            Cosh => wide_map!(f64::cosh),
            Asinh => wide_map!(f64::asinh),
            Acosh => wide_map!(f64::acosh),
            Atanh => wide_map!(f64::atanh),
            Expm1 => wide_map!(f64::exp_m1),
            Exp2 => wide_map!(f64::exp2),
            RoundEven => wide_map!(f64::round_ties_even),
            ReducePrecision {
                exponent_bits,
                mantissa_bits,
            } => float_map!(|v: T| T::from_bits64(math::reduce_precision(
                v.to_bits64(),
                T::DTYPE,
                exponent_bits,
                mantissa_bits
            ))),
            BesselI0e => wide_map!(math::bessel_i0e),
            BesselI1e => wide_map!(math::bessel_i1e),
            Square => num_map!(|v: T| v.mul(v)),
            PopulationCount => with_dtype!(
                x.dtype(),
                T,
                Int,
                map1(T::slice(x), T::slice_mut(out), |v: T| {
                    T::from_bits64(u64::from(v.to_bits64().count_ones()))
                })
            ),
            Clz => with_dtype!(
                x.dtype(),
                T,
                Int,
                map1(T::slice(x), T::slice_mut(out), |v: T| {
                    let pad = 64 - 8 * T::DTYPE.size() as u32;
                    T::from_bits64(u64::from(v.to_bits64().leading_zeros() - pad))
                })
            ),
            Real | Imag | Conj => unreachable!("{} of a real operand", op.name()),
        }
    }
}

multiversion! {
    // Comparisons are generic over every dtype, bool included.
    #[allow(clippy::bool_comparison)]
    pub(super) fn binary_into(op: BinaryOp, x: Values, y: Values, out: ValuesMut) {
        use BinaryOp::*;
        macro_rules! zip_as {
            (Bool, $f:expr) => {
                map2(bool::slice(x), bool::slice(y), bool::slice_mut(out), $f)
            };
            ($group:ident, $f:expr) => {
                with_dtype!(
                    x.dtype(),
                    T,
                    $group,
                    map2(T::slice(x), T::slice(y), T::slice_mut(out), $f)
                )
            };
        }
        macro_rules! cmp {
            ($f:expr) => {
                with_dtype!(
                    x.dtype(),
                    T,
                    map2(T::slice(x), T::slice(y), bool::slice_mut(out), $f)
                )
            };
            (Real, $f:expr) => {
                with_dtype!(
                    x.dtype(),
                    T,
                    Real,
                    map2(T::slice(x), T::slice(y), bool::slice_mut(out), $f)
                )
            };
        }
        // Shifts act on the bits, zero-extended; shifting by the width or more (or by a
        // negative amount) gives zero.
        macro_rules! shift {
            ($f:expr) => {
                zip_as!(Int, |a: T, b: T| {
                    let width = 8 * T::DTYPE.size() as u64;
                    let (a, b) = (a.to_bits64(), b.to_bits64());
                    T::from_bits64(if b < width { $f(a, b as u32) } else { 0 })
                })
            };
        }
        // Computed in f64 and rounded to the operands' dtype.
        macro_rules! wide_zip {
            ($f:path) => {
                zip_as!(Float, |a: T, b: T| T::from_f64($f(a.to_f64(), b.to_f64())))
            };
        }
        if x.dtype().is_complex() || op == Complex {
            return super::complex::binary_into(op, x, y, out);
        }
        let is_bool = x.dtype() == DType::Bool;
        match op {
            Add => zip_as!(Num, Num::add),
            Sub => zip_as!(Num, Num::sub),
            Mul => zip_as!(Num, Num::mul),
            Div => zip_as!(Num, Num::div),
            Rem => zip_as!(Num, Num::rem),
            Max if is_bool => zip_as!(Bool, Bits::or),
            Min if is_bool => zip_as!(Bool, Bits::and),
            Max => zip_as!(Num, Num::max),
            Min => zip_as!(Num, Num::min),
            // An integer exponent is converted to the base's dtype, as XLA's lowering does.
            Pow if y.dtype() != x.dtype() => with_dtype!(x.dtype(), T, Float, {
                with_dtype!(
                    y.dtype(),
                    S,
                    Int,
                    map2(T::slice(x), S::slice(y), T::slice_mut(out), |a: T, b: S| {
                        a.powf(T::from_f64(b.to_f64()))
                    })
                )
            }),
            Pow => zip_as!(Float, Float::powf),
            Nextafter => zip_as!(Float, Float::next_after),
            Eq => cmp!(|a: T, b: T| a == b),
            Ne => cmp!(|a: T, b: T| a != b),
            Lt => cmp!(Real, |a: T, b: T| a < b),
            Le => cmp!(Real, |a: T, b: T| a <= b),
            Gt => cmp!(Real, |a: T, b: T| a > b),
            Ge => cmp!(Real, |a: T, b: T| a >= b),
            And => zip_as!(Bits, Bits::and),
            Or => zip_as!(Bits, Bits::or),
            Xor => zip_as!(Bits, Bits::xor),
            ShiftLeft => shift!(|a: u64, b| a << b),
            ShiftRightLogical => shift!(|a: u64, b| a >> b),
            Polygamma => wide_zip!(math::polygamma),
            Zeta => wide_zip!(math::zeta),
            Atan2 => wide_zip!(f64::atan2),
            Igamma => wide_zip!(math::igamma),
            Igammac => wide_zip!(math::igammac),
            IgammaGradA => wide_zip!(math::igamma_grad_a),
            RandomGammaGrad => wide_zip!(math::random_gamma_grad),
            // The bits sign-extended from the width; shifts of the width or more (or
            // negative ones) fill with the sign bit.
            ShiftRightArithmetic => zip_as!(Int, |a: T, b: T| {
                let width = 8 * T::DTYPE.size() as u32;
                let a = ((a.to_bits64() << (64 - width)) as i64) >> (64 - width);
                let b = b.to_bits64();
                T::from_bits64((a >> Ord::min(b, u64::from(width) - 1)) as u64)
            }),
            Complex => unreachable!("complex is taken above"),
        }
    }
}

multiversion! {
    pub(super) fn integer_pow_into(y: i32, x: Values, out: ValuesMut) {
        with_dtype!(x.dtype(), T, Num, map1(T::slice(x), T::slice_mut(out), |v| powi(v, y)))
    }
}

multiversion! {
    /// `out[i] = cases[which[i]][i]`; an integer `which` is clamped to the cases.
    pub(super) fn select_into(which: Values, cases: &[Values], out: ValuesMut) {
        with_dtype!(cases[0].dtype(), T, {
            let out = T::slice_mut(out);
            let n = out.len();
            let srcs: Vec<&[T]> = cases.iter().map(|c| T::slice(*c)).collect();
            let at = |s: &[T], i: usize| if s.len() == 1 { s[0] } else { s[i] };
            let pick_bool = |b: bool| (b as usize).min(srcs.len() - 1);
            match which {
                Values::Bool(p) if p.len() == 1 => map1(srcs[pick_bool(p[0])], out, |v| v),
                Values::Bool(p) if srcs.len() == 2 && srcs.iter().all(|s| s.len() == n) => {
                    let (f, t) = (srcs[0], srcs[1]);
                    for (i, o) in out.iter_mut().enumerate() {
                        *o = if p[i] { t[i] } else { f[i] };
                    }
                }
                Values::Bool(p) => {
                    for (i, o) in out.iter_mut().enumerate() {
                        *o = at(srcs[pick_bool(p[i])], i);
                    }
                }
                _ => {
                    let p = i32::slice(which);
                    let last = srcs.len() - 1;
                    let pick = |i: usize| {
                        let w = if p.len() == 1 { p[0] } else { p[i] };
                        (Ord::max(w, 0) as usize).min(last)
                    };
                    for (i, o) in out.iter_mut().enumerate() {
                        *o = at(srcs[pick(i)], i);
                    }
                }
            }
        })
    }
}

multiversion! {
    pub(super) fn convert_into(x: Values, out: ValuesMut) {
        let (from, to) = (x.dtype(), out.dtype());
        if from == to {
            return bitcast_into(x, out);
        }
        if from.is_complex() && to.is_complex() {
            type C64 = num_complex::Complex<f32>;
            type C128 = num_complex::Complex<f64>;
            return if from == DType::C64 {
                map1(C64::slice(x), C128::slice_mut(out), |v| {
                    C128::new(f64::from(v.re), f64::from(v.im))
                })
            } else {
                map1(C128::slice(x), C64::slice_mut(out), |v| {
                    C64::new(v.re as f32, v.im as f32)
                })
            };
        }
        if from.is_int() && to.is_int() {
            // Integer conversions wrap (sign-extend, then truncate), as XLA's do.
            return with_dtype!(from, S, Int, {
                with_dtype!(to, T, Int, {
                    map1(S::slice(x), T::slice_mut(out), |v| T::from_i128(v.to_i128()))
                })
            });
        }
        with_dtype!(from, S, {
            with_dtype!(
                to,
                T,
                map1(S::slice(x), T::slice_mut(out), |v| T::from_f64(v.to_f64()))
            )
        })
    }
}

multiversion! {
    /// Reinterprets elements of one width as another dtype of the same width.
    pub(super) fn bitcast_into(x: Values, out: ValuesMut) {
        with_dtype!(x.dtype(), S, {
            with_dtype!(
                out.dtype(),
                T,
                map1(S::slice(x), T::slice_mut(out), |v| T::from_bits64(
                    v.to_bits64()
                ))
            )
        })
    }
}
