//! Statistics: `var`, `std`, `ptp`, `average`, `count_nonzero`, `cov`, `corrcoef`, as
//! `jax.numpy` composes them (dtypes, `ddof`, empty axes and derivatives as JAX's).

use super::{astype, inexact, keepdims, promote_dtypes, scalar_tensor, Axis, Operand};
use crate::array::{DType, Kind};
use crate::core::Tensor;
use crate::ops as lax;

/// The dtype `var` returns for `d` (the default float for integers and bools) and the one
/// it computes in (16-bit floats in `f32`), as JAX's `_var_promote_types`.
pub(crate) fn var_dtypes(d: DType) -> (DType, DType) {
    let out = if d.is_float() {
        d
    } else {
        Kind::Float.default_dtype()
    };
    let comp = if out.is_half() { DType::F32 } else { out };
    (out, comp)
}

/// How many elements `axis` reduces of `x`.
#[track_caller]
pub(crate) fn reduced_count(x: &Tensor, axis: &Axis, what: &str) -> usize {
    axis.resolve(x.ndim(), what)
        .iter()
        .map(|&d| x.shape()[d])
        .product()
}

#[track_caller]
fn variance(x: &Tensor, axis: Axis, ddof: usize, what: &str) -> Tensor {
    let (out, comp) = var_dtypes(x.dtype());
    let a = astype(x, comp);
    let n = reduced_count(&a, &axis, what);
    let mean = super::mean(&a, keepdims(axis.clone()));
    let centered = lax::integer_pow(&lax::sub(&a, &mean), 2);
    let normalizer = n as f64 - ddof as f64;
    let r = lax::div(
        &super::sum(&centered, axis),
        &scalar_tensor(normalizer, comp),
    );
    super::where_(normalizer > 0.0, astype(&r, out), f64::NAN)
}

/// Variance over `axis` with `ddof` delta degrees of freedom (`sum((x - mean)^2) / (n -
/// ddof)`; NaN where `n - ddof <= 0`), as `jnp.var`: integers and bools give the default
/// float, 16-bit floats compute in `f32`.
///
/// ```
/// use oxla::numpy as jnp;
/// let x = jnp::array(&[1.0f32, 2.0, 3.0, 4.0], &[4]);
/// assert_eq!(jnp::var(&x, None, 0).item(), 1.25);
/// assert!((jnp::std(&x, None, 1).item() - (5.0f64 / 3.0).sqrt()).abs() < 1e-6);
/// ```
#[track_caller]
pub fn var(x: impl Into<Operand>, axis: impl Into<Axis>, ddof: usize) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    variance(x, axis.into(), ddof, "var")
}

/// Standard deviation over `axis`: `sqrt(var(x, axis, ddof))`, as `jnp.std`.
#[track_caller]
pub fn std(x: impl Into<Operand>, axis: impl Into<Axis>, ddof: usize) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    lax::sqrt(&variance(x, axis.into(), ddof, "std"))
}

/// Peak to peak, `max - min` over `axis`, as `jnp.ptp`.
#[track_caller]
pub fn ptp(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let axis = axis.into();
    lax::sub(&super::max(x, axis.clone()), &super::min(x, axis))
}

/// The weighted mean over `axis`, `sum(x * w) / sum(w)`, as `jnp.average`; no weights is
/// the mean. `weights` has `x`'s shape, or the shape of the reduced axes (taken in
/// increasing order). Integers and bools average as the default float.
#[track_caller]
pub fn average(x: impl Into<Operand>, axis: impl Into<Axis>, weights: Option<&Tensor>) -> Tensor {
    let _line = crate::core::user_line();
    let axis = axis.into();
    let Some(w) = weights else {
        return super::mean(inexact(&x.into().into_tensor()), axis);
    };
    let t = promote_dtypes("average", &[x.into(), w.into()]);
    let (a, mut w) = (inexact(&t[0]), inexact(&t[1]));
    if w.shape() != a.shape() {
        let axes = axis.resolve(a.ndim(), "average");
        let want: Vec<usize> = axes.iter().map(|&d| a.shape()[d]).collect();
        if w.shape() != want.as_slice() {
            panic!(
                "average: the weights {} match neither {} nor its axes {axes:?}\n  at {}",
                w.aval(),
                a.aval(),
                std::panic::Location::caller()
            );
        }
        w = lax::broadcast_in_dim(&w, a.shape(), &axes);
    }
    let total = super::sum(&w, axis.clone());
    lax::div(&super::sum(lax::mul(&a, &w), axis), &total)
}

