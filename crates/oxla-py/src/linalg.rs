//! `oxla.numpy.linalg`'s decompositions and solves, bound for Python in the `_oxla.linalg`
//! submodule; its norms and helpers are in `linalg_norms.rs`, `lax.linalg` and `lax`'s
//! complex numbers in `linalg_lax.rs` (`_oxla.linalg.lax`), and `oxla.numpy`'s products in
//! `linalg_products.rs` (`_oxla.linalg.products`).

use oxla::numpy::linalg as la;
use oxla::Tensor;
use pyo3::exceptions::{PyNotImplementedError, PyValueError};
use pyo3::prelude::*;

use crate::array::Array;
use crate::convert::{tensor, Arg};
use crate::errors::guard;

/// Raises `NotImplementedError` for each JAX argument given (not `None`) that oxla's
/// `name` cannot honour yet.
pub(crate) fn only_defaults(
    name: &str,
    args: &[(&str, Option<&Bound<'_, PyAny>>)],
) -> PyResult<()> {
    match args.iter().find(|(_, v)| v.is_some_and(|v| !v.is_none())) {
        Some((arg, _)) => Err(PyNotImplementedError::new_err(format!(
            "oxla's {name} does not take {arg}= yet"
        ))),
        None => Ok(()),
    }
}

/// Raises `NotImplementedError` when a JAX flag oxla cannot honour yet is set.
pub(crate) fn flag_unset(name: &str, arg: &str, set: bool) -> PyResult<()> {
    if set {
        return Err(PyNotImplementedError::new_err(format!(
            "oxla's {name} does not take {arg}=True yet"
        )));
    }
    Ok(())
}

/// The conjugate transpose of the last two dimensions.
fn adjoint(x: &Tensor) -> Tensor {
    oxla::numpy::conj(la::matrix_transpose(x))
}

/// `jnp.linalg.cholesky(a, *, upper=False, symmetrize_input=True)`: the Cholesky factor
/// (`L` with `a = L L^H`, or `U = L^H` with `upper`).
#[pyfunction]
#[pyo3(signature = (a, *, upper=false, symmetrize_input=true))]
fn cholesky(a: Arg, upper: bool, symmetrize_input: bool) -> PyResult<Array> {
    guard(|| {
        let l = if symmetrize_input {
            la::cholesky(a.operand())
        } else {
            oxla::lax::cholesky(&tensor(&a), false)
        };
        Ok(Array(if upper { adjoint(&l) } else { l }))
    })
}

/// `jnp.linalg.qr(a, mode="reduced")`: `(Q, R)` (`mode="complete"`: square `Q`;
/// `mode="r"`: `R` alone).
#[pyfunction]
#[pyo3(signature = (a, mode="reduced"))]
fn qr(py: Python<'_>, a: Arg, mode: &str) -> PyResult<PyObject> {
    let (m, r_only) = match mode {
        "reduced" | "complete" => (mode, false),
        "r" => ("reduced", true),
        "raw" => {
            return Err(PyNotImplementedError::new_err(
                "oxla's linalg.qr does not take mode='raw' yet",
            ))
        }
        _ => {
            return Err(PyValueError::new_err(format!(
                "Unsupported QR decomposition mode '{mode}'"
            )))
        }
    };
    let (q, r) = guard(|| Ok(la::qr(a.operand(), m)))?;
    if r_only {
        Ok(Array(r).into_pyobject(py)?.into_any().unbind())
    } else {
        Ok((Array(q), Array(r)).into_pyobject(py)?.into_any().unbind())
    }
}

/// Eigenvalues (ascending) and eigenvectors of symmetric matrices, read from the `lower`
/// triangle (or the upper), symmetrized first with `symmetrize`: `(w, v)`.
fn symmetric_eigen(a: &Arg, uplo: Option<&str>, symmetrize: bool) -> PyResult<(Tensor, Tensor)> {
    let lower = match uplo {
        None | Some("L") => true,
        Some("U") => false,
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "UPLO must be 'L' or 'U', got {other:?}"
            )))
        }
    };
    guard(|| {
        if lower && symmetrize {
            Ok(la::eigh(a.operand()))
        } else {
            let (v, w) = oxla::lax::eigh(&tensor(a), lower, symmetrize);
            Ok((w, v))
        }
    })
}

