//! `lax`'s cumulative reductions beyond `cumsum` (`cumprod`, `cummax`, `cummin`,
//! `cumlogsumexp`), `associative_scan`, `top_k` and `sort_key_val`, composed from the
//! primitives.
//!
//! JAX makes the cumulative reductions primitives whose JVP is the JVP of
//! `associative_scan` with the same combining function; oxla composes them from that very
//! scan, so values, batching and derivatives are JAX's (values may differ in the last bits:
//! XLA's CPU lowering folds sequentially, the scan pairs up). A jaxpr shows the scan's
//! slices, pads and combining operations rather than one `cumprod` equation.

use std::panic::Location;

use super::{
    add, concatenate, exp, iota, log1p, max, min, mul, or, pad, rev, select_n, slice, sort,
};
use crate::array::{Array, DType};
use crate::core::Tensor;

/// A rank-0 constant of `dtype`.
fn constant(v: f64, dtype: DType) -> Tensor {
    Tensor::new(Array::scalar_from_f64(v, dtype))
}

/// `x[start..end:stride]` along `axis`.
fn slice_axis(x: &Tensor, axis: usize, start: usize, end: usize, stride: usize) -> Tensor {
    let mut lo = vec![0; x.ndim()];
    let mut hi = x.shape().to_vec();
    let mut st = vec![1; x.ndim()];
    lo[axis] = start;
    hi[axis] = end.max(start);
    st[axis] = stride;
    slice(x, &lo, &hi, Some(&st))
}

/// `a` and `b` interleaved along `axis` (`a[0], b[0], a[1], ...`), as JAX does it: each
/// padded with zeros between its elements, then added (or-ed for bools).
fn interleave(a: &Tensor, b: &Tensor, axis: usize) -> Tensor {
    let (na, nb) = (a.shape()[axis], b.shape()[axis]);
    let mut pa = vec![(0i64, 0i64, 0i64); a.ndim()];
    let mut pb = pa.clone();
    pa[axis] = (0, i64::from(na == nb), 1);
    pb[axis] = (1, i64::from(na != nb), 1);
    let zero = constant(0.0, a.dtype());
    let (a, b) = (pad(a, &zero, &pa), pad(b, &zero, &pb));
    if a.dtype() == DType::Bool {
        or(&a, &b)
    } else {
        add(&a, &b)
    }
}

/// JAX's parallel prefix scan: `_scan` of `associative_scan`.
fn prefix_scan<F>(f: &F, elems: Vec<Tensor>, axis: usize) -> Vec<Tensor>
where
    F: Fn(&[Tensor], &[Tensor]) -> Vec<Tensor>,
{
    let n = elems[0].shape()[axis];
    if n < 2 {
        return elems;
    }
    let combine = |a: Vec<Tensor>, b: Vec<Tensor>| {
        let c = f(&a, &b);
        assert_eq!(
            c.len(),
            a.len(),
            "associative_scan: the function returned {} arrays for {} elements",
            c.len(),
            a.len()
        );
        c
    };
    let evens: Vec<Tensor> = elems
        .iter()
        .map(|e| slice_axis(e, axis, 0, n - 1, 2))
        .collect();
    let odds: Vec<Tensor> = elems.iter().map(|e| slice_axis(e, axis, 1, n, 2)).collect();
    let odd = prefix_scan(f, combine(evens, odds), axis);
    let rest: Vec<Tensor> = elems.iter().map(|e| slice_axis(e, axis, 2, n, 2)).collect();
    let left: Vec<Tensor> = if n.is_multiple_of(2) {
        odd.iter()
            .map(|e| slice_axis(e, axis, 0, e.shape()[axis] - 1, 1))
            .collect()
    } else {
        odd.clone()
    };
    let even = combine(left, rest);
    elems
        .iter()
        .zip(even)
        .zip(&odd)
        .map(|((e, r), o)| {
            let first = slice_axis(e, axis, 0, 1, 1);
            interleave(&concatenate(&[first, r], axis), o, axis)
        })
        .collect()
}

