//! Diagonals and triangles: `diagonal`, `trace`, `diag`, `diagflat`, `fill_diagonal`,
//! `tri`, `tril`, `triu`, `tril_indices`, `triu_indices` (and `_from`).

use super::shape::axis;
use super::{array, astype, ravel, scalar_tensor, sum, Operand};
use crate::array::{DType, Kind};
use crate::core::Tensor;
use crate::ops as lax;
use crate::prims::{GatherDims, GatherMode};

/// `c - r` over a `shape` whose last two dimensions are rows `r` and columns `c`.
fn col_minus_row(shape: &[usize]) -> Tensor {
    let n = shape.len();
    lax::sub(
        &lax::iota(DType::I32, shape, n - 1),
        &lax::iota(DType::I32, shape, n - 2),
    )
}

/// The length of the `offset` diagonal of an `n1 x n2` matrix.
fn diag_len(n1: usize, n2: usize, offset: isize) -> usize {
    let (n1, n2) = (n1 as isize, n2 as isize);
    (if offset >= 0 {
        n1.min(n2 - offset)
    } else {
        (n1 + offset).min(n2)
    })
    .max(0) as usize
}

/// The `offset` diagonal of the 2-D slices in axes `axis1` and `axis2` of `a`, as
/// `jnp.diagonal` (numpy's defaults `0, 0, 1`): those axes removed, the diagonal last.
///
/// ```
/// use oxla::numpy as jnp;
/// let x = jnp::arange(9).reshape(&[3, 3]);
/// assert_eq!(jnp::diagonal(&x, 1, 0, 1).to_vec::<i32>(), vec![1, 5]);
/// ```
#[track_caller]
pub fn diagonal(a: impl Into<Operand>, offset: isize, axis1: isize, axis2: isize) -> Tensor {
    let _line = crate::core::user_line();
    let a = a.into().into_tensor();
    let nd = a.ndim();
    if nd < 2 {
        panic!(
            "diagonal: needs an array of rank 2 or more, got shape {:?}\n  at {}",
            a.shape(),
            std::panic::Location::caller()
        );
    }
    let (i, j) = (axis(axis1, nd, "diagonal"), axis(axis2, nd, "diagonal"));
    if i == j {
        panic!(
            "diagonal: axis1 and axis2 ({axis1}, {axis2}) must differ\n  at {}",
            std::panic::Location::caller()
        );
    }
    let x = super::moveaxis(&a, [i, j], [nd - 2, nd - 1]);
    let (n1, n2) = (x.shape()[nd - 2], x.shape()[nd - 1]);
    let len = diag_len(n1, n2, offset);
    let mut out = x.shape()[..nd - 2].to_vec();
    out.push(len);
    if len == 0 || out.contains(&0) {
        return lax::broadcast_in_dim(&scalar_tensor(0.0, a.dtype()), &out, &[]);
    }
    let (r0, c0) = ((-offset).max(0) as i32, offset.max(0) as i32);
    let idx: Vec<i32> = (0..len as i32).flat_map(|k| [r0 + k, c0 + k]).collect();
    let mut sizes = x.shape()[..nd - 2].to_vec();
    sizes.extend([1, 1]);
    let gd = GatherDims {
        offset_dims: (0..nd - 2).collect(),
        collapsed_slice_dims: vec![nd - 2, nd - 1],
        start_index_map: vec![nd - 2, nd - 1],
        operand_batching_dims: vec![],
        start_indices_batching_dims: vec![],
    };
    lax::gather(
        &x,
        &array(&idx, &[len, 2]),
        gd,
        &sizes,
        GatherMode::PromiseInBounds,
    )
}

/// The sum of the `offset` diagonal in axes `axis1`, `axis2` (numpy's defaults `0, 0, 1`),
/// with `sum`'s dtype rules.
#[track_caller]
pub fn trace(a: impl Into<Operand>, offset: isize, axis1: isize, axis2: isize) -> Tensor {
    let _line = crate::core::user_line();
    sum(diagonal(a, offset, axis1, axis2), -1)
}