/// `jnp.linalg.eigh(a, UPLO=None, symmetrize_input=True)`: the eigenvalues (ascending) and
/// unit eigenvectors (columns) of symmetric matrices.
#[pyfunction]
#[pyo3(signature = (a, UPLO=None, symmetrize_input=true))]
#[allow(non_snake_case)]
fn eigh(a: Arg, UPLO: Option<&str>, symmetrize_input: bool) -> PyResult<(Array, Array)> {
    let (w, v) = symmetric_eigen(&a, UPLO, symmetrize_input)?;
    Ok((Array(w), Array(v)))
}

/// `jnp.linalg.eigvalsh(a, UPLO='L', *, symmetrize_input=True)`: the eigenvalues of
/// symmetric matrices, ascending.
#[pyfunction]
#[pyo3(signature = (a, UPLO=Some("L"), *, symmetrize_input=true))]
#[allow(non_snake_case)]
fn eigvalsh(a: Arg, UPLO: Option<&str>, symmetrize_input: bool) -> PyResult<Array> {
    Ok(Array(symmetric_eigen(&a, UPLO, symmetrize_input)?.0))
}

/// `jnp.linalg.svd(a, full_matrices=True, compute_uv=True, hermitian=False,
/// subset_by_index=None)`: `(u, s, vh)` with `a = u diag(s) vh`, or `s` alone.
#[pyfunction]
#[pyo3(signature = (a, full_matrices=true, compute_uv=true, hermitian=false, subset_by_index=None))]
fn svd(
    py: Python<'_>,
    a: Arg,
    full_matrices: bool,
    compute_uv: bool,
    hermitian: bool,
    subset_by_index: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyObject> {
    flag_unset("linalg.svd", "hermitian", hermitian)?;
    only_defaults("linalg.svd", &[("subset_by_index", subset_by_index)])?;
    if !compute_uv {
        let s = guard(|| Ok(la::svdvals(a.operand())))?;
        return Ok(Array(s).into_pyobject(py)?.into_any().unbind());
    }
    let (u, s, vh) = guard(|| Ok(la::svd(a.operand(), full_matrices)))?;
    Ok((Array(u), Array(s), Array(vh))
        .into_pyobject(py)?
        .into_any()
        .unbind())
}

/// `jnp.linalg.svdvals(x, /)`: the singular values, descending.
#[pyfunction]
#[pyo3(signature = (x, /))]
fn svdvals(x: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(la::svdvals(x.operand()))))
}

/// `jnp.linalg.solve(a, b)`: `x` with `a x = b` (`b` a vector or a stack of matrices).
#[pyfunction]
fn solve(a: Arg, b: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(la::solve(a.operand(), b.operand()))))
}

/// `jnp.linalg.inv(a)`: the inverse of square matrices.
#[pyfunction]
fn inv(a: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(la::inv(a.operand()))))
}

/// `jnp.linalg.det(a)`: the determinant of square matrices.
#[pyfunction]
fn det(a: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(la::det(a.operand()))))
}

/// `jnp.linalg.slogdet(a, *, method=None)`: the sign and the log of the magnitude of the
/// determinant (by LU).
#[pyfunction]
#[pyo3(signature = (a, *, method=None))]
fn slogdet(a: Arg, method: Option<&str>) -> PyResult<(Array, Array)> {
    if !matches!(method, None | Some("lu")) {
        return Err(PyNotImplementedError::new_err(format!(
            "oxla's linalg.slogdet takes method='lu' only, not {method:?}"
        )));
    }
    let (s, l) = guard(|| Ok(la::slogdet(a.operand())))?;
    Ok((Array(s), Array(l)))
}

