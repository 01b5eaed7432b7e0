//! Editing arrays with static positions: `pad_mode` (numpy's non-constant `pad` modes),
//! `delete`, `insert`, `select`, `ediff1d`, `rollaxis`, `unstack`.

use super::join::diff;
use super::shape::axis as resolve;
use super::take::{take, TakeMode};
use super::{
    array, broadcast_to, concatenate, moveaxis, promote_dtypes, ravel, squeeze, where_, Axis,
    Operand,
};
use crate::core::Tensor;

/// The modes of [`pad_mode`], as numpy's `pad(..., mode=...)` (`"constant"` is [`pad`]).
///
/// [`pad`]: super::pad
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadMode {
    /// `"edge"`: the edge values repeated.
    Edge,
    /// `"reflect"`: mirrored about the edge elements (which are not repeated).
    Reflect,
    /// `"symmetric"`: mirrored about the edges (the edge elements repeated).
    Symmetric,
    /// `"wrap"`: the array repeated periodically.
    Wrap,
}

/// The position in `0..n` the padded position `p` (`-before..n + after`) reads.
fn source(p: isize, n: isize, mode: PadMode) -> isize {
    match mode {
        PadMode::Edge => p.clamp(0, n - 1),
        PadMode::Wrap => p.rem_euclid(n),
        PadMode::Reflect if n == 1 => 0,
        PadMode::Reflect => {
            let q = p.rem_euclid(2 * n - 2);
            if q < n {
                q
            } else {
                2 * n - 2 - q
            }
        }
        PadMode::Symmetric => {
            let q = p.rem_euclid(2 * n);
            if q < n {
                q
            } else {
                2 * n - 1 - q
            }
        }
    }
}

/// Pads with `mode`: `widths` holds `(before, after)` per dimension, or one pair for all, as
/// [`pad`](super::pad) takes them; widths wider than the array repeat the pattern.
///
/// ```
/// use oxla::numpy::{self as jnp, PadMode};
/// let x = jnp::arange(4);
/// let y = jnp::pad_mode(&x, &[(2, 1)], PadMode::Reflect);
/// assert_eq!(y.to_vec::<i32>(), vec![2, 1, 0, 1, 2, 3, 2]);
/// ```
#[track_caller]
pub fn pad_mode(x: impl Into<Operand>, widths: &[(usize, usize)], mode: PadMode) -> Tensor {
    let _line = crate::core::user_line();
    let mut x = x.into().into_tensor();
    let nd = x.ndim();
    if widths.len() != nd && widths.len() != 1 {
        panic!(
            "pad_mode: {} (before, after) pairs for an array of rank {nd}\n  at {}",
            widths.len(),
            std::panic::Location::caller()
        );
    }
    for d in 0..nd {
        let (b, a) = widths[if widths.len() == 1 { 0 } else { d }];
        let n = x.shape()[d] as isize;
        if b == 0 && a == 0 {
            continue;
        }
        if n == 0 {
            panic!(
                "pad_mode: cannot pad an empty axis ({d} of shape {:?}) with {mode:?}\n  at {}",
                x.shape(),
                std::panic::Location::caller()
            );
        }
        let idx: Vec<i32> = (-(b as isize)..n + a as isize)
            .map(|p| source(p, n, mode) as i32)
            .collect();
        let m = idx.len();
        x = take(&x, array(&idx, &[m]), d as isize, TakeMode::Clip);
    }
    x
}

/// Static positions along an axis of size `n`: negative ones counted from the end, each
/// in bounds.
#[track_caller]
fn positions(what: &str, obj: &[isize], n: usize, allow_end: bool) -> Vec<usize> {
    let limit = n as isize + isize::from(allow_end);
    let mut v = Vec::with_capacity(obj.len());
    for &i in obj {
        let j = if i < 0 { i + n as isize } else { i };
        if !(0..limit).contains(&j) {
            panic!(
                "{what}: index {i} is out of bounds for an axis of size {n}\n  at {}",
                std::panic::Location::caller()
            );
        }
        v.push(j as usize);
    }
    v
}

/// `arr` without the entries at the static indices `obj` along `axis` (`None`: of `arr`
/// flattened), as `jnp.delete` (repeated indices delete once).
#[track_caller]
pub fn delete(arr: impl Into<Operand>, obj: &[isize], axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let a = arr.into().into_tensor();
    let axis = axis.into();
    axis.no_keepdims("delete");
    let (a, ax) = match axis.single(a.ndim(), "delete") {
        Some(d) => (a, d),
        None => (ravel(&a), 0),
    };
    let n = a.shape()[ax];
    let gone = positions("delete", obj, n, false);
    let keep: Vec<i32> = (0..n)
        .filter(|i| !gone.contains(i))
        .map(|i| i as i32)
        .collect();
    let k = keep.len();
    take(&a, array(&keep, &[k]), ax as isize, TakeMode::Clip)
}

