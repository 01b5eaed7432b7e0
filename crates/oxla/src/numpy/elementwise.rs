//! Elementwise numpy functions: arithmetic with promotion and broadcasting, math functions,
//! comparisons and `where_` (logic and bits are in `bitwise.rs`).

use super::{inexact, promote, promote_shapes, promote_to, result_type, scalar_tensor, Operand};
use crate::array::{DType, Kind};
use crate::core::Tensor;
use crate::ops as lax;

macro_rules! binary_fn {
    ($($(#[$doc:meta])* $name:ident => $lax:ident),* $(,)?) => {$(
        $(#[$doc])*
        #[track_caller]
        pub fn $name(x: impl Into<Operand>, y: impl Into<Operand>) -> Tensor {
            let _line = crate::core::user_line();
            let t = promote(stringify!($name), &[x.into(), y.into()]);
            lax::$lax(&t[0], &t[1])
        }
    )*};
}
binary_fn!(
    /// `x + y`.
    add => add,
    /// `x - y`.
    subtract => sub,
    /// `x * y`.
    multiply => mul,
    /// Elementwise maximum (NaN propagates).
    maximum => max,
    /// Elementwise minimum (NaN propagates).
    minimum => min,
    /// `x == y`.
    equal => eq,
    /// `x != y`.
    not_equal => ne,
    /// `x < y`.
    less => lt,
    /// `x <= y`.
    less_equal => le,
    /// `x > y`.
    greater => gt,
    /// `x >= y`.
    greater_equal => ge,
);

/// `x / y` in floating point: integer operands are converted to `f32` first.
#[track_caller]
pub fn divide(x: impl Into<Operand>, y: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let ops = [x.into(), y.into()];
    let dtype = result_type(&ops);
    let dtype = if dtype.is_inexact() {
        dtype
    } else {
        Kind::Float.default_dtype()
    };
    let t = promote_to("divide", &ops, dtype);
    lax::div(&t[0], &t[1])
}

/// `x ** y`, as `jnp.power` computes it: `integer_pow` for an integer (or bool) scalar
/// exponent; for integer (or bool) operands, JAX's binary exponentiation over the exponent's
/// low six bits, in the integer dtype (wrapping); for a float base and an integer tensor
/// exponent, `pow` keeping the exponent's dtype (its derivative at `y` = 0 is 0, as in JAX);
/// else `pow` in floating point.
#[track_caller]
pub fn power(x: impl Into<Operand>, y: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let (x, y) = (x.into(), y.into());
    if let Operand::Scalar(v, Kind::Int | Kind::Bool) = y {
        if !(f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&v) {
            panic!(
                "power: the exponent {v} does not fit int32, integer_pow's exponent\n  at {}",
                std::panic::Location::caller()
            );
        }
        let dtype = match x.dtype() {
            DType::Bool => Kind::Int.default_dtype(),
            d => d,
        };
        return lax::integer_pow(&x.to_tensor_in("power", dtype), v as i32);
    }
    let ops = [x, y];
    let dtype = result_type(&ops);
    if !dtype.is_float() {
        let dtype = if dtype == DType::Bool {
            Kind::Int.default_dtype()
        } else {
            dtype
        };
        let t = promote_to("power", &ops, dtype);
        return pow_int_int(&t[0], &t[1]);
    }
    if let [x, Operand::Tensor(y)] = &ops {
        if x.dtype().is_float() && y.dtype().is_int() {
            // A float base keeps an integer exponent's dtype, for `pow`'s derivative at
            // y = 0 (JAX's case 3; JAX also stages the exponent's conversion, unused).
            let t = promote_shapes("power", vec![x.to_tensor_in("power", dtype), y.clone()]);
            return lax::pow(&t[0], &t[1]);
        }
    }
    let t = promote_to("power", &ops, dtype);
    lax::pow(&t[0], &t[1])
}

/// `x ** y` for integers by binary exponentiation over the low six bits of `y` (JAX's
/// `_pow_int_int`: more would overflow for any `|x| > 1`); `0 ** y` is 0 for `y != 0`. The
/// result has the operands' broadcast shape (`where_` broadcasts).
#[track_caller]
fn pow_int_int(x: &Tensor, y: &Tensor) -> Tensor {
    let c = |v: f64| scalar_tensor(v, x.dtype());
    let (zero, one) = (c(0.0), c(1.0));
    let zero_base = lax::and(&lax::eq(x, &zero), &lax::ne(y, &zero));
    let mut acc = where_(zero_base, zero.clone(), one.clone());
    let (mut x, mut y) = (x.clone(), y.clone());
    for _ in 0..6 {
        let odd = lax::ne(&lax::and(&y, &one), &zero);
        acc = where_(odd, lax::mul(&acc, &x), acc);
        x = lax::mul(&x, &x);
        y = lax::shift_right_logical(&y, &one);
    }
    acc
}

/// Remainder with the sign of the divisor (numpy's `%`); integer division by zero gives 0.
#[track_caller]
pub fn remainder(x: impl Into<Operand>, y: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote("remainder", &[x.into(), y.into()]);
    let (x, y) = (&t[0], &t[1]);
    if let Some(d) = positive_constant(y) {
        // A known positive divisor: fix up only negative remainders.
        let r = lax::rem(x, y);
        let fix = lax::lt(&r, &scalar_tensor(0.0, r.dtype()));
        return lax::select_n(
            &fix,
            &[r.clone(), lax::add(&r, &scalar_tensor(d, r.dtype()))],
        );
    }
    let y = if y.dtype().is_int() {
        let zero = scalar_tensor(0.0, y.dtype());
        let one = scalar_tensor(1.0, y.dtype());
        where_(lax::eq(y, &zero), one, y)
    } else {
        y.clone()
    };
    let r = lax::rem(x, &y);
    let zero = scalar_tensor(0.0, r.dtype());
    let nonzero = lax::ne(&r, &zero);
    let signs_differ = lax::ne(&lax::lt(&r, &zero), &lax::lt(&y, &zero));
    let fix = lax::and(&signs_differ, &nonzero);
    lax::select_n(&fix, &[r.clone(), lax::add(&r, &y)])
}

/// The value of a concrete, positive rank-0 tensor.
fn positive_constant(y: &Tensor) -> Option<f64> {
    let a = y.try_array()?;
    (a.ndim() == 0 && a.item() > 0.0).then(|| a.item())
}

/// Division rounded toward negative infinity (numpy's `//`).
#[track_caller]
pub fn floor_divide(x: impl Into<Operand>, y: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote("floor_divide", &[x.into(), y.into()]);
    let (x, y) = (&t[0], &t[1]);
    if x.dtype().is_float() {
        let m = lax::rem(x, y);
        let d = lax::div(&lax::sub(x, &m), y);
        let zero = scalar_tensor(0.0, x.dtype());
        let fix = lax::and(&lax::ne(&m, &zero), &lax::ne(&lax::sign(y), &lax::sign(&m)));
        let one = scalar_tensor(1.0, x.dtype());
        let d = lax::select_n(&fix, &[d.clone(), lax::sub(&d, &one)]);
        return lax::round(&d);
    }
    let q = lax::div(x, y);
    if x.dtype().is_unsigned_int() {
        // No rounding to fix (and x / 0 is XLA's all-bits-set), as in JAX.
        return q;
    }
    let zero = scalar_tensor(0.0, x.dtype());
    let one = scalar_tensor(1.0, x.dtype());
    if positive_constant(y).is_some() {
        // A known positive divisor: round down where the remainder is negative.
        let fix = lax::lt(&lax::rem(x, y), &zero);
        return lax::select_n(&fix, &[q.clone(), lax::sub(&q, &one)]);
    }
    let fix = lax::and(
        &lax::ne(&lax::sign(x), &lax::sign(y)),
        &lax::ne(&lax::rem(x, y), &zero),
    );
    lax::select_n(&fix, &[q.clone(), lax::sub(&q, &one)])
}

/// `-x`.
#[track_caller]
pub fn negative(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    lax::neg(x)
}

/// `|x|`.
#[track_caller]
pub fn abs(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    if x.dtype().is_unsigned_int() || x.dtype() == DType::Bool {
        x.clone()
    } else {
        lax::abs(x)
    }
}

/// `-1`, `0` or `1` by the sign of `x` (NaN stays NaN).
#[track_caller]
pub fn sign(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    lax::sign(x)
}

float_fn!(
    /// `e^x`.
    exp => exp,
    /// Natural logarithm.
    log => log,
    /// `log(1 + x)`, accurate near zero.
    log1p => log1p,
    /// Sine.
    sin => sin,
    /// Cosine.
    cos => cos,
    /// Hyperbolic tangent.
    tanh => tanh,
    /// Square root.
    sqrt => sqrt,
    /// Real cube root.
    cbrt => cbrt,
    /// Largest integer not above `x`.
    floor => floor,
    /// Smallest integer not below `x`.
    ceil => ceil,
);

/// Whether each element is NaN.
#[track_caller]
pub fn isnan(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    lax::ne(x, x)
}

/// Whether each element is infinite.
#[track_caller]
pub fn isinf(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    if !x.dtype().is_float() {
        return super::full_like(x, false);
    }
    lax::eq(&lax::abs(x), &scalar_tensor(f64::INFINITY, x.dtype()))
}

/// `x if condition else y`, elementwise, with numpy broadcasting of all three.
#[track_caller]
pub fn where_(
    condition: impl Into<Operand>,
    x: impl Into<Operand>,
    y: impl Into<Operand>,
) -> Tensor {
    let _line = crate::core::user_line();
    let c = condition.into();
    let c = match &c {
        Operand::Tensor(t) if t.dtype() == DType::Bool => t.clone(),
        Operand::Tensor(t) => lax::ne(t, &scalar_tensor(0.0, t.dtype())),
        Operand::Scalar(v, _) => scalar_tensor(*v, DType::Bool),
    };
    let xy = promote("where", &[x.into(), y.into()]);
    let mut all = promote_shapes("where", vec![c, xy[0].clone(), xy[1].clone()]);
    let shape = all
        .iter()
        .map(|t| t.shape().to_vec())
        .reduce(|a, b| crate::prims::broadcast_shapes(&a, &b).expect("checked by promote_shapes"))
        .expect("three operands");
    for t in all.iter_mut() {
        if t.shape() != shape.as_slice() {
            let dims: Vec<usize> = if t.ndim() == 0 {
                vec![]
            } else {
                (0..shape.len()).collect()
            };
            *t = lax::broadcast_in_dim(t, &shape, &dims);
        }
    }
    lax::select_n(&all[0], &[all[2].clone(), all[1].clone()])
}

/// Clamps to `[lo, hi]`.
#[track_caller]
pub fn clip(x: impl Into<Operand>, lo: impl Into<Operand>, hi: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    minimum(maximum(x, lo), hi)
}
