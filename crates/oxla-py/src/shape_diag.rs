//! Diagonals, triangles and grids (`diagonal`, `diag`, `tril`, `tril_indices`, `indices`,
//! `unravel_index`, `broadcast_arrays`, `identity`), for the `shape` submodule.

use oxla::array::DType;
use oxla::numpy as jnp;
use oxla::Tensor;
use pyo3::exceptions::PyNotImplementedError;
use pyo3::prelude::*;

use crate::array::Array;
use crate::convert::{dtype_arg, tensors, Arg};
use crate::errors::guard;
use crate::transforms::arrays;

/// `t` in `dtype` when one is given.
pub(crate) fn in_dtype(t: Tensor, dtype: Option<DType>) -> Tensor {
    match dtype {
        Some(d) if d != t.dtype() => t.astype(d),
        _ => t,
    }
}

/// `jnp.diagonal(a, offset=0, axis1=0, axis2=1)`: the `offset`-th diagonal of the plane of
/// two axes, along a new last axis.
#[pyfunction]
#[pyo3(signature = (a, offset=0, axis1=0, axis2=1))]
fn diagonal(a: Arg, offset: isize, axis1: isize, axis2: isize) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::diagonal(a.operand(), offset, axis1, axis2))))
}

/// `jnp.diag(v, k=0)`: the `k`-th diagonal of a matrix, or the matrix with vector `v` there.
#[pyfunction]
#[pyo3(signature = (v, k=0))]
fn diag(v: Arg, k: isize) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::diag(v.operand(), k))))
}

/// `jnp.diagflat(v, k=0)`: the matrix with `v` flattened on its `k`-th diagonal.
#[pyfunction]
#[pyo3(signature = (v, k=0))]
fn diagflat(v: Arg, k: isize) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::diagflat(v.operand(), k))))
}

/// `jnp.fill_diagonal(a, val, wrap=False, *, inplace=False)`: `a` with its main diagonal set
/// to `val` (JAX's arrays are immutable: `inplace` must be false).
#[pyfunction]
#[pyo3(signature = (a, val, wrap=false, *, inplace=true))]
fn fill_diagonal(a: Arg, val: Arg, wrap: bool, inplace: bool) -> PyResult<Array> {
    if inplace {
        return Err(PyNotImplementedError::new_err(
            "JAX arrays are immutable, must use inplace=False",
        ));
    }
    if wrap {
        return Err(PyNotImplementedError::new_err(
            "oxla's fill_diagonal takes wrap=False for now",
        ));
    }
    guard(|| Ok(Array(jnp::fill_diagonal(a.operand(), val.operand()))))
}

/// `jnp.tri(N, M=None, k=0, dtype=None)`: ones at and below the `k`-th diagonal.
#[pyfunction]
#[pyo3(signature = (N, M=None, k=0, dtype=None))]
#[allow(non_snake_case)]
fn tri(
    py: Python<'_>,
    N: usize,
    M: Option<usize>,
    k: isize,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let dtype = dtype_arg(py, dtype)?;
    guard(|| Ok(Array(in_dtype(jnp::tri(N, M, k), dtype))))
}

/// `jnp.tril(m, k=0)`: the lower triangle (at and below diagonal `k`), zeros above.
#[pyfunction]
#[pyo3(signature = (m, k=0))]
fn tril(m: Arg, k: isize) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::tril(m.operand(), k))))
}

/// `jnp.triu(m, k=0)`: the upper triangle (at and above diagonal `k`), zeros below.
#[pyfunction]
#[pyo3(signature = (m, k=0))]
fn triu(m: Arg, k: isize) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::triu(m.operand(), k))))
}

/// `jnp.tril_indices(n, k=0, m=None)`: the rows and columns of the lower triangle.
#[pyfunction]
#[pyo3(signature = (n, k=0, m=None))]
fn tril_indices(n: usize, k: isize, m: Option<usize>) -> PyResult<(Array, Array)> {
    guard(|| {
        let (r, c) = jnp::tril_indices(n, k, m);
        Ok((Array(r), Array(c)))
    })
}

