//! `interp`, `histogram_bin_edges` and `histogram`, as `jax.numpy` composes them from
//! `searchsorted`, gathers and a scatter-add (so every transformation applies).

use super::{inexact, promote_dtypes, ravel, scalar_tensor, searchsorted, Operand};
use crate::array::DType;
use crate::core::Tensor;
use crate::ops as lax;

/// What `interp` gives for points beyond one end of `xp` (JAX's `left` / `right`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outside {
    /// `None`: the end value of `fp` (`fp[0]` left, `fp[-1]` right). The default.
    Edge,
    /// A scalar: this value.
    Value(f64),
    /// `"extrapolate"`: the line through the two end points continued.
    Extrapolate,
}

/// The bins of a histogram: a static count of equal bins, or explicit monotonic edges.
#[derive(Clone, Debug)]
pub enum Bins {
    /// This many equal-width bins over the range.
    Count(usize),
    /// These edges (a vector), used as given.
    Edges(Tensor),
}

impl From<usize> for Bins {
    fn from(n: usize) -> Bins {
        Bins::Count(n)
    }
}

impl From<&Tensor> for Bins {
    fn from(e: &Tensor) -> Bins {
        Bins::Edges(e.clone())
    }
}

/// Element `i` of the vector `v` as a scalar.
fn at(v: &Tensor, i: usize) -> Tensor {
    lax::reshape(&lax::slice(v, &[i], &[i + 1], None), &[])
}

/// `v[i]` for an integer tensor `i` of in-bounds positions.
fn gather(v: &Tensor, i: &Tensor) -> Tensor {
    super::take(v, i, 0, super::TakeMode::Clip)
}

/// The piecewise-linear interpolant through `(xp, fp)` at `x`, as `jnp.interp`: `xp` an
/// increasing vector, `fp` of its shape; `left`/`right` choose the values beyond the ends
/// (ignored with a `period`, where `x` and `xp` are taken modulo `|period|`).
///
/// ```
/// use oxla::numpy::{self as jnp, Outside};
/// let xp = jnp::array(&[0.0f32, 1.0, 2.0], &[3]);
/// let fp = jnp::array(&[0.0f32, 10.0, 0.0], &[3]);
/// let x = jnp::array(&[-1.0f32, 0.5, 1.5, 3.0], &[4]);
/// let y = jnp::interp(&x, &xp, &fp, Outside::Value(-7.0), Outside::Extrapolate, None);
/// assert_eq!(y.to_vec::<f32>(), vec![-7.0, 5.0, 5.0, -10.0]);
/// ```
#[track_caller]
pub fn interp(
    x: impl Into<Operand>,
    xp: impl Into<Operand>,
    fp: impl Into<Operand>,
    left: Outside,
    right: Outside,
    period: Option<f64>,
) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("interp", &[x.into(), xp.into()]);
    let (mut x, mut xp) = (inexact(&t[0]), inexact(&t[1]));
    let mut fp = inexact(&fp.into().into_tensor());
    if xp.ndim() != 1 || xp.shape() != fp.shape() || xp.size() == 0 {
        panic!(
            "interp: xp and fp must be non-empty vectors of one shape, got {} and {}\n  at {}",
            xp.aval(),
            fp.aval(),
            std::panic::Location::caller()
        );
    }
    let dt = x.dtype();
    if let Some(p) = period {
        let p = scalar_tensor(p.abs(), dt);
        x = super::remainder(&x, &p);
        xp = super::remainder(&xp, &p);
        let s = lax::sort(&[xp, fp], 0, 1);
        let n = s[0].shape()[0];
        let (last, first) = (
            lax::slice(&s[0], &[n - 1], &[n], None),
            lax::slice(&s[0], &[0], &[1], None),
        );
        xp = lax::concatenate(
            &[lax::sub(&last, &p), s[0].clone(), lax::add(&first, &p)],
            0,
        );
        let (flast, ffirst) = (
            lax::slice(&s[1], &[n - 1], &[n], None),
            lax::slice(&s[1], &[0], &[1], None),
        );
        fp = lax::concatenate(&[flast, s[1].clone(), ffirst], 0);
    }
    let n = xp.shape()[0];
    let i = super::clip(searchsorted(&xp, &x, "right"), 1, (n.max(2) - 1) as i32);
    let im1 = lax::sub(&i, &scalar_tensor(1.0, i.dtype()));
    let (f0, f1) = (gather(&fp, &im1), gather(&fp, &i));
    let x0 = gather(&xp, &im1);
    let dx = lax::sub(&gather(&xp, &i), &x0);
    let delta = lax::sub(&x, &x0);
    let eps = if xp.dtype() == DType::F64 {
        2f64.powi(-104)
    } else {
        2f64.powi(-46)
    };
    let dx0 = lax::le(&lax::abs(&dx), &scalar_tensor(eps, xp.dtype()));
    let safe = super::where_(&dx0, 1.0, &dx);
    let slope = super::where_(&dx0, 0.0, (&delta / &safe) * lax::sub(&f1, &f0));
    let mut f = super::where_(&dx0, &f0, &f0 + &slope);
    if period.is_none() {
        let edge = |o: Outside, end: usize| match o {
            Outside::Edge => Some(Operand::Tensor(at(&fp, end))),
            Outside::Value(v) => Some(Operand::from(v)),
            Outside::Extrapolate => None,
        };
        if let Some(v) = edge(left, 0) {
            f = super::where_(lax::lt(&x, &at(&xp, 0)), v, &f);
        }
        if let Some(v) = edge(right, n - 1) {
            f = super::where_(lax::gt(&x, &at(&xp, n - 1)), v, &f);
        }
    }
    f
}

