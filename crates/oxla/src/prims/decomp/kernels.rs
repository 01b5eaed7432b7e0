//! The kernels: each matrix of the batch is factored by `faer` (the LU factorisation of a
//! small matrix by the loop of `small`), the batch in parallel (rayon), and the pieces are
//! gathered into the row-major results.

use faer::linalg::triangular_solve as tri;
use faer::{MatMut, MatRef, Par, Side};
use faer_traits::RealField;
use rayon::prelude::*;

use super::small::{self, Real, SMALL};
use super::LinalgOp;
use crate::array::{Array, Aval, DType, Elem};
use crate::prims::view::new_array;

/// The element types the kernels run on: float32 and float64.
pub(super) trait Float: Elem + RealField + Real {}
impl<T: Elem + RealField + Real> Float for T {}

/// One result of one matrix, row-major.
enum Piece<T> {
    Float(Vec<T>),
    Int(Vec<i32>),
}

fn zero<T: Float>() -> T {
    <T as Elem>::from_f64(0.0)
}

/// The row-major elements of `x`.
fn rows<T: Float>(x: MatRef<'_, T>) -> Vec<T> {
    let (m, n) = (x.nrows(), x.ncols());
    let mut v = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            v.push(*x.get(i, j));
        }
    }
    v
}

/// The row-major elements of `x^T`.
fn rows_t<T: Float>(x: MatRef<'_, T>) -> Vec<T> {
    rows(x.transpose())
}

/// Runs `op` on every matrix of the operands: the batch dimensions lead, the matrices are
/// the last two.
pub(super) fn run<T: Float>(op: LinalgOp, inputs: &[Array], outs: &[Aval]) -> Vec<Array> {
    let x = &inputs[0];
    let r = x.ndim();
    let (m, n) = (x.shape()[r - 2], x.shape()[r - 1]);
    let count: usize = x.shape()[..r - 2].iter().product();
    let a = x.as_slice::<T>();
    let b = inputs.get(1).map(|b| b.as_slice::<T>());
    let b_size = inputs.get(1).map_or(0, |b| {
        let s = b.shape();
        s[s.len() - 2] * s[s.len() - 1]
    });
    let b_dims = inputs.get(1).map_or((0, 0), |b| {
        let s = b.shape();
        (s[s.len() - 2], s[s.len() - 1])
    });
    // One matrix at a time uses faer's own parallelism; a batch runs its matrices in
    // parallel, each on one thread.
    let par = if count > 1 { Par::Seq } else { Par::rayon(0) };
    let one = |i: usize| -> Vec<Piece<T>> {
        let ai = &a[i * m * n..(i + 1) * m * n];
        let mat = MatRef::from_row_major_slice(ai, m, n);
        match op {
            LinalgOp::Cholesky => vec![Piece::Float(cholesky(mat))],
            LinalgOp::TriangularSolve {
                left_side,
                lower,
                transpose_a,
                unit_diagonal,
                ..
            } => {
                let bi = &b.expect("two operands")[i * b_size..(i + 1) * b_size];
                vec![Piece::Float(triangular_solve(
                    mat,
                    bi,
                    b_dims,
                    [left_side, lower, transpose_a, unit_diagonal],
                    par,
                ))]
            }
            LinalgOp::Lu if m.max(n) <= SMALL => {
                let (f, pivots, perm) = small::lu(ai, m, n);
                vec![Piece::Float(f), Piece::Int(pivots), Piece::Int(perm)]
            }
            LinalgOp::Lu => lu(mat),
            LinalgOp::Qr { full_matrices } => qr(mat, full_matrices),
            LinalgOp::Eigh { lower, .. } => eigh(mat, lower),
            LinalgOp::Svd {
                full_matrices,
                compute_uv,
            } => svd(mat, full_matrices, compute_uv),
        }
    };
    let parts: Vec<Vec<Piece<T>>> = if count > 1 {
        (0..count).into_par_iter().map(one).collect()
    } else {
        (0..count).map(one).collect()
    };
    outs.iter()
        .enumerate()
        .map(|(k, aval)| match aval.dtype {
            DType::I32 => new_array::<i32>(&aval.shape, |buf| {
                gather(buf, &parts, k, |p| match p {
                    Piece::Int(v) => v,
                    Piece::Float(_) => unreachable!("an int32 result"),
                })
            }),
            _ => new_array::<T>(&aval.shape, |buf| {
                gather(buf, &parts, k, |p| match p {
                    Piece::Float(v) => v,
                    Piece::Int(_) => unreachable!("a float result"),
                })
            }),
        })
        .collect()
}