/// `arr` with `values` inserted before the static indices `obj` along `axis` (`None`: of
/// `arr` flattened), as `jnp.insert` with a sequence of indices: `values` broadcasts to
/// `arr`'s shape with `obj.len()` entries along `axis`, entry `j` going before `obj[j]`
/// (an index may be the axis's size: at the end). The result has `arr`'s dtype.
///
/// ```
/// use oxla::numpy as jnp;
/// let x = jnp::arange(3);
/// assert_eq!(jnp::insert(&x, &[1, 3], 9, None).to_vec::<i32>(), vec![0, 9, 1, 2, 9]);
/// ```
#[track_caller]
pub fn insert(
    arr: impl Into<Operand>,
    obj: &[isize],
    values: impl Into<Operand>,
    axis: impl Into<Axis>,
) -> Tensor {
    let _line = crate::core::user_line();
    let a = arr.into().into_tensor();
    let axis = axis.into();
    axis.no_keepdims("insert");
    let (a, ax) = match axis.single(a.ndim(), "insert") {
        Some(d) => (a, d),
        None => (ravel(&a), 0),
    };
    let n = a.shape()[ax];
    let at = positions("insert", obj, n, true);
    let k = at.len();
    let mut vshape = a.shape().to_vec();
    vshape[ax] = k;
    let v = values.into().to_tensor_in("insert", a.dtype());
    let v = broadcast_to(&v, &vshape);
    // New entry `j` (stable by position) lands before original `at[j]`.
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by_key(|&j| at[j]);
    let mut src: Vec<i32> = Vec::with_capacity(n + k);
    let mut next = order.iter().peekable();
    for i in 0..=n {
        while let Some(&&j) = next.peek() {
            if at[j] != i {
                break;
            }
            src.push((n + j) as i32);
            next.next();
        }
        if i < n {
            src.push(i as i32);
        }
    }
    let joined = concatenate(&[a, v], ax as isize);
    take(&joined, array(&src, &[n + k]), ax as isize, TakeMode::Clip)
}

/// The element of the first choice whose condition holds, `default` where none does, as
/// `jnp.select` (conditions and choices broadcast together, choices promote).
#[track_caller]
pub fn select(condlist: &[Tensor], choicelist: &[Tensor], default: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    if condlist.len() != choicelist.len() || condlist.is_empty() {
        panic!(
            "select: {} conditions for {} choices (one each, at least one)\n  at {}",
            condlist.len(),
            choicelist.len(),
            std::panic::Location::caller()
        );
    }
    let mut ops: Vec<Operand> = vec![default.into()];
    ops.extend(choicelist.iter().map(Operand::from));
    let ts = promote_dtypes("select", &ops);
    let mut out = ts[0].clone();
    for (c, v) in condlist.iter().zip(&ts[1..]).rev() {
        out = where_(c, v, &out);
    }
    out
}

/// The differences of `ary` flattened, with `to_begin` and `to_end` (flattened, in `ary`'s
/// dtype) joined before and after, as `jnp.ediff1d`.
#[track_caller]
pub fn ediff1d(
    ary: impl Into<Operand>,
    to_end: Option<Operand>,
    to_begin: Option<Operand>,
) -> Tensor {
    let _line = crate::core::user_line();
    let a = ravel(ary.into().into_tensor());
    let dtype = a.dtype();
    let mut parts = Vec::new();
    if let Some(b) = to_begin {
        parts.push(ravel(b.to_tensor_in("ediff1d", dtype)));
    }
    parts.push(diff(&a, 1, 0, None, None));
    if let Some(e) = to_end {
        parts.push(ravel(e.to_tensor_in("ediff1d", dtype)));
    }
    concatenate(&parts, 0)
}

/// `a` with `axis` moved to before position `start` (numpy's older form of
/// [`moveaxis`]).
#[track_caller]
pub fn rollaxis(a: impl Into<Operand>, axis: isize, start: isize) -> Tensor {
    let _line = crate::core::user_line();
    let a = a.into().into_tensor();
    let n = a.ndim() as isize;
    let ax = resolve(axis, a.ndim(), "rollaxis") as isize;
    if !(-n..=n).contains(&start) {
        panic!(
            "rollaxis: start {start} must lie in [-{n}, {n}]\n  at {}",
            std::panic::Location::caller()
        );
    }
    let mut start = if start < 0 { start + n } else { start };
    if ax < start {
        start -= 1;
    }
    moveaxis(&a, ax, start)
}

/// The slices of `x` along `axis`, that axis removed, as `jnp.unstack`.
#[track_caller]
pub fn unstack(x: impl Into<Operand>, axis: isize) -> Vec<Tensor> {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    let ax = resolve(axis, x.ndim(), "unstack");
    if x.shape()[ax] == 0 {
        return Vec::new();
    }
    super::split(&x, x.shape()[ax], ax as isize)
        .iter()
        .map(|p| squeeze(p, ax as isize))
        .collect()
}
