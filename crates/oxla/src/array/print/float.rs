//! Formatting floats as numpy does: the shortest digits that identify a value, rounded to
//! at most `precision` after the point; positional or scientific for a whole array alike.

use crate::array::{DType, Kind};

/// numpy's `FloatingFormat` for `floatmode='maxprec'`.
pub(super) struct FloatFormat {
    ty: FloatType,
    precision: usize,
    /// Scientific: the digits after the point and of the exponent, every value alike.
    sci: Option<(usize, usize)>,
    pad_left: usize,
    pad_right: usize,
}

impl FloatFormat {
    pub(super) fn new(values: &[f64], ty: FloatType, precision: usize) -> FloatFormat {
        let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        let nonzero = finite.iter().filter(|v| **v != 0.0).map(|v| v.abs());
        let (min, max) = nonzero.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        // numpy compares in the array's own type.
        let (min, max) = ((ty.round)(min), (ty.round)(max));
        let exp = max > 0.0
            && (max >= ty.exp_above || min < (ty.round)(1e-4) || (ty.round)(max / min) > 1e3);
        let mut f = FloatFormat {
            ty,
            precision,
            sci: None,
            pad_left: 0,
            pad_right: 0,
        };
        if exp {
            let parts: Vec<(String, String, i32)> = finite
                .iter()
                .map(|&v| scientific(v, ty, precision))
                .collect();
            let frac = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
            let exp_digits = parts
                .iter()
                .map(|p| p.2.unsigned_abs().to_string().len())
                .max()
                .unwrap_or(0)
                .max(2);
            f.pad_left = parts.iter().map(|p| p.0.len()).max().unwrap_or(0);
            f.pad_right = exp_digits + 2 + frac;
            f.sci = Some((frac, exp_digits));
        } else {
            let parts: Vec<(String, String)> = finite
                .iter()
                .map(|&v| positional(v, ty, precision))
                .collect();
            f.pad_left = parts.iter().map(|p| p.0.len()).max().unwrap_or(0);
            f.pad_right = parts.iter().map(|p| p.1.len()).max().unwrap_or(0);
        }
        if finite.len() != values.len() {
            let neg_inf = values.contains(&f64::NEG_INFINITY);
            let offset = f.pad_right + 1;
            f.pad_left = f
                .pad_left
                .max((3 + usize::from(neg_inf)).saturating_sub(offset));
        }
        f
    }

    pub(super) fn one(&self, v: f64) -> String {
        let (pad_left, pad_right) = (self.pad_left, self.pad_right);
        if !v.is_finite() {
            let word = non_finite(v);
            return format!("{word:>0$}", pad_left + pad_right + 1);
        }
        match self.sci {
            Some((frac, exp_digits)) => {
                let (int, mut digits, e) = scientific(v, self.ty, self.precision);
                if digits.len() < frac {
                    // More digits of the value than its shortest form, as numpy's
                    // `min_digits` gives.
                    (_, digits, _) = split_scientific(v, &(self.ty.exact_e)(v.abs(), frac));
                }
                let sign = if e < 0 { '-' } else { '+' };
                let e = e.unsigned_abs();
                format!("{int:>pad_left$}.{digits:0<frac$}e{sign}{e:0>exp_digits$}")
            }
            None => {
                let (int, digits) = positional(v, self.ty, self.precision);
                format!("{int:>pad_left$}.{digits:<pad_right$}")
            }
        }
    }
}

/// `nan`, `inf` or `-inf`.
fn non_finite(v: f64) -> &'static str {
    if v.is_nan() {
        "nan"
    } else if v > 0.0 {
        "inf"
    } else {
        "-inf"
    }
}

/// What printing needs to know of a float dtype.
#[derive(Clone, Copy)]
pub(super) struct FloatType {
    /// `{:e}` of a value of the type, the shortest digits that identify it.
    shortest_e: fn(f64) -> String,
    /// `{:.N$e}` of a value of the type: its exact value rounded to N digits after the point.
    exact_e: fn(f64, usize) -> String,
    /// `{:.N$}` of a value of the type.
    exact: fn(f64, usize) -> String,
    /// The value rounded to the type.
    round: fn(f64) -> f64,
    /// numpy prints arrays in scientific notation from `10^min(8, decimal digits)` on.
    exp_above: f64,
    /// numpy prints a scalar positionally below this.
    scalar_below: f64,
}

/// The float dtypes; each new one is one arm. A complex dtype formats as its parts' dtype.
pub(super) fn float_type(dtype: DType) -> FloatType {
    match dtype.real_dtype() {
        DType::F32 => FloatType {
            shortest_e: |v| format!("{:e}", v as f32),
            exact_e: |v, n| format!("{:.n$e}", v as f32),
            exact: |v, n| format!("{:.n$}", v as f32),
            round: |v| f64::from(v as f32),
            exp_above: 1e6,
            scalar_below: 1e6,
        },
        DType::F64 => FloatType {
            shortest_e: |v| format!("{v:e}"),
            exact_e: |v, n| format!("{v:.n$e}"),
            exact: |v, n| format!("{v:.n$}"),
            round: |v| v,
            exp_above: 1e8,
            scalar_below: 1e16,
        },
        // numpy prints float16 as it prints float32, at its own precision: positional up
        // to 1e3, for arrays and scalars alike.
        DType::F16 => FloatType {
            shortest_e: |v| shortest_as(v, |x| half::f16::from_f64(x).to_f64()),
            exact_e: |v, n| format!("{v:.n$e}"),
            exact: |v, n| format!("{v:.n$}"),
            round: |v| half::f16::from_f64(v).to_f64(),
            exp_above: 1e3,
            scalar_below: 1e3,
        },
        // bfloat16 has no numpy type; printed as float16 is, at bfloat16's own precision.
        DType::BF16 => FloatType {
            shortest_e: |v| shortest_as(v, |x| half::bf16::from_f64(x).to_f64()),
            exact_e: |v, n| format!("{v:.n$e}"),
            exact: |v, n| format!("{v:.n$}"),
            round: |v| half::bf16::from_f64(v).to_f64(),
            exp_above: 1e3,
            scalar_below: 1e3,
        },
        DType::Bool
        | DType::I8
        | DType::I16
        | DType::I32
        | DType::I64
        | DType::U8
        | DType::U16
        | DType::U32
        | DType::U64
        | DType::C64
        | DType::C128 => unreachable!("{dtype} is not a float type"),
    }
}

