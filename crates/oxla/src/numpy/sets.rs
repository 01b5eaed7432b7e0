//! Set functions: `unique_values`, `unique_counts`, `unique_inverse`, `union1d`,
//! `intersect1d`, `setdiff1d`, `setxor1d`. Their output sizes depend on the data, so each
//! takes JAX's static `size` (as `nonzero` does): the first `size` sorted results, padded
//! with `fill_value` (when `None`: the smallest element for the unique family and `union1d`,
//! the first result for `intersect1d` and `setxor1d`, 0 for `setdiff1d`, as in JAX). Inputs are flattened.

use super::{argsort, isin, nonzero, promote_dtypes, ravel, scalar_tensor, Operand};
use crate::array::{DType, Kind};
use crate::core::Tensor;
use crate::ops as lax;

/// The sorted vector `s` and the mask of the first of each run of equal values (NaNs
/// equal to each other when `equal_nan`).
fn first_of_runs(s: &Tensor, equal_nan: bool) -> Tensor {
    let n = s.shape()[0];
    let (hi, lo) = (
        lax::slice(s, &[1], &[n], None),
        lax::slice(s, &[0], &[n - 1], None),
    );
    let mut neq = lax::ne(&hi, &lo);
    if equal_nan && s.dtype().is_float() {
        let both = lax::and(&lax::ne(&hi, &hi), &lax::ne(&lo, &lo));
        neq = lax::and(&neq, &lax::not(&both));
    }
    let one = lax::broadcast_in_dim(&scalar_tensor(1.0, DType::Bool), &[1], &[]);
    lax::concatenate(&[one, neq], 0)
}

/// The pieces of `unique` on the flattened `x`: sorted values, the first-of-run mask, the
/// sorting permutation, and the number of distinct values.
struct Runs {
    sorted: Tensor,
    mask: Tensor,
    perm: Tensor,
    count: Tensor,
}

fn runs(x: &Tensor, equal_nan: bool) -> Runs {
    let x = ravel(x);
    let perm = argsort(&x, -1, false);
    let sorted = super::take(&x, &perm, 0, super::TakeMode::Clip);
    let mask = first_of_runs(&sorted, equal_nan);
    let count = super::sum(&mask, None);
    Runs {
        sorted,
        mask,
        perm,
        count,
    }
}

/// The first `size` distinct values of the non-empty `x` in order, padded.
#[track_caller]
fn unique_of(what: &str, x: &Tensor, equal_nan: bool, size: usize, fill: Option<f64>) -> Tensor {
    if x.size() == 0 {
        return empty_fill(what, x.dtype(), size, fill);
    }
    let r = runs(x, equal_nan);
    let ind = nonzero(&r.mask, size, None).remove(0);
    let v = super::take(&r.sorted, &ind, 0, super::TakeMode::Clip);
    fill_where(v, &r.count, fill)
}

/// `size` copies of `fill` for an empty input (JAX refuses a missing `fill_value` there).
#[track_caller]
fn empty_fill(what: &str, dtype: DType, size: usize, fill: Option<f64>) -> Tensor {
    match (size, fill) {
        (0, _) => lax::broadcast_in_dim(&scalar_tensor(0.0, dtype), &[0], &[]),
        (_, Some(f)) => lax::broadcast_in_dim(&scalar_tensor(f, dtype), &[size], &[]),
        (_, None) => panic!(
            "{what}: for an empty input with a nonzero size, fill_value must be given\n  at {}",
            std::panic::Location::caller()
        ),
    }
}

/// `v` below position `count`, `fill` (when given) from there on.
fn fill_where(v: Tensor, count: &Tensor, fill: Option<f64>) -> Tensor {
    let Some(fill) = fill else {
        return v;
    };
    let size = v.shape()[0];
    let valid = lax::lt(&lax::iota(count.dtype(), &[size], 0), count);
    super::where_(valid, &v, scalar_tensor(fill, v.dtype()))
}

