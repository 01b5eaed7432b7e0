//! Polynomials as coefficient vectors, highest power first: `polyval`, `polyadd`,
//! `polysub`, `polymul`, `polyder`, `polyint`, `poly`, and `vander`.

use super::{concatenate, convolve, promote_dtypes, scalar_tensor, zeros, Operand};
use crate::array::{DType, Kind};
use crate::core::Tensor;
use crate::ops as lax;

/// The operands promoted to one dtype, then to a float one (JAX's
/// `promote_dtypes_inexact`).
#[track_caller]
fn inexact_all(what: &str, ops: &[Operand]) -> Vec<Tensor> {
    let ts = promote_dtypes(what, ops);
    let dtype = match ts[0].dtype() {
        d if d.is_float() => d,
        _ => Kind::Float.default_dtype(),
    };
    ts.iter().map(|t| super::astype(t, dtype)).collect()
}

/// Panics unless `p` holds coefficients along a first axis.
#[track_caller]
fn coefficients(what: &str, p: &Tensor) {
    if p.ndim() == 0 {
        panic!(
            "{what}: the coefficients must have at least one axis, got {}\n  at {}",
            p.aval(),
            std::panic::Location::caller()
        );
    }
}

/// `p[0] * x^(n-1) + ... + p[n-1]` by Horner's rule (`jnp.polyval`); `p`'s trailing axes
/// broadcast against `x`.
///
/// ```
/// use oxla::numpy as jnp;
/// let p = jnp::array(&[1.0f32, 0.0, -2.0], &[3]);
/// assert_eq!(jnp::polyval(&p, 3.0).item(), 7.0);
/// ```
#[track_caller]
pub fn polyval(p: impl Into<Operand>, x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("polyval", &[p.into(), x.into()]);
    let (p, x) = (&t[0], &t[1]);
    coefficients("polyval", p);
    let mut y = scalar_tensor(0.0, x.dtype());
    for i in 0..p.shape()[0] {
        y = super::add(super::multiply(&y, x), p.index(i as isize));
    }
    super::broadcast_to(&y, &broadcast_shape("polyval", &p.shape()[1..], x.shape()))
}

/// numpy's broadcast of two shapes.
#[track_caller]
fn broadcast_shape(what: &str, a: &[usize], b: &[usize]) -> Vec<usize> {
    let n = a.len().max(b.len());
    (0..n)
        .map(|i| {
            let get = |s: &[usize]| (i + s.len()).checked_sub(n).map_or(1, |j| s[j]);
            match (get(a), get(b)) {
                (x, y) if x == y || y == 1 => x,
                (1, y) => y,
                _ => panic!(
                    "{what}: shapes {a:?} and {b:?} cannot be broadcast together\n  at {}",
                    std::panic::Location::caller()
                ),
            }
        })
        .collect()
}

/// The sum of two polynomials (`jnp.polyadd`): the shorter is aligned at the constant term.
#[track_caller]
pub fn polyadd(a1: impl Into<Operand>, a2: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("polyadd", &[a1.into(), a2.into()]);
    aligned_sum(&t[0], &t[1], false)
}

/// The difference of two polynomials (`jnp.polysub`).
#[track_caller]
pub fn polysub(a1: impl Into<Operand>, a2: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("polysub", &[a1.into(), a2.into()]);
    aligned_sum(&t[0], &t[1], true)
}

/// `a + b` (or `a - b`) with the shorter padded with leading zeros.
#[track_caller]
fn aligned_sum(a: &Tensor, b: &Tensor, subtract: bool) -> Tensor {
    for (what, t) in [("a1", a), ("a2", b)] {
        if t.ndim() != 1 {
            panic!(
                "polyadd/polysub: {what} must be one-dimensional, got {}\n  at {}",
                t.aval(),
                std::panic::Location::caller()
            );
        }
    }
    let n = a.shape()[0].max(b.shape()[0]);
    let pad = |t: &Tensor| {
        let zero = scalar_tensor(0.0, t.dtype());
        lax::pad(t, &zero, &[((n - t.shape()[0]) as i64, 0, 0)])
    };
    if subtract {
        lax::sub(&pad(a), &pad(b))
    } else {
        lax::add(&pad(a), &pad(b))
    }
}

/// The product of two polynomials (`jnp.polymul`): their full convolution; an empty operand
/// counts as the zero polynomial.
#[track_caller]
pub fn polymul(a1: impl Into<Operand>, a2: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = inexact_all("polymul", &[a1.into(), a2.into()]);
    let nonempty = |x: &Tensor| {
        if x.size() == 0 {
            super::astype(zeros(&[1]), x.dtype())
        } else {
            x.clone()
        }
    };
    convolve(nonempty(&t[0]), nonempty(&t[1]), "full")
}