/// The shortest `{:e}` text of `v` that reads back to `v` once rounded by `round` (the
/// value's own type): Rust's shortest digits for a type it has no float for.
fn shortest_as(v: f64, round: fn(f64) -> f64) -> String {
    (0..17)
        .map(|p| format!("{v:.p$e}"))
        .find(|s| s.parse::<f64>().is_ok_and(|r| round(r) == v))
        .unwrap_or_else(|| format!("{v:e}"))
}

/// The shortest digits that identify `v` among the values of its type, and the decimal
/// exponent of the first.
fn shortest(v: f64, ty: FloatType) -> (String, i32) {
    parts(&(ty.shortest_e)(v.abs()))
}

/// The digits and exponent of Rust's `{:e}` text.
fn parts(s: &str) -> (String, i32) {
    let (mantissa, exp) = s.split_once('e').expect("`{:e}` writes an exponent");
    (
        mantissa.replace('.', ""),
        exp.parse().expect("a decimal exponent"),
    )
}

/// The sign of `v` as numpy writes it (`-` for negative values and for `-0.0`).
fn sign(v: f64) -> &'static str {
    if v.is_sign_negative() {
        "-"
    } else {
        ""
    }
}

/// numpy's `dragon4_positional(v, precision, unique=True, trim='.')`, split at the point:
/// the integer part with its sign, and the digits after the point without trailing zeros.
fn positional(v: f64, ty: FloatType, precision: usize) -> (String, String) {
    let (digits, exp) = shortest(v, ty);
    let needed = (digits.len() as i64 - 1 - i64::from(exp)).max(0) as usize;
    if needed <= precision {
        let (int, frac) = if exp >= 0 {
            let point = exp as usize + 1;
            let padded = format!("{digits:0<point$}");
            let (i, f) = padded.split_at(point);
            (i.to_string(), f.to_string())
        } else {
            (
                "0".to_string(),
                format!("{}{digits}", "0".repeat((-exp - 1) as usize)),
            )
        };
        let frac = if digits == "0" { String::new() } else { frac };
        return (format!("{}{int}", sign(v)), frac);
    }
    let rounded = (ty.exact)(v.abs(), precision);
    let (int, frac) = rounded.split_once('.').unwrap_or((&rounded, ""));
    (
        format!("{}{int}", sign(v)),
        frac.trim_end_matches('0').to_string(),
    )
}

/// numpy's `dragon4_scientific(v, precision, unique=True, trim='.')`: the digit before the
/// point with its sign, the digits after it without trailing zeros, and the exponent.
fn scientific(v: f64, ty: FloatType, precision: usize) -> (String, String, i32) {
    let (digits, _) = shortest(v, ty);
    if digits.len() - 1 > precision {
        return split_scientific(v, &(ty.exact_e)(v.abs(), precision));
    }
    split_scientific(v, &(ty.shortest_e)(v.abs()))
}

/// `{:e}` text of `|v|` as numpy's scientific parts: the digit before the point with the
/// sign of `v`, the digits after it without trailing zeros, and the exponent.
fn split_scientific(v: f64, text: &str) -> (String, String, i32) {
    let (digits, exp) = parts(text);
    let frac = digits[1..].trim_end_matches('0').to_string();
    (format!("{}{}", sign(v), &digits[..1]), frac, exp)
}

/// numpy's `str` of a scalar of `dtype`.
pub(super) fn scalar_str(dtype: DType, v: f64) -> String {
    match dtype.kind() {
        Kind::Bool => (if v != 0.0 { "True" } else { "False" }).into(),
        Kind::Int => (v as i64).to_string(),
        Kind::Float | Kind::Complex if !v.is_finite() => non_finite(v).into(),
        Kind::Float | Kind::Complex => {
            let ty = float_type(dtype);
            if v == 0.0 || (1e-4..ty.scalar_below).contains(&v.abs()) {
                let (int, frac) = positional(v, ty, usize::MAX);
                let frac = if frac.is_empty() { "0".into() } else { frac };
                return format!("{int}.{frac}");
            }
            let (digits, exp) = shortest(v, ty);
            let e_sign = if exp < 0 { '-' } else { '+' };
            let point = if digits.len() > 1 { "." } else { "" };
            format!(
                "{}{}{point}{}e{e_sign}{:02}",
                sign(v),
                &digits[..1],
                &digits[1..],
                exp.unsigned_abs()
            )
        }
    }
}