/// `jnp.triu_indices(n, k=0, m=None)`: the rows and columns of the upper triangle.
#[pyfunction]
#[pyo3(signature = (n, k=0, m=None))]
fn triu_indices(n: usize, k: isize, m: Option<usize>) -> PyResult<(Array, Array)> {
    guard(|| {
        let (r, c) = jnp::triu_indices(n, k, m);
        Ok((Array(r), Array(c)))
    })
}

/// `jnp.tril_indices_from(arr, k=0)`: `tril_indices` for the shape of `arr`.
#[pyfunction]
#[pyo3(signature = (arr, k=0))]
fn tril_indices_from(arr: Arg, k: isize) -> PyResult<(Array, Array)> {
    guard(|| {
        let (r, c) = jnp::tril_indices_from(&arr.operand().into_tensor(), k);
        Ok((Array(r), Array(c)))
    })
}

/// `jnp.triu_indices_from(arr, k=0)`: `triu_indices` for the shape of `arr`.
#[pyfunction]
#[pyo3(signature = (arr, k=0))]
fn triu_indices_from(arr: Arg, k: isize) -> PyResult<(Array, Array)> {
    guard(|| {
        let (r, c) = jnp::triu_indices_from(&arr.operand().into_tensor(), k);
        Ok((Array(r), Array(c)))
    })
}

/// `jnp.indices(dimensions, dtype=None, sparse=False)`: the index grids of a shape, stacked.
#[pyfunction]
#[pyo3(signature = (dimensions, dtype=None, sparse=false))]
fn indices(
    py: Python<'_>,
    dimensions: Vec<usize>,
    dtype: Option<&Bound<'_, PyAny>>,
    sparse: bool,
) -> PyResult<Array> {
    if sparse {
        return Err(PyNotImplementedError::new_err(
            "oxla's indices takes sparse=False for now",
        ));
    }
    let dtype = dtype_arg(py, dtype)?;
    guard(|| Ok(Array(in_dtype(jnp::indices(&dimensions), dtype))))
}

/// `jnp.unravel_index(indices, shape)`: the coordinates of flat indices.
#[pyfunction]
fn unravel_index(indices: Arg, shape: Vec<usize>) -> PyResult<Vec<Array>> {
    guard(|| Ok(arrays(jnp::unravel_index(indices.operand(), &shape))))
}

/// `jnp.broadcast_arrays(*args)`: the arrays broadcast to one shape.
#[pyfunction]
#[pyo3(signature = (*args))]
fn broadcast_arrays(args: Vec<Arg>) -> PyResult<Vec<Array>> {
    guard(|| Ok(arrays(jnp::broadcast_arrays(&tensors(args)))))
}

/// `jnp.identity(n, dtype=None)`: the `n x n` identity.
#[pyfunction]
#[pyo3(signature = (n, dtype=None))]
fn identity(py: Python<'_>, n: usize, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
    let dtype = dtype_arg(py, dtype)?;
    guard(|| Ok(Array(in_dtype(jnp::identity(n), dtype))))
}

/// Adds this file's functions to the `shape` submodule.
pub(crate) fn register(sub: &Bound<'_, PyModule>) -> PyResult<()> {
    sub.add_function(wrap_pyfunction!(diagonal, sub)?)?;
    sub.add_function(wrap_pyfunction!(diag, sub)?)?;
    sub.add_function(wrap_pyfunction!(diagflat, sub)?)?;
    sub.add_function(wrap_pyfunction!(fill_diagonal, sub)?)?;
    sub.add_function(wrap_pyfunction!(tri, sub)?)?;
    sub.add_function(wrap_pyfunction!(tril, sub)?)?;
    sub.add_function(wrap_pyfunction!(triu, sub)?)?;
    sub.add_function(wrap_pyfunction!(tril_indices, sub)?)?;
    sub.add_function(wrap_pyfunction!(triu_indices, sub)?)?;
    sub.add_function(wrap_pyfunction!(tril_indices_from, sub)?)?;
    sub.add_function(wrap_pyfunction!(triu_indices_from, sub)?)?;
    sub.add_function(wrap_pyfunction!(indices, sub)?)?;
    sub.add_function(wrap_pyfunction!(unravel_index, sub)?)?;
    sub.add_function(wrap_pyfunction!(broadcast_arrays, sub)?)?;
    sub.add_function(wrap_pyfunction!(identity, sub)?)?;
    Ok(())
}
