//! Counting samplers with JAX's algorithms and keys: `poisson` (Knuth's product of
//! uniforms below a rate of 10, Hörmann's transformed rejection from 10 up), `binomial`
//! (inversion by sums of geometric draws while `n p <= 10`, else the BTRS rejection
//! sampler) and `multinomial` (a scan of binomial draws over the categories).
//!
//! As in JAX, each loop runs over the whole array at once, one key split per round, until
//! every element has its value; both regimes are drawn from the same key and selected
//! elementwise. The loops are `while_loop`s, so like JAX's these samplers have no
//! derivative.

use super::{fma, split, split2, uniform};
use crate::array::DType;
use crate::control::while_loop;
use crate::core::Tensor;
use crate::numpy::{self as jnp, scalar_tensor, Operand};
use crate::ops as lax;

fn c32(v: f64) -> Tensor {
    scalar_tensor(v, DType::F32)
}

/// `true` while any element of `x` is.
fn any(x: &Tensor) -> Tensor {
    let axes: Vec<usize> = (0..x.ndim()).collect();
    lax::reduce_or(x, &axes)
}

/// Knuth's sampler: the number of uniform factors whose product stays above `exp(-lam)`.
fn poisson_knuth(key: &Tensor, lam: &Tensor, shape: &[usize]) -> Tensor {
    let neg_lam = lax::neg(lam);
    let init = vec![
        lax::full(shape, 0.0, DType::I32),
        key.clone(),
        lax::full(shape, 0.0, DType::F32),
    ];
    let out = while_loop(
        |s: Vec<Tensor>| any(&lax::gt(&s[2], &neg_lam)),
        |s: Vec<Tensor>| {
            let (rng, sub) = split2(&s[1]);
            let going = lax::gt(&s[2], &neg_lam);
            let k = lax::select_n(&going, &[s[0].clone(), &s[0] + 1]);
            let u = uniform(&sub, shape);
            vec![k, rng, lax::add(&s[2], &lax::log(&u))]
        },
        init,
    );
    &out[0] - 1
}

/// The `i`-th key of a `u32[n, 2]` key array.
fn key_at(keys: &Tensor, i: usize) -> Tensor {
    lax::reshape(&lax::slice(keys, &[i, 0], &[i + 1, 2], None), &[2])
}

/// Hörmann's transformed rejection sampler (PTRS), as `f32` integers.
fn poisson_rejection(key: &Tensor, lam: &Tensor, shape: &[usize]) -> Tensor {
    let log_lam = lax::log(lam);
    let b = fma(&c32(2.53), &lax::sqrt(lam), &c32(0.931));
    let a = fma(&c32(0.02483), &b, &c32(-0.059));
    let inv_alpha = lax::add(
        &c32(1.1239),
        &lax::div(&c32(1.1328), &lax::sub(&b, &c32(3.4))),
    );
    let v_r = lax::sub(
        &c32(0.9277),
        &lax::div(&c32(3.6224), &lax::sub(&b, &c32(2.0))),
    );
    let init = vec![
        lax::full(shape, -1.0, DType::F32),
        lax::full(shape, 0.0, DType::Bool),
        key.clone(),
    ];
    let out = while_loop(
        |s: Vec<Tensor>| any(&lax::not(&s[1])),
        |s: Vec<Tensor>| {
            let ks = split(&s[2], 3);
            let u = lax::sub(&uniform(&key_at(&ks, 1), shape), &c32(0.5));
            let v = uniform(&key_at(&ks, 2), shape);
            let us = lax::sub(&c32(0.5), &lax::abs(&u));
            let slope = lax::add(&lax::div(&lax::mul(&c32(2.0), &a), &us), &b);
            let k = lax::floor(&lax::add(&fma(&slope, &u, lam), &c32(0.43)));
            let denom = lax::add(&lax::div(&a, &lax::mul(&us, &us)), &b);
            let s_ = lax::log(&lax::div(&lax::mul(&v, &inv_alpha), &denom));
            let t = lax::sub(
                &fma(&k, &log_lam, &lax::neg(lam)),
                &lax::lgamma(&lax::add(&k, &c32(1.0))),
            );
            let accept1 = lax::and(&lax::ge(&us, &c32(0.07)), &lax::le(&v, &v_r));
            let reject = lax::or(
                &lax::lt(&k, &c32(0.0)),
                &lax::and(&lax::lt(&us, &c32(0.013)), &lax::gt(&v, &us)),
            );
            let accept = lax::or(&accept1, &lax::and(&lax::not(&reject), &lax::le(&s_, &t)));
            let k_out = lax::select_n(&accept, &[s[0].clone(), k]);
            vec![k_out, lax::or(&s[1], &accept), key_at(&ks, 0)]
        },
        init,
    );
    out[0].clone()
}

