//! Elementwise primitives (`src/prims/elementwise.rs`): every unary and binary op of every
//! dtype against the scalar references, `integer_pow`, `erf_inv`, dtype conversions and
//! `select_n`.

mod reference;

use std::slice::from_ref;

use oxla::prims::{BinaryOp, UnaryOp};
use oxla::{lax, DType, Tensor};
use proptest::prelude::*;
use proptest::sample::select;
use reference::*;

use crate::support::{
    any_dtype_arr, arr, assert_bitwise, broadcast_ref, check, config, expect, expect_ulps, jit,
    lax_pair, numel, same_v, shape_s, values, Rng, Ulps, Vals, ALL_DTYPES, CASES, V,
};

use BinaryOp as B;
use UnaryOp as U;

const FLOAT_UNARY: [UnaryOp; 17] = [
    U::Neg,
    U::Exp,
    U::Log,
    U::Log1p,
    U::Sin,
    U::Cos,
    U::Tanh,
    U::Logistic,
    U::Sqrt,
    U::Cbrt,
    U::Rsqrt,
    U::Abs,
    U::Sign,
    U::Floor,
    U::Ceil,
    U::Round,
    U::IsFinite,
];
const INT_UNARY: [UnaryOp; 4] = [U::Neg, U::Abs, U::Sign, U::Not];
const FLOAT_BINARY: [BinaryOp; 15] = [
    B::Add,
    B::Sub,
    B::Mul,
    B::Div,
    B::Rem,
    B::Pow,
    B::Max,
    B::Min,
    B::Nextafter,
    B::Eq,
    B::Ne,
    B::Lt,
    B::Le,
    B::Gt,
    B::Ge,
];
const INT_BINARY: [BinaryOp; 18] = [
    B::Add,
    B::Sub,
    B::Mul,
    B::Div,
    B::Rem,
    B::Max,
    B::Min,
    B::Eq,
    B::Ne,
    B::Lt,
    B::Le,
    B::Gt,
    B::Ge,
    B::And,
    B::Or,
    B::Xor,
    B::ShiftLeft,
    B::ShiftRightLogical,
];
const BOOL_BINARY: [BinaryOp; 11] = [
    B::Eq,
    B::Ne,
    B::Lt,
    B::Le,
    B::Gt,
    B::Ge,
    B::And,
    B::Or,
    B::Xor,
    B::Max,
    B::Min,
];

fn lax_unary(op: UnaryOp, x: &Tensor) -> Tensor {
    match op {
        U::Neg => lax::neg(x),
        U::Exp => lax::exp(x),
        U::Log => lax::log(x),
        U::Log1p => lax::log1p(x),
        U::Sin => lax::sin(x),
        U::Cos => lax::cos(x),
        U::Tanh => lax::tanh(x),
        U::Logistic => lax::logistic(x),
        U::Sqrt => lax::sqrt(x),
        U::Cbrt => lax::cbrt(x),
        U::Rsqrt => lax::rsqrt(x),
        U::Abs => lax::abs(x),
        U::Sign => lax::sign(x),
        U::Floor => lax::floor(x),
        U::Ceil => lax::ceil(x),
        U::Round => lax::round(x),
        U::Not => lax::not(x),
        U::ErfInv => lax::erf_inv(x),
        U::IsFinite => lax::is_finite(x),
        U::Erf => lax::erf(x),
        U::Erfc => lax::erfc(x),
        U::Lgamma => lax::lgamma(x),
        U::Digamma => lax::digamma(x),
        U::Tan => lax::tan(x),
        U::Asin => lax::asin(x),
        U::Acos => lax::acos(x),
        U::Atan => lax::atan(x),
        U::Sinh => lax::sinh(x),
        U::Cosh => lax::cosh(x),
        U::Asinh => lax::asinh(x),
        U::Acosh => lax::acosh(x),
        U::Atanh => lax::atanh(x),
        U::Expm1 => lax::expm1(x),
        U::Exp2 => lax::exp2(x),
        U::Square => lax::square(x),
        U::RoundEven => lax::round_with(x, lax::RoundingMethod::ToNearestEven),
        U::PopulationCount => lax::population_count(x),
        U::Clz => lax::clz(x),
        U::BesselI0e => lax::bessel_i0e(x),
        U::BesselI1e => lax::bessel_i1e(x),
        U::ReducePrecision {
            exponent_bits,
            mantissa_bits,
        } => lax::reduce_precision(x, exponent_bits, mantissa_bits),
        U::Real => lax::real(x),
        U::Imag => lax::imag(x),
        U::Conj => lax::conj(x),
    }
}

