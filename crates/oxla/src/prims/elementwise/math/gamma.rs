//! The gamma family as XLA computes it: Lanczos' approximation (g = 7, nine terms) for
//! `lgamma` and `digamma` with Euler's reflection below 1/2, the Euler–Maclaurin sum for the
//! Hurwitz zeta function, and `polygamma` from `zeta`.

// The constants are XLA's, with the digits it prints.
#![allow(clippy::excessive_precision)]

use std::f64::consts::PI;

/// Lanczos' `g`.
const LANCZOS_G: f64 = 7.0;
/// The constant term of Lanczos' series.
const LANCZOS_BASE: f64 = 0.99999999999980993227684700473478;
/// The coefficients of `1 / (z + k)`, `k = 1..=8`, in Lanczos' series.
const LANCZOS: [f64; 8] = [
    676.520368121885098567009190444019,
    -1259.13921672240287047156078755283,
    771.3234287776530788486528258894,
    -176.61502916214059906584551354,
    12.507343278686904814458936853,
    -0.13857109526572011689554707,
    9.984369578019570859563e-6,
    1.50563273514931155834e-7,
];

/// `log |Γ(x)|`; `+inf` at the poles (0 and the negative integers) and at `±inf`.
pub(crate) fn lgamma(x: f64) -> f64 {
    if x.is_infinite() {
        return f64::INFINITY;
    }
    let reflect = x < 0.5;
    let z = if reflect { -x } else { x - 1.0 };
    let mut a = LANCZOS_BASE;
    for (k, c) in LANCZOS.iter().enumerate() {
        a += c / (z + (k + 1) as f64);
    }
    let lg = LANCZOS_G + 0.5;
    let t = lg + z;
    let log_t = lg.ln() + (z / lg).ln_1p();
    // (z + 1/2) log t - t, arranged not to overflow for large t.
    let r = (z + 0.5 - t / log_t) * log_t;
    let value = (2f64.ln() + PI.ln()) / 2.0 + r + a.ln();
    if !reflect {
        return value;
    }
    // log Γ(x) = log π - log Γ(1 - x) - log |sin(π x)|, with the sine of the fractional part
    // folded into [0, 1/2] for accuracy (exactly zero at the integers).
    let abs = x.abs();
    let mut frac = abs - abs.floor();
    if frac > 0.5 {
        frac = 1.0 - frac;
    }
    let log_sin = (PI * frac).sin().ln();
    if log_sin.is_finite() {
        PI.ln() - log_sin - value
    } else {
        -log_sin
    }
}

/// `ψ(x) = Γ'(x) / Γ(x)`; NaN at the poles (0 and the negative integers) and at `-inf`.
pub(crate) fn digamma(x: f64) -> f64 {
    if x <= 0.0 && x == x.floor() {
        return f64::NAN;
    }
    let reflect = x < 0.5;
    let z = if reflect { -x } else { x - 1.0 };
    let (mut a, mut da) = (LANCZOS_BASE, 0.0);
    for (k, c) in LANCZOS.iter().enumerate() {
        let zk = z + (k + 1) as f64;
        da -= c / (zk * zk);
        a += c / zk;
    }
    let lg = LANCZOS_G + 0.5;
    let t = lg + z;
    let log_t = lg.ln() + (z / lg).ln_1p();
    let value = log_t + da / a - LANCZOS_G / t;
    if !reflect {
        return value;
    }
    // ψ(x) = ψ(1 - x) - π cot(π x), with x shifted into [-1/2, 1/2] first.
    let reduced = x + (x + 0.5).floor().abs();
    let (s, c) = (PI * reduced).sin_cos();
    value - PI * c / s
}

/// `(2k)! / B_2k` for `k = 12, 11, ..., 1`: the Euler–Maclaurin coefficients.
const ZETA: [f64; 12] = [
    -7.1661652561756670113e18,
    1.8152105401943546773e17,
    -4.5979787224074726105e15,
    1.1646782814350067249e14,
    -2.950130727918164224e12,
    7.47242496e10,
    -1.8924375803183791606e9,
    47900160.0,
    -1209600.0,
    30240.0,
    -720.0,
    12.0,
];

/// The Hurwitz zeta function `ζ(x, q) = Σ_k (q + k)^-x`: NaN for `x < 1` and for `q <= 0`
/// with a non-integer `x`; at the poles (`q` a non-positive integer) `+inf` for an even `x`,
/// else NaN; `+inf` at `x = 1`.
pub(crate) fn zeta(x: f64, q: f64) -> f64 {
    let mut a = q;
    let mut sum = q.powf(-x);
    for _ in 0..9 {
        a += 1.0;
        sum += a.powf(-x);
    }
    a += 1.0;
    let power = a.powf(-x);
    let mut s = sum + power * a / (x - 1.0);
    let inv_a2 = 1.0 / (a * a);
    let mut horner = 0.0;
    for (i, c) in ZETA[..11].iter().enumerate() {
        let factor = (x + (22 - 2 * i) as f64) * (x + (21 - 2 * i) as f64);
        horner = factor * (inv_a2 * (horner + 1.0 / c));
    }
    s += power * (0.5 + x / a * (1.0 / ZETA[11] + horner));
    // The partial sum alone where the correction is negligible.
    let mut out = if power.abs() < sum.abs() * f64::MIN_POSITIVE {
        sum
    } else {
        s
    };
    let x_int = x == x.floor();
    if x < 1.0 || (q <= 0.0 && !x_int) {
        out = f64::NAN;
    }
    if q <= 0.0 && q == q.floor() {
        out = if x_int && x % 2.0 == 0.0 {
            f64::INFINITY
        } else {
            f64::NAN
        };
    }
    if x == 1.0 {
        out = f64::INFINITY;
    }
    out
}

/// `ψ^(n)(x)`, the `n`-th derivative of [`digamma`]: NaN unless `n` is a natural number;
/// `(-1)^(n+1) n! ζ(n + 1, x)` for `n >= 1`.
pub(crate) fn polygamma(n: f64, x: f64) -> f64 {
    if n != n.floor() || n < 0.0 {
        return f64::NAN;
    }
    if n == 0.0 {
        return digamma(x);
    }
    let sign = 2.0 * (n % 2.0) - 1.0;
    sign * lgamma(n + 1.0).exp() * zeta(n + 1.0, x)
}