/// Poisson values with rate `lam` (broadcast to `shape`; `lam`'s shape when `None`),
/// `i32` (`jax.random.poisson`). Rates below 10 (and NaN) use Knuth's algorithm, larger
/// ones Hörmann's transformed rejection; a rate of 0 gives 0.
#[track_caller]
pub fn poisson(key: &Tensor, lam: impl Into<Operand>, shape: Option<&[usize]>) -> Tensor {
    let _line = crate::core::user_line();
    super::check_key(key);
    let lam = lam.into().to_tensor(DType::F32);
    let shape = shape.unwrap_or(lam.shape()).to_vec();
    let lam = jnp::broadcast_to(&lam, &shape);
    let use_knuth = lax::or(&jnp::isnan(&lam), &lax::lt(&lam, &c32(10.0)));
    let full = |v: f64| lax::full(&shape, v, DType::F32);
    let lam_knuth = lax::select_n(&use_knuth, &[full(0.0), lam.clone()]);
    let lam_rejection = lax::select_n(&use_knuth, &[lam.clone(), full(1e5)]);
    let knuth = poisson_knuth(key, &lam_knuth, &shape);
    let rejection = jnp::astype(poisson_rejection(key, &lam_rejection, &shape), DType::I32);
    let result = lax::select_n(&use_knuth, &[rejection, knuth]);
    let zero = lax::full(&shape, 0.0, DType::I32);
    lax::select_n(&lax::eq(&lam, &c32(0.0)), &[result, zero])
}

/// Inversion: the number of geometric waiting times (success probability `prob`) that fit
/// in `count` trials.
fn binomial_inversion(key: &Tensor, count: &Tensor, prob: &Tensor, shape: &[usize]) -> Tensor {
    let log1m = lax::log1p(&lax::neg(prob));
    let init = vec![
        lax::full(shape, 0.0, DType::F32),
        lax::full(shape, 0.0, DType::F32),
        key.clone(),
    ];
    let out = while_loop(
        |s: Vec<Tensor>| any(&lax::le(&s[1], count)),
        |s: Vec<Tensor>| {
            let (sub, rest) = split2(&s[2]);
            let going = lax::le(&s[1], count);
            let num = lax::select_n(&going, &[s[0].clone(), &s[0] + 1.0]);
            let u = uniform(&sub, shape);
            let geom = lax::ceil(&lax::div(&lax::log(&u), &log1m));
            vec![num, lax::add(&s[1], &geom), rest]
        },
        init,
    );
    &out[0] - 1.0
}

/// The tail `log k! - (k + 1/2) log(k + 1) + (k + 1) - log(sqrt(2 pi))` of Stirling's
/// series, from JAX's table for `k <= 9` and its asymptotic expansion above.
// The table's digits are JAX's, kept as written; they round to the same f32 values.
#[allow(clippy::excessive_precision)]
fn stirling_tail(k: &Tensor) -> Tensor {
    let table = jnp::array(
        &[
            0.0810614667953272f32,
            0.0413406959554092,
            0.0276779256849983,
            0.02079067210376509,
            0.0166446911898211,
            0.0138761288230707,
            0.0118967099458917,
            0.0104112652619720,
            0.00925546218271273,
            0.00833056343336287,
        ],
        &[10],
    );
    let use_table = lax::le(k, &c32(9.0));
    let kc = lax::clamp(&c32(0.0), k, &c32(9.0));
    let k1 = lax::add(&kc, &c32(1.0));
    let kp1sq = lax::mul(&k1, &k1);
    let inner = lax::sub(&c32(1.0 / 360.0), &lax::div(&c32(1.0 / 1260.0), &kp1sq));
    let approx = lax::div(&lax::sub(&c32(1.0 / 12.0), &lax::div(&inner, &kp1sq)), &k1);
    let idx = jnp::astype(lax::floor(&kc), DType::I32);
    lax::select_n(&use_table, &[approx, table.index(&idx)])
}

