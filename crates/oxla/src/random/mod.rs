//! `random`: JAX's threefry2x32 PRNG, bit-identical to JAX 0.10 (partitionable mode, the
//! default since JAX 0.5) for the same key and shape.
//!
//! Keys are raw `u32[2]` tensors, as `jax.random.PRNGKey` returns. Every sampler is built
//! from primitives (`threefry2x32`, shifts, bitcasts, `erf_inv`), so it traces, batches and
//! compiles like any other function. Called eagerly, `bits`, `uniform`, `normal`,
//! `bernoulli` and `randint` run the program `jit` compiles of them (one fused kernel,
//! no bits stored), compiled once per shape, dtype and bounds.
//!
//! ```
//! use oxla::random;
//! let x = random::normal(&random::key(0), &[3]);
//! assert_eq!(x.to_vec::<f32>(), vec![1.6226422, 2.0252647, -0.43359444]);
//! ```

mod continuous;
mod counts;
mod discrete;
mod eager;
mod gamma;
mod geometry;
mod keys;
#[cfg(test)]
mod reference;
#[cfg(test)]
mod reference_tests;

pub use continuous::{
    cauchy, exponential, gumbel, laplace, logistic, lognormal, maxwell, pareto, rayleigh,
    triangular, truncated_normal, wald, weibull_min,
};
pub use counts::{binomial, multinomial, poisson};
pub use discrete::{
    bernoulli_p, categorical, choice, choice_n, geometric, permutation, permutation_n, rademacher,
};
pub use gamma::{beta, chisquare, dirichlet, gamma, loggamma, t};
pub use geometry::{ball, generalized_normal, multivariate_normal, orthogonal};
pub use keys::{clone, key_data, prng_key, wrap_key_data};

use crate::array::DType;
use crate::core::Tensor;
use crate::numpy::{self as jnp, scalar_tensor};
use crate::ops as lax;

/// A key from an integer seed, as `jax.random.PRNGKey(seed)` (the seed wraps to 32 bits, as
/// in JAX without x64).
pub fn key(seed: i64) -> Tensor {
    Tensor::from_vec(vec![0u32, seed as u32], &[2])
}

#[track_caller]
fn check_key(key: &Tensor) {
    if key.dtype() != DType::U32 || key.shape() != [2] {
        panic!(
            "random: a PRNG key is a u32[2] tensor (random::key), got {}\n  at {}",
            key.aval(),
            std::panic::Location::caller()
        );
    }
}

/// The two key words as rank-0 tensors.
#[track_caller]
fn words(key: &Tensor) -> (Tensor, Tensor) {
    check_key(key);
    let w = |i: usize| lax::reshape(&lax::slice(key, &[i], &[i + 1], None), &[]);
    (w(0), w(1))
}

/// Threefry of the flat counters `0..n` (as 64-bit `(hi, lo)` pairs) under `key`.
#[track_caller]
fn hash_counters(key: &Tensor, n: usize) -> (Tensor, Tensor) {
    assert!(n < 1 << 32, "random: {n} elements exceed 2^32 counters");
    let (k0, k1) = words(key);
    let hi = jnp::zeros_like(lax::iota(DType::U32, &[n], 0));
    let lo = lax::iota(DType::U32, &[n], 0);
    lax::threefry2x32(&k0, &k1, &hi, &lo)
}

/// `num` new keys from `key`, as a `u32[num, 2]` tensor (`jax.random.split`).
#[track_caller]
pub fn split(key: &Tensor, num: usize) -> Tensor {
    let _line = crate::core::user_line();
    let (y0, y1) = hash_counters(key, num);
    let col = |y: &Tensor| lax::broadcast_in_dim(y, &[num, 1], &[0]);
    lax::concatenate(&[col(&y0), col(&y1)], 1)
}

/// `a * b + c` of `f32` tensors rounded once, as XLA:CPU's fused multiply-add gives it
/// (the product of two `f32` is exact in `f64`).
fn fma(a: &Tensor, b: &Tensor, c: &Tensor) -> Tensor {
    let w = |t: &Tensor| jnp::astype(t, DType::F64);
    jnp::astype(lax::add(&lax::mul(&w(a), &w(b)), &w(c)), DType::F32)
}

/// The two keys of `split(key, 2)`.
#[track_caller]
fn split2(key: &Tensor) -> (Tensor, Tensor) {
    let ks = split(key, 2);
    let at = |i: usize| lax::reshape(&lax::slice(&ks, &[i, 0], &[i + 1, 2], None), &[2]);
    (at(0), at(1))
}

