//! Solves and inverses: `solve`, `inv`, `det`, `slogdet`, `lstsq`, `pinv`, `matrix_power`.

use super::{matrices, mn, mt, square};
use crate::array::DType;
use crate::core::Tensor;
use crate::numpy::{
    broadcast_to, inexact, matmul, promote_dtypes, scalar_tensor, sum, where_, Operand,
};
use crate::ops as lax;
use crate::prims::{broadcast_shapes, GatherDims, GatherMode, ReduceOp};

/// Rows of `b` (`[..., n, k]`) in the order `perm` (`[..., n]`, int32) gives.
fn take_rows(b: &Tensor, perm: &Tensor) -> Tensor {
    let r = b.ndim();
    let rows = lax::broadcast_in_dim(perm, b.shape(), &(0..r - 1).collect::<Vec<_>>());
    let mut shape = b.shape().to_vec();
    shape.push(1);
    let idx = lax::reshape(&rows, &shape);
    let others: Vec<usize> = (0..r).filter(|&d| d != r - 2).collect();
    let dims = GatherDims {
        offset_dims: vec![],
        collapsed_slice_dims: vec![r - 2],
        start_index_map: vec![r - 2],
        operand_batching_dims: others.clone(),
        start_indices_batching_dims: others,
    };
    lax::gather(b, &idx, dims, &vec![1; r], GatherMode::PromiseInBounds)
}

/// `X` with `a X = b` for square `a` `[..., n, n]` and `b` `[..., n, k]` of one batch: LU
/// with partial pivoting, then two triangular solves.
fn lu_solve(a: &Tensor, b: &Tensor) -> Tensor {
    let (lu, _, perm) = lax::lu(a);
    let pb = take_rows(b, &perm);
    let y = lax::triangular_solve(&lu, &pb, true, true, false, false, true);
    lax::triangular_solve(&lu, &y, true, false, false, false, false)
}

/// The solution `x` of `a @ x = b` (`jnp.linalg.solve`): `a` `[..., n, n]`; `b` `[n]` (a
/// vector, `x` `[..., n]`) or `[..., n, k]`, the batch dimensions broadcast.
///
/// ```
/// use oxla::numpy as jnp;
/// let a = jnp::array(&[2.0f32, 0.0, 0.0, 4.0], &[2, 2]);
/// let x = jnp::linalg::solve(&a, jnp::array(&[2.0f32, 8.0], &[2]));
/// assert_eq!(x.to_vec::<f32>(), vec![1.0, 2.0]);
/// ```
#[track_caller]
pub fn solve(a: impl Into<Operand>, b: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("solve", &[a.into(), b.into()]);
    let a = square(t[0].clone(), "solve");
    let b = inexact(&t[1]);
    let r = a.ndim();
    let n = a.shape()[r - 1];
    let vector = b.ndim() == 1;
    let b = if vector { lax::reshape(&b, &[n, 1]) } else { b };
    let bad = || -> ! {
        panic!(
            "jnp.linalg.solve: b must be [n] or [..., n, k] for a of shape [..., n, n], got \
             {:?} and {:?}\n  at {}",
            a.shape(),
            b.shape(),
            std::panic::Location::caller()
        )
    };
    if b.ndim() < 2 || b.shape()[b.ndim() - 2] != n {
        bad();
    }
    let batch =
        broadcast_shapes(&a.shape()[..r - 2], &b.shape()[..b.ndim() - 2]).unwrap_or_else(|| bad());
    let k = b.shape()[b.ndim() - 1];
    let full = |tail: &[usize]| {
        let mut s = batch.clone();
        s.extend_from_slice(tail);
        s
    };
    let a = broadcast_to(&a, &full(&[n, n]));
    let b = broadcast_to(&b, &full(&[n, k]));
    let x = lu_solve(&a, &b);
    if vector {
        lax::reshape(&x, &full(&[n]))
    } else {
        x
    }
}

/// The inverse of square matrices (`jnp.linalg.inv`), by `solve` against the identity.
///
/// ```
/// use oxla::numpy as jnp;
/// let x = jnp::linalg::inv(jnp::array(&[2.0f32, 0.0, 0.0, 4.0], &[2, 2]));
/// assert_eq!(x.to_vec::<f32>(), vec![0.5, 0.0, 0.0, 0.25]);
/// ```
#[track_caller]
pub fn inv(a: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let a = square(a.into().into_tensor(), "inv");
    let n = a.shape()[a.ndim() - 1];
    let eye = lax::convert_element_type(&crate::numpy::eye(n), a.dtype());
    let eye = lax::broadcast_in_dim(&eye, a.shape(), &[a.ndim() - 2, a.ndim() - 1]);
    lu_solve(&a, &eye)
}

