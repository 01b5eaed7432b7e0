//! Sorting and searching: `argsort`, `lexsort`, `partition`, `argpartition`,
//! `searchsorted`, `digitize`, `bincount`, `nonzero`, `flatnonzero`, `argwhere` (with
//! JAX's static `size`), `isin`, as `jax.numpy` composes them. Floats order as JAX's sort
//! does: NaN above every number, `-0.0` equal to `0.0`.

use super::{astype, promote_dtypes, ravel, scalar_tensor, Axis, Operand};
use crate::array::{DType, Kind};
use crate::core::Tensor;
use crate::ops as lax;
use crate::prims::{GatherMode, ScatterDims};

/// The default integer, the dtype of every index these functions return.
fn int() -> DType {
    Kind::Int.default_dtype()
}

/// `x` with axes `a` and `b` exchanged.
fn swap(x: &Tensor, a: usize, b: usize) -> Tensor {
    if a == b {
        return x.clone();
    }
    let mut perm: Vec<usize> = (0..x.ndim()).collect();
    perm.swap(a, b);
    lax::transpose(x, &perm)
}

/// `x` flattened for `None`, else `x` and the one axis.
#[track_caller]
fn one_axis(x: &Tensor, axis: Axis, what: &str) -> (Tensor, usize) {
    axis.no_keepdims(what);
    match axis.single(x.ndim(), what) {
        None => (ravel(x), 0),
        Some(a) => (x.clone(), a),
    }
}

/// Indices that sort `x` along `axis` (`None`: the flattened array; numpy's default is -1),
/// stably, as `jnp.argsort`; `descending` sorts from the largest, equal elements keeping
/// their order. NaNs sort as the largest.
///
/// ```
/// use oxla::numpy as jnp;
/// let x = jnp::array(&[3.0f32, 1.0, 3.0, 2.0], &[4]);
/// assert_eq!(jnp::argsort(&x, -1, false).to_vec::<i32>(), vec![1, 3, 0, 2]);
/// assert_eq!(jnp::argsort(&x, -1, true).to_vec::<i32>(), vec![0, 2, 3, 1]);
/// ```
#[track_caller]
pub fn argsort(x: impl Into<Operand>, axis: impl Into<Axis>, descending: bool) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let (x, a) = one_axis(x, axis.into(), "argsort");
    let iota = lax::iota(int(), x.shape(), a);
    if !descending {
        return lax::sort(&[x, iota], a, 1).remove(1);
    }
    let sorted = lax::sort(&[lax::rev(&x, &[a]), lax::rev(&iota, &[a])], a, 1);
    lax::rev(&sorted[1], &[a])
}

/// The permutation that sorts by several keys along `axis`, the last key primary, as
/// `jnp.lexsort` (stable; a scalar key gives 0).
#[track_caller]
pub fn lexsort(keys: &[Tensor], axis: isize) -> Tensor {
    let _line = crate::core::user_line();
    let Some(first) = keys.first() else {
        panic!(
            "lexsort: needs at least one key\n  at {}",
            std::panic::Location::caller()
        );
    };
    if let Some(bad) = keys.iter().find(|k| k.shape() != first.shape()) {
        panic!(
            "lexsort: all keys need one shape, got {} and {}\n  at {}",
            first.aval(),
            bad.aval(),
            std::panic::Location::caller()
        );
    }
    if first.ndim() == 0 {
        return scalar_tensor(0.0, int());
    }
    let a = super::shape::axis(axis, first.ndim(), "lexsort");
    let mut ops: Vec<Tensor> = keys.iter().rev().cloned().collect();
    ops.push(lax::iota(int(), first.shape(), a));
    lax::sort(&ops, a, keys.len())
        .pop()
        .expect("the permutation")
}

/// `kth` as an index of an axis of size `n` (negative counts from the end).
#[track_caller]
fn kth_index(kth: isize, n: usize, what: &str) -> usize {
    let k = if kth < 0 { kth + n as isize } else { kth };
    if k < 0 || k >= n as isize {
        panic!(
            "{what}: kth={kth} is out of range for an axis of size {n}\n  at {}",
            std::panic::Location::caller()
        );
    }
    k as usize
}