/// The BTRS transformed-rejection sampler (Hörmann), for `count * prob > 10`.
fn btrs(key: &Tensor, count: &Tensor, prob: &Tensor, shape: &[usize]) -> Tensor {
    let one = c32(1.0);
    let q = lax::sub(&one, prob);
    let stddev = lax::sqrt(&lax::mul(&lax::mul(count, prob), &q));
    let b = fma(&c32(2.53), &stddev, &c32(1.15));
    let a = fma(&c32(0.01), prob, &fma(&c32(0.0248), &b, &c32(-0.0873)));
    let c = fma(count, prob, &c32(0.5));
    let v_r = lax::sub(&c32(0.92), &lax::div(&c32(4.2), &b));
    let r = lax::div(prob, &q);
    let alpha = lax::mul(&lax::add(&c32(2.83), &lax::div(&c32(5.1), &b)), &stddev);
    let m = lax::floor(&lax::mul(&lax::add(count, &one), prob));
    let count_m1 = lax::add(&lax::sub(count, &m), &one);
    let head = lax::mul(
        &lax::add(&m, &c32(0.5)),
        &lax::log(&lax::div(&lax::add(&m, &one), &lax::mul(&r, &count_m1))),
    );
    let tails_m = lax::add(&stirling_tail(&m), &stirling_tail(&lax::sub(count, &m)));
    let init = vec![
        lax::full(shape, -1.0, DType::F32),
        lax::full(shape, 0.0, DType::Bool),
        key.clone(),
    ];
    let out = while_loop(
        |s: Vec<Tensor>| any(&lax::not(&s[1])),
        |s: Vec<Tensor>| {
            let ks = split(&s[2], 3);
            let u = lax::sub(&uniform(&key_at(&ks, 1), shape), &c32(0.5));
            let v = uniform(&key_at(&ks, 2), shape);
            let us = lax::sub(&c32(0.5), &lax::abs(&u));
            let accept1 = lax::and(&lax::ge(&us, &c32(0.07)), &lax::le(&v, &v_r));
            let slope = lax::add(&lax::div(&lax::mul(&c32(2.0), &a), &us), &b);
            let k = lax::floor(&fma(&slope, &u, &c));
            let reject = lax::or(&lax::lt(&k, &c32(0.0)), &lax::gt(&k, count));
            let denom = lax::add(&lax::div(&a, &lax::mul(&us, &us)), &b);
            let v = lax::log(&lax::div(&lax::mul(&v, &alpha), &denom));
            let count_k1 = lax::add(&lax::sub(count, &k), &one);
            let k1 = lax::add(&k, &one);
            let mid = lax::log(&lax::div(&count_m1, &count_k1));
            let last = lax::log(&lax::div(&lax::mul(&r, &count_k1), &k1));
            let ub = fma(&lax::add(count, &one), &mid, &head);
            let ub = fma(&lax::add(&k, &c32(0.5)), &last, &ub);
            let ub = lax::add(&ub, &tails_m);
            let ub = lax::sub(&ub, &stirling_tail(&k));
            let ub = lax::sub(&ub, &stirling_tail(&lax::sub(count, &k)));
            let accept = lax::or(&accept1, &lax::and(&lax::not(&reject), &lax::le(&v, &ub)));
            let k_out = lax::select_n(&accept, &[s[0].clone(), k]);
            vec![k_out, lax::or(&s[1], &accept), key_at(&ks, 0)]
        },
        init,
    );
    out[0].clone()
}