/// A key derived from `key` and `data` (`jax.random.fold_in`).
#[track_caller]
pub fn fold_in(key: &Tensor, data: u32) -> Tensor {
    let _line = crate::core::user_line();
    let (k0, k1) = words(key);
    let x0 = scalar_tensor(0.0, DType::U32);
    let x1 = scalar_tensor(data as f64, DType::U32);
    let (y0, y1) = lax::threefry2x32(&k0, &k1, &x0, &x1);
    let one = |y: &Tensor| lax::broadcast_in_dim(y, &[1], &[]);
    lax::concatenate(&[one(&y0), one(&y1)], 0)
}

/// Bits of at least this many counters are hashed in blocks, by a chunked map, when they
/// are computed a primitive at a time.
const BLOCKED: usize = 1 << 22;

/// Counters hashed per chunk of the blocked map.
const PER_CHUNK: usize = 1 << 20;

/// Uniformly random `u32` bits of `shape` (`jax.random.bits`).
#[track_caller]
pub fn bits(key: &Tensor, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    if let Some(b) = eager::compiled("bits", key, shape, DType::U32, &[], |k| bits(k, shape)) {
        return b;
    }
    let n = crate::array::numel(shape);
    // For the compiler, the cipher fuses into what reads its bits: no blocks needed.
    let flat = if n >= BLOCKED && !crate::core::for_compiler() {
        blocked_bits(key, n)
    } else {
        let (y0, y1) = hash_counters(key, n);
        lax::xor(&y0, &y1)
    };
    lax::reshape(&flat, shape)
}

/// The bits of counters `0..n` as a chunked map over blocks of `b` counters (`b` the
/// largest power of two dividing `n`, at most 2^16), about [`PER_CHUNK`] counters a chunk:
/// run a primitive at a time (under an eager `vmap` or `grad`, or `disable_jit`), the
/// cipher's operands and its two words exist for one chunk at a time instead of five
/// arrays of `n`. Each counter's bits depend on the counter alone, so the values are those
/// of one pass.
#[track_caller]
fn blocked_bits(key: &Tensor, n: usize) -> Tensor {
    assert!(n < 1 << 32, "random: {n} elements exceed 2^32 counters");
    let b = 1usize << n.trailing_zeros().min(16);
    let (k0, k1) = words(key);
    let block = move |r: Tensor| -> Tensor {
        let first = lax::mul(&r, &scalar_tensor(b as f64, DType::U32));
        let lo = lax::add(
            &lax::broadcast_in_dim(&first, &[b], &[]),
            &lax::iota(DType::U32, &[b], 0),
        );
        let (y0, y1) = lax::threefry2x32(&k0, &k1, &jnp::zeros_like(&lo), &lo);
        lax::xor(&y0, &y1)
    };
    let blocks: Tensor = crate::vmap(block)
        .chunk_size((PER_CHUNK / b).max(1))
        .call(lax::iota(DType::U32, &[n / b], 0));
    lax::reshape(&blocks, &[n])
}

/// Uniform `[0, 1)` values of `shape` and float `dtype` from the key's bits.
#[track_caller]
fn unit(key: &Tensor, shape: &[usize], dtype: DType) -> Tensor {
    let u32s = |v: f64| scalar_tensor(v, DType::U32);
    match dtype {
        DType::F32 => {
            let b = bits(key, shape);
            let m = lax::or(
                &lax::shift_right_logical(&b, &u32s(9.0)),
                &u32s(1065353216.0),
            );
            lax::sub(
                &lax::bitcast_convert_type(&m, DType::F32),
                &scalar_tensor(1.0, DType::F32),
            )
        }
        DType::F64 => {
            // The 52 mantissa bits are the top bits of the 64-bit word (y0, y1); their value
            // times 2^-52 is exactly what JAX's bitcast-and-subtract gives.
            let (y0, y1) = hash_counters(key, crate::array::numel(shape));
            let f64s = |v: f64| scalar_tensor(v, DType::F64);
            let hi = lax::mul(&jnp::astype(&y0, DType::F64), &f64s(2f64.powi(-32)));
            let lo = lax::shift_right_logical(&y1, &u32s(12.0));
            let lo = lax::mul(&jnp::astype(&lo, DType::F64), &f64s(2f64.powi(-52)));
            lax::reshape(&lax::add(&hi, &lo), shape)
        }
        other => unreachable!("{other}: checked by check_float"),
    }
}

/// Panics unless uniform values of `dtype` can be drawn, naming the caller's line.
#[track_caller]
fn check_float(dtype: DType) {
    if !matches!(dtype, DType::F32 | DType::F64) {
        panic!(
            "random: uniform and normal draws are float32 or float64 values, got {dtype} (draw float32 and \
             convert with astype for the 16-bit floats)\n  at {}",
            std::panic::Location::caller()
        )
    }
}

/// Uniform values in `[minval, maxval)` of `shape` (`jax.random.uniform`), `f32`.
#[track_caller]
pub fn uniform(key: &Tensor, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    uniform_range(key, shape, 0.0, 1.0, DType::F32)
}

