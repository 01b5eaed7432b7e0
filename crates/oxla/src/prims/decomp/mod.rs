//! The dense decompositions of `jax.lax.linalg` — `cholesky`, `triangular_solve`, `lu`,
//! `qr`, `eigh`, `svd` — on the `faer` crate. Each works on the last two dimensions of its
//! operands, the dimensions before them being a batch (a parallel loop over the matrices).

mod kernels;
mod small;

use std::fmt;

use super::arity;
use super::pyfmt::py_bool;
use crate::array::{Array, Aval, DType};

/// One of the decompositions, with its parameters as JAX's primitive holds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LinalgOp {
    /// `cholesky`: the lower Cholesky factor `L` of `A = L L^T` (zeros above the diagonal;
    /// all NaN where `A` is not positive definite). Reads the lower triangle of `A`.
    Cholesky,
    /// `triangular_solve`: `X` with `op(A) X = B` (`left_side`) or `X op(A) = B`, where
    /// `op(A)` is `A` or its transpose, reading one triangle of `A`.
    TriangularSolve {
        /// Solve `op(A) X = B` rather than `X op(A) = B`.
        left_side: bool,
        /// Read the lower triangle of `A` (else the upper).
        lower: bool,
        /// `op(A) = A^T`.
        transpose_a: bool,
        /// Conjugate `A` (no effect for real dtypes).
        conjugate_a: bool,
        /// Take the diagonal of `A` as ones, unread.
        unit_diagonal: bool,
    },
    /// `lu`: LU with partial pivoting, `A[perm] = L U`: the packed factors (`L` strictly
    /// below the diagonal, unit diagonal implied, `U` on and above), LAPACK's row swaps
    /// (`pivots`, int32) and the permutation (`perm`, int32).
    Lu,
    /// `qr`: `A = Q R`, `Q` orthogonal, `R` upper triangular.
    Qr {
        /// `Q` is `[m, m]` and `R` `[m, n]` (else `[m, k]` and `[k, n]`, `k = min(m, n)`).
        full_matrices: bool,
    },
    /// `eigh`: eigenvectors `V` (columns) and eigenvalues `w` (ascending) of a symmetric
    /// matrix, reading one triangle.
    Eigh {
        /// Read the lower triangle (else the upper).
        lower: bool,
        /// Sort the eigenvalues ascending (always done here).
        sort_eigenvalues: bool,
    },
    /// `svd`: singular values `s` (descending), and, with `compute_uv`, `U` and `V^T` with
    /// `A = U diag(s) V^T`.
    Svd {
        /// `U` is `[m, m]` and `V^T` `[n, n]` (else `[m, k]` and `[k, n]`).
        full_matrices: bool,
        /// Return `U` and `V^T` after `s`.
        compute_uv: bool,
    },
}

impl LinalgOp {
    /// The primitive's name as JAX prints it.
    pub fn name(self) -> &'static str {
        match self {
            LinalgOp::Cholesky => "cholesky",
            LinalgOp::TriangularSolve { .. } => "triangular_solve",
            LinalgOp::Lu => "lu",
            LinalgOp::Qr { .. } => "qr",
            LinalgOp::Eigh { .. } => "eigh",
            LinalgOp::Svd { .. } => "svd",
        }
    }

    /// The parameters as JAX prints them, sorted by name.
    pub(crate) fn params(self) -> Vec<(&'static str, String)> {
        let none = || "None".to_string();
        match self {
            LinalgOp::Cholesky | LinalgOp::Lu => vec![],
            LinalgOp::TriangularSolve {
                left_side,
                lower,
                transpose_a,
                conjugate_a,
                unit_diagonal,
            } => vec![
                ("conjugate_a", py_bool(conjugate_a)),
                ("left_side", py_bool(left_side)),
                ("lower", py_bool(lower)),
                ("transpose_a", py_bool(transpose_a)),
                ("unit_diagonal", py_bool(unit_diagonal)),
            ],
            LinalgOp::Qr { full_matrices } => vec![
                ("full_matrices", py_bool(full_matrices)),
                ("pivoting", py_bool(false)),
                ("use_magma", none()),
            ],
            LinalgOp::Eigh {
                lower,
                sort_eigenvalues,
            } => vec![
                ("algorithm", none()),
                ("lower", py_bool(lower)),
                ("sort_eigenvalues", py_bool(sort_eigenvalues)),
                ("subset_by_index", none()),
            ],
            LinalgOp::Svd {
                full_matrices,
                compute_uv,
            } => vec![
                ("algorithm", none()),
                ("compute_uv", py_bool(compute_uv)),
                ("full_matrices", py_bool(full_matrices)),
                ("subset_by_index", none()),
            ],
        }
    }
}

