//! Shape functions: `reshape`, `transpose`, `squeeze`, `expand_dims`, `broadcast_to`,
//! `ravel`, `pad`, `concatenate`, `stack`, `roll`.

use super::{promote_dtypes, Axis, Operand};
use crate::core::Tensor;
use crate::ops as lax;

/// Resolves a possibly negative axis against `ndim`, panicking with context if out of range.
#[track_caller]
pub(crate) fn axis(a: isize, ndim: usize, what: &str) -> usize {
    let n = ndim as isize;
    if a < -n || a >= n {
        panic!(
            "{what}: axis {a} is out of bounds for an array of rank {ndim}\n  at {}",
            std::panic::Location::caller()
        );
    }
    a.rem_euclid(n.max(1)) as usize
}

/// `x` with a new shape of as many elements; one dimension may be `-1` (inferred).
#[track_caller]
pub fn reshape(x: impl Into<Operand>, shape: &[isize]) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let known: usize = shape
        .iter()
        .filter(|&&d| d >= 0)
        .map(|&d| d as usize)
        .product();
    let holes = shape.iter().filter(|&&d| d < 0).count();
    let at = std::panic::Location::caller();
    let bad = || {
        panic!(
            "reshape: cannot reshape an array of shape {:?} into {shape:?}\n  at {at}",
            x.shape()
        )
    };
    if holes > 1 || shape.iter().any(|&d| d < -1) {
        bad();
    }
    let dims: Vec<usize> = shape
        .iter()
        .map(|&d| {
            if d >= 0 {
                d as usize
            } else if known == 0 || !x.size().is_multiple_of(known) {
                bad()
            } else {
                x.size() / known
            }
        })
        .collect();
    if dims.iter().product::<usize>() != x.size() {
        bad();
    }
    if dims == x.shape() {
        return x.clone();
    }
    lax::reshape(x, &dims)
}

/// `x` flattened to one dimension.
#[track_caller]
pub fn ravel(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    reshape(x, &[-1])
}

/// Permutes dimensions to the order `axes` (`None` reverses them, as `x.T`).
#[track_caller]
pub fn transpose(x: impl Into<Operand>, axes: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let n = x.ndim();
    let mut perm: Vec<usize> = Vec::new();
    match axes.into().list("transpose") {
        None => perm.extend((0..n).rev()),
        // A loop, not a closure, so that `axis` sees the caller's line.
        Some(a) => {
            for d in a {
                perm.push(axis(d, n, "transpose"));
            }
        }
    }
    if perm.iter().enumerate().all(|(i, &p)| i == p) && perm.len() == n {
        return x.clone();
    }
    lax::transpose(x, &perm)
}

/// Removes size-1 dimensions: those of `axis`, or all with `None`.
#[track_caller]
pub fn squeeze(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let axis = axis.into();
    let dims: Vec<usize> = match axis.list("squeeze") {
        None => (0..x.ndim()).filter(|&d| x.shape()[d] == 1).collect(),
        Some(_) => axis.resolve(x.ndim(), "squeeze"),
    };
    if dims.is_empty() {
        return x.clone();
    }
    lax::squeeze(x, &dims)
}

/// Inserts size-1 dimensions at `axis` (one or several) of the result.
#[track_caller]
pub fn expand_dims(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let axis = axis.into();
    let k = match axis.list("expand_dims") {
        Some(a) => a.len(),
        None => panic!(
            "expand_dims: needs an axis or several, not None\n  at {}",
            std::panic::Location::caller()
        ),
    };
    let n = x.ndim() + k;
    let new = axis.resolve(n, "expand_dims");
    let shape: Vec<usize> = {
        let mut old = x.shape().iter();
        (0..n)
            .map(|d| {
                if new.contains(&d) {
                    1
                } else {
                    *old.next().expect("one old size per kept dimension")
                }
            })
            .collect()
    };
    let dims: Vec<usize> = (0..n).filter(|d| !new.contains(d)).collect();
    lax::broadcast_in_dim(x, &shape, &dims)
}

/// `x` broadcast to `shape` by numpy's rules.
#[track_caller]
pub fn broadcast_to(x: impl Into<Operand>, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let (n, r) = (x.ndim(), shape.len());
    let ok = n <= r
        && x.shape()
            .iter()
            .zip(&shape[r - n..])
            .all(|(&a, &b)| a == b || a == 1);
    if !ok {
        panic!(
            "broadcast_to: cannot broadcast shape {:?} to {shape:?}\n  at {}",
            x.shape(),
            std::panic::Location::caller()
        );
    }
    if x.shape() == shape {
        return x.clone();
    }
    let dims: Vec<usize> = (r - n..r).collect();
    lax::broadcast_in_dim(x, shape, &dims)
}