/// `lax.associative_scan(fn, elems, reverse, axis)`: the inclusive scan of `elems` (the
/// leaves of JAX's pytree, all of one size along `axis`; negative axes count from the end)
/// under the associative `f(a, b)`, which combines the leaves of an earlier block `a` with
/// those of a later block `b`, elementwise over slices along `axis`, and returns the combined
/// leaves. JAX's parallel-prefix algorithm (`O(log n)` rounds of strided slices, one call of
/// `f` per round and per level), so `f` is called on whole blocks and may be any traceable
/// function; `reverse` scans from the end.
///
/// ```
/// use oxla::{lax, numpy as jnp, Tensor};
/// let x = jnp::arange(5.0);
/// let s = lax::associative_scan(|a: &[Tensor], b: &[Tensor]| vec![&a[0] + &b[0]], &[x], false, 0);
/// assert_eq!(s[0].to_vec::<f32>(), vec![0.0, 1.0, 3.0, 6.0, 10.0]);
/// ```
#[track_caller]
pub fn associative_scan<F>(f: F, elems: &[Tensor], reverse: bool, axis: isize) -> Vec<Tensor>
where
    F: Fn(&[Tensor], &[Tensor]) -> Vec<Tensor>,
{
    let _line = crate::core::user_line();
    let Some(first) = elems.first() else {
        panic!(
            "associative_scan: needs at least one array\n  at {}",
            Location::caller()
        );
    };
    let ndim = first.ndim() as isize;
    if axis < -ndim || axis >= ndim {
        panic!(
            "associative_scan: axis {axis} is out of range for {}\n  at {}",
            first.aval(),
            Location::caller()
        );
    }
    let axis = axis.rem_euclid(ndim.max(1)) as usize;
    let n = first.shape()[axis];
    if let Some(bad) = elems
        .iter()
        .find(|e| e.ndim() <= axis || e.shape()[axis] != n)
    {
        panic!(
            "associative_scan: the arrays must share their size along axis {axis}: {} and {}\n  at {}",
            first.aval(),
            bad.aval(),
            Location::caller()
        );
    }
    let flip = |v: Vec<Tensor>| -> Vec<Tensor> {
        if reverse {
            v.iter().map(|e| rev(e, &[axis])).collect()
        } else {
            v
        }
    };
    flip(prefix_scan(&f, flip(elems.to_vec()), axis))
}

/// Panics at the caller's line unless `axis` is an axis of `x` and `x`'s dtype is numeric
/// (floating-point only when `float`).
#[track_caller]
fn check(what: &str, x: &Tensor, axis: usize, float: bool) {
    if axis >= x.ndim() {
        panic!(
            "{what}: axis {axis} is out of bounds for {} (lax takes non-negative axes)\n  at {}",
            x.aval(),
            Location::caller()
        );
    }
    let d = x.dtype();
    if d == DType::Bool || (float && !d.is_float()) {
        panic!(
            "{what} does not accept dtype {d}; it takes {}\n  at {}",
            if float {
                "floating-point arrays"
            } else {
                "numbers"
            },
            Location::caller()
        );
    }
}

