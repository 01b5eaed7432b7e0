//! Differences and integrals of sampled functions: `trapezoid`, `gradient`, `unwrap`.

use super::shape::axis as canonical_axis;
use super::{concatenate, cumsum, promote_dtypes, scalar_tensor, sum, where_, Operand};
use crate::core::Tensor;
use crate::ops as lax;

/// `x[start..stop]` along `axis` (`stop` past the end is clamped; negative bounds count
/// from the end), as JAX's `lax.slice_in_dim`.
fn slice_in_dim(x: &Tensor, start: isize, stop: Option<isize>, axis: usize) -> Tensor {
    let n = x.shape()[axis] as isize;
    let at = |i: isize| (if i < 0 { n + i } else { i }).clamp(0, n) as usize;
    let mut starts = vec![0; x.ndim()];
    let mut limits = x.shape().to_vec();
    starts[axis] = at(start);
    limits[axis] = stop.map_or(n as usize, at).max(starts[axis]);
    lax::slice(x, &starts, &limits, None)
}

/// `x` as a float tensor (JAX's `promote_dtypes_inexact` of one operand).
fn inexact(x: Operand) -> Tensor {
    super::inexact(&x.into_tensor())
}

/// The integral of samples `y` along `axis` by the trapezoidal rule (`jnp.trapezoid`),
/// spaced by `dx`, or at the points `x` (one-dimensional, along `axis`) when given.
///
/// ```
/// use oxla::numpy as jnp;
/// let y = jnp::array(&[1.0f32, 2.0, 3.0], &[3]);
/// assert_eq!(jnp::trapezoid(&y, None, 1.0, -1).item(), 4.0);
/// ```
#[track_caller]
pub fn trapezoid(y: impl Into<Operand>, x: Option<&Tensor>, dx: f64, axis: isize) -> Tensor {
    let _line = crate::core::user_line();
    let y = inexact(y.into());
    let ax = canonical_axis(axis, y.ndim(), "trapezoid");
    let n = y.shape()[ax] as isize;
    let ends = |y: &Tensor, ax: usize| {
        (
            slice_in_dim(y, 1, None, ax),
            slice_in_dim(y, 0, Some(n - 1), ax),
        )
    };
    match x {
        None => {
            // dx * (sum(y) - (y[0] + y[-1]) / 2), as JAX's constant-spacing path.
            let total = sum(&y, ax as isize);
            let first = lax::squeeze(&slice_in_dim(&y, 0, Some(1), ax), &[ax]);
            let last = lax::squeeze(&slice_in_dim(&y, -1, None, ax), &[ax]);
            (total - (first + last) * 0.5) * dx
        }
        Some(x) => {
            let t = promote_dtypes("trapezoid", &[y.clone().into(), x.into()]);
            let (y, x) = (super::inexact(&t[0]), super::inexact(&t[1]));
            if x.ndim() != 1 || x.shape()[0] as isize != n {
                panic!(
                    "trapezoid: x must be one-dimensional with y's length along axis {axis}, \
                     got x {} for y {}\n  at {}",
                    x.aval(),
                    y.aval(),
                    std::panic::Location::caller()
                );
            }
            let (x1, x0) = ends(&x, 0);
            let mut shape = vec![1; y.ndim()];
            shape[ax] = (n - 1).max(0) as usize;
            let spacing = lax::reshape(&lax::sub(&x1, &x0), &shape);
            let (y1, y0) = ends(&y, ax);
            sum(spacing * (y1 + y0), ax as isize) * 0.5
        }
    }
}