fn lax_binary(op: BinaryOp, x: &Tensor, y: &Tensor) -> Tensor {
    match op {
        B::Add => lax::add(x, y),
        B::Sub => lax::sub(x, y),
        B::Mul => lax::mul(x, y),
        B::Div => lax::div(x, y),
        B::Rem => lax::rem(x, y),
        B::Pow => lax::pow(x, y),
        B::Max => lax::max(x, y),
        B::Min => lax::min(x, y),
        B::Nextafter => lax::nextafter(x, y),
        B::Eq => lax::eq(x, y),
        B::Ne => lax::ne(x, y),
        B::Lt => lax::lt(x, y),
        B::Le => lax::le(x, y),
        B::Gt => lax::gt(x, y),
        B::Ge => lax::ge(x, y),
        B::And => lax::and(x, y),
        B::Or => lax::or(x, y),
        B::Xor => lax::xor(x, y),
        B::ShiftLeft => lax::shift_left(x, y),
        B::ShiftRightLogical => lax::shift_right_logical(x, y),
        B::Polygamma => lax::polygamma(x, y),
        B::Zeta => lax::zeta(x, y),
        B::Atan2 => lax::atan2(x, y),
        B::ShiftRightArithmetic => lax::shift_right_arithmetic(x, y),
        B::Igamma => lax::igamma(x, y),
        B::Igammac => lax::igammac(x, y),
        B::IgammaGradA => lax::igamma_grad_a(x, y),
        B::RandomGammaGrad => lax::random_gamma_grad(x, y),
        B::Complex => lax::complex(x, y),
    }
}

macro_rules! float_elementwise_tests {
    ($mod:ident, $t:ty, $dt:expr, $unary:ident, $binary:ident) => {
        mod $mod {
            use super::*;

            proptest! {
                #![proptest_config(config(CASES))]

                #[test]
                fn unary(x in arr($dt, Vals::Wide)) {
                    let xv = x.to_vec::<$t>();
                    for op in FLOAT_UNARY {
                        let got = jit(|a| lax_unary(op, &a[0]), from_ref(&x));
                        if op == U::IsFinite {
                            let want: Vec<bool> = xv.iter().map(|v| v.is_finite()).collect();
                            expect(&got, &want, x.shape(), &op);
                        } else if <$t>::POLYNOMIAL
                            && matches!(op, U::Exp | U::Log | U::Tanh | U::Logistic)
                        {
                            let want: Vec<$t> = xv.iter().map(|&v| $unary(op, v)).collect();
                            expect_ulps(&got, &want, x.shape(), 4, &op);
                        } else {
                            let want: Vec<$t> = xv.iter().map(|&v| $unary(op, v)).collect();
                            expect(&got, &want, x.shape(), &op);
                        }
                    }
                }

                #[test]
                fn binary((x, y) in lax_pair($dt, Vals::Wide)) {
                    let (shape, pos) = broadcast_ref(&[x.shape(), y.shape()]);
                    let (xv, yv) = (x.to_vec::<$t>(), y.to_vec::<$t>());
                    for op in FLOAT_BINARY {
                        let got = jit(|a| lax_binary(op, &a[0], &a[1]), &[x.clone(), y.clone()]);
                        let ctx = (op, x.shape(), y.shape());
                        if op.is_comparison() {
                            let want: Vec<bool> =
                                pos.iter().map(|p| compare(op, xv[p[0]], yv[p[1]])).collect();
                            expect(&got, &want, &shape, &ctx);
                        } else {
                            let want: Vec<$t> =
                                pos.iter().map(|p| $binary(op, xv[p[0]], yv[p[1]])).collect();
                            // max/min may pick either zero of `max(0.0, -0.0)`.
                            check(&got, &want, &shape, matches!(op, B::Max | B::Min), &ctx);
                        }
                    }
                }

                #[test]
                fn integer_pow(x in arr($dt, Vals::Wide), y in -4i32..=7) {
                    let got = jit(|a| lax::integer_pow(&a[0], y), from_ref(&x));
                    let want: Vec<$t> = x
                        .to_vec::<$t>()
                        .iter()
                        .map(|&v| ipow(v, y, 1.0, |a, b| a * b, |a, b| a / b))
                        .collect();
                    expect(&got, &want, x.shape(), &y);
                }
            }
        }
    };
}
float_elementwise_tests!(elementwise_f32, f32, DType::F32, unary_f32, binary_f32);
float_elementwise_tests!(elementwise_f64, f64, DType::F64, unary_f64, binary_f64);