/// How many elements over `axis` are nonzero, in the default integer, as
/// `jnp.count_nonzero`.
#[track_caller]
pub fn count_nonzero(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let nz = lax::ne(x, &scalar_tensor(0.0, x.dtype()));
    super::sum(nz, axis)
}

/// `x` as a matrix: a scalar as `[[x]]`, a vector as one row (`jnp.atleast_2d`).
fn atleast_2d(x: &Tensor) -> Tensor {
    match x.ndim() {
        0 => lax::reshape(x, &[1, 1]),
        1 => lax::reshape(x, &[1, x.shape()[0]]),
        _ => x.clone(),
    }
}

/// The covariance matrix of the variables in `m`'s rows (columns if not `rowvar`), with
/// `y`'s variables appended, as `jnp.cov`: normalised by `n - ddof` (`ddof` defaults to 1,
/// or 0 when `bias`); one variable gives a scalar. Integers and bools become floats.
#[track_caller]
pub fn cov(
    m: impl Into<Operand>,
    y: Option<&Tensor>,
    rowvar: bool,
    bias: bool,
    ddof: Option<usize>,
) -> Tensor {
    let _line = crate::core::user_line();
    let mut ops = vec![m.into()];
    ops.extend(y.map(Operand::from));
    let t: Vec<Tensor> = promote_dtypes("cov", &ops).iter().map(inexact).collect();
    if let Some(bad) = t.iter().find(|a| a.ndim() > 2) {
        panic!(
            "cov: takes arrays of rank 2 or less, got {}\n  at {}",
            bad.aval(),
            std::panic::Location::caller()
        );
    }
    let dtype = t[0].dtype();
    let mut x = atleast_2d(&t[0]);
    if !rowvar && t[0].ndim() != 1 {
        x = lax::transpose(&x, &[1, 0]);
    }
    if x.shape()[0] == 0 {
        return super::full(&[0, 0], scalar_tensor(0.0, dtype));
    }
    if let Some(y) = t.get(1) {
        let mut y = atleast_2d(y);
        if !rowvar && y.shape()[0] != 1 {
            y = lax::transpose(&y, &[1, 0]);
        }
        x = super::concatenate(&[x, y], 0);
    }
    let (vars, n) = (x.shape()[0], x.shape()[1]);
    if n == 0 {
        let shape: &[usize] = if vars == 1 { &[] } else { &[vars, vars] };
        return super::full(shape, scalar_tensor(f64::NAN, dtype));
    }
    let ddof = ddof.unwrap_or(if bias { 0 } else { 1 });
    let centered = lax::sub(&x, &super::mean(&x, keepdims(1)));
    let prod = lax::dot_general(&centered, &centered, (&[1], &[1]), (&[], &[]), None);
    let c = lax::div(&prod, &scalar_tensor(n as f64 - ddof as f64, dtype));
    if vars == 1 {
        lax::reshape(&c, &[])
    } else {
        c
    }
}

/// Pearson correlation coefficients of the variables in `x`'s rows (columns if not
/// `rowvar`), with `y`'s appended, as `jnp.corrcoef`: `cov` over the outer product of the
/// standard deviations, clipped to `[-1, 1]`; one variable gives `c / c` (1, or NaN).
#[track_caller]
pub fn corrcoef(x: impl Into<Operand>, y: Option<&Tensor>, rowvar: bool) -> Tensor {
    let _line = crate::core::user_line();
    let c = cov(x, y, rowvar, false, None);
    if c.ndim() == 0 {
        return lax::div(&c, &c);
    }
    let n = c.shape()[0];
    let diag = lax::slice(&lax::reshape(&c, &[n * n]), &[0], &[n * n], Some(&[n + 1]));
    let s = lax::sqrt(&diag);
    let c = lax::div(&c, &lax::reshape(&s, &[n, 1]));
    let c = lax::div(&c, &lax::reshape(&s, &[1, n]));
    super::clip(c, -1.0, 1.0)
}
