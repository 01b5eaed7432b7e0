//! The tangents of the elementwise primitives: unary and binary ops and `integer_pow`, as
//! JAX's JVP rules (`None`: the op is not differentiable, its tangent a symbolic zero).

use super::jvp_rules::{add_opt, c, explicit_broadcast, is_float, select_broadcast, zeros_of_aval};
use crate::array::DType;
use crate::core::Tensor;
use crate::ops as lax;
use crate::prims::{BinaryOp, UnaryOp};

/// The machine epsilon of a float dtype (JAX's `finfo(dtype).eps`).
fn epsilon(dtype: DType) -> f64 {
    match dtype {
        DType::F16 => f64::from(half::f16::EPSILON),
        DType::BF16 => f64::from(half::bf16::EPSILON),
        DType::F32 | DType::C64 => f64::from(f32::EPSILON),
        DType::F64
        | DType::C128
        | DType::Bool
        | DType::I8
        | DType::I16
        | DType::I32
        | DType::I64
        | DType::U8
        | DType::U16
        | DType::U32
        | DType::U64 => f64::EPSILON,
    }
}

pub(crate) fn unary_tangent(op: UnaryOp, x: &Tensor, y: &Tensor, t: &Tensor) -> Option<Tensor> {
    use UnaryOp::*;
    Some(match op {
        Neg => lax::neg(t),
        Exp => lax::mul(t, y),
        Log => lax::div(t, x),
        Log1p => lax::div(t, &lax::add(x, &c(1.0, x))),
        Sin => lax::mul(t, &lax::cos(x)),
        Cos => lax::neg(&lax::mul(t, &lax::sin(x))),
        Tanh => lax::mul(t, &lax::sub(&c(1.0, y), &lax::mul(y, y))),
        Logistic => lax::mul(t, &lax::mul(y, &lax::sub(&c(1.0, y), y))),
        Sqrt => lax::div(&lax::mul(t, &c(0.5, t)), y),
        Cbrt => lax::mul(t, &lax::mul(&c(1.0 / 3.0, x), &lax::integer_pow(y, -2))),
        Rsqrt => lax::mul(&lax::mul(t, &c(-0.5, t)), &lax::div(y, x)),
        // |z|' = real(t * conj(z) / |z|), with |z| = 0 read as 1, as JAX's rule.
        Abs if x.dtype().is_complex() => {
            let at_zero = lax::convert_element_type(&lax::eq(y, &c(0.0, y)), y.dtype());
            let safe = lax::add(y, &at_zero);
            let unit = lax::div(&lax::conj(x), &lax::complex(&safe, &c(0.0, &safe)));
            lax::real(&lax::mul(t, &unit))
        }
        Abs => lax::select_n(&lax::ge(x, &c(0.0, x)), &[lax::neg(t), t.clone()]),
        Real => lax::real(t),
        Imag => lax::imag(t),
        Conj => lax::conj(t),
        ErfInv => {
            // d/dx erfinv(x) = sqrt(pi)/2 * exp(erfinv(x)^2)
            let k = c(std::f64::consts::PI.sqrt() / 2.0, x);
            lax::mul(t, &lax::mul(&k, &lax::exp(&lax::mul(y, y))))
        }
        Erf | Erfc => {
            // d/dx erf(x) = 2/sqrt(pi) exp(-x^2); erfc's is its negation.
            let k = 2.0 / std::f64::consts::PI.sqrt();
            let k = if op == Erf { k } else { -k };
            lax::mul(
                &c(k, x),
                &lax::mul(t, &lax::exp(&lax::neg(&lax::mul(x, x)))),
            )
        }
        Lgamma => lax::mul(t, &lax::digamma(x)),
        Digamma => lax::mul(t, &lax::polygamma(&c(1.0, x), x)),
        Tan => lax::mul(t, &lax::add(&c(1.0, x), &lax::square(y))),
        Asin => lax::mul(t, &lax::rsqrt(&lax::sub(&c(1.0, x), &lax::square(x)))),
        Acos => lax::mul(
            t,
            &lax::neg(&lax::rsqrt(&lax::sub(&c(1.0, x), &lax::square(x)))),
        ),
        Atan => lax::div(t, &lax::add(&c(1.0, x), &lax::square(x))),
        Sinh => lax::mul(t, &lax::cosh(x)),
        Cosh => lax::mul(t, &lax::sinh(x)),
        Asinh => lax::mul(t, &lax::rsqrt(&lax::add(&lax::square(x), &c(1.0, x)))),
        Acosh => lax::mul(t, &lax::rsqrt(&lax::sub(&lax::square(x), &c(1.0, x)))),
        Atanh => lax::mul(
            &lax::integer_pow(&lax::add(&c(1.0, x), x), -1),
            &lax::div(t, &lax::sub(&c(1.0, x), x)),
        ),
        Expm1 => lax::mul(t, &lax::add(y, &c(1.0, y))),
        Exp2 => lax::mul(&c(std::f64::consts::LN_2, x), &lax::mul(t, y)),
        Square => lax::mul(t, &lax::mul(&c(2.0, x), x)),
        // Linear, as JAX defines it: the tangent rounded the same way.
        ReducePrecision {
            exponent_bits,
            mantissa_bits,
        } => lax::reduce_precision(t, exponent_bits, mantissa_bits),
        BesselI0e => lax::mul(
            t,
            &lax::sub(&lax::bessel_i1e(x), &lax::mul(&lax::sign(x), y)),
        ),
        BesselI1e => {
            // As JAX: x clamped away from 0 by the dtype's epsilon, where the slope is 1/2.
            let eps = c(epsilon(x.dtype()), x);
            let big = lax::gt(&lax::abs(x), &eps);
            let safe = select_broadcast(&big, &eps, x, x.shape());
            let d = lax::sub(
                &lax::bessel_i0e(&safe),
                &lax::mul(
                    y,
                    &lax::add(&lax::sign(&safe), &lax::integer_pow(&safe, -1)),
                ),
            );
            lax::mul(t, &select_broadcast(&big, &c(0.5, x), &d, x.shape()))
        }
        Sign | Floor | Ceil | Round | Not | IsFinite | RoundEven | PopulationCount | Clz => {
            return None
        }
    })
}

