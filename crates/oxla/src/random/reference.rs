//! Reference compositions of threefry in JAX's default (partitionable) mode, for tests.

use crate::prims::special::*;
use crate::prims::threefry::*;

// ---------------------------------------------------------------------------
// Reference compositions for JAX's default (partitionable) threefry mode
// ---------------------------------------------------------------------------

/// Raw key words for `jax.random.PRNGKey(seed)` / `jax.random.key(seed)`.
///
/// With `x64 = true` (`jax_enable_x64`): `[seed >> 32, seed & 0xffffffff]`
/// (arithmetic bits of the two's-complement i64).  With `x64 = false` (JAX's
/// default) a Python int seed is first wrapped to int32, and the high word is
/// always 0 (a logical shift of an int32 by 32 yields 0): `[0, seed as u32]`.
pub fn key_from_seed(seed: i64, x64: bool) -> [u32; 2] {
    if x64 {
        [((seed as u64) >> 32) as u32, seed as u32]
    } else {
        [0, seed as u32]
    }
}

/// The 64-bit counter of flat element `i`, as the `(hi, lo)` word pair.
#[inline(always)]
fn counter(i: u64) -> [u32; 2] {
    [(i >> 32) as u32, i as u32]
}

/// `jax.random.split(key, num)` in partitionable mode (flattened).
///
/// Key `i` is `threefry2x32(key, [i >> 32, i & 0xffffffff])`.  A shaped split
/// (`num=(a, b)`) returns the same keys in row-major order.
pub fn split_partitionable(key: [u32; 2], num: u64) -> Vec<[u32; 2]> {
    (0..num).map(|i| threefry2x32(key, counter(i))).collect()
}

/// `jax.random.fold_in(key, data)` (identical in both threefry modes):
/// `threefry2x32(key, [0, data])`.
pub fn fold_in(key: [u32; 2], data: u32) -> [u32; 2] {
    threefry2x32(key, [0, data])
}

/// `jax.random.bits(key, shape, uint32)` in partitionable mode, flattened:
/// element `i` is `b0 ^ b1` with `[b0, b1] = threefry2x32(key, [i >> 32, i])`.
/// Narrower widths (uint8/uint16) take the low 8/16 bits of the same value.
pub fn random_bits_u32(key: [u32; 2], n: u64) -> Vec<u32> {
    (0..n)
        .map(|i| {
            let r = threefry2x32(key, counter(i));
            r[0] ^ r[1]
        })
        .collect()
}

/// `jax.random.bits(key, shape, uint64)` in partitionable mode, flattened:
/// element `i` is `(b0 << 32) | b1` with `[b0, b1] = threefry2x32(key, [i >> 32, i])`.
pub fn random_bits_u64(key: [u32; 2], n: u64) -> Vec<u64> {
    (0..n)
        .map(|i| {
            let r = threefry2x32(key, counter(i));
            ((r[0] as u64) << 32) | r[1] as u64
        })
        .collect()
}

/// `jax.random.split(key, num)` with `jax_threefry_partitionable=False`.
///
/// Hashes the counters `0..2*num` through the original `threefry_2x32`
/// (first half of the counters as `x0`, second half as `x1`) and reshapes the
/// concatenated outputs to `(num, 2)`.
pub fn split_original(key: [u32; 2], num: usize) -> Vec<[u32; 2]> {
    let w = threefry_2x32_original(key, 2 * num);
    (0..num).map(|i| [w[2 * i], w[2 * i + 1]]).collect()
}

/// JAX's non-partitionable `threefry_2x32(key, iota(uint32, m))`.
///
/// The counter vector `0..m` is padded with one `0` if `m` is odd, cut into
/// halves `x0 = c[..h]`, `x1 = c[h..]`, hashed pairwise, and the outputs are
/// concatenated `[out0.., out1..]` and truncated to `m`.  Valid for
/// `m < 2^32 - 1` (larger requests use per-block split keys in JAX).
pub fn threefry_2x32_original(key: [u32; 2], m: usize) -> Vec<u32> {
    let padded = m + (m & 1);
    let h = padded / 2;
    let mut out = vec![0u32; padded];
    for j in 0..h {
        let c0 = j as u32;
        let c1 = if j + h < m { (j + h) as u32 } else { 0 };
        let r = threefry2x32(key, [c0, c1]);
        out[j] = r[0];
        out[j + h] = r[1];
    }
    out.truncate(m);
    out
}

/// `jax.random.bits(key, shape, uint32)` with `jax_threefry_partitionable=False`.
pub fn random_bits_u32_original(key: [u32; 2], n: usize) -> Vec<u32> {
    threefry_2x32_original(key, n)
}

/// Map 32 random bits to `[0, 1)` the way `jax.random.uniform` does for f32:
/// `from_bits((bits >> 9) | 0x3f800000) - 1.0`.
#[inline]
pub fn bits_to_unit_f32(bits: u32) -> f32 {
    f32::from_bits((bits >> 9) | 0x3F80_0000) - 1.0
}

/// Map 64 random bits to `[0, 1)` the way `jax.random.uniform` does for f64:
/// `from_bits((bits >> 12) | 0x3ff0000000000000) - 1.0`.
#[inline]
pub fn bits_to_unit_f64(bits: u64) -> f64 {
    f64::from_bits((bits >> 12) | 0x3FF0_0000_0000_0000) - 1.0
}

