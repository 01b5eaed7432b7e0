//! The regularized incomplete gamma functions as JAX computes them: a power series below
//! the diagonal and a continued fraction above it (Cephes' `igam`/`igamc`), with the
//! derivative in `a` carried alongside for `igamma_grad_a` and `random_gamma_grad`.

use super::gamma::{digamma, lgamma};

/// What a series or continued fraction returns.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// The function's value.
    Value,
    /// Its derivative in `a`.
    Derivative,
    /// The derivative of a `Gamma(a, 1)` sample `x` in `a`.
    SampleDerivative,
}

const EPS: f64 = f64::EPSILON;

/// `x^a e^-x / Γ(a)` in logarithms, and whether its exponential underflows.
fn log_ax(a: f64, x: f64) -> (f64, bool) {
    let ax = a * x.ln() - x - lgamma(a);
    (ax, ax < -f64::MAX.ln())
}

/// The series `Σ x^k / ((a+1)...(a+k))` for the lower function; `enabled` false returns its
/// first term's value, as JAX's masked loop does.
fn series(ax: f64, x: f64, a: f64, enabled: bool, mode: Mode) -> f64 {
    let (mut r, mut c, mut ans, mut dc_da, mut dans_da) = (a, 1.0, 1.0, 0.0, 0.0);
    let mut go = enabled;
    while go {
        r += 1.0;
        dc_da = dc_da * (x / r) - (c * x) / (r * r);
        dans_da += dc_da;
        c *= x / r;
        ans += c;
        go = match mode {
            Mode::Value => c / ans > EPS,
            _ => (dc_da / dans_da).abs() > EPS,
        };
    }
    let dlogax_da = || x.ln() - digamma(a + 1.0);
    match mode {
        Mode::Value => ans * ax / a,
        Mode::Derivative => ax * (ans * dlogax_da() + dans_da) / a,
        Mode::SampleDerivative => -(dans_da + ans * dlogax_da()) * x / a,
    }
}

/// The continued fraction of the upper function (at most 2000 steps).
fn continued_fraction(ax: f64, x: f64, a: f64, enabled: bool, mode: Mode) -> f64 {
    let mut y = 1.0 - a;
    let mut z = x + y + 1.0;
    let mut c = 0.0;
    let (mut pkm2, mut qkm2, mut pkm1) = (1.0, x, x + 1.0);
    let mut qkm1 = z * x;
    let mut ans = pkm1 / qkm1;
    let (mut dpkm2, mut dqkm2, mut dpkm1, mut dqkm1) = (0.0, 0.0, 0.0, -x);
    let mut dans_da = (dpkm1 - ans * dqkm1) / qkm1;
    let mut go = enabled;
    while go && c < 2000.0 {
        c += 1.0;
        y += 1.0;
        z += 2.0;
        let yc = y * c;
        let pk = pkm1 * z - pkm2 * yc;
        let qk = qkm1 * z - qkm2 * yc;
        let nonzero = qk != 0.0;
        let r = pk / qk;
        let t = if nonzero { ((ans - r) / r).abs() } else { 1.0 };
        if nonzero {
            ans = r;
        }
        let dpk = dpkm1 * z - pkm1 - dpkm2 * yc + pkm2 * c;
        let dqk = dqkm1 * z - qkm1 - dqkm2 * yc + qkm2 * c;
        let (dans_new, moved) = if nonzero {
            let d = (dpk - ans * dqk) / qk;
            (d, (d - dans_da).abs())
        } else {
            (dans_da, 1.0)
        };
        (pkm2, pkm1, qkm2, qkm1) = (pkm1, pk, qkm1, qk);
        (dpkm2, dqkm2, dpkm1, dqkm1) = (dpkm1, dqkm1, dpk, dqk);
        if pk.abs() > 1.0 / EPS {
            pkm2 *= EPS;
            pkm1 *= EPS;
            qkm2 *= EPS;
            qkm1 *= EPS;
            dpkm2 *= EPS;
            dqkm2 *= EPS;
            dpkm1 *= EPS;
            dqkm1 *= EPS;
        }
        dans_da = dans_new;
        go = match mode {
            Mode::Value => t > EPS,
            _ => moved > EPS,
        };
    }
    let dlogax_da = || x.ln() - digamma(a);
    match mode {
        Mode::Value => ans * ax,
        Mode::Derivative => ax * (ans * dlogax_da() + dans_da),
        Mode::SampleDerivative => -(dans_da + ans * dlogax_da()) * x,
    }
}

/// Whether `(a, x)` is outside the functions' domain (or NaN).
fn domain_error(a: f64, x: f64) -> bool {
    x < 0.0 || a < 0.0 || (a == 0.0 && x == 0.0) || a.is_nan() || x.is_nan()
}

/// The regularized lower incomplete gamma function `P(a, x)`.
pub(crate) fn igamma(a: f64, x: f64) -> f64 {
    if domain_error(a, x) {
        return f64::NAN;
    }
    if x == 0.0 {
        return 0.0;
    }
    if x == f64::INFINITY {
        return 1.0;
    }
    let (ax, underflow) = log_ax(a, x);
    let ax = ax.exp();
    if x >= 1.0 && x > a {
        1.0 - continued_fraction(ax, x, a, !underflow, Mode::Value)
    } else {
        series(ax, x, a, !underflow, Mode::Value)
    }
}

/// The regularized upper incomplete gamma function `Q(a, x) = 1 - P(a, x)`.
pub(crate) fn igammac(a: f64, x: f64) -> f64 {
    if domain_error(a, x) {
        return f64::NAN;
    }
    if x == f64::INFINITY || a == 0.0 {
        return 0.0;
    }
    let (ax, underflow) = log_ax(a, x);
    let ax = ax.exp();
    if x < 1.0 || x < a {
        1.0 - series(ax, x, a, !underflow, Mode::Value)
    } else {
        continued_fraction(ax, x, a, !underflow, Mode::Value)
    }
}

/// The derivative in `a` of [`igamma`] (`mode` Derivative), or of a `Gamma(a, 1)` sample
/// `x` (`mode` SampleDerivative: `-(dP/da) / (dP/dx)`).
fn grad_a(a: f64, x: f64, mode: Mode) -> f64 {
    if x < 0.0 || a <= 0.0 || a.is_nan() || x.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 {
        return 0.0;
    }
    let (ax, underflow) = log_ax(a, x);
    let ax = ax.exp();
    if x > 1.0 && x > a {
        -continued_fraction(ax, x, a, !underflow, mode)
    } else {
        series(ax, x, a, !underflow, mode)
    }
}

/// `∂P(a, x)/∂a`.
pub(crate) fn igamma_grad_a(a: f64, x: f64) -> f64 {
    grad_a(a, x, Mode::Derivative)
}

/// The derivative in `a` of a `Gamma(a, 1)` sample `x` (implicit reparameterization).
pub(crate) fn random_gamma_grad(a: f64, x: f64) -> f64 {
    grad_a(a, x, Mode::SampleDerivative)
}