/// A vector placed on the `k`-th diagonal of a square matrix, or a matrix's `k`-th
/// diagonal as a vector, as `jnp.diag`.
///
/// ```
/// use oxla::numpy as jnp;
/// let v = jnp::array(&[1i32, 2], &[2]);
/// assert_eq!(jnp::diag(&v, -1).to_vec::<i32>(), vec![0, 0, 0, 1, 0, 0, 0, 2, 0]);
/// ```
#[track_caller]
pub fn diag(v: impl Into<Operand>, k: isize) -> Tensor {
    let _line = crate::core::user_line();
    let v = v.into().into_tensor();
    match v.ndim() {
        1 => {
            let m = v.shape()[0];
            let n = m + k.unsigned_abs();
            let vpad = lax::pad(
                &v,
                &scalar_tensor(0.0, v.dtype()),
                &[(0, k.unsigned_abs() as i64, 0)],
            );
            let along = if k >= 0 { 0 } else { 1 };
            let vals = lax::broadcast_in_dim(&vpad, &[n, n], &[along]);
            let mask = lax::eq(
                &col_minus_row(&[n, n]),
                &scalar_tensor(k as f64, DType::I32),
            );
            let zero = lax::broadcast_in_dim(&scalar_tensor(0.0, v.dtype()), &[n, n], &[]);
            lax::select_n(&mask, &[zero, vals])
        }
        2 => diagonal(&v, k, 0, 1),
        _ => panic!(
            "diag: needs a vector or a matrix, got shape {:?}\n  at {}",
            v.shape(),
            std::panic::Location::caller()
        ),
    }
}

/// `v` flattened and placed on the `k`-th diagonal of a square matrix.
#[track_caller]
pub fn diagflat(v: impl Into<Operand>, k: isize) -> Tensor {
    let _line = crate::core::user_line();
    diag(ravel(v), k)
}

/// `a` with its main diagonal (`a[i, i, ...]`, `i` below the smallest size) set to `val`
/// (a scalar, or one value per diagonal element), as `jnp.fill_diagonal` with
/// `inplace=False` (JAX implements `wrap=False` only). An array of rank above 2 must have
/// equal sizes.
#[track_caller]
pub fn fill_diagonal(a: impl Into<Operand>, val: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let a = a.into().into_tensor();
    let s = a.shape().to_vec();
    if s.len() < 2 || (s.len() > 2 && s.iter().any(|&n| n != s[0])) {
        panic!(
            "fill_diagonal: needs a matrix or an array of equal sizes, got shape {s:?}\n  at {}",
            std::panic::Location::caller()
        );
    }
    let n = s.iter().copied().min().unwrap_or(0);
    let v = ravel(val.into().to_tensor_in("fill_diagonal", a.dtype()));
    let v = if v.size() == 1 {
        lax::broadcast_in_dim(&lax::reshape(&v, &[]), &[n], &[])
    } else if v.size() == n {
        v
    } else {
        panic!(
            "fill_diagonal: {} values for a diagonal of {n}\n  at {}",
            v.size(),
            std::panic::Location::caller()
        );
    };
    let vpad = lax::pad(
        &v,
        &scalar_tensor(0.0, a.dtype()),
        &[(0, (s[0] - n) as i64, 0)],
    );
    let vals = lax::broadcast_in_dim(&vpad, &s, &[0]);
    let first = lax::iota(DType::I32, &s, 0);
    let mut mask = lax::eq(&first, &lax::iota(DType::I32, &s, 1));
    for d in 2..s.len() {
        mask = lax::and(&mask, &lax::eq(&first, &lax::iota(DType::I32, &s, d)));
    }
    lax::select_n(&mask, &[a, vals])
}

/// An `n x m` matrix (`m` `None`: square) of ones at and below the `k`-th diagonal, zeros
/// above, in the default float dtype, as `jnp.tri`.
#[track_caller]
pub fn tri(n: usize, m: impl Into<Option<usize>>, k: isize) -> Tensor {
    let _line = crate::core::user_line();
    let shape = [n, m.into().unwrap_or(n)];
    let mask = lax::le(&col_minus_row(&shape), &scalar_tensor(k as f64, DType::I32));
    astype(mask, Kind::Float.default_dtype())
}