/// The edges of a histogram of `a`, as `jnp.histogram_bin_edges`: explicit edges converted
/// to `a`'s float dtype, or `n + 1` equally spaced edges over `range` (the min and max of
/// `a` when `None`; a range of zero width widened by 0.5 each way).
#[track_caller]
pub fn histogram_bin_edges(
    a: impl Into<Operand>,
    bins: impl Into<Bins>,
    range: Option<(f64, f64)>,
) -> Tensor {
    let _line = crate::core::user_line();
    let a = inexact(&a.into().into_tensor());
    let dt = a.dtype();
    let n = match bins.into() {
        Bins::Edges(e) => {
            if e.ndim() != 1 {
                panic!(
                    "histogram_bin_edges: explicit bins must be a vector, got {}\n  at {}",
                    e.aval(),
                    std::panic::Location::caller()
                );
            }
            return super::astype(&e, dt);
        }
        Bins::Count(n) => n,
    };
    let (lo, hi) = match range {
        Some((lo, hi)) => (scalar_tensor(lo, dt), scalar_tensor(hi, dt)),
        None => (super::min(&a, None), super::max(&a, None)),
    };
    let flat = lax::eq(&lo, &hi);
    let lo2 = super::where_(&flat, &lo - 0.5, &lo);
    let hi2 = super::where_(&flat, &hi + 0.5, &hi);
    let t = lax::div(&lax::iota(dt, &[n], 0), &scalar_tensor(n.max(1) as f64, dt));
    let body = &lo2 * (1.0 - &t) + &hi2 * &t;
    lax::concatenate(&[body, lax::reshape(&hi2, &[1])], 0)
}

/// The histogram of `a` (flattened), as `jnp.histogram`: `(counts, edges)`, a value in bin
/// `i` when `edges[i] <= v < edges[i + 1]` (the last bin closed), values outside the edges
/// (and NaN) not counted; `weights` (the shape of `a`) sum instead of counting; `density`
/// divides by the total and the bin widths.
#[track_caller]
pub fn histogram(
    a: impl Into<Operand>,
    bins: impl Into<Bins>,
    range: Option<(f64, f64)>,
    weights: Option<&Tensor>,
    density: bool,
) -> (Tensor, Tensor) {
    let _line = crate::core::user_line();
    let a = a.into().into_tensor();
    let (a, w) = match weights {
        None => {
            let a = inexact(&a);
            let ones = lax::broadcast_in_dim(&scalar_tensor(1.0, a.dtype()), a.shape(), &[]);
            (a, ones)
        }
        Some(w) => {
            if w.shape() != a.shape() {
                panic!(
                    "histogram: weights {} should have the shape of a {}\n  at {}",
                    w.aval(),
                    a.aval(),
                    std::panic::Location::caller()
                );
            }
            let t = promote_dtypes(
                "histogram",
                &[Operand::Tensor(a), Operand::Tensor(w.clone())],
            );
            (inexact(&t[0]), inexact(&t[1]))
        }
    };
    let (a, w) = (ravel(&a), ravel(&w));
    let edges = histogram_bin_edges(&a, bins, range);
    let m = edges.shape()[0];
    let idx = searchsorted(&edges, &a, "right");
    let last = lax::eq(&a, &at(&edges, m - 1));
    let idx = super::where_(&last, (m - 1) as i32, &idx);
    let zeros = lax::broadcast_in_dim(&scalar_tensor(0.0, w.dtype()), &[m], &[]);
    let counts = zeros.at(&idx).add(&w);
    let counts = lax::slice(&counts, &[1.min(m)], &[m], None);
    if !density {
        return (counts, edges);
    }
    let widths = super::diff(&edges, 1, -1, None, None);
    let total = super::sum(&counts, None);
    (&counts / &widths / &total, edges)
}