/// `(diag, is_zero, odd)` of the LU decomposition: `U`'s diagonal, whether any of it is
/// zero, and whether the row swaps and negative pivots together are odd in number.
fn lu_parts(a: &Tensor) -> (Tensor, Tensor, Tensor) {
    let (lu, pivots, _) = lax::lu(a);
    let r = lu.ndim();
    let n = lu.shape()[r - 1];
    let diag = super::diagonal(&lu, 0);
    let zero = scalar_tensor(0.0, a.dtype());
    let is_zero = lax::reduce(&lax::eq(&diag, &zero), ReduceOp::Or, &[r - 2]);
    let iota = lax::broadcast_in_dim(&lax::iota(DType::I32, &[n], 0), pivots.shape(), &[r - 2]);
    let count = |b: &Tensor| {
        lax::reduce(
            &lax::convert_element_type(b, DType::I32),
            ReduceOp::Sum,
            &[r - 2],
        )
    };
    let swaps = lax::add(
        &count(&lax::ne(&pivots, &iota)),
        &count(&lax::lt(&diag, &zero)),
    );
    let odd = lax::eq(
        &lax::rem(&swaps, &scalar_tensor(2.0, DType::I32)),
        &scalar_tensor(1.0, DType::I32),
    );
    (diag, is_zero, odd)
}

/// The sign and natural log of the absolute determinant (`jnp.linalg.slogdet`), by LU:
/// `(sign, logabsdet)`, `(0, -inf)` for a singular matrix.
///
/// ```
/// use oxla::numpy as jnp;
/// let (sign, logdet) = jnp::linalg::slogdet(jnp::array(&[0.0f32, 2.0, 3.0, 0.0], &[2, 2]));
/// assert_eq!(sign.item(), -1.0);
/// assert!((logdet.item() - 6f64.ln()).abs() < 1e-6);
/// ```
#[track_caller]
pub fn slogdet(a: impl Into<Operand>) -> (Tensor, Tensor) {
    let _line = crate::core::user_line();
    let a = square(a.into().into_tensor(), "slogdet");
    let (diag, is_zero, odd) = lu_parts(&a);
    let dt = a.dtype();
    let sign = where_(&is_zero, 0.0, where_(&odd, -1.0, 1.0).astype(dt)).astype(dt);
    let logdet = sum(lax::log(&lax::abs(&diag)), -1);
    let logdet = where_(&is_zero, f64::NEG_INFINITY, &logdet);
    (sign, logdet)
}

/// The determinant of square matrices (`jnp.linalg.det`): the product of `U`'s diagonal of
/// the LU decomposition, negated for an odd number of row swaps.
///
/// ```
/// use oxla::numpy as jnp;
/// let d = jnp::linalg::det(jnp::array(&[0.0f32, 2.0, 3.0, 0.0], &[2, 2]));
/// assert_eq!(d.item(), -6.0);
/// ```
#[track_caller]
pub fn det(a: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let a = square(a.into().into_tensor(), "det");
    let (lu, pivots, _) = lax::lu(&a);
    let r = lu.ndim();
    let n = lu.shape()[r - 1];
    let prod = lax::reduce(&super::diagonal(&lu, 0), ReduceOp::Prod, &[r - 2]);
    let iota = lax::broadcast_in_dim(&lax::iota(DType::I32, &[n], 0), pivots.shape(), &[r - 2]);
    let swaps = lax::reduce(
        &lax::convert_element_type(&lax::ne(&pivots, &iota), DType::I32),
        ReduceOp::Sum,
        &[r - 2],
    );
    let odd = lax::eq(
        &lax::rem(&swaps, &scalar_tensor(2.0, DType::I32)),
        &scalar_tensor(1.0, DType::I32),
    );
    where_(&odd, lax::neg(&prod), &prod)
}