impl fmt::Display for LinalgOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `shape[..-2] ++ tail`.
fn with_tail(shape: &[usize], tail: &[usize]) -> Vec<usize> {
    let mut s = shape[..shape.len() - 2].to_vec();
    s.extend_from_slice(tail);
    s
}

/// The last two dimensions of a float32/float64 operand of rank 2 or more.
fn matrix_dims(x: &Aval) -> Result<(usize, usize), String> {
    if !matches!(x.dtype, DType::F32 | DType::F64) {
        return Err(format!("needs a float32 or float64 operand, got {x}"));
    }
    if x.ndim() < 2 {
        return Err(format!(
            "needs an operand of rank 2 or more (a batch of matrices), got {x}"
        ));
    }
    Ok((x.shape[x.ndim() - 2], x.shape[x.ndim() - 1]))
}

fn square(x: &Aval) -> Result<usize, String> {
    let (m, n) = matrix_dims(x)?;
    if m != n {
        return Err(format!("needs square matrices, got {x}"));
    }
    Ok(n)
}

/// The shape rule.
pub(crate) fn rule(op: LinalgOp, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    let mats = |tails: &[&[usize]], dtypes: &[DType]| {
        let x = &inputs[0];
        tails
            .iter()
            .zip(dtypes)
            .map(|(t, &d)| Aval::new(d, &with_tail(&x.shape, t)))
            .collect::<Vec<_>>()
    };
    if let LinalgOp::TriangularSolve { left_side, .. } = op {
        arity(inputs, 2)?;
        let (a, b) = (&inputs[0], &inputs[1]);
        let m = square(a)?;
        matrix_dims(b)?;
        let k = if left_side {
            b.ndim() - 2
        } else {
            b.ndim() - 1
        };
        if a.dtype != b.dtype
            || a.ndim() != b.ndim()
            || a.shape[..a.ndim() - 2] != b.shape[..b.ndim() - 2]
            || b.shape[k] != m
        {
            return Err(format!(
                "needs a of shape [..., m, m] and b of shape [..., m, n] ({}) of one dtype \
                 and batch, got {a} and {b}",
                if left_side {
                    "left_side"
                } else {
                    "[..., n, m] when not left_side"
                }
            ));
        }
        return Ok(vec![b.clone()]);
    }
    arity(inputs, 1)?;
    let x = &inputs[0];
    let (m, n) = matrix_dims(x)?;
    let k = m.min(n);
    let dt = x.dtype;
    Ok(match op {
        LinalgOp::Cholesky => {
            square(x)?;
            vec![x.clone()]
        }
        LinalgOp::TriangularSolve { .. } => unreachable!("handled above"),
        LinalgOp::Lu => mats(&[&[m, n], &[k], &[m]], &[dt, DType::I32, DType::I32]),
        LinalgOp::Qr { full_matrices } => {
            let q = if full_matrices { m } else { k };
            mats(&[&[m, q], &[q, n]], &[dt, dt])
        }
        LinalgOp::Eigh { .. } => {
            square(x)?;
            mats(&[&[n, n], &[n]], &[dt, dt])
        }
        LinalgOp::Svd {
            full_matrices,
            compute_uv,
        } => {
            if !compute_uv {
                mats(&[&[k]], &[dt])
            } else if full_matrices {
                mats(&[&[k], &[m, m], &[n, n]], &[dt, dt, dt])
            } else {
                mats(&[&[k], &[m, k], &[k, n]], &[dt, dt, dt])
            }
        }
    })
}

/// The eager kernel.
pub(crate) fn eval(op: LinalgOp, inputs: &[Array]) -> Vec<Array> {
    let outs = rule(
        op,
        &inputs.iter().map(crate::array::aval_of).collect::<Vec<_>>(),
    )
    .expect("operands passed the shape rule");
    match inputs[0].dtype() {
        DType::F32 => kernels::run::<f32>(op, inputs, &outs),
        DType::F64 => kernels::run::<f64>(op, inputs, &outs),
        d => unreachable!("the shape rule admits float32 and float64, not {d}"),
    }
}

/// The bytes the kernel holds beyond its operands and results: each matrix's results are
/// formed apart and then copied into place (one more copy of the results), and each
/// matrix being factored has a working copy and `faer`'s workspace, about three matrices
/// of its size, on every thread.
pub(crate) fn scratch_bytes(op: LinalgOp, inputs: &[Aval]) -> usize {
    let Ok(outs) = rule(op, inputs) else {
        return 0;
    };
    let results: usize = outs.iter().map(Aval::nbytes).sum();
    let x = &inputs[0];
    let (m, n) = (x.shape[x.ndim() - 2], x.shape[x.ndim() - 1]);
    let batch = x.size() / (m * n).max(1);
    let threads = rayon::current_num_threads().min(batch.max(1));
    let side = m.max(n);
    results + threads * 3 * side * side * x.dtype.size()
}