/// `t * y * x^(y-1)`.
pub(crate) fn integer_pow_tangent(x: &Tensor, y: i32, t: &Tensor) -> Tensor {
    let d = match y {
        0 => return zeros_of_aval(t),
        1 => return t.clone(),
        2 => x.clone(),
        // y - 1 is not an i32: x^(-2^31 - 1) = 1 / (x * (x^(2^30))^2), the products XLA's
        // binary exponentiation forms for JAX's `integer_pow(x, y - 1)`.
        i32::MIN => {
            let p = lax::integer_pow(x, 1 << 30);
            lax::div(&c(1.0, x), &lax::mul(x, &lax::mul(&p, &p)))
        }
        y => lax::integer_pow(x, y - 1),
    };
    lax::mul(t, &lax::mul(&c(y as f64, x), &d))
}

/// `d(x ** y)/dx` as JAX's `_pow_jvp_lhs`: `y * x ** (y - 1)` for a float exponent (NaN at
/// `0 ** 0`); for an integer exponent, converted to `x`'s dtype, the same with `y` = 0 giving
/// 0 (so the derivative at `x = 0, y = 0` is 0).
fn pow_base_jac(x: &Tensor, y: &Tensor) -> Tensor {
    let ones = |v: &Tensor| lax::broadcast_in_dim(&c(1.0, v), v.shape(), &[]);
    if !y.dtype().is_int() {
        return lax::mul(y, &lax::pow(x, &lax::sub(y, &ones(y))));
    }
    let y = lax::convert_element_type(y, x.dtype());
    let (x, y) = if x.shape() == y.shape() {
        (x.clone(), y)
    } else {
        let shape = crate::prims::broadcast_shapes(x.shape(), y.shape())
            .expect("checked by pow's shape rule");
        (
            explicit_broadcast(x, &shape),
            explicit_broadcast(&y, &shape),
        )
    };
    let zero = c(0.0, &y);
    let is_zero = lax::eq(&y, &zero);
    let zeros = zeros_of_aval(&y);
    let safe_y = lax::select_n(&lax::eq(&y, &zero), &[y.clone(), ones(&y)]);
    let d = lax::mul(&safe_y, &lax::pow(&x, &lax::sub(&y, &ones(&y))));
    lax::select_n(&is_zero, &[d, zeros])
}

