//! The exponentially scaled modified Bessel functions of the first kind, orders 0 and 1:
//! the power series (all terms positive) below 50, the asymptotic expansion above.

/// Where the asymptotic expansion takes over from the series.
const LARGE: f64 = 50.0;

/// `e^-|x| I_ν(|x|)` for `ν` 0 or 1 by the power series
/// `(x/2)^ν Σ (x²/4)^k / (k! (k+ν)!)`.
fn series(x: f64, nu: u32) -> f64 {
    let q = x * x / 4.0;
    let mut term = if nu == 0 { 1.0 } else { x / 2.0 };
    let mut sum = term;
    let mut k = 0.0;
    loop {
        k += 1.0;
        term *= q / (k * (k + f64::from(nu)));
        sum += term;
        if term <= sum * 1e-17 {
            break;
        }
    }
    sum * (-x).exp()
}

/// `e^-x I_ν(x)` for large `x` by Hankel's expansion
/// `(2πx)^-1/2 Σ (-1)^k Π_{j<=k} (4ν² - (2j-1)²) / (k! (8x)^k)`, summed while it shrinks.
fn asymptotic(x: f64, nu: u32) -> f64 {
    let mu = 4.0 * f64::from(nu * nu);
    let mut term = 1.0;
    let mut sum = 1.0;
    for k in 1..200 {
        let j = f64::from(2 * k - 1);
        let next = -term * (mu - j * j) / (f64::from(k) * 8.0 * x);
        if next.abs() >= term.abs() || next == 0.0 {
            break;
        }
        term = next;
        sum += term;
    }
    sum / (2.0 * std::f64::consts::PI * x).sqrt()
}

/// `e^-|x| I_0(x)`.
pub(crate) fn bessel_i0e(x: f64) -> f64 {
    let a = x.abs();
    if a.is_nan() {
        return f64::NAN;
    }
    if a > LARGE {
        asymptotic(a, 0)
    } else {
        series(a, 0)
    }
}

/// `e^-|x| I_1(x)` (odd in `x`).
pub(crate) fn bessel_i1e(x: f64) -> f64 {
    let a = x.abs();
    if a.is_nan() {
        return f64::NAN;
    }
    let v = if a > LARGE {
        asymptotic(a, 1)
    } else {
        series(a, 1)
    };
    v.copysign(x)
}