/// The sorted distinct values of `x` (flattened), as `jnp.unique_values` with its static
/// `size` (NaNs each distinct, as JAX's `equal_nan=False`).
///
/// ```
/// use oxla::numpy as jnp;
/// let x = jnp::array(&[3.0f32, 1.0, 3.0, 2.0], &[4]);
/// assert_eq!(jnp::unique_values(&x, 3, None).to_vec::<f32>(), vec![1.0, 2.0, 3.0]);
/// assert_eq!(jnp::unique_values(&x, 5, Some(-1.0)).to_vec::<f32>(), vec![1.0, 2.0, 3.0, -1.0, -1.0]);
/// ```
#[track_caller]
pub fn unique_values(x: impl Into<Operand>, size: usize, fill_value: Option<f64>) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    unique_of("unique_values", &x, false, size, fill_value)
}

/// The sorted distinct values of `x` and how often each occurs, as `jnp.unique_counts`
/// with its static `size` (NaNs each distinct; padded counts are 0).
#[track_caller]
pub fn unique_counts(
    x: impl Into<Operand>,
    size: usize,
    fill_value: Option<f64>,
) -> (Tensor, Tensor) {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    let int = Kind::Int.default_dtype();
    if x.size() == 0 {
        let values = empty_fill("unique_counts", x.dtype(), size, fill_value);
        return (
            values,
            lax::broadcast_in_dim(&scalar_tensor(0.0, int), &[size], &[]),
        );
    }
    let r = runs(&x, false);
    let n = x.size();
    let ind = nonzero(&r.mask, size, None).remove(0);
    let values = fill_where(
        super::take(&r.sorted, &ind, 0, super::TakeMode::Clip),
        &r.count,
        fill_value,
    );
    let starts = nonzero(&r.mask, size + 1, None).remove(0);
    let later = lax::slice(&starts, &[1], &[size + 1], None);
    let ends = super::where_(
        lax::ne(&later, &scalar_tensor(0.0, int)),
        &later,
        scalar_tensor(n as f64, int),
    );
    let begins = lax::concatenate(
        &[
            lax::slice(&starts, &[0], &[1], None),
            lax::slice(&ends, &[0], &[size.saturating_sub(1)], None),
        ],
        0,
    );
    let counts = lax::sub(&ends, &begins);
    (values, counts)
}

/// The sorted distinct values of `x` and, for each element of `x`, the position of its value
/// among them (shaped as `x`), as `jnp.unique_inverse` with its static `size` (NaNs each distinct).
#[track_caller]
pub fn unique_inverse(
    x: impl Into<Operand>,
    size: usize,
    fill_value: Option<f64>,
) -> (Tensor, Tensor) {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    let int = Kind::Int.default_dtype();
    if x.size() == 0 {
        let values = empty_fill("unique_inverse", x.dtype(), size, fill_value);
        return (
            values,
            lax::broadcast_in_dim(&scalar_tensor(0.0, int), x.shape(), &[]),
        );
    }
    let r = runs(&x, false);
    let ind = nonzero(&r.mask, size, None).remove(0);
    let values = fill_where(
        super::take(&r.sorted, &ind, 0, super::TakeMode::Clip),
        &r.count,
        fill_value,
    );
    let rank = lax::sub(
        &super::cumsum(super::astype(&r.mask, int), None),
        &scalar_tensor(1.0, int),
    );
    let zeros = lax::broadcast_in_dim(&scalar_tensor(0.0, int), &[x.size()], &[]);
    let inv = zeros.at(&r.perm).set(&rank);
    (values, lax::reshape(&inv, x.shape()))
}

/// The sorted distinct values occurring in `a` or `b`, as `jnp.union1d` with its static
/// `size` (NaNs equal).
#[track_caller]
pub fn union1d(
    a: impl Into<Operand>,
    b: impl Into<Operand>,
    size: usize,
    fill_value: Option<f64>,
) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("union1d", &[a.into(), b.into()]);
    let both = lax::concatenate(&[ravel(&t[0]), ravel(&t[1])], 0);
    unique_of("union1d", &both, true, size, fill_value)
}

