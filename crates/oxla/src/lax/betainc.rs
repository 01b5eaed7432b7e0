//! `lax.betainc`: the regularized incomplete beta function as JAX computes it (XLA's
//! algorithm): the continued fraction of DLMF 8.17.22 by the Lentz–Thompson–Barnett method
//! in a `while_loop`, on `x < (a + 1) / (a + b + 2)` and through the symmetry
//! `I_x(a, b) = 1 - I_{1-x}(b, a)` elsewhere.

use crate::array::DType;
use crate::control::while_loop;
use crate::core::Tensor;
use crate::numpy::{broadcast_arrays, scalar_tensor, where_};
use crate::ops as lax;

/// The regularized incomplete beta function `I_x(a, b)` of three float tensors of one
/// dtype (broadcast together), as `jax.lax.betainc`: `f16` and `bf16` compute in `f32`;
/// the continued fraction runs until every element has converged to `eps / 2` or for 200
/// iterations (600 in `f64`). `a` or `b` zero or infinite give the limits JAX gives; a
/// negative parameter, `x` outside `[0, 1]` or NaN give NaN.
///
/// As in JAX, it is differentiable in `x` only, with derivative
/// `x^(a-1) (1-x)^(b-1) / B(a, b)` (dropped where that is not finite, at `x = 0` with
/// `a < 1` or `x = 1` with `b < 1`), whose own derivative is taken as zero; reverse-mode
/// differentiation in `a` or `b` panics (in the loop), where JAX raises. Panics at the
/// caller's line for mixed or non-float dtypes.
///
/// ```
/// use oxla::{lax, Tensor};
/// let y = lax::betainc(&Tensor::scalar(2.0f32), &Tensor::scalar(3.0f32), &Tensor::scalar(0.5f32));
/// assert!((y.item() - 0.6875).abs() < 1e-6);
/// ```
#[track_caller]
pub fn betainc(a: &Tensor, b: &Tensor, x: &Tensor) -> Tensor {
    let _line = crate::core::user_line();
    let dtype = a.dtype();
    if !dtype.is_float() || b.dtype() != dtype || x.dtype() != dtype {
        panic!(
            "betainc: a, b and x must be floats of one dtype, got {}, {} and {}\n  at {}",
            a.aval(),
            b.aval(),
            x.aval(),
            std::panic::Location::caller()
        );
    }
    let t = broadcast_arrays(&[a.clone(), b.clone(), x.clone()]);
    if dtype.is_half() {
        let up: Vec<Tensor> = t
            .iter()
            .map(|v| lax::convert_element_type(v, DType::F32))
            .collect();
        return lax::convert_element_type(&with_slope(&up[0], &up[1], &up[2]), dtype);
    }
    with_slope(&t[0], &t[1], &t[2])
}

/// The value on `stop_gradient(x)`, with JAX's derivative in `x` attached as
/// `stop_gradient(s) * (x - stop_gradient(x))` (a first derivative only: the slope is not
/// differentiated again, so that `x = 0` gives no `0 / 0`).
#[track_caller]
fn with_slope(a: &Tensor, b: &Tensor, x: &Tensor) -> Tensor {
    let c = |v: f64| scalar_tensor(v, x.dtype());
    let xs = lax::stop_gradient(x);
    let value = lax::stop_gradient(&impl_(a, b, &xs));
    let lbeta = lax::sub(
        &lax::add(&lax::lgamma(a), &lax::lgamma(b)),
        &lax::lgamma(&lax::add(a, b)),
    );
    let slope = lax::exp(&lax::sub(
        &lax::add(
            &lax::mul(&lax::sub(b, &c(1.0)), &lax::log1p(&lax::neg(x))),
            &lax::mul(&lax::sub(a, &c(1.0)), &lax::log(x)),
        ),
        &lbeta,
    ));
    let term = lax::mul(&lax::stop_gradient(&slope), &lax::sub(x, &xs));
    let finite = lax::is_finite(&lax::stop_gradient(&term));
    where_(finite, lax::add(&value, &term), &value)
}