/// Uniform values in `[minval, maxval)` of `shape` and float `dtype`.
///
/// JAX computes `max(minval, u * (maxval - minval) + minval)` with one fused multiply-add;
/// oxla computes the multiply-add exactly in `f64` for `f32` samples, which gives the same
/// bits.
#[track_caller]
pub fn uniform_range(
    key: &Tensor,
    shape: &[usize],
    minval: f64,
    maxval: f64,
    dtype: DType,
) -> Tensor {
    let _line = crate::core::user_line();
    check_float(dtype);
    let draw = |k: &Tensor| uniform_range(k, shape, minval, maxval, dtype);
    let bounds = [minval.to_bits(), maxval.to_bits()];
    if let Some(u) = eager::compiled("uniform", key, shape, dtype, &bounds, draw) {
        return u;
    }
    let u = unit(key, shape, dtype);
    let lo = scalar_tensor(minval, dtype);
    let span = lax::sub(&scalar_tensor(maxval, dtype), &lo);
    let scaled = match dtype {
        DType::F32 => {
            let wide = |t: &Tensor| jnp::astype(t, DType::F64);
            let v = lax::add(&lax::mul(&wide(&u), &wide(&span)), &wide(&lo));
            jnp::astype(&v, DType::F32)
        }
        _ => lax::add(&lax::mul(&u, &span), &lo),
    };
    lax::max(&lo, &scaled)
}

/// Standard normal values of `shape` (`jax.random.normal`), `f32`.
#[track_caller]
pub fn normal(key: &Tensor, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    normal_dtype(key, shape, DType::F32)
}

/// Standard normal values of `shape` and float `dtype`: `sqrt(2) * erf_inv(u)` for `u`
/// uniform in `(-1, 1)`.
#[track_caller]
pub fn normal_dtype(key: &Tensor, shape: &[usize], dtype: DType) -> Tensor {
    let _line = crate::core::user_line();
    check_float(dtype);
    let draw = |k: &Tensor| normal_dtype(k, shape, dtype);
    if let Some(x) = eager::compiled("normal", key, shape, dtype, &[], draw) {
        return x;
    }
    let lo = match dtype {
        DType::F32 => f32::from_bits(0xBF7F_FFFF) as f64,
        _ => f64::from_bits(0xBFEF_FFFF_FFFF_FFFF),
    };
    let u = uniform_range(key, shape, lo, 1.0, dtype);
    let sqrt2 = match dtype {
        DType::F32 => std::f32::consts::SQRT_2 as f64,
        _ => std::f64::consts::SQRT_2,
    };
    lax::mul(&scalar_tensor(sqrt2, dtype), &lax::erf_inv(&u))
}

/// `true` with probability `p`, of `shape` (`jax.random.bernoulli`).
#[track_caller]
pub fn bernoulli(key: &Tensor, p: f32, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    let draw = |k: &Tensor| bernoulli(k, p, shape);
    let bounds = [p.to_bits() as u64];
    if let Some(b) = eager::compiled("bernoulli", key, shape, DType::Bool, &bounds, draw) {
        return b;
    }
    lax::lt(&uniform(key, shape), &scalar_tensor(p as f64, DType::F32))
}

/// Uniform integers in `[minval, maxval)` of `shape`, `i32` (`jax.random.randint`).
///
/// Bounds are clamped to the `i32` range; `maxval <= minval` gives `minval`.
#[track_caller]
pub fn randint(key: &Tensor, shape: &[usize], minval: i64, maxval: i64) -> Tensor {
    let _line = crate::core::user_line();
    let bounds = [minval as u64, maxval as u64];
    let draw = |k: &Tensor| randint(k, shape, minval, maxval);
    if let Some(r) = eager::compiled("randint", key, shape, DType::I32, &bounds, draw) {
        return r;
    }
    let out_of_range = maxval > i32::MAX as i64;
    let lo = minval.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
    let hi = maxval.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
    let mut span = (hi as u32).wrapping_sub(lo as u32);
    if hi <= lo {
        span = 1;
    } else if out_of_range {
        span = span.wrapping_add(1);
    }
    let (k_hi, k_lo) = split2(key);
    let higher = bits(&k_hi, shape);
    let lower = bits(&k_lo, shape);
    let u = |v: u32| scalar_tensor(v as f64, DType::U32);
    let rem = |x: &Tensor| lax::rem(x, &u(span));
    let mult = (1u32 << 16).checked_rem(span).unwrap_or(1 << 16);
    let mult = mult
        .wrapping_mul(mult)
        .checked_rem(span)
        .unwrap_or(mult.wrapping_mul(mult));
    let offset = lax::add(&lax::mul(&rem(&higher), &u(mult)), &rem(&lower));
    let offset = jnp::astype(rem(&offset), DType::I32);
    lax::add(&scalar_tensor(lo as f64, DType::I32), &offset)
}

#[cfg(test)]
mod tests;
