//! numpy's histograms, selection and index helpers (`histogram`,
//! `compress`, `ravel_multi_index`, ...), in the `_oxla.stats` submodule.

use oxla::numpy::{self as jnp, Bins};
use oxla::Tensor;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::array::Array;
use crate::convert::{dtype_arg, tensors, Arg};
use crate::errors::guard;
use crate::stats::size_or_count;
use crate::stats::{opt_tensor, unsupported};

/// A `bins=` argument: a count of equal bins, or the edges.
fn bins_of(bins: &Bound<'_, PyAny>) -> PyResult<Bins> {
    match bins.extract::<usize>() {
        Ok(n) if !bins.is_instance_of::<Array>() => Ok(Bins::Count(n)),
        _ => Ok(Bins::Edges(bins.extract::<Arg>()?.operand().into_tensor())),
    }
}

/// A `range=` argument: `None`, or a `(lower, upper)` sequence.
fn range_of(range: Option<&Bound<'_, PyAny>>) -> PyResult<Option<(f64, f64)>> {
    match range.filter(|r| !r.is_none()) {
        None => Ok(None),
        Some(r) => match r.extract::<Vec<f64>>()?.as_slice() {
            &[lo, hi] => Ok(Some((lo, hi))),
            _ => Err(PyValueError::new_err("range must be a pair (lower, upper)")),
        },
    }
}

/// `jnp.histogram(a, bins=10, range=None, weights=None, density=None)`: the counts (or
/// summed `weights`, or densities) of `a`'s values in each bin, and the bin edges.
#[pyfunction]
#[pyo3(signature = (a, bins=None, range=None, weights=None, density=None))]
fn histogram(
    a: Arg,
    bins: Option<&Bound<'_, PyAny>>,
    range: Option<&Bound<'_, PyAny>>,
    weights: Option<Arg>,
    density: Option<bool>,
) -> PyResult<(Array, Array)> {
    let bins = bins.map_or(Ok(Bins::Count(10)), bins_of)?;
    let range = range_of(range)?;
    let w = opt_tensor(weights);
    let density = density.unwrap_or(false);
    guard(|| {
        let (c, e) = jnp::histogram(a.operand(), bins, range, w.as_ref(), density);
        Ok((Array(c), Array(e)))
    })
}

/// `jnp.histogram_bin_edges(a, bins=10, range=None, weights=None)`: the edges `histogram`
/// uses (`weights` play no part, as in JAX).
#[pyfunction]
#[pyo3(signature = (a, bins=None, range=None, weights=None))]
fn histogram_bin_edges(
    a: Arg,
    bins: Option<&Bound<'_, PyAny>>,
    range: Option<&Bound<'_, PyAny>>,
    weights: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    // JAX takes `weights` for numpy's signature and ignores them too.
    let _ = weights;
    let bins = bins.map_or(Ok(Bins::Count(10)), bins_of)?;
    let range = range_of(range)?;
    guard(|| Ok(Array(jnp::histogram_bin_edges(a.operand(), bins, range))))
}

/// `jnp.compress(condition, a, axis=None, *, size=None, fill_value=0, out=None)`: the
/// slices of `a` along `axis` (`None`: its elements) where `condition` holds, the first
/// `size`, padded with `fill_value`.
#[pyfunction]
#[pyo3(signature = (condition, a, axis=None, *, size=None, fill_value=0.0, out=None))]
fn compress(
    condition: Arg,
    a: Arg,
    axis: Option<isize>,
    size: Option<usize>,
    fill_value: f64,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    if out.is_some_and(|o| !o.is_none()) {
        return Err(PyValueError::new_err("jnp.compress does not support out"));
    }
    let c = condition.operand().into_tensor();
    guard(|| {
        let n = size_or_count(&c, size);
        Ok(Array(jnp::compress(&c, a.operand(), axis, n, fill_value)))
    })
}

/// `jnp.extract(condition, arr, *, size=None, fill_value=0)`: the elements of `arr` where
/// `condition` holds (both flattened), the first `size`, padded with `fill_value`.
#[pyfunction]
#[pyo3(signature = (condition, arr, *, size=None, fill_value=0.0))]
fn extract(condition: Arg, arr: Arg, size: Option<usize>, fill_value: f64) -> PyResult<Array> {
    let c = condition.operand().into_tensor();
    guard(|| {
        let n = size_or_count(&c, size);
        Ok(Array(jnp::extract(&c, arr.operand(), n, fill_value)))
    })
}