/// The `m`-th derivative of a polynomial (`jnp.polyder`).
///
/// ```
/// use oxla::numpy as jnp;
/// let p = jnp::array(&[1.0f32, 1.0, 1.0, 1.0], &[4]);
/// assert_eq!(jnp::polyder(&p, 1).to_vec::<f32>(), vec![3.0, 2.0, 1.0]);
/// ```
#[track_caller]
pub fn polyder(p: impl Into<Operand>, m: usize) -> Tensor {
    let _line = crate::core::user_line();
    let p = &inexact_all("polyder", &[p.into()])[0];
    coefficients("polyder", p);
    if m == 0 {
        return p.clone();
    }
    let n = p.shape()[0];
    // Coefficient of x^k after m derivatives: k (k-1) ... (k-m+1), highest power first.
    let coeff: Vec<f64> = (m..n)
        .rev()
        .map(|k| (0..m).map(|j| (k - j) as f64).product())
        .collect();
    let kept = lax::slice(p, &[0], &[n.saturating_sub(m)], None);
    lax::mul(&kept, &values(&coeff, p.dtype()))
}

/// The `m`-th antiderivative of a polynomial (`jnp.polyint`), with integration constants
/// `k` (one for all, or `m` of them, the first for the highest power; `None`: zeros).
#[track_caller]
pub fn polyint(p: impl Into<Operand>, m: usize, k: Option<&[f64]>) -> Tensor {
    let _line = crate::core::user_line();
    let p = &inexact_all("polyint", &[p.into()])[0];
    coefficients("polyint", p);
    let ks: Vec<f64> = match k {
        None => vec![0.0; m],
        Some([k]) => vec![*k; m],
        Some(k) if k.len() == m => k.to_vec(),
        Some(k) => panic!(
            "polyint: k must be a scalar or a rank-1 array of length 1 or m ({m}), got {} \
             values\n  at {}",
            k.len(),
            std::panic::Location::caller()
        ),
    };
    if m == 0 {
        return p.clone();
    }
    let n = p.shape()[0];
    // Divisor of the coefficient at power j of the result: j (j-1) ... (j-m+1), at least 1
    // per factor, highest power first.
    let coeff: Vec<f64> = (0..n + m)
        .rev()
        .map(|j| (0..m).map(|i| (j as f64 - i as f64).max(1.0)).product())
        .collect();
    let all = concatenate(&[p.clone(), values(&ks, p.dtype())], 0);
    lax::div(&all, &values(&coeff, p.dtype()))
}

/// The monic polynomial whose roots are `seq_of_zeros` (one-dimensional, real;
/// `jnp.poly`); no roots give `1`.
#[track_caller]
pub fn poly(seq_of_zeros: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let z = &inexact_all("poly", &[seq_of_zeros.into()])[0];
    let z = if z.ndim() == 0 {
        lax::reshape(z, &[1])
    } else {
        z.clone()
    };
    if z.ndim() != 1 {
        panic!(
            "poly: the roots must be one-dimensional, got {} (the roots of a square matrix's \
             characteristic polynomial need complex eigenvalues, which oxla lacks)\n  at {}",
            z.aval(),
            std::panic::Location::caller()
        );
    }
    let dtype = z.dtype();
    if z.shape()[0] == 0 {
        return scalar_tensor(1.0, dtype);
    }
    let mut a = values(&[1.0], dtype);
    for i in 0..z.shape()[0] {
        let factor = concatenate(
            &[
                values(&[1.0], dtype),
                lax::reshape(&lax::neg(&z.index(i as isize)), &[1]),
            ],
            0,
        );
        a = convolve(&a, factor, "full");
    }
    a
}

/// The Vandermonde matrix of `x` (one-dimensional): column `j` is `x^(n-1-j)`, or `x^j`
/// when `increasing` (`jnp.vander`); `n` defaults to `len(x)`.
#[track_caller]
pub fn vander(x: impl Into<Operand>, n: Option<usize>, increasing: bool) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    if x.ndim() != 1 {
        panic!(
            "vander: x must be a one-dimensional array, got {}\n  at {}",
            x.aval(),
            std::panic::Location::caller()
        );
    }
    let n = n.unwrap_or(x.shape()[0]);
    let mut powers: Vec<f64> = (0..n).map(|j| j as f64).collect();
    if !increasing {
        powers.reverse();
    }
    let dtype = if x.dtype() == DType::Bool {
        Kind::Int.default_dtype()
    } else {
        x.dtype()
    };
    let column = lax::reshape(&super::astype(&x, dtype), &[x.shape()[0], 1]);
    let exps = lax::reshape(&values(&powers, dtype), &[1, n]);
    super::power(column, exps)
}

/// A constant one-dimensional tensor of `dtype`.
fn values(v: &[f64], dtype: DType) -> Tensor {
    super::astype(Tensor::from_vec(v.to_vec(), &[v.len()]), dtype)
}