/// `-x`, or for unsigned integers `-(x + 1)` (wrapping), which reverses their order too.
fn negate_order(x: &Tensor) -> Tensor {
    let d = x.dtype();
    if d.is_int() && !d.is_signed_int() {
        lax::neg(&lax::add(x, &scalar_tensor(1.0, d)))
    } else {
        lax::neg(x)
    }
}

/// `x` partly sorted along `axis`: the element at `kth` is the one a full sort puts there,
/// the `kth` smallest before it (in ascending order) and the rest after it (in descending
/// order), as `jnp.partition` computes it with `top_k`.
#[track_caller]
pub fn partition(x: impl Into<Operand>, kth: isize, axis: isize) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let a = super::shape::axis(axis, x.ndim(), "partition");
    let k = kth_index(kth, x.shape()[a], "partition");
    let last = x.ndim() - 1;
    let arr = swap(x, a, last);
    let n = arr.shape()[last];
    let d = arr.dtype();
    let bottom = lax::neg(&lax::top_k(&negate_order(&arr), k + 1).0);
    let bottom = if d.is_int() && !d.is_signed_int() {
        lax::sub(&bottom, &scalar_tensor(1.0, d))
    } else {
        bottom
    };
    let top = lax::top_k(&arr, n - k - 1).0;
    swap(&lax::concatenate(&[bottom, top], last), a, last)
}

/// Indices that [`partition`] `x` along `axis` (`i32`, as `lax.top_k` gives them), as
/// `jnp.argpartition`.
#[track_caller]
pub fn argpartition(x: impl Into<Operand>, kth: isize, axis: isize) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let a = super::shape::axis(axis, x.ndim(), "argpartition");
    let k = kth_index(kth, x.shape()[a], "argpartition");
    let last = x.ndim() - 1;
    let arr = swap(x, a, last);
    let n = arr.shape()[last];
    let bottom = lax::top_k(&negate_order(&arr), k + 1).1;
    // The others, in index order: 1 where an index is not among the bottom ones.
    let mut wide = arr.shape().to_vec();
    wide.push(k + 1);
    let iota = lax::iota(DType::I32, &wide, last);
    let b = lax::broadcast_in_dim(
        &bottom,
        &wide,
        &(0..last).chain([last + 1]).collect::<Vec<_>>(),
    );
    let taken = super::any(lax::eq(&iota, &b), -1);
    let proxy = astype(lax::not(&taken), DType::F32);
    let top = lax::top_k(&proxy, n - k - 1).1;
    swap(&lax::concatenate(&[bottom, top], last), a, last)
}

/// `x < y` in the order of JAX's sort: NaN above every number, `-0.0` equal to `0.0`.
fn sort_lt(x: &Tensor, y: &Tensor) -> Tensor {
    let lt = lax::lt(x, y);
    if !x.dtype().is_float() {
        return lt;
    }
    let nan_above = lax::and(&lax::ne(y, y), &lax::eq(x, x));
    lax::or(&lt, &nan_above)
}