pub(crate) fn binary_tangents(
    op: BinaryOp,
    x: &Tensor,
    y: &Tensor,
    out: &Tensor,
    tx: Option<&Tensor>,
    ty: Option<&Tensor>,
) -> Option<Tensor> {
    use BinaryOp::*;
    let shape = out.shape();
    let (tx, ty) = (tx.cloned(), ty.cloned());
    match op {
        Add => add_opt(tx, ty, shape),
        Sub => add_opt(tx, ty.map(|t| lax::neg(&t)), shape),
        Mul => add_opt(
            tx.map(|t| lax::mul(&t, y)),
            ty.map(|t| lax::mul(x, &t)),
            shape,
        ),
        Div => add_opt(
            tx.map(|t| lax::div(&t, y)),
            ty.map(|t| lax::neg(&lax::mul(&lax::div(&t, y), &lax::div(x, y)))),
            shape,
        ),
        Max | Min => {
            // Ties share the derivative equally, as in JAX.
            let share = |a: &Tensor, b: &Tensor| {
                let one = c(1.0, out);
                let hit = select_broadcast(&lax::eq(a, out), &c(0.0, out), &one, shape);
                let ties = select_broadcast(&lax::eq(b, out), &one, &c(2.0, out), shape);
                lax::div(&hit, &ties)
            };
            add_opt(
                tx.map(|t| lax::mul(&t, &share(x, y))),
                ty.map(|t| lax::mul(&t, &share(y, x))),
                shape,
            )
        }
        Pow => {
            // JAX's `_pow_jvp_rhs`: log(x) with 0 replaced by 1, times x ** y.
            let dy = ty.filter(|_| is_float(y)).map(|t| {
                let safe = select_broadcast(&lax::eq(x, &c(0.0, x)), x, &c(1.0, x), x.shape());
                lax::mul(&t, &lax::mul(&lax::log(&safe), out))
            });
            add_opt(tx.map(|t| lax::mul(&t, &pow_base_jac(x, y))), dy, shape)
        }
        Rem => {
            let q = lax::div(x, y);
            add_opt(
                tx,
                ty.map(|t| {
                    lax::neg(&lax::mul(
                        &t,
                        &lax::mul(&lax::sign(&q), &lax::floor(&lax::abs(&q))),
                    ))
                }),
                shape,
            )
        }
        Polygamma => {
            assert!(
                tx.is_none(),
                "polygamma: the gradient with respect to m is not supported (as in JAX)"
            );
            ty.map(|t| {
                let m1 = lax::add(x, &c(1.0, x));
                explicit_broadcast(&lax::mul(&t, &lax::polygamma(&m1, y)), shape)
            })
        }
        Zeta => {
            assert!(
                tx.is_none(),
                "zeta: the gradient with respect to x is not supported (as in JAX)"
            );
            // d/dq zeta(x, q) = -x zeta(x + 1, q).
            ty.map(|t| {
                let x1 = lax::add(x, &c(1.0, x));
                let d = lax::neg(&lax::mul(x, &lax::zeta(&x1, y)));
                explicit_broadcast(&lax::mul(&t, &d), shape)
            })
        }
        Atan2 => {
            // d atan2(x, y) = (y dx - x dy) / (x^2 + y^2).
            let r2 = lax::add(&lax::square(x), &lax::square(y));
            add_opt(
                tx.map(|t| lax::mul(&t, &lax::div(y, &r2))),
                ty.map(|t| lax::mul(&t, &lax::div(&lax::neg(x), &r2))),
                shape,
            )
        }
        Igamma | Igammac => {
            // d/da: igamma_grad_a; d/dx: x^(a-1) e^-x / Γ(a). igammac's are the negations.
            let sign = c(if op == Igamma { 1.0 } else { -1.0 }, out);
            let da = tx.map(|t| lax::mul(&t, &lax::igamma_grad_a(x, y)));
            let dx = ty.map(|t| {
                let log_density = lax::sub(
                    &lax::add(
                        &lax::neg(y),
                        &lax::mul(&lax::sub(x, &c(1.0, x)), &lax::log(y)),
                    ),
                    &lax::lgamma(x),
                );
                lax::mul(&t, &lax::exp(&log_density))
            });
            add_opt(da, dx, shape).map(|d| lax::mul(&sign, &d))
        }
        Complex => add_opt(
            tx.map(|t| lax::complex(&t, &c(0.0, &t))),
            ty.map(|t| lax::complex(&c(0.0, &t), &t)),
            shape,
        ),
        Nextafter | Eq | Ne | Lt | Le | Gt | Ge | And | Or | Xor | ShiftLeft
        | ShiftRightLogical | ShiftRightArithmetic | IgammaGradA | RandomGammaGrad => None,
    }
}