/// `m` with `mask` over its last two dimensions kept, zeros elsewhere.
#[track_caller]
fn triangle(what: &str, m: Tensor, below: bool, k: isize) -> Tensor {
    if m.ndim() < 2 {
        panic!(
            "{what}: needs an array of rank 2 or more, got shape {:?}\n  at {}",
            m.shape(),
            std::panic::Location::caller()
        );
    }
    let d = col_minus_row(m.shape());
    let k = scalar_tensor(k as f64, DType::I32);
    let keep = if below {
        lax::le(&d, &k)
    } else {
        lax::ge(&d, &k)
    };
    let zero = lax::broadcast_in_dim(&scalar_tensor(0.0, m.dtype()), m.shape(), &[]);
    lax::select_n(&keep, &[zero, m])
}

/// The lower triangle of (the last two dimensions of) `m`: elements at and below the `k`-th
/// diagonal kept, the others zero.
#[track_caller]
pub fn tril(m: impl Into<Operand>, k: isize) -> Tensor {
    let _line = crate::core::user_line();
    triangle("tril", m.into().into_tensor(), true, k)
}

/// The upper triangle of (the last two dimensions of) `m`: elements at and above the `k`-th
/// diagonal kept, the others zero.
#[track_caller]
pub fn triu(m: impl Into<Operand>, k: isize) -> Tensor {
    let _line = crate::core::user_line();
    triangle("triu", m.into().into_tensor(), false, k)
}

/// Row and column indices (concrete `i32` vectors, row-major order) of an `n x m` matrix's
/// elements on one side of the `k`-th diagonal.
fn tri_indices(n: usize, k: isize, m: usize, below: bool) -> (Tensor, Tensor) {
    let (mut rows, mut cols) = (Vec::new(), Vec::new());
    for r in 0..n as i32 {
        for c in 0..m as i32 {
            let d = (c - r) as isize;
            if (below && d <= k) || (!below && d >= k) {
                rows.push(r);
                cols.push(c);
            }
        }
    }
    let len = rows.len();
    (array(&rows, &[len]), array(&cols, &[len]))
}

/// The indices of the lower triangle (at and below the `k`-th diagonal) of an `n x m`
/// matrix (`m` `None`: square), as `jnp.tril_indices`: rows, then columns.
#[track_caller]
pub fn tril_indices(n: usize, k: isize, m: impl Into<Option<usize>>) -> (Tensor, Tensor) {
    let _line = crate::core::user_line();
    tri_indices(n, k, m.into().unwrap_or(n), true)
}

/// The indices of the upper triangle (at and above the `k`-th diagonal) of an `n x m`
/// matrix (`m` `None`: square), as `jnp.triu_indices`.
#[track_caller]
pub fn triu_indices(n: usize, k: isize, m: impl Into<Option<usize>>) -> (Tensor, Tensor) {
    let _line = crate::core::user_line();
    tri_indices(n, k, m.into().unwrap_or(n), false)
}

/// [`tril_indices`] for the shape of the matrix `arr`.
#[track_caller]
pub fn tril_indices_from(arr: &Tensor, k: isize) -> (Tensor, Tensor) {
    let _line = crate::core::user_line();
    let s = matrix_shape("tril_indices_from", arr);
    tri_indices(s.0, k, s.1, true)
}

/// [`triu_indices`] for the shape of the matrix `arr`.
#[track_caller]
pub fn triu_indices_from(arr: &Tensor, k: isize) -> (Tensor, Tensor) {
    let _line = crate::core::user_line();
    let s = matrix_shape("triu_indices_from", arr);
    tri_indices(s.0, k, s.1, false)
}

#[track_caller]
fn matrix_shape(what: &str, arr: &Tensor) -> (usize, usize) {
    match arr.shape() {
        &[n, m] => (n, m),
        s => panic!(
            "{what}: needs a matrix, got shape {s:?}\n  at {}",
            std::panic::Location::caller()
        ),
    }
}