/// Where each of `v` would go in the sorted vector `a` to keep it sorted, as
/// `jnp.searchsorted`: the first such index for `side` `"left"`, the last for `"right"`
/// (`i32` indices of `v`'s shape; `a` and `v` promoted to one dtype). NaN sorts last. The
/// indices are counts of the elements of `a` below `v` (or not above it), which is JAX's
/// answer whenever `a` is sorted.
///
/// ```
/// use oxla::numpy as jnp;
/// let a = jnp::array(&[1.0f32, 2.0, 2.0, 3.0], &[4]);
/// let v = jnp::array(&[2.0f32, 0.0, 9.0], &[3]);
/// assert_eq!(jnp::searchsorted(&a, &v, "left").to_vec::<i32>(), vec![1, 0, 4]);
/// assert_eq!(jnp::searchsorted(&a, &v, "right").to_vec::<i32>(), vec![3, 0, 4]);
/// ```
#[track_caller]
pub fn searchsorted(a: impl Into<Operand>, v: impl Into<Operand>, side: &str) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("searchsorted", &[a.into(), v.into()]);
    let (a, v) = (&t[0], &t[1]);
    if a.ndim() != 1 {
        panic!(
            "searchsorted: a should be 1-dimensional, got {}\n  at {}",
            a.aval(),
            std::panic::Location::caller()
        );
    }
    let right = match side {
        "left" => false,
        "right" => true,
        _ => panic!(
            "searchsorted: side must be 'left' or 'right', got {side:?}\n  at {}",
            std::panic::Location::caller()
        ),
    };
    let n = a.shape()[0];
    let mut wide = v.shape().to_vec();
    wide.push(n);
    let vd: Vec<usize> = (0..v.ndim()).collect();
    let vw = lax::broadcast_in_dim(v, &wide, &vd);
    let aw = lax::broadcast_in_dim(a, &wide, &[v.ndim()]);
    let below = if right {
        lax::not(&sort_lt(&vw, &aw))
    } else {
        sort_lt(&aw, &vw)
    };
    astype(super::sum(below, -1), DType::I32)
}

/// The index of the bin of `bins` (a monotonic vector) each of `x` falls in, as
/// `jnp.digitize`: `bins[i-1] <= x < bins[i]` for increasing bins (`<` and `<=` exchanged
/// when `right`), mirrored for decreasing bins; `i32` indices.
#[track_caller]
pub fn digitize(x: impl Into<Operand>, bins: impl Into<Operand>, right: bool) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("digitize", &[x.into(), bins.into()]);
    let (x, bins) = (&t[0], &t[1]);
    if bins.ndim() != 1 {
        panic!(
            "digitize: bins must be a vector, got {}\n  at {}",
            bins.aval(),
            std::panic::Location::caller()
        );
    }
    let n = bins.shape()[0];
    if n == 0 {
        return super::zeros_like(x).astype(DType::I32);
    }
    let side = if right { "left" } else { "right" };
    let at = |i: usize| lax::reshape(&lax::slice(bins, &[i], &[i + 1], None), &[]);
    let increasing = lax::ge(&at(n - 1), &at(0));
    let up = searchsorted(bins, x, side);
    let down = lax::sub(
        &scalar_tensor(n as f64, DType::I32),
        &searchsorted(lax::rev(bins, &[0]), x, side),
    );
    super::where_(increasing, up, down)
}

/// Counts of each value `0..length` in the integer vector `x` (weighted by `weights`), as
/// `jnp.bincount` with its static `length`: negative values count as 0, values from `length`
/// on are dropped. Counts are the default integer; weighted sums have the weights' dtype.
#[track_caller]
pub fn bincount(x: impl Into<Operand>, weights: Option<&Tensor>, length: usize) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let x = if x.dtype() == DType::Bool {
        astype(x, DType::I32)
    } else {
        x.clone()
    };
    if !x.dtype().is_int() || x.ndim() != 1 {
        panic!(
            "bincount: takes a vector of integers, got {}\n  at {}",
            x.aval(),
            std::panic::Location::caller()
        );
    }
    let w = match weights {
        Some(w) if w.shape() != x.shape() => panic!(
            "bincount: the weights {} must have the shape of {}\n  at {}",
            w.aval(),
            x.aval(),
            std::panic::Location::caller()
        ),
        Some(w) => w.clone(),
        None => lax::broadcast_in_dim(&scalar_tensor(1.0, int()), x.shape(), &[]),
    };
    let idx = lax::max(&x, &scalar_tensor(0.0, x.dtype()));
    let idx = lax::reshape(&idx, &[x.shape()[0], 1]);
    let zeros = lax::broadcast_in_dim(&scalar_tensor(0.0, w.dtype()), &[length], &[]);
    if length == 0 {
        return zeros;
    }
    let dims = ScatterDims {
        update_window_dims: vec![],
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        operand_batching_dims: vec![],
        scatter_indices_batching_dims: vec![],
    };
    lax::scatter_add(&zeros, &idx, &w, dims, GatherMode::FillOrDrop)
}