/// f32 `jax.random.uniform` element from its 32 random bits:
/// `max(minval, fma(unit, maxval - minval, minval))`.
///
/// XLA:CPU contracts the `unit * (maxval - minval) + minval` of JAX's
/// lowering into a single fused multiply-add (LLVM `AllowFPOpFusion=Fast` on
/// an FMA-capable host), so a separate multiply and add is *not*
/// bit-identical for general bounds.  `max` is XLA's NaN-propagating maximum.
#[inline]
pub fn uniform_f32_from_bits(bits: u32, minval: f32, maxval: f32) -> f32 {
    let (minval, maxval) = (ftz_f32(minval), ftz_f32(maxval));
    let v = ftz_f32(bits_to_unit_f32(bits).mul_add(ftz_f32(maxval - minval), minval));
    xla_max_f32(minval, v)
}

/// f64 `jax.random.uniform` element from its 64 random bits:
/// `max(minval, fma(unit, maxval - minval, minval))` (see
/// [`uniform_f32_from_bits`]).
#[inline]
pub fn uniform_f64_from_bits(bits: u64, minval: f64, maxval: f64) -> f64 {
    let (minval, maxval) = (ftz_f64(minval), ftz_f64(maxval));
    let v = ftz_f64(bits_to_unit_f64(bits).mul_add(ftz_f64(maxval - minval), minval));
    if minval.is_nan() || v.is_nan() {
        f64::NAN
    } else if v > minval {
        v
    } else {
        minval
    }
}

/// XLA `max` for f32 (NaN-propagating).
#[inline]
fn xla_max_f32(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else if b > a {
        b
    } else {
        a
    }
}

/// f32 `jax.random.normal` element from its 32 random bits:
/// `u = uniform(bits, nextafter(-1, 0), 1)`, then `sqrt(2) * erf_inv(u)`.
#[inline]
pub fn normal_f32_from_bits(bits: u32) -> f32 {
    let lo = f32::from_bits(0xBF7F_FFFF); // nextafter(-1.0f32, 0.0)
    let u = uniform_f32_from_bits(bits, lo, 1.0);
    core::f32::consts::SQRT_2 * erf_inv_f32(u)
}

/// f64 `jax.random.normal` element from its 64 random bits.
#[inline]
pub fn normal_f64_from_bits(bits: u64) -> f64 {
    let lo = f64::from_bits(0xBFEF_FFFF_FFFF_FFFF); // nextafter(-1.0, 0.0)
    let u = uniform_f64_from_bits(bits, lo, 1.0);
    core::f64::consts::SQRT_2 * erf_inv_f64(u)
}

/// `jax.random.randint` core for 32-bit sampling (int32 / uint32 and all
/// narrower dtypes, which JAX samples in int32), given the already-clamped
/// bounds and the two random words for this element.
///
/// * `minval`, `maxval`: bounds after clamping to the sampling dtype's range
///   (see the spec), as two's-complement `u32` words; `signed` says how to
///   compare them.
/// * `maxval_out_of_range`: the *unclamped* maxval exceeded the dtype maximum.
/// * `hi`, `lo`: element `i` of `bits(k1)` and `bits(k2)` where
///   `[k1, k2] = split(key, 2)`.
///
/// Returns the result word (`minval + offset`, wrapping).
pub fn randint32_from_bits(
    minval: u32,
    maxval: u32,
    signed: bool,
    maxval_out_of_range: bool,
    hi: u32,
    lo: u32,
) -> u32 {
    let le = if signed {
        (maxval as i32) <= (minval as i32)
    } else {
        maxval <= minval
    };
    let mut span = maxval.wrapping_sub(minval);
    if le {
        span = 1;
    }
    if maxval_out_of_range && !le {
        span = span.wrapping_add(1);
    }
    let mult = xla_urem32(1u32 << 16, span);
    let mult = xla_urem32(mult.wrapping_mul(mult), span);
    let off = xla_urem32(hi, span)
        .wrapping_mul(mult)
        .wrapping_add(xla_urem32(lo, span));
    let off = xla_urem32(off, span);
    minval.wrapping_add(off)
}

/// 64-bit variant of [`randint32_from_bits`] (int64 / uint64 dtypes).
pub fn randint64_from_bits(
    minval: u64,
    maxval: u64,
    signed: bool,
    maxval_out_of_range: bool,
    hi: u64,
    lo: u64,
) -> u64 {
    let le = if signed {
        (maxval as i64) <= (minval as i64)
    } else {
        maxval <= minval
    };
    let mut span = maxval.wrapping_sub(minval);
    if le {
        span = 1;
    }
    if maxval_out_of_range && !le {
        span = span.wrapping_add(1);
    }
    let mult = xla_urem64(1u64 << 32, span);
    let mult = xla_urem64(mult.wrapping_mul(mult), span);
    let off = xla_urem64(hi, span)
        .wrapping_mul(mult)
        .wrapping_add(xla_urem64(lo, span));
    let off = xla_urem64(off, span);
    minval.wrapping_add(off)
}

/// XLA unsigned remainder: `x % 0 == x`.
#[inline]
fn xla_urem32(x: u32, y: u32) -> u32 {
    if y == 0 {
        x
    } else {
        x % y
    }
}

/// XLA unsigned remainder: `x % 0 == x`.
#[inline]
fn xla_urem64(x: u64, y: u64) -> u64 {
    if y == 0 {
        x
    } else {
        x % y
    }
}