/// The gradient of samples `f` along each of `axes` (`None`: every axis) by central
/// differences inside and one-sided ones at the ends (`jnp.gradient`), with one spacing for
/// all axes or one per axis (`&[]`: 1).
#[track_caller]
pub fn gradient(f: impl Into<Operand>, spacing: &[f64], axes: Option<&[isize]>) -> Vec<Tensor> {
    let _line = crate::core::user_line();
    let a = inexact(f.into());
    let axes: Vec<usize> = match axes {
        None => (0..a.ndim()).collect(),
        Some(ax) => ax
            .iter()
            .map(|&i| canonical_axis(i, a.ndim(), "gradient"))
            .collect(),
    };
    if axes.iter().any(|&ax| a.shape()[ax] < 2) {
        panic!(
            "gradient: shape {:?} too small along axes {axes:?} to calculate a numerical \
             gradient: at least 2 elements are required\n  at {}",
            a.shape(),
            std::panic::Location::caller()
        );
    }
    let h: Vec<f64> = match spacing.len() {
        0 => vec![1.0; axes.len()],
        1 => vec![spacing[0]; axes.len()],
        k if k == axes.len() => spacing.to_vec(),
        k => panic!(
            "gradient: {k} spacings for {} axes\n  at {}",
            axes.len(),
            std::panic::Location::caller()
        ),
    };
    axes.iter()
        .zip(h)
        .map(|(&ax, h)| {
            let s = |start, stop| slice_in_dim(&a, start, stop, ax);
            let upper = (s(1, Some(2)) - s(0, Some(1))) / h;
            let inner = (s(2, None) - s(0, Some(-2))) * 0.5 / h;
            let lower = (s(-1, None) - s(-2, Some(-1))) / h;
            concatenate(&[upper, inner, lower], ax as isize)
        })
        .collect()
}

/// `p` with jumps larger than `discont` (default `period / 2`) along `axis` replaced by
/// their complement modulo `period` (`jnp.unwrap`; the usual period is `2 pi`).
#[track_caller]
pub fn unwrap(p: impl Into<Operand>, discont: Option<f64>, axis: isize, period: f64) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("unwrap", &[p.into(), period.into()]);
    let p = &t[0];
    let ax = canonical_axis(axis, p.ndim(), "unwrap");
    if p.shape()[ax] == 0 {
        return p.clone();
    }
    let dtype = p.dtype();
    let interval = if dtype.is_int() {
        (period / 2.0).floor()
    } else {
        period / 2.0
    };
    let discont = discont.unwrap_or(period / 2.0);
    let dd = slice_in_dim(p, 1, None, ax) - slice_in_dim(p, 0, Some(-1), ax);
    let ddmod = super::remainder(&dd + interval, scalar_tensor(period, dtype)) - interval;
    let ddmod = where_(
        super::logical_and(ddmod.eq(-interval), dd.gt(0)),
        interval,
        &ddmod,
    );
    let correct = where_(super::abs(&dd).lt(discont), 0, &ddmod - &dd);
    let rest = slice_in_dim(p, 1, None, ax) + cumsum(correct, ax as isize);
    concatenate(&[slice_in_dim(p, 0, Some(1), ax), rest], ax as isize)
}

/// Whether `a1` and `a2` have one shape and equal elements (`jnp.array_equal`; with
/// `equal_nan`, NaNs in the same places count as equal), as a `bool` scalar.
#[track_caller]
pub fn array_equal(a1: impl Into<Operand>, a2: impl Into<Operand>, equal_nan: bool) -> Tensor {
    let _line = crate::core::user_line();
    let (a1, a2) = (a1.into().into_tensor(), a2.into().into_tensor());
    if a1.shape() != a2.shape() {
        return scalar_tensor(0.0, crate::array::DType::Bool);
    }
    let mut eq = super::equal(&a1, &a2);
    if equal_nan {
        let nan = |t: &Tensor| lax::ne(t, t);
        eq = super::logical_or(eq, super::logical_and(nan(&a1), nan(&a2)));
    }
    super::all(eq, None)
}

/// Whether `a1` and `a2` broadcast together and are equal everywhere (`jnp.array_equiv`).
#[track_caller]
pub fn array_equiv(a1: impl Into<Operand>, a2: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let (a1, a2) = (a1.into().into_tensor(), a2.into().into_tensor());
    let (s1, s2) = (a1.shape(), a2.shape());
    let n = s1.len().max(s2.len());
    let size = |s: &[usize], i: usize| (i + s.len()).checked_sub(n).map_or(1, |j| s[j]);
    let fits = (0..n).all(|i| {
        let (x, y) = (size(s1, i), size(s2, i));
        x == y || x == 1 || y == 1
    });
    if !fits {
        return scalar_tensor(0.0, crate::array::DType::Bool);
    }
    super::all(super::equal(&a1, &a2), None)
}
