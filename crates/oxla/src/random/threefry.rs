//! Bit-exact building blocks for JAX's default PRNG (`threefry2x32`).
//!
//! Everything in this file is a pure function with no dependency outside
//! `core`/`std`, so it can be unit-tested on its own with plain `rustc --test`.
//!
//! Contents:
//! * [`threefry2x32`] / [`threefry2x32_slices`]: the 20-round Threefry-2x32
//!   block function exactly as JAX lowers its `threefry2x32` primitive.
//! * [`erf_inv_f32`] / [`erf_inv_f64`]: the inverse error function exactly as
//!   XLA:CPU evaluates `chlo.erf_inv` (Giles' polynomials, `log1p`-based).
//! * [`xla_log_f32`], [`xla_log1p_f32`], [`xla_log1p_f64`]: the logarithms XLA:CPU
//!   uses inside `erf_inv` (needed because Rust's `f32::ln` is *not* the same
//!   function as XLA:CPU's f32 `log`).
//! * Reference compositions for JAX 0.10's default mode
//!   (`jax_threefry_partitionable=True`): key from seed, split, fold_in,
//!   random bits, uniform, normal, bernoulli and randint.  These operate on
//!   flat, row-major element indices, which is how JAX numbers the elements of
//!   an N-d output shape.
//!
//! Floating-point order of operations matters for bit-identity.  XLA:CPU
//! compiles with LLVM `AllowFPOpFusion=Fast`, so on FMA-capable hosts (all
//! x86-64 since Haswell/Zen, all aarch64) every `fmul` whose only use is an
//! `fadd`/`fsub` becomes a fused multiply-add.  The functions below reproduce
//! exactly that contraction pattern with `mul_add` (verified against the
//! object code XLA emits and against JAX 0.10.2 outputs), and use plain
//! `*`/`+` everywhere XLA does not fuse.  XLA:CPU also runs with FTZ/DAZ,
//! mirrored by [`ftz_f32`]/[`ftz_f64`].

// The constants are XLA's, transcribed with the digits XLA prints; the arithmetic is written
// in XLA's own operation order, which the assign-op and partial-order lints would rewrite.
#![allow(
    clippy::excessive_precision,
    clippy::assign_op_pattern,
    clippy::neg_cmp_op_on_partial_ord
)]

/// Rotation amounts for round groups 1, 3 and 5 (1-based).
const ROT_A: [u32; 4] = [13, 15, 26, 6];
/// Rotation amounts for round groups 2 and 4 (1-based).
const ROT_B: [u32; 4] = [17, 29, 16, 24];
/// Threefry key-schedule parity constant.
const KS_PARITY: u32 = 0x1BD1_1BDA;

/// One Threefry mix round: add, rotate, xor.
#[inline(always)]
fn mix(v: &mut [u32; 2], r: u32) {
    v[0] = v[0].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(r) ^ v[0];
}

/// Threefry-2x32 with 20 rounds, as used by JAX's `threefry2x32` primitive.
///
/// `key` is the 2-word key `(k0, k1)` and `x` the 2-word counter block
/// `(x0, x1)`.  Returns the two output words.  For example, with key `[0, 0]`
/// and counter `[0, 0]` the result is `[0x6b200159, 0x99ba4efe]` (the Random123
/// known-answer vector, and also `jax.random.split(PRNGKey(0))[0]`).
pub fn threefry2x32(key: [u32; 2], x: [u32; 2]) -> [u32; 2] {
    let ks = [key[0], key[1], key[0] ^ key[1] ^ KS_PARITY];
    let mut v = [x[0].wrapping_add(ks[0]), x[1].wrapping_add(ks[1])];
    // Five groups of four rounds; after group g (1-based) inject key words
    // ks[g % 3] and ks[(g + 1) % 3] + g.
    for g in 1..=5u32 {
        let rots = if g % 2 == 1 { &ROT_A } else { &ROT_B };
        for &r in rots.iter() {
            mix(&mut v, r);
        }
        v[0] = v[0].wrapping_add(ks[(g % 3) as usize]);
        v[1] = v[1]
            .wrapping_add(ks[((g + 1) % 3) as usize])
            .wrapping_add(g);
    }
    v
}

/// Element-wise [`threefry2x32`] over parallel counter slices.
///
/// For every `i`, `(out0[i], out1[i]) = threefry2x32(key, [x0[i], x1[i]])`.
/// This is exactly what the `threefry2x32` primitive computes on arrays (the
/// key is broadcast).
///
/// # Panics
/// Panics if the four slices do not all have the same length.
pub fn threefry2x32_slices(
    key: [u32; 2],
    x0: &[u32],
    x1: &[u32],
    out0: &mut [u32],
    out1: &mut [u32],
) {
    let n = x0.len();
    assert!(
        x1.len() == n && out0.len() == n && out1.len() == n,
        "threefry2x32_slices: slice lengths differ"
    );
    for i in 0..n {
        let r = threefry2x32(key, [x0[i], x1[i]]);
        out0[i] = r[0];
        out1[i] = r[1];
    }
}

