//! Scalar references: what each elementwise op computes on one element, by Rust's `std`
//! and XLA's stated semantics (wrapping integers, division by zero, conversions).

use oxla::prims::{BinaryOp, UnaryOp};
use oxla::DType;

use crate::support::V;

use BinaryOp as B;
use UnaryOp as U;

pub fn compare<T: PartialOrd>(op: BinaryOp, x: T, y: T) -> bool {
    match op {
        B::Eq => x == y,
        B::Ne => x != y,
        B::Lt => x < y,
        B::Le => x <= y,
        B::Gt => x > y,
        B::Ge => x >= y,
        _ => unreachable!("{op:?} is not a comparison"),
    }
}

/// Binary exponentiation, as XLA computes `integer_pow`.
pub fn ipow<T: Copy>(
    mut x: T,
    y: i32,
    one: T,
    mul: impl Fn(T, T) -> T,
    div: impl Fn(T, T) -> T,
) -> T {
    let mut n = y.unsigned_abs();
    let mut acc = one;
    while n > 0 {
        if n & 1 == 1 {
            acc = mul(acc, x);
        }
        x = mul(x, x);
        n >>= 1;
    }
    if y < 0 {
        div(one, acc)
    } else {
        acc
    }
}

macro_rules! float_reference {
    ($t:ty, $unary:ident, $binary:ident, $next:ident) => {
        pub fn $unary(op: UnaryOp, x: $t) -> $t {
            match op {
                U::Neg => -x,
                U::Exp => x.exp(),
                U::Log => x.ln(),
                U::Log1p => x.ln_1p(),
                U::Sin => x.sin(),
                U::Cos => x.cos(),
                U::Tanh => x.tanh(),
                U::Logistic => 1.0 / (1.0 + (-x).exp()),
                U::Sqrt => x.sqrt(),
                U::Cbrt => x.cbrt(),
                U::Rsqrt => 1.0 / x.sqrt(),
                U::Abs => x.abs(),
                U::Sign if x.is_nan() || x == 0.0 => x,
                U::Sign => x.signum(),
                U::Floor => x.floor(),
                U::Ceil => x.ceil(),
                U::Round => x.round(),
                _ => unreachable!("{op:?}"),
            }
        }

        fn $next(x: $t, y: $t) -> $t {
            if x.is_nan() || y.is_nan() {
                <$t>::NAN
            } else if x == y {
                y
            } else if x == 0.0 {
                let tiny = <$t>::from_bits(1);
                if y > 0.0 {
                    tiny
                } else {
                    -tiny
                }
            } else if (y > x) == (x > 0.0) {
                <$t>::from_bits(x.to_bits() + 1)
            } else {
                <$t>::from_bits(x.to_bits() - 1)
            }
        }

        pub fn $binary(op: BinaryOp, x: $t, y: $t) -> $t {
            match op {
                B::Add => x + y,
                B::Sub => x - y,
                B::Mul => x * y,
                B::Div => x / y,
                B::Rem => x % y,
                B::Pow => x.powf(y),
                B::Max | B::Min if x.is_nan() || y.is_nan() => <$t>::NAN,
                B::Max => x.max(y),
                B::Min => x.min(y),
                B::Nextafter => $next(x, y),
                _ => unreachable!("{op:?}"),
            }
        }
    };
}
float_reference!(f32, unary_f32, binary_f32, nextafter_f32);
float_reference!(f64, unary_f64, binary_f64, nextafter_f64);

macro_rules! int_reference {
    ($t:ty, $unary:ident, $binary:ident) => {
        pub fn $unary(op: UnaryOp, x: $t) -> $t {
            match op {
                U::Neg => x.wrapping_neg(),
                #[allow(unused_comparisons)]
                U::Abs if x < 0 => x.wrapping_neg(),
                U::Abs => x,
                #[allow(unused_comparisons)]
                U::Sign if x < 0 => (0 as $t).wrapping_sub(1),
                U::Sign => (x > 0) as $t,
                U::Not => !x,
                _ => unreachable!("{op:?}"),
            }
        }

        pub fn $binary(op: BinaryOp, x: $t, y: $t) -> $t {
            let shift = y as u32;
            match op {
                B::Add => x.wrapping_add(y),
                B::Sub => x.wrapping_sub(y),
                B::Mul => x.wrapping_mul(y),
                // XLA: division by zero gives -1 (all ones), remainder by zero the dividend.
                B::Div if y == 0 => (0 as $t).wrapping_sub(1),
                B::Div => x.wrapping_div(y),
                B::Rem if y == 0 => x,
                B::Rem => x.wrapping_rem(y),
                B::Max => x.max(y),
                B::Min => x.min(y),
                B::And => x & y,
                B::Or => x | y,
                B::Xor => x ^ y,
                B::ShiftLeft if shift >= 32 => 0,
                B::ShiftLeft => ((x as u32) << shift) as $t,
                B::ShiftRightLogical if shift >= 32 => 0,
                B::ShiftRightLogical => ((x as u32) >> shift) as $t,
                _ => unreachable!("{op:?}"),
            }
        }
    };
}
int_reference!(i32, unary_i32, binary_i32);
int_reference!(u32, unary_u32, binary_u32);

/// `erf` in f64 by its Taylor series (accurate to ~1e-11 for |x| <= 4.5).
pub fn erf(x: f64) -> f64 {
    if x.abs() > 4.5 {
        return x.signum();
    }
    let (mut term, mut sum) = (x, x);
    for n in 1..200 {
        term *= -x * x / n as f64;
        sum += term / (2 * n + 1) as f64;
    }
    sum * 2.0 / std::f64::consts::PI.sqrt()
}

/// XLA's conversions: float to int truncates toward zero and saturates (NaN gives 0),
/// same-width integers wrap, anything to bool tests for nonzero.
pub fn convert_ref(v: V, to: DType) -> V {
    match to {
        DType::Bool => V::B(match v {
            V::B(x) => x,
            V::I(x) => x != 0,
            V::U(x) => x != 0,
            V::F(x) => x != 0.0,
            V::D(x) => x != 0.0,
        }),
        DType::I32 => V::I(match v {
            V::B(x) => x as i32,
            V::I(x) => x,
            V::U(x) => x as i32,
            V::F(x) => x as i32,
            V::D(x) => x as i32,
        }),
        DType::U32 => V::U(match v {
            V::B(x) => x as u32,
            V::I(x) => x as u32,
            V::U(x) => x,
            V::F(x) => x as u32,
            V::D(x) => x as u32,
        }),
        DType::F32 => V::F(match v {
            V::B(x) => x as u8 as f32,
            V::I(x) => x as f32,
            V::U(x) => x as f32,
            V::F(x) => x,
            V::D(x) => x as f32,
        }),
        DType::F64 => V::D(match v {
            V::B(x) => x as u8 as f64,
            V::I(x) => x as f64,
            V::U(x) => x as f64,
            V::F(x) => x as f64,
            V::D(x) => x,
        }),
        other => unreachable!("the property suite draws only ALL_DTYPES, not {other}"),
    }
}