/// The least-squares solution of `a @ x = b` (`jnp.linalg.lstsq`, 2-D `a` `[m, n]`, `b`
/// `[m]` or `[m, k]`): `(x, resid, rank, s)` — the solution, the squared residual norms
/// of `b`'s columns, the rank (singular values above `rcond` times the largest; default
/// `eps * max(m, n)`) and the singular values.
///
/// ```
/// use oxla::numpy as jnp;
/// let a = jnp::array(&[1.0f32, 0.0, 0.0, 1.0, 0.0, 0.0], &[3, 2]);
/// let (x, _, rank, _) = jnp::linalg::lstsq(&a, jnp::array(&[1.0f32, 2.0, 3.0], &[3]), None);
/// assert_eq!((x.to_vec::<f32>(), rank.item()), (vec![1.0, 2.0], 2.0));
/// ```
#[track_caller]
pub fn lstsq(
    a: impl Into<Operand>,
    b: impl Into<Operand>,
    rcond: Option<f64>,
) -> (Tensor, Tensor, Tensor, Tensor) {
    let _line = crate::core::user_line();
    let t = promote_dtypes("lstsq", &[a.into(), b.into()]);
    let a = matrices(t[0].clone(), "lstsq");
    let b = inexact(&t[1]);
    let (m, n) = mn(&a);
    if a.ndim() != 2 || b.ndim() > 2 || b.ndim() == 0 || b.shape()[0] != m {
        panic!(
            "jnp.linalg.lstsq: needs a [m, n] and b [m] or [m, k], got {:?} and {:?}\n  at {}",
            a.shape(),
            b.shape(),
            std::panic::Location::caller()
        );
    }
    let vector = b.ndim() == 1;
    let b = if vector { lax::reshape(&b, &[m, 1]) } else { b };
    let eps = if a.dtype() == DType::F64 {
        f64::EPSILON
    } else {
        f32::EPSILON as f64
    };
    let rcond = rcond.map_or(eps * m.max(n) as f64, |r| if r < 0.0 { eps } else { r });
    let (u, s, vt) = super::svd(&a, false);
    let k = m.min(n);
    let s0 = lax::slice(&s, &[0], &[1.min(k)], None);
    let cutoff = lax::mul(&s0, &scalar_tensor(rcond, s.dtype()));
    let s0b = lax::broadcast_in_dim(&cutoff, &[k], &[0]);
    let mask = lax::and(
        &lax::gt(&s, &scalar_tensor(0.0, s.dtype())),
        &lax::ge(&s, &s0b),
    );
    let rank = sum(&mask, None);
    let safe = where_(&mask, &s, 1.0);
    let s_inv = where_(&mask, lax::div(&scalar_tensor(1.0, s.dtype()), &safe), 0.0);
    let s_inv = lax::broadcast_in_dim(&s_inv, &[k, b.shape()[1]], &[0]);
    let utb = matmul(mt(&u), &b);
    let x = matmul(mt(&vt), lax::mul(&s_inv, &utb));
    let res = &b - &matmul(&a, &x);
    let resid = sum(&res * &res, 0);
    let x = if vector { lax::reshape(&x, &[n]) } else { x };
    let resid = if vector {
        lax::reshape(&resid, &[])
    } else {
        resid
    };
    (x, resid, rank, s)
}

/// The Moore–Penrose pseudo-inverse (`jnp.linalg.pinv`) by the SVD: singular values at or
/// below `rtol` (default `10 * max(m, n) * eps`) times the largest count as zero.
///
/// ```
/// use oxla::numpy as jnp;
/// let p = jnp::linalg::pinv(jnp::array(&[2.0f32, 0.0], &[2, 1]), None);
/// assert_eq!(p.to_vec::<f32>(), vec![0.5, 0.0]);
/// ```
#[track_caller]
pub fn pinv(a: impl Into<Operand>, rtol: Option<f64>) -> Tensor {
    let _line = crate::core::user_line();
    let a = matrices(a.into().into_tensor(), "pinv");
    let (m, n) = mn(&a);
    let eps = if a.dtype() == DType::F64 {
        f64::EPSILON
    } else {
        f32::EPSILON as f64
    };
    let rtol = rtol.unwrap_or(10.0 * m.max(n) as f64 * eps);
    let (u, s, vh) = super::svd(&a, false);
    let r = s.ndim();
    let k = s.shape()[r - 1];
    let mut top = s.shape().to_vec();
    top[r - 1] = 1.min(k);
    let mut start = vec![0; r];
    start[r - 1] = 0;
    let s0 = lax::slice(&s, &start, &top, None);
    let cutoff = lax::mul(&s0, &scalar_tensor(rtol, s.dtype()));
    let cutoff = lax::broadcast_in_dim(
        &lax::reshape(&cutoff, &s.shape()[..r - 1]),
        s.shape(),
        &(0..r - 1).collect::<Vec<_>>(),
    );
    let s = where_(lax::gt(&s, &cutoff), &s, f64::INFINITY);
    let ut = mt(&u);
    let s = lax::broadcast_in_dim(&s, ut.shape(), &(0..r).collect::<Vec<_>>());
    matmul(mt(&vh), lax::div(&ut, &s))
}

/// `a` raised to the integer power `n` (`jnp.linalg.matrix_power`) by repeated squaring;
/// a negative power inverts first, and `n = 0` gives the identity.
///
/// ```
/// use oxla::numpy as jnp;
/// let a = jnp::array(&[1.0f32, 1.0, 0.0, 1.0], &[2, 2]);
/// assert_eq!(jnp::linalg::matrix_power(&a, 3).to_vec::<f32>(), vec![1.0, 3.0, 0.0, 1.0]);
/// ```
#[track_caller]
pub fn matrix_power(a: impl Into<Operand>, n: i32) -> Tensor {
    let _line = crate::core::user_line();
    let a = square(a.into().into_tensor(), "matrix_power");
    let d = a.shape()[a.ndim() - 1];
    if n == 0 {
        let eye = lax::convert_element_type(&crate::numpy::eye(d), a.dtype());
        return lax::broadcast_in_dim(&eye, a.shape(), &[a.ndim() - 2, a.ndim() - 1]);
    }
    let mut base = if n < 0 { inv(&a) } else { a };
    let mut k = n.unsigned_abs();
    let mut acc: Option<Tensor> = None;
    loop {
        if k & 1 == 1 {
            acc = Some(match acc {
                Some(x) => matmul(&x, &base),
                None => base.clone(),
            });
        }
        k >>= 1;
        if k == 0 {
            break;
        }
        base = matmul(&base, &base);
    }
    acc.expect("n is not zero")
}