/// Copies result `k` of every matrix into `buf`, in batch order.
fn gather<T: Float, E: Copy>(
    buf: &mut [E],
    parts: &[Vec<Piece<T>>],
    k: usize,
    pick: impl Fn(&Piece<T>) -> &Vec<E>,
) {
    let mut at = 0;
    for p in parts {
        let v = pick(&p[k]);
        buf[at..at + v.len()].copy_from_slice(v);
        at += v.len();
    }
}

/// The lower factor, zeros above the diagonal; NaN everywhere when the matrix is not
/// positive definite (as JAX's CPU lowering).
fn cholesky<T: Float>(a: MatRef<'_, T>) -> Vec<T> {
    let n = a.nrows();
    match a.llt(Side::Lower) {
        Ok(f) => rows(f.L()),
        Err(_) => vec![<T as Elem>::from_f64(f64::NAN); n * n],
    }
}

/// `X` with `op(A) X = B` or `X op(A) = B`; `flags` are `[left_side, lower, transpose_a,
/// unit_diagonal]`.
fn triangular_solve<T: Float>(
    a: MatRef<'_, T>,
    b: &[T],
    (bm, bn): (usize, usize),
    [left_side, lower, transpose_a, unit_diagonal]: [bool; 4],
    par: Par,
) -> Vec<T> {
    let mut x = b.to_vec();
    // `op(A)`, and whether it is lower triangular.
    let (t, t_lower) = if transpose_a {
        (a.transpose(), !lower)
    } else {
        (a, lower)
    };
    // `X op(A) = B` is `op(A)^T X^T = B^T`, and `X^T` is `X`'s buffer read column-major.
    let (t, t_lower, rhs) = if left_side {
        (t, t_lower, MatMut::from_row_major_slice_mut(&mut x, bm, bn))
    } else {
        (
            t.transpose(),
            !t_lower,
            MatMut::from_column_major_slice_mut(&mut x, bn, bm),
        )
    };
    match (t_lower, unit_diagonal) {
        (true, false) => tri::solve_lower_triangular_in_place(t, rhs, par),
        (true, true) => tri::solve_unit_lower_triangular_in_place(t, rhs, par),
        (false, false) => tri::solve_upper_triangular_in_place(t, rhs, par),
        (false, true) => tri::solve_unit_upper_triangular_in_place(t, rhs, par),
    }
    x
}

/// The packed factors, LAPACK's row swaps and the permutation.
fn lu<T: Float>(a: MatRef<'_, T>) -> Vec<Piece<T>> {
    let (m, n) = (a.nrows(), a.ncols());
    let k = m.min(n);
    let f = a.partial_piv_lu();
    let (l, u) = (f.L(), f.U());
    let mut packed = vec![zero::<T>(); m * n];
    for i in 0..m {
        for j in 0..n {
            packed[i * n + j] = if j < i {
                if j < k {
                    *l.get(i, j)
                } else {
                    zero()
                }
            } else if i < k {
                *u.get(i, j)
            } else {
                zero()
            };
        }
    }
    // Row `i` of `L U` is row `perm[i]` of `A`.
    let perm: Vec<usize> = f.P().arrays().0.to_vec();
    // The swaps that LAPACK records: at step `i`, row `i` trades places with the row now
    // holding `perm[i]`.
    let mut at: Vec<usize> = (0..m).collect();
    let mut pos: Vec<usize> = (0..m).collect();
    let mut pivots = Vec::with_capacity(k);
    for (i, &p) in perm.iter().enumerate().take(k) {
        let j = pos[p];
        pivots.push(j as i32);
        let other = at[i];
        at.swap(i, j);
        pos[p] = i;
        pos[other] = j;
    }
    vec![
        Piece::Float(packed),
        Piece::Int(pivots),
        Piece::Int(perm.iter().map(|&p| p as i32).collect()),
    ]
}

