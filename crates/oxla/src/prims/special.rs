//! XLA:CPU's special functions, bit-exact: the inverse error function as XLA lowers
//! `chlo.erf_inv` (Giles' polynomials, `log1p`-based), and the logarithms XLA:CPU uses
//! inside it ([`xla_log_f32`], [`xla_log1p_f32`], [`xla_log1p_f64`]; Rust's `f32::ln` is
//! not the same function as XLA:CPU's f32 `log`).
//!
//! Floating-point order of operations matters for bit-identity. XLA:CPU compiles with LLVM
//! `AllowFPOpFusion=Fast`, so on FMA-capable hosts every `fmul` whose only use is an
//! `fadd`/`fsub` becomes a fused multiply-add. The functions below reproduce exactly that
//! contraction pattern with `mul_add`, and use plain `*`/`+` everywhere XLA does not fuse.
//! XLA:CPU also runs with FTZ/DAZ, mirrored by [`ftz_f32`]/[`ftz_f64`].

// The constants are XLA's, transcribed with the digits XLA prints; the arithmetic is written
// in XLA's own operation order, which the assign-op and partial-order lints would rewrite.
#![allow(
    clippy::excessive_precision,
    clippy::assign_op_pattern,
    clippy::neg_cmp_op_on_partial_ord
)]

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
#[inline(always)]
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
#[inline(always)]
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
#[inline(always)]
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
#[inline(always)]
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
#[inline(always)]
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

#[cfg(test)]
pub(crate) mod tests;
