//! The gamma family: Marsaglia and Tsang's rejection sampler, with JAX's keys and loops
//! (`lax::while_loop`, one key per element, the boost `Gamma(a) = Gamma(a + 1) U^(1/a)`
//! for `a < 1`), and the samplers JAX builds on it: `loggamma`, `beta`, `dirichlet`,
//! `chisquare` and `t`.
//!
//! The loops are not reverse-differentiable (oxla's `while_loop` is forward-mode only), so
//! unlike JAX these samplers have no gradient with respect to their parameters yet.

use super::{fma, normal_dtype, split, split2, uniform};
use crate::array::DType;
use crate::core::Tensor;
use crate::numpy::{self as jnp, scalar_tensor, Operand};
use crate::ops as lax;

fn c32(v: f64) -> Tensor {
    scalar_tensor(v, DType::F32)
}

/// One gamma draw for one key and one `alpha` (rank 0), JAX's `_gamma_one`.
fn gamma_one(key: &Tensor, alpha: &Tensor, log_space: bool) -> Tensor {
    let (zero, one) = (c32(0.0), c32(1.0));
    let boost_mask = lax::ge(alpha, &one);
    let alpha_orig = alpha.clone();
    let alpha = lax::select_n(&boost_mask, &[lax::add(alpha, &one), alpha.clone()]);
    let d = lax::sub(&alpha, &c32(1.0 / 3.0));
    let c = lax::div(&c32(1.0 / 3.0), &lax::sqrt(&d));

    let cond = |s: Vec<Tensor>| {
        let (x, v, u) = (&s[1], &s[2], &s[3]);
        let squeeze = fma(&c32(-0.0331), &lax::mul(x, x), &one);
        let first = lax::ge(u, &squeeze);
        let t = lax::add(&lax::sub(&one, v), &lax::log(v));
        let rhs = lax::add(&lax::mul(x, &c32(0.5)), &lax::mul(&d, &t));
        lax::and(&first, &lax::ge(&lax::log(u), &rhs))
    };
    let body = |s: Vec<Tensor>| {
        let ks = split(&s[0], 3);
        let at = |i: usize| lax::reshape(&lax::slice(&ks, &[i, 0], &[i + 1, 2], None), &[2]);
        let inner = crate::control::while_loop(
            |t: Vec<Tensor>| lax::le(&t[2], &zero),
            |t: Vec<Tensor>| {
                let (key, sub) = split2(&t[0]);
                let x = normal_dtype(&sub, &[], DType::F32);
                let v = fma(&x, &c, &one);
                vec![key, x, v]
            },
            vec![at(1), zero.clone(), c32(-1.0)],
        );
        let (x, v) = (&inner[1], &inner[2]);
        let xx = lax::mul(x, x);
        let vvv = lax::mul(&lax::mul(v, v), v);
        vec![at(0), xx, vvv, uniform(&at(2), &[])]
    };
    let (key, sub) = split2(key);
    let out =
        crate::control::while_loop(cond, body, vec![key, zero.clone(), one.clone(), c32(2.0)]);
    let v = &out[2];
    let inv_alpha = lax::div(&one, &alpha_orig);
    if log_space {
        let log_samples = lax::neg(&super::exponential(&sub, &[]));
        let keep = lax::or(&boost_mask, &lax::eq(&log_samples, &zero));
        let log_boost = lax::select_n(&keep, &[lax::mul(&log_samples, &inv_alpha), zero]);
        lax::add(&lax::add(&lax::log(&d), &lax::log(v)), &log_boost)
    } else {
        let samples = lax::sub(&one, &uniform(&sub, &[]));
        let boost = lax::select_n(&boost_mask, &[lax::pow(&samples, &inv_alpha), one]);
        lax::mul(&lax::mul(&d, v), &boost)
    }
}

/// Gamma (or log-gamma) draws of `shape` for the concentrations `a`: one key per element
/// from `split(key, size)`, each element its own rejection loop.
#[track_caller]
fn gamma_impl(key: &Tensor, a: impl Into<Operand>, shape: &[usize], log_space: bool) -> Tensor {
    super::check_key(key);
    let a = jnp::broadcast_to(a.into().to_tensor(DType::F32), shape);
    let n = crate::array::numel(shape);
    if n == 0 {
        return a;
    }
    let keys = split(key, n);
    let alphas = lax::reshape(&a, &[n]);
    let draws: Tensor = crate::vmap(move |ka: Vec<Tensor>| gamma_one(&ka[0], &ka[1], log_space))
        .call(vec![keys, alphas]);
    lax::reshape(&draws, shape)
}

/// Gamma values of `shape` with concentration `a` (unit scale), `f32`
/// (`jax.random.gamma`).
#[track_caller]
pub fn gamma(key: &Tensor, a: impl Into<Operand>, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    gamma_impl(key, a, shape, false)
}

/// Logarithms of gamma values of `shape` with concentration `a`, computed in log space
/// (accurate for small `a`), `f32` (`jax.random.loggamma`).
#[track_caller]
pub fn loggamma(key: &Tensor, a: impl Into<Operand>, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    gamma_impl(key, a, shape, true)
}

/// Beta values of `shape` with parameters `a` and `b`, `f32` (`jax.random.beta`): two
/// log-gamma draws (from the two halves of `split(key)`) normalised in log space.
#[track_caller]
pub fn beta(key: &Tensor, a: impl Into<Operand>, b: impl Into<Operand>, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    let (ka, kb) = split2(key);
    let la = gamma_impl(&ka, a, shape, true);
    let lb = gamma_impl(&kb, b, shape, true);
    let log_max = lax::max(&la, &lb);
    let ea = lax::exp(&lax::sub(&la, &log_max));
    let eb = lax::exp(&lax::sub(&lb, &log_max));
    lax::div(&ea, &lax::add(&ea, &eb))
}

/// Dirichlet values of `shape + [k]` with concentrations `alpha` (last axis `k`), `f32`
/// (`jax.random.dirichlet`): the softmax of log-gamma draws.
#[track_caller]
pub fn dirichlet(key: &Tensor, alpha: &Tensor, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    if alpha.ndim() == 0 {
        panic!(
            "random.dirichlet: alpha must have at least one dimension, got {}\n  at {}",
            alpha.aval(),
            std::panic::Location::caller()
        );
    }
    let mut full = shape.to_vec();
    full.push(alpha.shape()[alpha.ndim() - 1]);
    let logs = gamma_impl(key, alpha, &full, true);
    crate::nn::softmax(&logs, -1)
}

/// Chi-square values of `shape` with `df` degrees of freedom, `f32`
/// (`jax.random.chisquare`): `2 exp(loggamma(df / 2))`.
#[track_caller]
pub fn chisquare(key: &Tensor, df: impl Into<Operand>, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    let half = lax::div(&df.into().to_tensor(DType::F32), &c32(2.0));
    let log_g = gamma_impl(key, half, shape, true);
    lax::mul(&lax::exp(&log_g), &c32(2.0))
}

/// Student's t values of `shape` with `df` degrees of freedom, `f32` (`jax.random.t`):
/// `n * sqrt((df / 2) / g)` for a normal `n` (first split key) and a gamma `g` with
/// concentration `df / 2` (second split key).
#[track_caller]
pub fn t(key: &Tensor, df: impl Into<Operand>, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    let (kn, kg) = split2(key);
    let n = normal_dtype(&kn, shape, DType::F32);
    let half = jnp::broadcast_to(lax::div(&df.into().to_tensor(DType::F32), &c32(2.0)), shape);
    let g = gamma_impl(&kg, &half, shape, false);
    n * jnp::sqrt(half / g)
}
