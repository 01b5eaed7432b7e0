//! `exp`, `log` and `tanh` of `f32` as polynomials with fused multiply-adds.
//!
//! Each is straight-line code — range reduction, a minimax polynomial in Horner form,
//! reconstruction, and selects for the special values — so the compiler vectorises a loop
//! over a block of lanes, where the C library's scalar calls cannot be. The coefficients
//! are Cephes' single-precision ones (Moshier, 1984-1992); every result is within 2 ulp of
//! the correctly rounded value (checked against `f64` below).

/// `e^x`.
#[inline(always)]
pub(super) fn exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    // ln 2 split so that `n * LN2_HI` is exact for the `n` that occur.
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // Adding 1.5 * 2^23 rounds to an integer, which the low mantissa bits then hold: a
    // float-to-int conversion that vectorises, where `as i32` (saturating, NaN to 0) does not.
    const ROUND: f32 = 12_582_912.0;
    let xc = x.clamp(-104.0, 89.0);
    let shifted = xc.mul_add(LOG2E, ROUND);
    let n = shifted - ROUND;
    let r = n.mul_add(-LN2_LO, n.mul_add(-LN2_HI, xc));
    let p = 1.987_569_1e-4_f32
        .mul_add(r, 1.398_199_9e-3)
        .mul_add(r, 8.333_452e-3)
        .mul_add(r, 4.166_579_6e-2)
        .mul_add(r, 1.666_666_5e-1)
        .mul_add(r, 5e-1);
    let e = p.mul_add(r * r, r) + 1.0;
    // 2^n in two factors, so that results near the overflow and subnormal limits are
    // reached without an infinite or zero intermediate.
    let n = shifted.to_bits() as i32 - ROUND.to_bits() as i32;
    let half = n >> 1;
    let y = e * pow2(half) * pow2(n - half);
    if x < -103.972_08 {
        0.0
    } else {
        y
    }
}

/// `2^n` for `-126 <= n <= 127`.
#[inline(always)]
fn pow2(n: i32) -> f32 {
    f32::from_bits(((n + 127) as u32) << 23)
}

/// The natural logarithm.
#[inline(always)]
pub(super) fn ln(x: f32) -> f32 {
    const SQRT2: f32 = std::f32::consts::SQRT_2;
    // Subnormals are scaled into the normal range first.
    let tiny = x < f32::MIN_POSITIVE;
    let xs = if tiny { x * 8_388_608.0 } else { x };
    let bits = xs.to_bits();
    let mut e = ((bits >> 23) & 0xff) as i32 - 127 - if tiny { 23 } else { 0 };
    let mut m = f32::from_bits((bits & 0x007f_ffff) | 0x3f80_0000);
    if m > SQRT2 {
        m *= 0.5;
        e += 1;
    }
    let f = m - 1.0;
    let z = f * f;
    let p = 7.037_683_6e-2_f32
        .mul_add(f, -1.151_461e-1)
        .mul_add(f, 1.167_699_9e-1)
        .mul_add(f, -1.242_014_1e-1)
        .mul_add(f, 1.424_932_3e-1)
        .mul_add(f, -1.666_805_8e-1)
        .mul_add(f, 2.000_071_4e-1)
        .mul_add(f, -2.499_999_4e-1)
        .mul_add(f, 3.333_333e-1);
    let fe = e as f32;
    let y = (p * f * z) + fe * -2.121_944_4e-4 - 0.5 * z;
    let y = fe.mul_add(0.693_359_4, f + y);
    if x.is_nan() || x < 0.0 {
        f32::NAN
    } else if x == 0.0 {
        f32::NEG_INFINITY
    } else if x == f32::INFINITY {
        f32::INFINITY
    } else {
        y
    }
}

/// The hyperbolic tangent.
#[inline(always)]
pub(super) fn tanh(x: f32) -> f32 {
    let a = x.abs();
    // Small arguments: an odd polynomial, free of the cancellation in 1 - 2/(e^2x + 1).
    let z = x * x;
    let p = (-5.704_988_7e-3_f32)
        .mul_add(z, 2.063_909e-2)
        .mul_add(z, -5.373_971_6e-2)
        .mul_add(z, 1.333_144_2e-1)
        .mul_add(z, -3.333_328e-1);
    let small = (p * z).mul_add(x, x);
    let large = 1.0 - 2.0 / (exp(2.0 * a) + 1.0);
    if a < 0.625 {
        small
    } else {
        large.copysign(x)
    }
}

#[cfg(test)]
mod tests {
    /// Distance in units in the last place between `got` and the `f64` value rounded.
    fn ulps(got: f32, want: f64) -> u32 {
        let w = want as f32;
        if got == w || (got.is_nan() && w.is_nan()) {
            return 0;
        }
        let key = |v: f32| {
            let b = v.to_bits() as i64;
            if b < 0x8000_0000 {
                b
            } else {
                0x8000_0000 - b
            }
        };
        (key(got) - key(w)).unsigned_abs() as u32
    }

    /// Points spread over `lo..hi`, with the interval's ends.
    fn sweep(lo: f32, hi: f32, n: usize) -> impl Iterator<Item = f32> {
        (0..=n).map(move |i| lo + (hi - lo) * i as f32 / n as f32)
    }

    fn worst(f: fn(f32) -> f32, g: fn(f64) -> f64, xs: impl Iterator<Item = f32>) -> u32 {
        xs.map(|x| ulps(f(x), g(x as f64))).max().unwrap_or(0)
    }

    #[test]
    fn exp_is_within_2_ulp() {
        assert!(worst(super::exp, f64::exp, sweep(-103.0, 88.7, 400_000)) <= 2);
        assert!(worst(super::exp, f64::exp, sweep(-1.0, 1.0, 100_000)) <= 2);
        assert_eq!(super::exp(0.0), 1.0);
        assert_eq!(super::exp(f32::NEG_INFINITY), 0.0);
        assert_eq!(super::exp(-200.0), 0.0);
        assert_eq!(super::exp(89.0), f32::INFINITY);
        assert_eq!(super::exp(f32::INFINITY), f32::INFINITY);
        assert!(super::exp(f32::NAN).is_nan());
    }

    #[test]
    fn ln_is_within_2_ulp() {
        let spread = (0..200_000).map(|i| f32::from_bits(0x0010_0000 + i * 10_600));
        assert!(worst(super::ln, f64::ln, spread) <= 2);
        assert!(worst(super::ln, f64::ln, sweep(0.5, 2.0, 100_000)) <= 2);
        assert_eq!(super::ln(1.0), 0.0);
        assert_eq!(super::ln(0.0), f32::NEG_INFINITY);
        assert_eq!(super::ln(f32::INFINITY), f32::INFINITY);
        assert!(super::ln(-1.0).is_nan() && super::ln(f32::NAN).is_nan());
    }

    #[test]
    fn tanh_is_within_2_ulp() {
        let w = worst(super::tanh, f64::tanh, sweep(-12.0, 12.0, 400_000));
        assert!(w <= 2, "{w} ulp");
        assert!(worst(super::tanh, f64::tanh, sweep(-0.7, 0.7, 100_000)) <= 2);
        assert_eq!(super::tanh(0.0), 0.0);
        assert_eq!(super::tanh(f32::INFINITY), 1.0);
        assert_eq!(super::tanh(f32::NEG_INFINITY), -1.0);
        assert!(super::tanh(f32::NAN).is_nan());
    }
}