macro_rules! int_elementwise_tests {
    ($mod:ident, $t:ty, $dt:expr, $unary:ident, $binary:ident) => {
        mod $mod {
            use super::*;

            proptest! {
                #![proptest_config(config(CASES))]

                #[test]
                fn unary(x in arr($dt, Vals::Wide)) {
                    let xv = x.to_vec::<$t>();
                    for op in INT_UNARY {
                        let got = jit(|a| lax_unary(op, &a[0]), from_ref(&x));
                        let want: Vec<$t> = xv.iter().map(|&v| $unary(op, v)).collect();
                        expect(&got, &want, x.shape(), &op);
                    }
                }

                #[test]
                fn binary((x, y) in lax_pair($dt, Vals::Wide)) {
                    let (shape, pos) = broadcast_ref(&[x.shape(), y.shape()]);
                    let (xv, yv) = (x.to_vec::<$t>(), y.to_vec::<$t>());
                    for op in INT_BINARY {
                        let got = jit(|a| lax_binary(op, &a[0], &a[1]), &[x.clone(), y.clone()]);
                        let ctx = (op, x.shape(), y.shape());
                        if op.is_comparison() {
                            let want: Vec<bool> =
                                pos.iter().map(|p| compare(op, xv[p[0]], yv[p[1]])).collect();
                            expect(&got, &want, &shape, &ctx);
                        } else {
                            let want: Vec<$t> =
                                pos.iter().map(|p| $binary(op, xv[p[0]], yv[p[1]])).collect();
                            expect(&got, &want, &shape, &ctx);
                        }
                    }
                }

                #[test]
                fn integer_pow(x in arr($dt, Vals::Wide), y in 0i32..=7) {
                    let got = jit(|a| lax::integer_pow(&a[0], y), from_ref(&x));
                    let want: Vec<$t> = x
                        .to_vec::<$t>()
                        .iter()
                        .map(|&v| ipow(v, y, 1, |a: $t, b| a.wrapping_mul(b), |a, b| a / b))
                        .collect();
                    expect(&got, &want, x.shape(), &y);
                }
            }
        }
    };
}
int_elementwise_tests!(elementwise_i32, i32, DType::I32, unary_i32, binary_i32);
int_elementwise_tests!(elementwise_u32, u32, DType::U32, unary_u32, binary_u32);

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn unary_bool(x in arr(DType::Bool, Vals::Wide)) {
        let got = jit(|a| lax::not(&a[0]), from_ref(&x));
        let want: Vec<bool> = x.to_vec::<bool>().iter().map(|v| !v).collect();
        expect(&got, &want, x.shape(), &"not");
    }

    #[test]
    fn binary_bool((x, y) in lax_pair(DType::Bool, Vals::Wide)) {
        let (shape, pos) = broadcast_ref(&[x.shape(), y.shape()]);
        let (xv, yv) = (x.to_vec::<bool>(), y.to_vec::<bool>());
        for op in BOOL_BINARY {
            let got = jit(|a| lax_binary(op, &a[0], &a[1]), &[x.clone(), y.clone()]);
            let want: Vec<bool> = pos
                .iter()
                .map(|p| {
                    let (a, b) = (xv[p[0]], yv[p[1]]);
                    match op {
                        B::And | B::Min => a & b,
                        B::Or | B::Max => a | b,
                        B::Xor => a ^ b,
                        _ => compare(op, a, b),
                    }
                })
                .collect();
            expect(&got, &want, &shape, &op);
        }
    }

    #[test]
    fn erf_inv_inverts_erf(
        x in prop::collection::vec(prop_oneof![
            4 => -1.0f32..1.0,
            1 => select(vec![-1.0f32, 1.0, 1.5, -3.0, f32::NAN, 0.0, -0.0,
                             0.999_999_9, -0.999_999_9]),
        ], 0..20),
        y in prop::collection::vec(-0.999f64..0.999, 0..20),
    ) {
        let n = x.len();
        let got = jit(|a| lax::erf_inv(&a[0]), &[Tensor::from_vec(x.clone(), &[n])]);
        for (&v, g) in x.iter().zip(got.to_vec::<f32>()) {
            if v.is_nan() || v.abs() > 1.0 {
                prop_assert!(g.is_nan(), "erf_inv({v}) = {g}");
            } else if v.abs() == 1.0 {
                prop_assert_eq!(g, f32::INFINITY * v);
            } else {
                prop_assert!((erf(g as f64) - v as f64).abs() < 2e-6, "erf_inv({v}) = {g}");
                prop_assert_eq!(g.to_bits() >> 31, v.to_bits() >> 31, "sign of erf_inv({})", v);
            }
        }
        let n = y.len();
        let got = jit(|a| lax::erf_inv(&a[0]), &[Tensor::from_vec(y.clone(), &[n])]);
        for (&v, g) in y.iter().zip(got.to_vec::<f64>()) {
            prop_assert!((erf(g) - v).abs() < 1e-9, "erf_inv({v}) = {g}");
        }
    }

    #[test]
    fn convert_element_type(x in any_dtype_arr(Vals::Wide)) {
        let xv = values(&x);
        for to in ALL_DTYPES {
            let got = jit(|a| lax::convert_element_type(&a[0], to), from_ref(&x));
            prop_assert_eq!(got.dtype(), to);
            prop_assert_eq!(got.shape(), x.shape());
            for (i, (&v, g)) in xv.iter().zip(values(&got)).enumerate() {
                let want = convert_ref(v, to);
                prop_assert!(same_v(g, want), "element {i}: {v:?} to {to}: got {g:?}, want {want:?}");
            }
            // `astype` is the numpy spelling of the same conversion.
            let via_np = jit(|a| a[0].astype(to), from_ref(&x));
            assert_bitwise(&via_np, &got, &to);
        }
    }

    #[test]
    fn select_n(
        dtype in select(ALL_DTYPES.to_vec()),
        shape in shape_s(4, 4),
        n_cases in 1usize..=3,
        bool_pred in any::<bool>(),
        scalar_pred in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let n_cases = if bool_pred { n_cases.min(2) } else { n_cases };
        let cases: Vec<Tensor> = (0..n_cases).map(|_| rng.tensor(dtype, &shape)).collect();
        let pshape: Vec<usize> = if scalar_pred { vec![] } else { shape.clone() };
        let which = if bool_pred {
            let v: Vec<bool> = (0..numel(&pshape)).map(|_| rng.below(n_cases) == 1).collect();
            Tensor::from_vec(v, &pshape)
        } else {
            let v: Vec<i32> = (0..numel(&pshape)).map(|_| rng.below(n_cases) as i32).collect();
            Tensor::from_vec(v, &pshape)
        };
        let mut args = vec![which.clone()];
        args.extend(cases.iter().cloned());
        let got = jit(|a| lax::select_n(&a[0], &a[1..]), &args);
        let w = which.array().to_f64_vec();
        let cv: Vec<Vec<V>> = cases.iter().map(values).collect();
        let got_v = values(&got);
        prop_assert_eq!(got.shape(), &shape[..]);
        for (i, g) in got_v.iter().enumerate() {
            let k = (if scalar_pred { w[0] } else { w[i] }) as usize;
            prop_assert!(same_v(*g, cv[k][i]), "element {}", i);
        }
    }
}