/// `jnp.linalg.lstsq(a, b, rcond=None, *, numpy_resid=False)`: the least-squares solution,
/// residuals, rank and singular values.
#[pyfunction]
#[pyo3(signature = (a, b, rcond=None, *, numpy_resid=false))]
fn lstsq(
    a: Arg,
    b: Arg,
    rcond: Option<f64>,
    numpy_resid: bool,
) -> PyResult<(Array, Array, Array, Array)> {
    flag_unset("linalg.lstsq", "numpy_resid", numpy_resid)?;
    let (x, r, k, s) = guard(|| Ok(la::lstsq(a.operand(), b.operand(), rcond)))?;
    Ok((Array(x), Array(r), Array(k), Array(s)))
}

/// `jnp.linalg.pinv(a, rtol=None, hermitian=False, *, rcond=None)`: the Moore–Penrose
/// pseudo-inverse (`rcond`: numpy's name for `rtol`).
#[pyfunction]
#[pyo3(signature = (a, rtol=None, hermitian=false, *, rcond=None))]
fn pinv(a: Arg, rtol: Option<f64>, hermitian: bool, rcond: Option<f64>) -> PyResult<Array> {
    flag_unset("linalg.pinv", "hermitian", hermitian)?;
    guard(|| Ok(Array(la::pinv(a.operand(), rtol.or(rcond)))))
}

/// `jnp.linalg.matrix_rank(M, rtol=None, *, hermitian=False, tol=None)`: the number of
/// singular values above `rtol` times the largest.
#[pyfunction]
#[pyo3(signature = (M, rtol=None, *, hermitian=false, tol=None))]
#[allow(non_snake_case)]
fn matrix_rank(
    M: Arg,
    rtol: Option<f64>,
    hermitian: bool,
    tol: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    flag_unset("linalg.matrix_rank", "hermitian", hermitian)?;
    only_defaults("linalg.matrix_rank", &[("tol", tol)])?;
    guard(|| Ok(Array(la::matrix_rank(M.operand(), rtol))))
}

/// `jnp.linalg.matrix_power(a, n)`: `a` to the integer power `n` (negative: of the
/// inverse).
#[pyfunction]
fn matrix_power(a: Arg, n: i32) -> PyResult<Array> {
    guard(|| Ok(Array(la::matrix_power(a.operand(), n))))
}

/// Adds `_oxla.linalg` (with its `lax` and `products` submodules) and `_oxla.fft` to the
/// extension module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    crate::fft::register(m)?;
    let sub = PyModule::new(m.py(), "linalg")?;
    sub.add_function(wrap_pyfunction!(cholesky, &sub)?)?;
    sub.add_function(wrap_pyfunction!(qr, &sub)?)?;
    sub.add_function(wrap_pyfunction!(eigh, &sub)?)?;
    sub.add_function(wrap_pyfunction!(eigvalsh, &sub)?)?;
    sub.add_function(wrap_pyfunction!(svd, &sub)?)?;
    sub.add_function(wrap_pyfunction!(svdvals, &sub)?)?;
    sub.add_function(wrap_pyfunction!(solve, &sub)?)?;
    sub.add_function(wrap_pyfunction!(inv, &sub)?)?;
    sub.add_function(wrap_pyfunction!(det, &sub)?)?;
    sub.add_function(wrap_pyfunction!(slogdet, &sub)?)?;
    sub.add_function(wrap_pyfunction!(lstsq, &sub)?)?;
    sub.add_function(wrap_pyfunction!(pinv, &sub)?)?;
    sub.add_function(wrap_pyfunction!(matrix_rank, &sub)?)?;
    sub.add_function(wrap_pyfunction!(matrix_power, &sub)?)?;
    crate::linalg_norms::register(&sub)?;
    crate::linalg_lax::register(&sub)?;
    crate::linalg_products::register(&sub)?;
    m.add_submodule(&sub)
}
