//! More products: `tensordot`, `outer`, `inner`, `vdot`, `vecdot`, `kron`, `matvec`,
//! `vecmat`, each one `dot_general` (or a broadcast multiply) on promoted operands.

use super::ops::Dim;
use super::shape::{axis, expand_dims};
use super::{matmul, promote_dtypes, ravel, squeeze, Operand};
use crate::core::Tensor;
use crate::ops as lax;

/// The `axes` of [`tensordot`]: a count (the last `n` axes of `a` with the first `n` of
/// `b`, numpy's `axes=n`), or two lists of axes paired in order (`axes=(a_axes, b_axes)`;
/// a pair of integers pairs one axis each).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TensordotAxes {
    /// The last `n` axes of `a` with the first `n` of `b`.
    Count(usize),
    /// Axes of `a` and axes of `b`, paired in order (negative ones count from the end).
    Pairs(Vec<isize>, Vec<isize>),
}

impl<D: Dim> From<D> for TensordotAxes {
    fn from(n: D) -> TensordotAxes {
        TensordotAxes::Count(n.as_isize().max(0) as usize)
    }
}

impl<A: Dim, B: Dim> From<(A, B)> for TensordotAxes {
    fn from((a, b): (A, B)) -> TensordotAxes {
        TensordotAxes::Pairs(vec![a.as_isize()], vec![b.as_isize()])
    }
}

impl<D: Dim, const N: usize, const M: usize> From<([D; N], [D; M])> for TensordotAxes {
    fn from((a, b): ([D; N], [D; M])) -> TensordotAxes {
        TensordotAxes::Pairs(
            a.iter().map(|d| d.as_isize()).collect(),
            b.iter().map(|d| d.as_isize()).collect(),
        )
    }
}

impl<D: Dim> From<(Vec<D>, Vec<D>)> for TensordotAxes {
    fn from((a, b): (Vec<D>, Vec<D>)) -> TensordotAxes {
        TensordotAxes::Pairs(
            a.iter().map(|d| d.as_isize()).collect(),
            b.iter().map(|d| d.as_isize()).collect(),
        )
    }
}

/// Sum of products over the paired `axes` of `a` and `b` (`jnp.tensordot`; default in numpy
/// `axes=2`): the result has `a`'s other axes, then `b`'s.
///
/// ```
/// use oxla::numpy as jnp;
/// let a = jnp::ones(&[2, 3, 4]);
/// let b = jnp::ones(&[4, 3, 5]);
/// assert_eq!(jnp::tensordot(&a, &b, ([1, 2], [1, 0])).shape(), &[2, 5]);
/// assert_eq!(jnp::tensordot(&a, &b, 1).shape(), &[2, 3, 3, 5]);
/// ```
#[track_caller]
pub fn tensordot(
    a: impl Into<Operand>,
    b: impl Into<Operand>,
    axes: impl Into<TensordotAxes>,
) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("tensordot", &[a.into(), b.into()]);
    let (a, b) = (&t[0], &t[1]);
    let (na, nb) = (a.ndim(), b.ndim());
    let (ca, cb): (Vec<usize>, Vec<usize>) = match axes.into() {
        TensordotAxes::Count(n) => {
            if n > na || n > nb {
                panic!(
                    "tensordot: axes={n} is more than the ranks of shapes {:?} and {:?}\n  at {}",
                    a.shape(),
                    b.shape(),
                    std::panic::Location::caller()
                );
            }
            ((na - n..na).collect(), (0..n).collect())
        }
        TensordotAxes::Pairs(x, y) => {
            if x.len() != y.len() {
                panic!(
                    "tensordot: {} axes of a paired with {} axes of b\n  at {}",
                    x.len(),
                    y.len(),
                    std::panic::Location::caller()
                );
            }
            let (mut ca, mut cb) = (Vec::new(), Vec::new());
            for (&i, &j) in x.iter().zip(&y) {
                ca.push(axis(i, na, "tensordot"));
                cb.push(axis(j, nb, "tensordot"));
            }
            (ca, cb)
        }
    };
    for (&i, &j) in ca.iter().zip(&cb) {
        if a.shape()[i] != b.shape()[j] {
            panic!(
                "tensordot: axis {i} of shape {:?} and axis {j} of shape {:?} differ in size\n  \
                 at {}",
                a.shape(),
                b.shape(),
                std::panic::Location::caller()
            );
        }
    }
    lax::dot_general(a, b, (&ca, &cb), (&[], &[]), Some(a.dtype()))
}

/// The outer product of `a` and `b` flattened: `out[i, j] = a[i] * b[j]`.
#[track_caller]
pub fn outer(a: impl Into<Operand>, b: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("outer", &[a.into(), b.into()]);
    let (a, b) = (ravel(&t[0]), ravel(&t[1]));
    let shape = [a.shape()[0], b.shape()[0]];
    lax::mul(
        &lax::broadcast_in_dim(&a, &shape, &[0]),
        &lax::broadcast_in_dim(&b, &shape, &[1]),
    )
}