// ---------------------------------------------------------------------------
// Logarithms as evaluated by XLA:CPU
// ---------------------------------------------------------------------------

// Constants of the Cephes-style single-precision log that XLA:CPU substitutes
// for `llvm.log.f32`, given as exact f32 bit patterns.
const LOG_SQRT_HALF: u32 = 0x3F35_04F3; // 0.707106781186547524
const LOG_P: [u32; 9] = [
    0x3D90_21BB, // 7.0376836292e-2
    0xBDEB_D1B8, // -1.1514610310e-1
    0x3DEF_251A, // 1.1676998740e-1
    0xBDFE_5D4F, // -1.2420140846e-1
    0x3E11_E9BF, // 1.4249322787e-1
    0xBE2A_AE50, // -1.6668057665e-1
    0x3E4C_CEAC, // 2.0000714765e-1
    0xBE7F_FFFC, // -2.4999993993e-1
    0x3EAA_AAAA, // 3.3333331174e-1
];
const LOG_Q1: u32 = 0xB95E_8083; // -2.12194440e-4
const LOG_Q2: u32 = 0x3F31_8000; // 0.693359375

#[inline(always)]
fn f(bits: u32) -> f32 {
    f32::from_bits(bits)
}

/// Flush a subnormal `f32` to a zero of the same sign.
///
/// XLA:CPU executes kernels with the x86 FTZ and DAZ flags set, so subnormal
/// operands are read as zero and subnormal results are written as zero.  The
/// public float functions in this file apply this at their inputs and outputs
/// (inside the polynomial evaluations it never changes a result).
#[inline(always)]
pub fn ftz_f32(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// Flush a subnormal `f64` to a zero of the same sign (see [`ftz_f32`]).
#[inline(always)]
pub fn ftz_f64(x: f64) -> f64 {
    if x.is_subnormal() {
        0.0f64.copysign(x)
    } else {
        x
    }
}

/// Natural logarithm of an `f32` exactly as XLA:CPU computes HLO `log` on f32
/// inside fused elementwise kernels.
///
/// XLA:CPU does not call the C library for f32 `log`; it inlines a
/// Cephes/Eigen-style polynomial (range reduction to a mantissa in
/// `[sqrt(1/2), sqrt(2))`, a degree-8 polynomial, and a two-part `ln 2`).
/// Results differ from a correctly rounded `ln` by up to a couple of ulps, so
/// `f32::ln` cannot be used when bit-identity with JAX is required.
///
/// Special cases: `0 -> -inf`, `+inf -> +inf`, negative or NaN -> NaN (all
/// bits set).  XLA:CPU runs with denormals-are-zero, so subnormal inputs also
/// give `-inf` (e.g. `jnp.log(float32(1e-40))` is `-inf` in JAX on CPU).
pub fn xla_log_f32(v: f32) -> f32 {
    if v == 0.0 || v.is_subnormal() {
        return f32::NEG_INFINITY;
    }
    if v == f32::INFINITY {
        return f32::INFINITY;
    }
    if !(v > 0.0) {
        // Negative or NaN: XLA produces the all-ones NaN pattern.
        return f32::from_bits(0xFFFF_FFFF);
    }
    // Clamp subnormals up to the smallest normal.
    let a = if v > f32::MIN_POSITIVE {
        v
    } else {
        f32::MIN_POSITIVE
    };
    let bits = a.to_bits();
    let biased_exp = (bits >> 23) as i32;
    // Mantissa with exponent forced to that of 0.5: m in [0.5, 1).
    let mut m = f32::from_bits((bits & 0x807F_FFFF) | 0x3F00_0000);
    let mut e = (biased_exp - 127) as f32 + 1.0;
    let below = m < f(LOG_SQRT_HALF);
    let extra = if below { m } else { 0.0 };
    m = m + -1.0;
    e = e - if below { 1.0 } else { 0.0 };
    let x = m + extra;

    let x2 = x * x;
    let x3 = x2 * x;
    let mut y = x.mul_add(f(LOG_P[0]), f(LOG_P[1]));
    let mut y1 = x.mul_add(f(LOG_P[3]), f(LOG_P[4]));
    let mut y2 = x.mul_add(f(LOG_P[6]), f(LOG_P[7]));
    y = y.mul_add(x, f(LOG_P[2]));
    y1 = y1.mul_add(x, f(LOG_P[5]));
    y2 = y2.mul_add(x, f(LOG_P[8]));
    y = y.mul_add(x3, y1);
    y = y.mul_add(x3, y2);
    // y*x3 + e*q1: the first product is the one fused.
    y = y.mul_add(x3, e * f(LOG_Q1));
    // x - 0.5*x^2, fused.
    let mut r = x2.mul_add(-0.5, x);
    r = r + y;
    e.mul_add(f(LOG_Q2), r)
}

// Cephes log1p rational approximation used by XLA's `log1p` for |x| < sqrt(2)-1.
const LOG1P_NUM_F64: [f64; 7] = [
    4.5270000862445199635215E-5,
    4.9854102823193375972212E-1,
    6.5787325942061044846969E0,
    2.9911919328553073277375E1,
    6.0949667980987787057556E1,
    5.7112963590585538103336E1,
    2.0039553499201281259648E1,
];
const LOG1P_DEN_F64: [f64; 7] = [
    1.0,
    1.5062909083469192043167E1,
    8.3047565967967209469434E1,
    2.2176239823732856465394E2,
    3.0909872225312059774938E2,
    2.1642788614495947685003E2,
    6.0118660497603843919306E1,
];
const LOG1P_SMALL_F64: f64 = 0.41421356237309504880;

/// The same coefficients rounded to f32 (bit patterns as XLA emits them).
const LOG1P_NUM_F32: [u32; 7] = [
    0x383D_E04B,
    0x3EFF_40C5,
    0x40D2_84FA,
    0x41EF_4B9C,
    0x4273_CC76,
    0x4264_73AD,
    0x41A0_5101,
];
const LOG1P_DEN_F32: [u32; 7] = [
    0x3F80_0000,
    0x4171_01AD,
    0x42A6_185B,
    0x435D_C32D,
    0x439A_8CA3,
    0x4358_6D8A,
    0x4270_7982,
];
const LOG1P_SMALL_F32: u32 = 0x3ED4_13CD;

/// `log(1 + x)` for `f32` exactly as XLA:CPU evaluates HLO `log-plus-one`.
///
/// For `|x| < sqrt(2) - 1` a Cephes rational approximation is used:
/// `x + fma(x^2, -0.5, (x*x^2) * P(x)/Q(x))`, with both polynomials evaluated
/// by Horner starting from an unfused `0*x + c0` and then one FMA per step.  Otherwise the result is
/// [`xla_log_f32`]`(x + 1)`.
pub fn xla_log1p_f32(x: f32) -> f32 {
    let x = ftz_f32(x);
    let large = xla_log_f32(x + 1.0);
    let x2 = x * x;
    // Horner from 0: the first step `0*x + c0` is not fused (0*x is shared
    // by both polynomials), the remaining steps are FMAs.
    let zx = x * 0.0;
    let mut den = zx + f(LOG1P_DEN_F32[0]);
    for &c in LOG1P_DEN_F32[1..].iter() {
        den = den.mul_add(x, f(c));
    }
    let mut num = zx + f(LOG1P_NUM_F32[0]);
    for &c in LOG1P_NUM_F32[1..].iter() {
        num = num.mul_add(x, f(c));
    }
    let ratio = num / den;
    let small = x + x2.mul_add(-0.5, (x * x2) * ratio);
    ftz_f32(if x.abs() < f(LOG1P_SMALL_F32) {
        small
    } else {
        large
    })
}

/// `log(1 + x)` for `f64` exactly as XLA:CPU evaluates HLO `log-plus-one`.
///
/// Same structure as [`xla_log1p_f32`]; the large-argument branch calls the
/// platform `log` (XLA:CPU resolves `llvm.log.f64` to the C library `log`,
/// which is also what `f64::ln` calls on Linux/glibc).
pub fn xla_log1p_f64(x: f64) -> f64 {
    let x = ftz_f64(x);
    let large = (x + 1.0).ln();
    let x2 = x * x;
    let zx = x * 0.0;
    let mut den = zx + LOG1P_DEN_F64[0];
    for &c in LOG1P_DEN_F64[1..].iter() {
        den = den.mul_add(x, c);
    }
    let mut num = zx + LOG1P_NUM_F64[0];
    for &c in LOG1P_NUM_F64[1..].iter() {
        num = num.mul_add(x, c);
    }
    let ratio = num / den;
    let small = x + x2.mul_add(-0.5, (x * x2) * ratio);
    ftz_f64(if x.abs() < LOG1P_SMALL_F64 {
        small
    } else {
        large
    })
}

// ---------------------------------------------------------------------------
// Inverse error function as lowered by XLA (chlo.erf_inv)
// ---------------------------------------------------------------------------

/// Giles' single-precision coefficients for `w < 5`, highest degree first.
const ERFINV_F32_CENTRAL: [f32; 9] = [
    2.81022636e-08,
    3.43273939e-07,
    -3.5233877e-06,
    -4.39150654e-06,
    0.00021858087,
    -0.00125372503,
    -0.00417768164,
    0.246640727,
    1.50140941,
];
/// Giles' single-precision coefficients for `w >= 5`, highest degree first.
const ERFINV_F32_TAIL: [f32; 9] = [
    -0.000200214257,
    0.000100950558,
    0.00134934322,
    -0.00367342844,
    0.00573950773,
    -0.0076224613,
    0.00943887047,
    1.00167406,
    2.83297682,
];

/// Inverse error function for `f32`, bit-identical to XLA:CPU (`lax.erf_inv`).
///
/// Algorithm (M. Giles, "Approximating the erfinv function"):
/// `w = -log1p(x * -x)`; if `w < 5` evaluate a degree-8 polynomial in
/// `w - 2.5`, else in `sqrt(w) - 3` (Horner, each step one FMA); multiply by
/// `x`.  `|x| == 1` gives
/// `x * inf`; `|x| > 1` gives NaN.  The log1p is [`xla_log1p_f32`].
pub fn erf_inv_f32(x: f32) -> f32 {
    let x = ftz_f32(x);
    let w = -xla_log1p_f32(x * -x);
    let central = w < 5.0;
    let (coeffs, z) = if central {
        (&ERFINV_F32_CENTRAL, w - 2.5)
    } else {
        (&ERFINV_F32_TAIL, w.sqrt() - 3.0)
    };
    let mut p = coeffs[0];
    for &c in coeffs[1..].iter() {
        p = p.mul_add(z, c);
    }
    if x.abs() == 1.0 {
        x * f32::INFINITY
    } else {
        ftz_f32(p * x)
    }
}

/// Giles' double-precision coefficients for `w < 6.25` (in `w - 3.125`).
const ERFINV_F64_W1: [f64; 23] = [
    -3.6444120640178196996e-21,
    -1.685059138182016589e-19,
    1.2858480715256400167e-18,
    1.115787767802518096e-17,
    -1.333171662854620906e-16,
    2.0972767875968561637e-17,
    6.6376381343583238325e-15,
    -4.0545662729752068639e-14,
    -8.1519341976054721522e-14,
    2.6335093153082322977e-12,
    -1.2975133253453532498e-11,
    -5.4154120542946279317e-11,
    1.051212273321532285e-09,
    -4.1126339803469836976e-09,
    -2.9070369957882005086e-08,
    4.2347877827932403518e-07,
    -1.3654692000834678645e-06,
    -1.3882523362786468719e-05,
    0.0001867342080340571352,
    -0.00074070253416626697512,
    -0.0060336708714301490533,
    0.24015818242558961693,
    1.6536545626831027356,
];
/// Giles' double-precision coefficients for `6.25 <= w < 16` (in `sqrt(w) - 3.25`).
const ERFINV_F64_W2: [f64; 19] = [
    2.2137376921775787049e-09,
    9.0756561938885390979e-08,
    -2.7517406297064545428e-07,
    1.8239629214389227755e-08,
    1.5027403968909827627e-06,
    -4.013867526981545969e-06,
    2.9234449089955446044e-06,
    1.2475304481671778723e-05,
    -4.7318229009055733981e-05,
    6.8284851459573175448e-05,
    2.4031110387097893999e-05,
    -0.0003550375203628474796,
    0.00095328937973738049703,
    -0.0016882755560235047313,
    0.0024914420961078508066,
    -0.0037512085075692412107,
    0.005370914553590063617,
    1.0052589676941592334,
    3.0838856104922207635,
];
/// Giles' double-precision coefficients for `w >= 16` (in `sqrt(w) - 5`).
const ERFINV_F64_W3: [f64; 17] = [
    -2.7109920616438573243e-11,
    -2.5556418169965252055e-10,
    1.5076572693500548083e-09,
    -3.7894654401267369937e-09,
    7.6157012080783393804e-09,
    -1.4960026627149240478e-08,
    2.9147953450901080826e-08,
    -6.7711997758452339498e-08,
    2.2900482228026654717e-07,
    -9.9298272942317002539e-07,
    4.5260625972231537039e-06,
    -1.9681778105531670567e-05,
    7.5995277030017761139e-05,
    -0.00021503011930044477347,
    -0.00013871931833623122026,
    1.0103004648645343977,
    4.8499064014085844221,
];

/// Inverse error function for `f64`, bit-identical to XLA:CPU (`lax.erf_inv`).
///
/// `w = -log1p(x * -x)` (see [`xla_log1p_f64`]); three regions:
/// `w < 6.25` uses 23 coefficients in `w - 3.125`, `w < 16` uses 19 in
/// `sqrt(w) - 3.25`, otherwise 17 in `sqrt(w) - 5`; Horner with FMA; times
/// `x`.  `|x| == 1` gives `x * inf`.
pub fn erf_inv_f64(x: f64) -> f64 {
    let x = ftz_f64(x);
    let w = -xla_log1p_f64(x * -x);
    let (coeffs, z): (&[f64], f64) = if w < 6.25 {
        (&ERFINV_F64_W1, w - 3.125)
    } else if w < 16.0 {
        (&ERFINV_F64_W2, w.sqrt() - 3.25)
    } else {
        (&ERFINV_F64_W3, w.sqrt() - 5.0)
    };
    let mut p = coeffs[0];
    for &c in coeffs[1..].iter() {
        p = p.mul_add(z, c);
    }
    if x.abs() == 1.0 {
        x * f64::INFINITY
    } else {
        ftz_f64(p * x)
    }
}

/// Pure-Rust reference compositions of JAX's samplers, used to check the tensor versions.
#[cfg(test)]
pub(crate) mod reference {
    use super::*;

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
}

#[cfg(test)]
mod tests {
    use super::reference::*;
    use super::*;

    /// FNV-1a 64 over little-endian bytes (used to compare long outputs).
    fn fnv1a(bytes: impl Iterator<Item = u8>) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in bytes {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        h
    }
    fn fnv_u32(v: &[u32]) -> u64 {
        fnv1a(v.iter().flat_map(|w| w.to_le_bytes()))
    }
    fn fnv_u64(v: &[u64]) -> u64 {
        fnv1a(v.iter().flat_map(|w| w.to_le_bytes()))
    }

    const K0: [u32; 2] = [0, 0];
    const K42: [u32; 2] = [0, 42];

    #[test]
    fn threefry_known_answers() {
        // Random123 known-answer vectors (also checked against JAX's primitive).
        assert_eq!(threefry2x32([0, 0], [0, 0]), [0x6b200159, 0x99ba4efe]);
        assert_eq!(
            threefry2x32([0xffffffff, 0xffffffff], [0xffffffff, 0xffffffff]),
            [0x1cb996fc, 0xbb002be7]
        );
        assert_eq!(
            threefry2x32([0x13198a2e, 0x03707344], [0x243f6a88, 0x85a308d3]),
            [0xc4923a9c, 0x483df7a0]
        );
    }

    #[test]
    fn threefry_slices_match_jax_primitive() {
        // jax threefry2x32_p(0, 42, [0,1,2,3], [4,5,6,7])
        let x0 = [0u32, 1, 2, 3];
        let x1 = [4u32, 5, 6, 7];
        let mut o0 = [0u32; 4];
        let mut o1 = [0u32; 4];
        threefry2x32_slices(K42, &x0, &x1, &mut o0, &mut o1);
        assert_eq!(o0, [0xb013aee3, 0x997e0266, 0x43e44385, 0x3dbc1e1f]);
        assert_eq!(o1, [0xc34eddf6, 0x48ebcd9f, 0x0a56f817, 0x00d226af]);
    }

    #[test]
    fn keys_from_seeds() {
        assert_eq!(key_from_seed(0, false), [0, 0]);
        assert_eq!(key_from_seed(42, false), [0, 42]);
        assert_eq!(key_from_seed(-1, false), [0, 0xffffffff]);
        assert_eq!(key_from_seed((1 << 32) + 5, false), [0, 5]);
        assert_eq!(key_from_seed(-1, true), [0xffffffff, 0xffffffff]);
        assert_eq!(key_from_seed((1 << 32) + 5, true), [1, 5]);
        assert_eq!(key_from_seed((1 << 40) + 7, true), [0x100, 7]);
        assert_eq!(key_from_seed(-(1 << 40), true), [0xffffff00, 0]);
        assert_eq!(key_from_seed(i64::MIN, true), [0x80000000, 0]);
    }

    #[test]
    fn split_and_fold_in_partitionable() {
        let s = split_partitionable(K0, 4);
        assert_eq!(
            s,
            vec![
                [0x6b200159, 0x99ba4efe],
                [0x375f238f, 0xcddb151d],
                [0xf71f4ea9, 0xa20e4081],
                [0x9312778b, 0xe4e8dfbe]
            ]
        );
        assert_eq!(
            split_partitionable(K42, 2),
            vec![[0x6d3e048f, 0x1022172d], [0x03d7b32d, 0xadd083f4]]
        );
        assert_eq!(fold_in(K0, 0), [0x6b200159, 0x99ba4efe]);
        assert_eq!(fold_in(K0, 1), [0x375f238f, 0xcddb151d]);
        assert_eq!(fold_in(K0, 7), [0xa1ef7a4d, 0x116eb6b3]);
        assert_eq!(fold_in(K42, 7), [0x97d0552f, 0x51bf719f]);
        assert_eq!(fold_in(K0, 0xffffffff), [0x2c4e0437, 0xe1e32d13]);
    }

    #[test]
    fn split_and_bits_original_mode() {
        assert_eq!(
            split_original(K0, 2),
            vec![[0xf71f4ea9, 0x39a405d9], [0xa20e4081, 0x4bdfae2f]]
        );
        assert_eq!(
            split_original(K0, 3),
            vec![
                [0x9312778b, 0x19850714],
                [0xbdf17afd, 0xe4e8dfbe],
                [0x98b89669, 0x7408518d]
            ]
        );
        assert_eq!(split_original(K0, 1), vec![[0x375f238f, 0xcddb151d]]);
        assert_eq!(random_bits_u32_original(K0, 1), vec![0x6b200159]);
        assert_eq!(
            random_bits_u32_original(K0, 3),
            vec![0xf71f4ea9, 0x508efb2c, 0xa20e4081]
        );
        assert_eq!(
            random_bits_u32_original(K0, 5),
            vec![0x9312778b, 0x19850714, 0x64a626ec, 0xe4e8dfbe, 0x98b89669]
        );
    }

    #[test]
    fn random_bits_partitionable() {
        assert_eq!(
            random_bits_u32(K0, 4),
            vec![0xf29a4fa7, 0xfa843692, 0x55110e28, 0x77faa835]
        );
        assert_eq!(
            random_bits_u32(K42, 6),
            vec![0x7d1c13a2, 0xae0730d9, 0x9dc3f9f9, 0x8f9ec1d7, 0x735d7315, 0x95fb4ed8]
        );
        // uint8 / uint16: low bits of the same words.
        let b8: Vec<u8> = random_bits_u32(K0, 6).iter().map(|&w| w as u8).collect();
        assert_eq!(b8, vec![0xa7, 0x92, 0x28, 0x35, 0xb7, 0x43]);
        assert_eq!(
            random_bits_u64(K0, 3),
            vec![0x6b20015999ba4efe, 0x375f238fcddb151d, 0xf71f4ea9a20e4081]
        );
    }

    #[test]
    fn uniform_vectors() {
        let u: Vec<u32> = random_bits_u32(K0, 5)
            .into_iter()
            .map(|b| uniform_f32_from_bits(b, 0.0, 1.0).to_bits())
            .collect();
        assert_eq!(
            u,
            vec![0x3f729a4e, 0x3f7a8436, 0x3eaa221c, 0x3eeff550, 0x3f11e43a]
        );
        let u: Vec<u32> = random_bits_u32(K42, 5)
            .into_iter()
            .map(|b| uniform_f32_from_bits(b, -2.0, 3.0).to_bits())
            .collect();
        assert_eq!(
            u,
            vec![0x3ee318b4, 0x3fb311f8, 0x3f8a69ec, 0x3f4e19c0, 0x3e81a674]
        );
        let u: Vec<u64> = random_bits_u64(K0, 5)
            .into_iter()
            .map(|b| uniform_f64_from_bits(b, 0.0, 1.0).to_bits())
            .collect();
        assert_eq!(
            u,
            vec![
                0x3fdac80056666e90,
                0x3fcbaf91c7e6ed88,
                0x3feee3e9d53441c8,
                0x3fe2624ef17c9d1a,
                0x3fe107ffd8233b78
            ]
        );
        let u: Vec<u64> = random_bits_u64(K42, 5)
            .into_iter()
            .map(|b| uniform_f64_from_bits(b, -2.0, 3.0).to_bits())
            .collect();
        assert_eq!(
            u,
            vec![
                0x3fc11b0b65a85528,
                0xbffecc9801b9aed8,
                0x3febdcf492498382,
                0x3ffa62b0e5f0a7a2,
                0x3ff70626a72d08a1
            ]
        );
        let h = fnv_u32(
            &random_bits_u32(K0, 1000)
                .into_iter()
                .map(|b| uniform_f32_from_bits(b, 0.0, 1.0).to_bits())
                .collect::<Vec<_>>(),
        );
        assert_eq!(h, 0xa98d8172f06b71fc);
        let h = fnv_u64(
            &random_bits_u64(K0, 1000)
                .into_iter()
                .map(|b| uniform_f64_from_bits(b, 0.0, 1.0).to_bits())
                .collect::<Vec<_>>(),
        );
        assert_eq!(h, 0x09a05abd38617709);
    }

    #[test]
    fn normal_f32_vectors() {
        let n: Vec<u32> = random_bits_u32(K0, 8)
            .into_iter()
            .map(|b| normal_f32_from_bits(b).to_bits())
            .collect();
        assert_eq!(
            n,
            vec![
                0x3fcfb2bd, 0x40019df0, 0xbede0017, 0xbda10222, 0x3e34512c, 0xbf78dad7, 0xbefd97cc,
                0x3efd1f31
            ]
        );
        let n: Vec<u32> = random_bits_u32(K42, 8)
            .into_iter()
            .map(|b| normal_f32_from_bits(b).to_bits())
            .collect();
        assert_eq!(
            n,
            vec![
                0xbce7df15, 0x3eef2be8, 0x3e976661, 0x3e1d3b24, 0xbdfe04eb, 0x3e5e211a, 0xbfb86eb9,
                0x3f418009
            ]
        );
        // All 1000 values of jax.random.normal(PRNGKey(0), (1000,), float32).
        let n: Vec<u32> = random_bits_u32(K0, 1000)
            .into_iter()
            .map(|b| normal_f32_from_bits(b).to_bits())
            .collect();
        assert_eq!(fnv_u32(&n), 0x08abb40147f1fc5b);
    }

    #[test]
    fn normal_f64_vectors() {
        let n: Vec<u64> = random_bits_u64(K0, 8)
            .into_iter()
            .map(|b| normal_f64_from_bits(b).to_bits())
            .collect();
        assert_eq!(
            n,
            vec![
                0xbfca5909049a141d,
                0xbfe91ccd1e1b7b4a,
                0x3ffd0eb0e61cf797,
                0x3fc80b45ca1069ab,
                0x3fb4b3c1e85a437c,
                0xbfd7d0a9c9f7177f,
                0x3ff30ae91e3b6324,
                0x3fd5ac50b7414fb3
            ]
        );
        let n: Vec<u64> = random_bits_u64(K0, 1000)
            .into_iter()
            .map(|b| normal_f64_from_bits(b).to_bits())
            .collect();
        assert_eq!(fnv_u64(&n), 0x94b5fe1bde572433);
    }

    #[test]
    fn bernoulli_vectors() {
        let b = |key, p: f32, n| -> Vec<u8> {
            random_bits_u32(key, n)
                .into_iter()
                .map(|w| (uniform_f32_from_bits(w, 0.0, 1.0) < p) as u8)
                .collect()
        };
        assert_eq!(b(K0, 0.5, 10), vec![0, 0, 1, 1, 0, 1, 1, 0, 0, 1]);
        assert_eq!(b(K0, 0.3, 10), vec![0, 0, 0, 0, 0, 1, 0, 0, 0, 1]);
    }

    fn randint_i32(key: [u32; 2], n: u64, minval: i64, maxval: i64) -> Vec<i32> {
        // int32 sampling dtype; bounds clamped to the int32 range.
        let oor = maxval > i32::MAX as i64;
        let lo_c = minval.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
        let hi_c = maxval.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
        let ks = split_partitionable(key, 2);
        let hi = random_bits_u32(ks[0], n);
        let lo = random_bits_u32(ks[1], n);
        (0..n as usize)
            .map(|i| randint32_from_bits(lo_c as u32, hi_c as u32, true, oor, hi[i], lo[i]) as i32)
            .collect()
    }

    #[test]
    fn randint_vectors() {
        assert_eq!(
            randint_i32(K0, 10, 0, 10),
            vec![9, 0, 2, 3, 1, 7, 2, 3, 3, 3]
        );
        assert_eq!(
            randint_i32(K42, 10, -5, 5),
            vec![-1, -1, -4, 4, 4, 4, 2, 2, -1, 1]
        );
        assert_eq!(randint_i32(K0, 6, 5, 5), vec![5; 6]);
        assert_eq!(
            randint_i32(K0, 6, -(1 << 31), (1 << 31) - 1)
                .iter()
                .map(|&v| v as u32)
                .collect::<Vec<_>>(),
            vec![0x81de0365, 0x85592150, 0x14d85fc8, 0xdca16a3d, 0xb9190003, 0x9e89afd3]
        );
        // uint8 (0, 256): sampled in int32 with bounds clipped to [0, 255] / [0, 256].
        assert_eq!(
            randint_i32(K0, 6, 0, 256)
                .iter()
                .map(|&v| v as u8)
                .collect::<Vec<_>>(),
            vec![0x65, 0x50, 0xc8, 0x3d, 0x03, 0xd3]
        );
        // int8 (-10, 300): maxval clipped to 128 before int32 sampling.
        assert_eq!(
            randint_i32(K0, 6, -10, 128)
                .iter()
                .map(|&v| v as i8 as u8)
                .collect::<Vec<_>>(),
            vec![0x5d, 0x0e, 0x1c, 0x15, 0x79, 0x17]
        );
        // uint32 (0, 2**32) in x64 mode: maxval out of range, span wraps to 0,
        // every remainder is the identity and the result is the low-bits draw.
        let ks = split_partitionable(K0, 2);
        let hi = random_bits_u32(ks[0], 6);
        let lo = random_bits_u32(ks[1], 6);
        let r: Vec<u32> = (0..6)
            .map(|i| randint32_from_bits(0, u32::MAX, false, true, hi[i], lo[i]))
            .collect();
        assert_eq!(r, lo);
        assert_eq!(
            r,
            vec![0x01de0365, 0x05592150, 0x94d85fc8, 0x5ca16a3d, 0x39190003, 0x1e89afd3]
        );
        // int32 (0, 2**31) in x64 mode: maxval out of range -> span 2**31.
        let r: Vec<u32> = (0..3)
            .map(|i| randint32_from_bits(0, i32::MAX as u32, true, true, hi[i], lo[i]))
            .collect();
        assert_eq!(r, vec![0x01de0365, 0x05592150, 0x14d85fc8]);
        // int64 (x64 mode): two 64-bit draws.
        let ks = split_partitionable(K0, 2);
        let hi = random_bits_u64(ks[0], 6);
        let lo = random_bits_u64(ks[1], 6);
        let r: Vec<i64> = (0..6)
            .map(|i| {
                randint64_from_bits(
                    (-(1i64 << 40)) as u64,
                    1u64 << 40,
                    true,
                    false,
                    hi[i],
                    lo[i],
                ) as i64
            })
            .collect();
        assert_eq!(
            r.iter().map(|&v| v as u64).collect::<Vec<_>>(),
            vec![
                0xffffff6a157dcf0f,
                0x2fe9dec87f,
                0x72f3c12cf,
                0xe8c8f7b3d5,
                0xffffffb6a1e582b5,
                0xf4adbd5e27
            ]
        );
    }

    #[test]
    fn xla_log_spot_values() {
        // jnp.log on f32 under jit (XLA:CPU); see spec for where these come from.
        assert_eq!(xla_log_f32(1.0).to_bits(), 0);
        assert_eq!(xla_log_f32(0.0), f32::NEG_INFINITY);
        assert_eq!(xla_log_f32(f32::INFINITY), f32::INFINITY);
        assert!(xla_log_f32(-1.0).is_nan());
        assert_eq!(xla_log_f32(1e-40), f32::NEG_INFINITY);
        let ins = [2.0f32, 0.5, 0.1, 1e-3, 3.0, 0.75];
        let outs = [
            0x3f317218u32,
            0xbf317218,
            0xc0135d8e,
            0xc0dd0c55,
            0x3f8c9f54,
            0xbe934b11,
        ];
        for (x, b) in ins.iter().zip(outs.iter()) {
            assert_eq!(xla_log_f32(*x).to_bits(), *b, "log({x})");
        }
        // Coefficient bit patterns for log1p match XLA's emitted constants.
        for (c, b) in LOG1P_NUM_F64.iter().zip(LOG1P_NUM_F32.iter()) {
            assert_eq!((*c as f32).to_bits(), *b);
        }
        for (c, b) in LOG1P_DEN_F64.iter().zip(LOG1P_DEN_F32.iter()) {
            assert_eq!((*c as f32).to_bits(), *b);
        }
        assert_eq!((LOG1P_SMALL_F64 as f32).to_bits(), LOG1P_SMALL_F32);
    }

    #[test]
    fn erf_inv_f32_spot_values() {
        // jax.scipy.special.erfinv(float32) on XLA:CPU.
        assert_eq!(erf_inv_f32(0.0).to_bits(), 0);
        assert_eq!(erf_inv_f32(0.5).to_bits(), 0x3ef4_30fe);
        assert_eq!(erf_inv_f32(-0.5).to_bits(), 0xbef4_30fe);
        assert_eq!(erf_inv_f32(0.999).to_bits(), 0x4014_e999);
        assert_eq!(erf_inv_f32(0.9999999).to_bits(), 0x406f_9c68);
        assert_eq!(erf_inv_f32(1e-30).to_bits(), 0x0d8f_cc6c);
        assert_eq!(erf_inv_f32(1.0), f32::INFINITY);
        assert_eq!(erf_inv_f32(-1.0), f32::NEG_INFINITY);
        assert!(erf_inv_f32(1.5).is_nan());
    }

    #[test]
    fn erf_inv_f32_sweep_matches_xla() {
        // Inputs: bit patterns k*251 below 1.0, then every f32 in [0x3f7e0000, 1.0).
        let mut out = Vec::new();
        let mut b: u32 = 0;
        while b < 0x3f80_0000 {
            out.push(erf_inv_f32(f32::from_bits(b)).to_bits());
            b += 251;
        }
        for b in 0x3f7e_0000u32..0x3f80_0000 {
            out.push(erf_inv_f32(f32::from_bits(b)).to_bits());
        }
        assert_eq!(out.len(), 4_375_508);
        assert_eq!(fnv_u32(&out), 0x7996db378225592d);
    }

    #[test]
    fn erf_inv_f64_sweep_matches_xla() {
        let mut out = Vec::new();
        for k in 0..(1u64 << 20) {
            out.push(erf_inv_f64(k as f64 / (1u64 << 20) as f64).to_bits());
        }
        for k in 1..(1u64 << 16) {
            out.push(erf_inv_f64(1.0 - k as f64 * 2f64.powi(-40)).to_bits());
        }
        for k in 1..(1u64 << 12) {
            out.push(erf_inv_f64(1.0 - k as f64 * 2f64.powi(-52)).to_bits());
        }
        assert_eq!(out.len(), 1_118_206);
        assert_eq!(fnv_u64(&out), 0x4567cf0e737bf23f);
    }
}
