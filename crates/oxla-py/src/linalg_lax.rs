//! `oxla.lax.linalg`'s decompositions and solves, and `lax`'s complex-number primitives
//! (`complex`, `real`, `imag`, `conj`), in `_oxla.linalg.lax`.

use oxla::lax;
use pyo3::prelude::*;

use crate::array::Array;
use crate::convert::tensor;
use crate::convert::Arg;
use crate::errors::guard;
use crate::linalg::{flag_unset, only_defaults};

/// `lax.linalg.cholesky(x, *, symmetrize_input=True)`: the lower Cholesky factor (NaN for
/// a matrix that is not positive definite).
#[pyfunction]
#[pyo3(signature = (x, *, symmetrize_input=true))]
fn cholesky(x: Arg, symmetrize_input: bool) -> PyResult<Array> {
    guard(|| Ok(Array(lax::cholesky(&tensor(&x), symmetrize_input))))
}

/// `lax.linalg.triangular_solve(a, b, *, left_side=False, lower=False, transpose_a=False,
/// conjugate_a=False, unit_diagonal=False)`: `X` with `op(a) X = b` or `X op(a) = b`.
#[pyfunction]
#[pyo3(signature = (
    a, b, *, left_side=false, lower=false, transpose_a=false, conjugate_a=false,
    unit_diagonal=false
))]
fn triangular_solve(
    a: Arg,
    b: Arg,
    left_side: bool,
    lower: bool,
    transpose_a: bool,
    conjugate_a: bool,
    unit_diagonal: bool,
) -> PyResult<Array> {
    guard(|| {
        Ok(Array(lax::triangular_solve(
            &tensor(&a),
            &tensor(&b),
            left_side,
            lower,
            transpose_a,
            conjugate_a,
            unit_diagonal,
        )))
    })
}

/// `lax.linalg.lu(x)`: `(lu, pivots, permutation)` of the LU decomposition with partial
/// pivoting.
#[pyfunction]
fn lu(x: Arg) -> PyResult<(Array, Array, Array)> {
    let (lu, p, q) = guard(|| Ok(lax::lu(&tensor(&x))))?;
    Ok((Array(lu), Array(p), Array(q)))
}

/// `lax.linalg.qr(x, *, pivoting=False, full_matrices=True, use_magma=None)`: `(q, r)`
/// (`use_magma` picks a GPU library in JAX and changes nothing here).
#[pyfunction]
#[pyo3(signature = (x, *, pivoting=false, full_matrices=true, use_magma=None))]
fn qr(
    x: Arg,
    pivoting: bool,
    full_matrices: bool,
    use_magma: Option<bool>,
) -> PyResult<(Array, Array)> {
    flag_unset("lax.linalg.qr", "pivoting", pivoting)?;
    let _ = use_magma;
    let (q, r) = guard(|| Ok(lax::qr(&tensor(&x), full_matrices)))?;
    Ok((Array(q), Array(r)))
}

/// `lax.linalg.eigh(x, *, lower=True, symmetrize_input=True, sort_eigenvalues=True,
/// subset_by_index=None, implementation=None)`: `(v, w)`, the eigenvectors (columns) and
/// the eigenvalues, always ascending.
#[pyfunction]
#[pyo3(signature = (
    x, *, lower=true, symmetrize_input=true, sort_eigenvalues=true, subset_by_index=None,
    implementation=None
))]
fn eigh(
    x: Arg,
    lower: bool,
    symmetrize_input: bool,
    sort_eigenvalues: bool,
    subset_by_index: Option<&Bound<'_, PyAny>>,
    implementation: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Array, Array)> {
    // Unsorted eigenvalues come in an order JAX leaves unspecified: ascending is one.
    let _ = sort_eigenvalues;
    only_defaults(
        "lax.linalg.eigh",
        &[
            ("subset_by_index", subset_by_index),
            ("implementation", implementation),
        ],
    )?;
    let (v, w) = guard(|| Ok(lax::eigh(&tensor(&x), lower, symmetrize_input)))?;
    Ok((Array(v), Array(w)))
}

/// `lax.linalg.svd(x, *, full_matrices=True, compute_uv=True, subset_by_index=None,
/// algorithm=None)`: `(u, s, vh)`, or `s` alone without `compute_uv`.
#[pyfunction]
#[pyo3(signature = (x, *, full_matrices=true, compute_uv=true, subset_by_index=None, algorithm=None))]
fn svd(
    py: Python<'_>,
    x: Arg,
    full_matrices: bool,
    compute_uv: bool,
    subset_by_index: Option<&Bound<'_, PyAny>>,
    algorithm: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyObject> {
    only_defaults(
        "lax.linalg.svd",
        &[
            ("subset_by_index", subset_by_index),
            ("algorithm", algorithm),
        ],
    )?;
    let mut out = guard(|| Ok(lax::svd(&tensor(&x), full_matrices, compute_uv)))?;
    if !compute_uv {
        return Ok(Array(out.remove(0)).into_pyobject(py)?.into_any().unbind());
    }
    let vh = Array(out.pop().expect("three results"));
    let s = Array(out.pop().expect("three results"));
    let u = Array(out.pop().expect("three results"));
    Ok((u, s, vh).into_pyobject(py)?.into_any().unbind())
}

/// `lax.complex(x, y)`: the complex number `x + i y` (operands of one float dtype).
#[pyfunction]
fn complex(x: Arg, y: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(lax::complex(&tensor(&x), &tensor(&y)))))
}

/// `lax.real(x)`: the real part of a complex array.
#[pyfunction]
fn real(x: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(lax::real(&tensor(&x)))))
}

/// `lax.imag(x)`: the imaginary part of a complex array.
#[pyfunction]
fn imag(x: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(lax::imag(&tensor(&x)))))
}

/// `lax.conj(x)`: the complex conjugate.
#[pyfunction]
fn conj(x: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(lax::conj(&tensor(&x)))))
}

/// Adds `_oxla.linalg.lax` to `_oxla.linalg`.
pub(crate) fn register(linalg: &Bound<'_, PyModule>) -> PyResult<()> {
    let sub = PyModule::new(linalg.py(), "lax")?;
    sub.add_function(wrap_pyfunction!(cholesky, &sub)?)?;
    sub.add_function(wrap_pyfunction!(triangular_solve, &sub)?)?;
    sub.add_function(wrap_pyfunction!(lu, &sub)?)?;
    sub.add_function(wrap_pyfunction!(qr, &sub)?)?;
    sub.add_function(wrap_pyfunction!(eigh, &sub)?)?;
    sub.add_function(wrap_pyfunction!(svd, &sub)?)?;
    sub.add_function(wrap_pyfunction!(complex, &sub)?)?;
    sub.add_function(wrap_pyfunction!(real, &sub)?)?;
    sub.add_function(wrap_pyfunction!(imag, &sub)?)?;
    sub.add_function(wrap_pyfunction!(conj, &sub)?)?;
    linalg.add_submodule(&sub)
}