/// JAX's `regularized_incomplete_beta_impl` on broadcast `f32` or `f64` operands.
#[track_caller]
fn impl_(a: &Tensor, b: &Tensor, x: &Tensor) -> Tensor {
    let dtype = x.dtype();
    let c = |v: f64| scalar_tensor(v, dtype);
    let (eps, tiny, iterations) = if dtype == DType::F32 {
        (2f64.powi(-23), 2f64.powi(-126), 200)
    } else {
        (2f64.powi(-52), 2f64.powi(-1022), 600)
    };
    let inf = c(f64::INFINITY);
    let a_zero = lax::or(&lax::eq(a, &c(0.0)), &lax::eq(b, &inf));
    let b_zero = lax::or(&lax::eq(b, &c(0.0)), &lax::eq(a, &inf));
    let (x_zero, x_one) = (lax::eq(x, &c(0.0)), lax::eq(x, &c(1.0)));
    let is_nan = lax::or(&lax::or(&lax::ne(a, a), &lax::ne(b, b)), &lax::ne(x, x));
    let result_zero = lax::or(
        &lax::and(&b_zero, &lax::not(&x_one)),
        &lax::and(&a_zero, &x_zero),
    );
    let result_one = lax::or(
        &lax::and(&a_zero, &lax::not(&x_zero)),
        &lax::and(&b_zero, &x_one),
    );
    let out_of_domain = lax::or(
        &lax::or(&lax::lt(a, &c(0.0)), &lax::lt(b, &c(0.0))),
        &lax::or(&lax::lt(x, &c(0.0)), &lax::gt(x, &c(1.0))),
    );
    let result_nan = lax::or(
        &out_of_domain,
        &lax::or(&lax::and(&a_zero, &b_zero), &is_nan),
    );

    let bound = lax::div(&lax::add(a, &c(1.0)), &lax::add(&lax::add(a, b), &c(2.0)));
    let rapid = lax::lt(x, &bound);
    let (a, b, x) = (
        lax::select(&rapid, a, b),
        lax::select(&rapid, b, a),
        lax::select(&rapid, x, &lax::sub(&c(1.0), x)),
    );
    let cf = continued_fraction(&a, &b, &x, iterations, eps / 2.0);

    let lbeta_small = lax::sub(&lax::lgamma(&b), &lax::lgamma(&lax::add(&a, &b)));
    let lbeta = lax::add(&lax::lgamma(&a), &lbeta_small);
    let log1m = lax::log1p(&lax::neg(&x));
    let small_a = lax::exp(&lax::sub(&lax::mul(&log1m, &b), &lbeta_small));
    let general = lax::div(
        &lax::exp(&lax::sub(
            &lax::add(&lax::mul(&lax::log(&x), &a), &lax::mul(&log1m, &b)),
            &lbeta,
        )),
        &a,
    );
    let factor = lax::select(&lax::lt(&a, &c(tiny * 2.0)), &small_a, &general);
    let r = lax::mul(&cf, &factor);
    let r = lax::select(&rapid, &r, &lax::sub(&c(1.0), &r));
    let r = where_(result_zero, 0.0, r);
    let r = where_(result_one, 1.0, r);
    where_(result_nan, f64::NAN, r)
}

/// The continued fraction's value by the modified Lentz method, as JAX's
/// `lentz_thompson_barnett_algorithm` with the incomplete beta function's partial
/// numerators (DLMF 8.17.23) and denominators (0, then 1).
#[track_caller]
fn continued_fraction(a: &Tensor, b: &Tensor, x: &Tensor, iterations: i32, small: f64) -> Tensor {
    let dtype = x.dtype();
    let c = |v: f64| scalar_tensor(v, dtype);
    let shape = x.shape().to_vec();
    let h0 = lax::broadcast_in_dim(&c(small), &shape, &[]);
    let init = [
        scalar_tensor(1.0, DType::I32),
        scalar_tensor(1.0, DType::Bool),
        h0.clone(),
        lax::broadcast_in_dim(&c(0.0), &shape, &[]),
        h0,
    ];
    let cond = |v: [Tensor; 5]| {
        lax::and(
            &lax::lt(&v[0], &scalar_tensor(f64::from(iterations), DType::I32)),
            &v[1],
        )
    };
    let body = |v: [Tensor; 5]| {
        let [it, _, cc, dd, h] = v;
        let num = partial_numerator(&it, a, b, x);
        let one = c(1.0);
        let small_t = c(small);
        let tiny_to_small = |t: Tensor| where_(lax::lt(&lax::abs(&t), &small_t), &small_t, &t);
        let cc = tiny_to_small(lax::add(&one, &lax::div(&num, &cc)));
        let dd = tiny_to_small(lax::add(&one, &lax::mul(&num, &dd)));
        let dd = lax::div(&one, &dd);
        let delta = lax::mul(&cc, &dd);
        let h = lax::mul(&h, &delta);
        let far = lax::ge(&lax::abs(&lax::sub(&delta, &one)), &small_t);
        let all: Vec<usize> = (0..far.ndim()).collect();
        let unconverged = lax::reduce_or(&far, &all);
        let it = lax::add(&it, &scalar_tensor(1.0, DType::I32));
        [it, unconverged, cc, dd, h]
    };
    let [_, _, _, _, h] = while_loop(cond, body, init);
    h
}

/// The `iteration`-th partial numerator (`iteration >= 1`): 1 for the first, then
/// alternately `-(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1))` (with `-(a + b) x / (a + 1)`
/// for `m = 0`) and `m (b - m) x / ((a + 2m - 1)(a + 2m))`, `m = (iteration - 1) / 2`.
#[track_caller]
fn partial_numerator(iteration: &Tensor, a: &Tensor, b: &Tensor, x: &Tensor) -> Tensor {
    let dtype = x.dtype();
    let c = |v: f64| scalar_tensor(v, dtype);
    let i = |v: f64| scalar_tensor(v, DType::I32);
    let even = lax::eq(&lax::rem(iteration, &i(2.0)), &i(0.0));
    let first = lax::eq(iteration, &i(1.0));
    let m_int = lax::div(&lax::sub(iteration, &i(1.0)), &i(2.0));
    let m_zero = lax::eq(&m_int, &i(0.0));
    let m = lax::convert_element_type(&m_int, dtype);
    let (one, two_m) = (c(1.0), lax::mul(&c(2.0), &m));
    let a2m = lax::add(a, &two_m);
    let ab = lax::add(a, b);
    let zero_num = lax::div(&lax::mul(&lax::neg(&ab), x), &lax::add(a, &one));
    let even_num = lax::div(
        &lax::mul(
            &lax::mul(&lax::neg(&lax::add(a, &m)), &lax::add(&ab, &m)),
            x,
        ),
        &lax::mul(&a2m, &lax::add(&a2m, &one)),
    );
    let even_num = where_(m_zero, zero_num, even_num);
    let odd_num = lax::div(
        &lax::mul(&lax::mul(&m, &lax::sub(b, &m)), x),
        &lax::mul(&lax::sub(&a2m, &one), &a2m),
    );
    let num = where_(even, even_num, odd_num);
    where_(first, 1.0, num)
}