/// Binomial values (successes in `n` trials of probability `p`, broadcast to `shape`; their
/// broadcast shape when `None`), `f32` (`jax.random.binomial`). `n p <= 10` uses inversion,
/// larger means BTRS; `p > 1/2` samples the failures. A negative or NaN `n`, or a NaN or
/// negative `p`, gives NaN; an infinite `n` gives infinity.
#[track_caller]
pub fn binomial(
    key: &Tensor,
    n: impl Into<Operand>,
    p: impl Into<Operand>,
    shape: Option<&[usize]>,
) -> Tensor {
    let _line = crate::core::user_line();
    super::check_key(key);
    let (n, p) = (
        n.into().to_tensor(DType::F32),
        p.into().to_tensor(DType::F32),
    );
    let shape = match shape {
        Some(s) => s.to_vec(),
        None => crate::numpy::broadcast_shapes(&[n.shape(), p.shape()]),
    };
    let count = jnp::broadcast_to(&n, &shape);
    let prob = jnp::broadcast_to(&p, &shape);
    let full = |v: f64| lax::full(&shape, v, DType::F32);
    let p_lt_half = lax::lt(&prob, &c32(0.5));
    let q = lax::select_n(&p_lt_half, &[lax::sub(&c32(1.0), &prob), prob.clone()]);
    let count_bad = lax::or(&jnp::isnan(&count), &lax::lt(&count, &c32(0.0)));
    let count_inf = jnp::isinf(&count);
    let q_nan = jnp::isnan(&q);
    let q_neg = lax::lt(&q, &c32(0.0));
    let q = lax::select_n(&lax::or(&q_nan, &q_neg), &[q, full(0.01)]);
    let use_inversion = lax::or(&count_bad, &lax::le(&lax::mul(&count, &q), &c32(10.0)));
    let count = lax::floor(&count);
    let count_inv = lax::select_n(&use_inversion, &[full(0.0), count.clone()]);
    let count_btrs = lax::select_n(&use_inversion, &[count.clone(), full(1e4)]);
    let q_btrs = lax::select_n(&use_inversion, &[q.clone(), full(0.5)]);
    let samples = lax::select_n(
        &use_inversion,
        &[
            btrs(key, &count_btrs, &q_btrs, &shape),
            binomial_inversion(key, &count_inv, &q, &shape),
        ],
    );
    let invalid = lax::or(&lax::or(&q_neg, &q_nan), &count_bad);
    let samples = lax::select_n(&invalid, &[samples, full(f64::NAN)]);
    let inf = lax::and(&count_inf, &lax::not(&invalid));
    let samples = lax::select_n(&inf, &[samples, full(f64::INFINITY)]);
    let keep = lax::or(
        &lax::or(&p_lt_half, &count_bad),
        &lax::or(&q_nan, &count_inf),
    );
    lax::select_n(&keep, &[lax::sub(&count, &samples), samples])
}

/// Multinomial counts of `n` trials over the categories of `p`'s last axis, `f32` of
/// `shape` (`p`'s shape when `None`; its last entry is the number of categories)
/// (`jax.random.multinomial`): one binomial draw a category, of the trials left, with the
/// probability of that category among those left (one key a category).
#[track_caller]
pub fn multinomial(
    key: &Tensor,
    n: impl Into<Operand>,
    p: &Tensor,
    shape: Option<&[usize]>,
) -> Tensor {
    let _line = crate::core::user_line();
    super::check_key(key);
    if p.ndim() == 0 {
        panic!(
            "random.multinomial: p must have at least one dimension (the categories), got \
             {}\n  at {}",
            p.aval(),
            std::panic::Location::caller()
        );
    }
    let shape = shape.unwrap_or(p.shape()).to_vec();
    let n = jnp::broadcast_to(n.into().to_tensor(DType::F32), &shape[..shape.len() - 1]);
    let p = jnp::broadcast_to(jnp::astype(p, DType::F32), &shape);
    let p = jnp::moveaxis(&p, -1, 0);
    let remaining = lax::cumsum(&p, 0, true);
    let ratios = lax::div(&p, &jnp::where_(remaining.eq(0.0), 1.0, &remaining));
    let keys = split(key, shape[shape.len() - 1]);
    let step = |(left, (ratio, k)): (Tensor, (Tensor, Tensor))| {
        let count = binomial(&k, &left, jnp::clip(&ratio, 0.0, 1.0), None);
        (lax::sub(&left, &count), count)
    };
    let (_, counts): (Tensor, Tensor) = crate::control::scan(step, n, (ratios, keys)).call();
    jnp::moveaxis(&counts, 0, -1)
}