/// Tensors as a tuple of arrays.
fn tuple_of(py: Python<'_>, ts: Vec<Tensor>) -> PyResult<Bound<'_, PyTuple>> {
    PyTuple::new(py, ts.into_iter().map(Array))
}

/// `jnp.diag_indices(n, ndim=2)`: the indices of the main diagonal of an `(n, ..., n)`
/// array, one vector per axis.
#[pyfunction]
#[pyo3(signature = (n, ndim=2))]
fn diag_indices(py: Python<'_>, n: usize, ndim: usize) -> PyResult<Bound<'_, PyTuple>> {
    tuple_of(py, guard(|| Ok(jnp::diag_indices(n, ndim)))?)
}

/// `jnp.diag_indices_from(arr)`: the indices of the main diagonal of the square `arr`.
#[pyfunction]
fn diag_indices_from(py: Python<'_>, arr: Arg) -> PyResult<Bound<'_, PyTuple>> {
    tuple_of(py, guard(|| Ok(jnp::diag_indices_from(arr.operand())))?)
}

/// Whether any coordinate lies outside `[0, d)` (concrete values, for `mode='raise'`).
fn out_of_bounds(index: &[Tensor], dims: &[usize]) -> bool {
    index.iter().zip(dims).any(|(i, &d)| {
        let bad = jnp::logical_or(jnp::less(i, 0), jnp::greater_equal(i, d as i64));
        jnp::any(bad, None).item() != 0.0
    })
}

/// `jnp.ravel_multi_index(multi_index, dims, mode='raise', order='C', *, dtype=None)`: the
/// flat row-major indices of the coordinates `multi_index` in an array of shape `dims`
/// (`'raise'` checks concrete coordinates, `'clip'` clips them, `'wrap'` wraps them), as
/// `dtype` (the default int).
#[pyfunction]
#[pyo3(signature = (multi_index, dims, mode="raise", order="C", *, dtype=None))]
fn ravel_multi_index(
    py: Python<'_>,
    multi_index: Vec<Arg>,
    dims: Vec<usize>,
    mode: &str,
    order: &str,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let dtype = dtype_arg(py, dtype)?;
    if order != "C" {
        return Err(unsupported("ravel_multi_index", "order other than 'C'"));
    }
    let index = tensors(multi_index);
    let mode = if mode == "raise" {
        if guard(|| Ok(index.len() == dims.len() && out_of_bounds(&index, &dims)))? {
            return Err(PyValueError::new_err("invalid entry in coordinates array"));
        }
        "ignore"
    } else {
        mode
    };
    guard(|| {
        let i = jnp::ravel_multi_index(&index, &dims, mode);
        Ok(Array(match dtype {
            Some(d) => i.astype(d),
            None => i,
        }))
    })
}

/// `jnp.resize(a, new_shape)`: `a` flattened, repeated (or cut) to fill `new_shape`.
#[pyfunction]
fn resize(a: Arg, new_shape: &Bound<'_, PyAny>) -> PyResult<Array> {
    let shape: Vec<usize> = match new_shape.extract::<usize>() {
        Ok(n) => vec![n],
        Err(_) => new_shape.extract()?,
    };
    guard(|| Ok(Array(jnp::resize(a.operand(), &shape))))
}

/// Adds this file's functions to the `stats` submodule.
pub(crate) fn add(sub: &Bound<'_, PyModule>) -> PyResult<()> {
    sub.add_function(wrap_pyfunction!(histogram, sub)?)?;
    sub.add_function(wrap_pyfunction!(histogram_bin_edges, sub)?)?;
    sub.add_function(wrap_pyfunction!(compress, sub)?)?;
    sub.add_function(wrap_pyfunction!(extract, sub)?)?;
    sub.add_function(wrap_pyfunction!(diag_indices, sub)?)?;
    sub.add_function(wrap_pyfunction!(diag_indices_from, sub)?)?;
    sub.add_function(wrap_pyfunction!(ravel_multi_index, sub)?)?;
    sub.add_function(wrap_pyfunction!(resize, sub)?)?;
    Ok(())
}