/// The distinct values of `a` (flattened, sorted) together with whether each is wanted.
fn distinct_with(a: &Tensor, keep: impl Fn(&Tensor) -> Tensor) -> (Tensor, Tensor) {
    let r = runs(a, true);
    let n = a.size();
    let ind = nonzero(&r.mask, n, None).remove(0);
    let vals = super::take(&r.sorted, &ind, 0, super::TakeMode::Clip);
    let real = lax::lt(&lax::iota(r.count.dtype(), &[n], 0), &r.count);
    let wanted = lax::and(&keep(&vals), &real);
    (vals, wanted)
}

/// The first `size` of `vals` where `wanted`, padded with `fill`; when `None`, with 0
/// (`first`: with the first result, or 0 when there is none, as JAX's `intersect1d` and
/// `setxor1d` pad).
fn select_first(
    vals: &Tensor,
    wanted: &Tensor,
    size: usize,
    fill: Option<f64>,
    first: bool,
) -> Tensor {
    let ind = nonzero(wanted, size, None).remove(0);
    let v = super::take(vals, &ind, 0, super::TakeMode::Clip);
    let count = super::sum(wanted, None);
    if fill.is_some() || !first || size == 0 {
        return fill_where(v, &count, Some(fill.unwrap_or(0.0)));
    }
    let zero = scalar_tensor(0.0, v.dtype());
    let head = lax::reshape(&lax::slice(&v, &[0], &[1], None), &[]);
    let any = lax::gt(&count, &scalar_tensor(0.0, count.dtype()));
    let pad = super::where_(any, head, zero);
    let valid = lax::lt(&lax::iota(count.dtype(), &[size], 0), &count);
    super::where_(valid, &v, pad)
}

/// The sorted distinct values of `a` not in `b`, as `jnp.setdiff1d` with its static `size`
/// (padded with `fill_value`, 0 when `None`).
#[track_caller]
pub fn setdiff1d(
    a: impl Into<Operand>,
    b: impl Into<Operand>,
    size: usize,
    fill_value: Option<f64>,
) -> Tensor {
    let _line = crate::core::user_line();
    membership("setdiff1d", a.into(), b.into(), size, fill_value, true)
}

/// The sorted distinct values in both `a` and `b`, as `jnp.intersect1d` with its static
/// `size` (padded with `fill_value`, 0 when `None`).
#[track_caller]
pub fn intersect1d(
    a: impl Into<Operand>,
    b: impl Into<Operand>,
    size: usize,
    fill_value: Option<f64>,
) -> Tensor {
    let _line = crate::core::user_line();
    membership("intersect1d", a.into(), b.into(), size, fill_value, false)
}

/// The sorted distinct values of `a` that are in `b` (`outside`: that are not), padded to
/// `size`: `setdiff1d` and `intersect1d`.
#[track_caller]
fn membership(
    name: &str,
    a: Operand,
    b: Operand,
    size: usize,
    fill_value: Option<f64>,
    outside: bool,
) -> Tensor {
    let t = promote_dtypes(name, &[a, b]);
    if t[0].size() == 0 {
        return empty_fill(name, t[0].dtype(), size, Some(fill_value.unwrap_or(0.0)));
    }
    let (vals, wanted) = distinct_with(&t[0], |v| isin(v, &t[1], outside));
    select_first(&vals, &wanted, size, fill_value, !outside)
}

/// The sorted distinct values in exactly one of `a` and `b`, as `jnp.setxor1d` with its
/// static `size` (padded with `fill_value`, 0 when `None`).
#[track_caller]
pub fn setxor1d(
    a: impl Into<Operand>,
    b: impl Into<Operand>,
    size: usize,
    fill_value: Option<f64>,
) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("setxor1d", &[a.into(), b.into()]);
    let both = lax::concatenate(&[ravel(&t[0]), ravel(&t[1])], 0);
    if both.size() == 0 {
        return empty_fill(
            "setxor1d",
            both.dtype(),
            size,
            Some(fill_value.unwrap_or(0.0)),
        );
    }
    let (a, b) = (&t[0], &t[1]);
    let (vals, wanted) = distinct_with(&both, |v| lax::ne(&isin(v, a, false), &isin(v, b, false)));
    select_first(&vals, &wanted, size, fill_value, true)
}