fn qr<T: Float>(a: MatRef<'_, T>, full_matrices: bool) -> Vec<Piece<T>> {
    let (m, n) = (a.nrows(), a.ncols());
    let f = a.qr();
    let (q, mut r) = if full_matrices {
        (f.compute_Q(), rows(f.R()))
    } else {
        (f.compute_thin_Q(), rows(f.thin_R()))
    };
    // faer's `R` has `min(m, n)` rows; the full one has `m`, the rest zeros.
    if full_matrices {
        r.resize(m * n, zero());
    }
    vec![Piece::Float(rows(q.as_ref())), Piece::Float(r)]
}

fn eigh<T: Float>(a: MatRef<'_, T>, lower: bool) -> Vec<Piece<T>> {
    let n = a.nrows();
    let side = if lower { Side::Lower } else { Side::Upper };
    match a.self_adjoint_eigen(side) {
        Ok(e) => {
            let w: Vec<T> = (0..n).map(|i| *e.S().column_vector().get(i)).collect();
            vec![Piece::Float(rows(e.U())), Piece::Float(w)]
        }
        Err(_) => {
            let nan = <T as Elem>::from_f64(f64::NAN);
            vec![Piece::Float(vec![nan; n * n]), Piece::Float(vec![nan; n])]
        }
    }
}

fn svd<T: Float>(a: MatRef<'_, T>, full_matrices: bool, compute_uv: bool) -> Vec<Piece<T>> {
    let (m, n) = (a.nrows(), a.ncols());
    let k = m.min(n);
    let nan = <T as Elem>::from_f64(f64::NAN);
    if !compute_uv {
        let s = a.singular_values().unwrap_or_else(|_| vec![nan; k]);
        return vec![Piece::Float(s)];
    }
    let f = if full_matrices { a.svd() } else { a.thin_svd() };
    let (um, vn) = if full_matrices { (m, n) } else { (k, k) };
    match f {
        Ok(f) => {
            let s: Vec<T> = (0..k).map(|i| *f.S().column_vector().get(i)).collect();
            vec![
                Piece::Float(s),
                Piece::Float(rows(f.U())),
                Piece::Float(rows_t(f.V())),
            ]
        }
        Err(_) => vec![
            Piece::Float(vec![nan; k]),
            Piece::Float(vec![nan; m * um]),
            Piece::Float(vec![nan; vn * n]),
        ],
    }
}

/// A `Mat` of row-major elements (for the tests of the kernels' conventions).
#[cfg(test)]
fn mat<T: Float>(v: &[T], m: usize, n: usize) -> faer::Mat<T> {
    MatRef::from_row_major_slice(v, m, n).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lu_permutes_rows_and_records_swaps_as_lapack() {
        let a = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0];
        let parts = lu(mat(&a, 3, 3).as_ref());
        let [Piece::Float(packed), Piece::Int(pivots), Piece::Int(perm)] = &parts[..] else {
            panic!("three results")
        };
        // numpy/scipy (LAPACK getrf) of this matrix: pivots [2, 2, 2], perm [2, 0, 1].
        assert_eq!(pivots, &[2, 2, 2]);
        assert_eq!(perm, &[2, 0, 1]);
        assert!((packed[0] - 7.0).abs() < 1e-12);
    }
}