/// The indices of the nonzero elements of `x`, one vector per axis, as `jnp.nonzero` with
/// its static `size`: the first `size` nonzeros in row-major order, padded with
/// `fill_value` (0 when `None`). Rank-0 `x` is refused, as in JAX.
#[track_caller]
pub fn nonzero(x: impl Into<Operand>, size: usize, fill_value: Option<i64>) -> Vec<Tensor> {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    if x.ndim() == 0 {
        panic!(
            "nonzero: a 0-d array has no nonzero indices (use a 1-element vector)\n  at {}",
            std::panic::Location::caller()
        );
    }
    let zeros = || lax::broadcast_in_dim(&scalar_tensor(0.0, int()), &[size], &[]);
    if x.size() == 0 || size == 0 {
        return (0..x.ndim()).map(|_| zeros()).collect();
    }
    let mask = if x.dtype() == DType::Bool {
        x.clone()
    } else {
        lax::ne(x, &scalar_tensor(0.0, x.dtype()))
    };
    let running = super::cumsum(&mask, None);
    let flat = super::cumsum(bincount(&running, None, size), None);
    let mut stride = x.size();
    let mut out = Vec::with_capacity(x.ndim());
    for &n in x.shape() {
        stride /= n;
        let i = lax::div(&flat, &scalar_tensor(stride as f64, int()));
        out.push(lax::rem(&i, &scalar_tensor(n as f64, int())));
    }
    let Some(fill) = fill_value else {
        return out;
    };
    let count = super::sum(&mask, None);
    let past = lax::ge(&lax::iota(int(), &[size], 0), &count);
    out.iter()
        .map(|e| super::where_(&past, scalar_tensor(fill as f64, int()), e))
        .collect()
}

/// The indices of the nonzero elements of the flattened `x`, as `jnp.flatnonzero` with its
/// static `size` (padded with `fill_value`, 0 when `None`).
#[track_caller]
pub fn flatnonzero(x: impl Into<Operand>, size: usize, fill_value: Option<i64>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    nonzero(ravel(x), size, fill_value).remove(0)
}

/// The indices of the nonzero elements of `x` as rows of a `[size, ndim]` matrix, as
/// `jnp.argwhere` with its static `size` (padded with `fill_value`, 0 when `None`).
#[track_caller]
pub fn argwhere(x: impl Into<Operand>, size: usize, fill_value: Option<i64>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    if x.ndim() == 0 {
        return lax::broadcast_in_dim(&scalar_tensor(0.0, int()), &[size, 0], &[]);
    }
    let cols: Vec<Tensor> = nonzero(x, size, fill_value)
        .iter()
        .map(|c| lax::reshape(c, &[size, 1]))
        .collect();
    lax::concatenate(&cols, 1)
}

/// Whether each element of `element` occurs in `test_elements` (compared after promotion to
/// one dtype; NaN occurs nowhere), as `jnp.isin`; `invert` negates it.
#[track_caller]
pub fn isin(
    element: impl Into<Operand>,
    test_elements: impl Into<Operand>,
    invert: bool,
) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("isin", &[element.into(), test_elements.into()]);
    let shape = t[0].shape().to_vec();
    let (e, s) = (ravel(&t[0]), ravel(&t[1]));
    let (m, n) = (e.shape()[0], s.shape()[0]);
    let found = if m == 0 || n == 0 {
        lax::broadcast_in_dim(&scalar_tensor(0.0, DType::Bool), &[m], &[])
    } else {
        let ew = lax::broadcast_in_dim(&e, &[m, n], &[0]);
        let sw = lax::broadcast_in_dim(&s, &[m, n], &[1]);
        super::any(lax::eq(&ew, &sw), -1)
    };
    let r = if invert { lax::not(&found) } else { found };
    lax::reshape(&r, &shape)
}