/// The inner product over the last axes of `a` and `b` (a product if either is a scalar).
#[track_caller]
pub fn inner(a: impl Into<Operand>, b: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("inner", &[a.into(), b.into()]);
    if t[0].ndim() == 0 || t[1].ndim() == 0 {
        return super::multiply(&t[0], &t[1]);
    }
    tensordot(&t[0], &t[1], (-1, -1))
}

/// The dot product of `a` and `b` flattened (of equal sizes), a scalar; a complex `a` is
/// conjugated first, as numpy's is.
#[track_caller]
pub fn vdot(a: impl Into<Operand>, b: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("vdot", &[a.into(), b.into()]);
    let (a, b) = (ravel(super::conj(&t[0])), ravel(&t[1]));
    if a.size() != b.size() {
        panic!(
            "vdot: operands of sizes {} and {} (flattened) differ\n  at {}",
            t[0].size(),
            t[1].size(),
            std::panic::Location::caller()
        );
    }
    lax::dot_general(&a, &b, (&[0], &[0]), (&[], &[]), Some(a.dtype()))
}

/// The dot product of vectors along `axis` (negative counts from the end, as `axis=-1`),
/// the other dimensions broadcast: `sum(conj(a) * b, axis)`.
#[track_caller]
pub fn vecdot(a: impl Into<Operand>, b: impl Into<Operand>, axis_: isize) -> Tensor {
    let _line = crate::core::user_line();
    let t = super::promote("vecdot", &[a.into(), b.into()]);
    let (na, nb) = (t[0].ndim(), t[1].ndim());
    let (ia, ib) = (axis(axis_, na, "vecdot"), axis(axis_, nb, "vecdot"));
    if t[0].shape()[ia] != t[1].shape()[ib] {
        panic!(
            "vecdot: shapes {:?} and {:?} differ along axis {axis_}\n  at {}",
            t[0].shape(),
            t[1].shape(),
            std::panic::Location::caller()
        );
    }
    let a = super::moveaxis(super::conj(&t[0]), ia as isize, -1);
    let b = super::moveaxis(&t[1], ib as isize, -1);
    squeeze(matmul(expand_dims(&a, -2), expand_dims(&b, -1)), [-2, -1])
}

/// Matrix-vector products with broadcast batch dimensions: `a` `(..., m, n)`, `v`
/// `(..., n)`, the result `(..., m)`.
#[track_caller]
pub fn matvec(a: impl Into<Operand>, v: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("matvec", &[a.into(), v.into()]);
    if t[0].ndim() < 2 || t[1].ndim() < 1 {
        panic!(
            "matvec: needs a matrix and a vector, got shapes {:?} and {:?}\n  at {}",
            t[0].shape(),
            t[1].shape(),
            std::panic::Location::caller()
        );
    }
    squeeze(matmul(&t[0], expand_dims(&t[1], -1)), -1)
}

/// Vector-matrix products with broadcast batch dimensions: `v` `(..., n)` (conjugated when
/// complex), `a` `(..., n, m)`, the result `(..., m)`.
#[track_caller]
pub fn vecmat(v: impl Into<Operand>, a: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("vecmat", &[v.into(), a.into()]);
    if t[1].ndim() < 2 || t[0].ndim() < 1 {
        panic!(
            "vecmat: needs a vector and a matrix, got shapes {:?} and {:?}\n  at {}",
            t[0].shape(),
            t[1].shape(),
            std::panic::Location::caller()
        );
    }
    squeeze(matmul(expand_dims(super::conj(&t[0]), -2), &t[1]), -2)
}

/// The Kronecker product: the block matrix of `a[i, j] * b` (ranks equalised by leading
/// size-1 dimensions).
#[track_caller]
pub fn kron(a: impl Into<Operand>, b: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_dtypes("kron", &[a.into(), b.into()]);
    let n = t[0].ndim().max(t[1].ndim());
    let lift = |x: &Tensor| {
        let mut s = vec![1; n - x.ndim()];
        s.extend_from_slice(x.shape());
        lax::reshape(x, &s)
    };
    let (a, b) = (lift(&t[0]), lift(&t[1]));
    let shape: Vec<usize> = (0..2 * n)
        .map(|d| {
            if d % 2 == 0 {
                a.shape()[d / 2]
            } else {
                b.shape()[d / 2]
            }
        })
        .collect();
    let ea: Vec<usize> = (0..n).map(|d| 2 * d).collect();
    let eb: Vec<usize> = (0..n).map(|d| 2 * d + 1).collect();
    let prod = lax::mul(
        &lax::broadcast_in_dim(&a, &shape, &ea),
        &lax::broadcast_in_dim(&b, &shape, &eb),
    );
    let out: Vec<usize> = (0..n).map(|d| a.shape()[d] * b.shape()[d]).collect();
    lax::reshape(&prod, &out)
}