/// Pads with a constant: `widths` holds `(before, after)` per dimension, or one pair for all.
#[track_caller]
pub fn pad(x: impl Into<Operand>, widths: &[(usize, usize)], value: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let n = x.ndim();
    if widths.len() != n && widths.len() != 1 {
        panic!(
            "pad: {} (before, after) pairs for an array of rank {n}\n  at {}",
            widths.len(),
            std::panic::Location::caller()
        );
    }
    let cfg: Vec<(i64, i64, i64)> = (0..n)
        .map(|d| {
            let (b, a) = widths[if widths.len() == 1 { 0 } else { d }];
            (b as i64, a as i64, 0)
        })
        .collect();
    let v = value.into().to_tensor_in("pad", x.dtype());
    lax::pad(x, &v, &cfg)
}

/// Joins arrays along an existing axis (`None`: the arrays flattened), promoting dtypes.
#[track_caller]
pub fn concatenate(xs: &[Tensor], axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    if xs.is_empty() {
        panic!(
            "concatenate: needs at least one array\n  at {}",
            std::panic::Location::caller()
        );
    }
    let axis = axis.into();
    axis.no_keepdims("concatenate");
    let ops: Vec<Operand> = xs.iter().map(Operand::from).collect();
    let mut ts = promote_dtypes("concatenate", &ops);
    let a = match axis.single(ts[0].ndim(), "concatenate") {
        Some(a) => a,
        None => {
            ts = ts.iter().map(ravel).collect();
            0
        }
    };
    if ts.len() == 1 {
        return ts[0].clone();
    }
    lax::concatenate(&ts, a)
}

/// Joins arrays along a new axis, promoting dtypes.
#[track_caller]
pub fn stack(xs: &[Tensor], axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    if xs.is_empty() {
        panic!(
            "stack: needs at least one array\n  at {}",
            std::panic::Location::caller()
        );
    }
    if let Some(x) = xs.iter().find(|x| x.shape() != xs[0].shape()) {
        panic!(
            "stack: all arrays must have one shape, got {:?} and {:?}\n  at {}",
            xs[0].shape(),
            x.shape(),
            std::panic::Location::caller()
        );
    }
    let ops: Vec<Operand> = xs.iter().map(Operand::from).collect();
    let ts = promote_dtypes("stack", &ops);
    let axis = axis.into();
    axis.no_keepdims("stack");
    let Some(a) = axis.single(xs[0].ndim() + 1, "stack") else {
        panic!(
            "stack: needs an axis, not None\n  at {}",
            std::panic::Location::caller()
        );
    };
    let parts: Vec<Tensor> = ts.iter().map(|t| expand_dims(t, a)).collect();
    lax::concatenate(&parts, a)
}

/// Rolls elements `shift` places along `axis` (`None`: of the flattened array, reshaped
/// back), as JAX does: a `concatenate` of the two slices.
///
/// ```
/// use oxla::numpy as jnp;
/// let x = jnp::arange(4);
/// assert_eq!(jnp::roll(&x, 1, None).to_vec::<i32>(), vec![3, 0, 1, 2]);
/// ```
#[track_caller]
pub fn roll(x: impl Into<Operand>, shift: isize, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let axis = axis.into();
    axis.no_keepdims("roll");
    let at = axis.single(x.ndim(), "roll");
    let (flat, a) = match at {
        None => (ravel(x), 0),
        Some(a) => (x.clone(), a),
    };
    let n = flat.shape()[a];
    if n == 0 {
        return x.clone();
    }
    let i = (-shift).rem_euclid(n as isize) as usize;
    let part = |lo: usize, hi: usize| {
        let mut start = vec![0; flat.ndim()];
        let mut limit = flat.shape().to_vec();
        start[a] = lo;
        limit[a] = hi;
        lax::slice(&flat, &start, &limit, None)
    };
    let rolled = lax::concatenate(&[part(i, n), part(0, i)], a);
    if at.is_none() {
        lax::reshape(&rolled, x.shape())
    } else {
        rolled
    }
}