macro_rules! cumulative {
    ($($(#[$doc:meta])* $name:ident => $combine:expr, $float:expr),* $(,)?) => {$(
        $(#[$doc])*
        #[track_caller]
        pub fn $name(x: &Tensor, axis: usize, reverse: bool) -> Tensor {
            let _line = crate::core::user_line();
            check(stringify!($name), x, axis, $float);
            let combine = |a: &[Tensor], b: &[Tensor]| vec![$combine(&a[0], &b[0])];
            associative_scan(combine, std::slice::from_ref(x), reverse, axis as isize)
                .pop()
                .expect("one result")
        }
    )*};
}
cumulative!(
    /// `lax.cumprod`: the inclusive cumulative product along `axis` (from the end if
    /// `reverse`); its derivative is `associative_scan`'s over `mul`, as JAX's.
    cumprod => mul, false,
    /// `lax.cummax`: the running maximum along `axis` (NaN propagates); its derivative is
    /// `associative_scan`'s over `max` (ties share the tangent equally), as JAX's.
    cummax => max, false,
    /// `lax.cummin`: the running minimum along `axis` (NaN propagates); its derivative is
    /// `associative_scan`'s over `min`, as JAX's.
    cummin => min, false,
    /// `lax.cumlogsumexp`: `log(cumsum(exp(x)))` along `axis` without overflow, for
    /// floating-point `x`; its derivative is `associative_scan`'s over `logaddexp`.
    cumlogsumexp => logaddexp, true,
);

/// `log(exp(x) + exp(y))` without overflow, as JAX's `lax` composition: `max(x, y) +
/// log1p(exp(-|x - y|))`, and `x + y` where `x - y` is NaN (a NaN operand, or infinities of
/// one sign). Operands of one floating-point dtype. Its derivative is this composition's;
/// JAX's custom rule gives the same away from infinite and NaN operands.
#[track_caller]
pub(crate) fn logaddexp(x: &Tensor, y: &Tensor) -> Tensor {
    let _line = crate::core::user_line();
    let delta = super::sub(x, y);
    let smooth = add(&max(x, y), &log1p(&exp(&super::neg(&super::abs(&delta)))));
    select_n(&super::ne(&delta, &delta), &[smooth, add(x, y)])
}

/// `lax.top_k(x, k)`: the `k` largest entries along the last axis, in descending order, and
/// their indices (`i32`). Ties keep the lower index first, and NaN counts as larger than
/// every number, as XLA's `TopK`; `k` may not exceed the axis. The values' derivative
/// gathers the tangent at the indices, as JAX's rule.
///
/// ```
/// use oxla::{lax, numpy as jnp};
/// let (v, i) = lax::top_k(&jnp::array(&[1.0f32, 3.0, 2.0, 3.0], &[4]), 3);
/// assert_eq!(v.to_vec::<f32>(), vec![3.0, 3.0, 2.0]);
/// assert_eq!(i.to_vec::<i32>(), vec![1, 3, 2]);
/// ```
#[track_caller]
pub fn top_k(x: &Tensor, k: usize) -> (Tensor, Tensor) {
    let _line = crate::core::user_line();
    let Some(axis) = x.ndim().checked_sub(1) else {
        panic!(
            "top_k: needs an array of rank 1 or more, got {}\n  at {}",
            x.aval(),
            Location::caller()
        );
    };
    let n = x.shape()[axis];
    if k > n {
        panic!(
            "top_k: k={k} exceeds the last axis of {}\n  at {}",
            x.aval(),
            Location::caller()
        );
    }
    // A stable ascending sort of the reversed array, reversed back: descending, with ties
    // (and NaNs, which sort last) in index order.
    let idx = rev(&iota(DType::I32, x.shape(), axis), &[axis]);
    let sorted = sort(&[rev(x, &[axis]), idx], axis, 1);
    let take = |t: &Tensor| slice_axis(&rev(t, &[axis]), axis, 0, k, 1);
    (take(&sorted[0]), take(&sorted[1]))
}

/// `lax.sort_key_val(keys, values, dimension)`: `keys` sorted along `dimension` (stable,
/// NaNs last) and `values` permuted alike.
#[track_caller]
pub fn sort_key_val(keys: &Tensor, values: &Tensor, dimension: usize) -> (Tensor, Tensor) {
    let _line = crate::core::user_line();
    let mut r = sort(&[keys.clone(), values.clone()], dimension, 1);
    let v = r.pop().expect("two results");
    (r.pop().expect("two results"), v)
}
