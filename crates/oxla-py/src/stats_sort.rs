//! numpy's sorting and searching functions (`argsort`, `searchsorted`, `nonzero`, ...), in
//! the `_oxla.stats` submodule.

use oxla::numpy::{self as jnp, TakeMode};
use oxla::Tensor;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::array::Array;
use crate::convert::{dtype_arg, tensors, Arg};
use crate::errors::guard;
use crate::stats::size_or_count;
use crate::stats::{check_method, opt_tensor, refuse, unsupported};

/// `jnp.argsort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False,
/// dtype=None)`: the permutation sorting `a` along `axis` (`None`: flattened), as `dtype`
/// (the default int); the sort is always stable, which `stable=False` allows too.
#[pyfunction]
#[pyo3(signature = (a, axis=Some(-1), *, kind=None, order=None, stable=true, descending=false,
                    dtype=None))]
#[allow(clippy::too_many_arguments)]
fn argsort(
    py: Python<'_>,
    a: Arg,
    axis: Option<isize>,
    kind: Option<&Bound<'_, PyAny>>,
    order: Option<&Bound<'_, PyAny>>,
    stable: bool,
    descending: bool,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    // Every sort here is stable, which `stable=False` allows too.
    let _ = stable;
    refuse("argsort", &[("kind", kind), ("order", order)])?;
    let dtype = dtype_arg(py, dtype)?;
    guard(|| {
        let i = jnp::argsort(a.operand(), axis, descending);
        Ok(Array(match dtype {
            Some(d) => i.astype(d),
            None => i,
        }))
    })
}

/// `jnp.lexsort(keys, axis=-1)`: the stable permutation sorting by several keys along
/// `axis`, the last key primary.
#[pyfunction]
#[pyo3(signature = (keys, axis=-1))]
fn lexsort(keys: Vec<Arg>, axis: isize) -> PyResult<Array> {
    let keys = tensors(keys);
    guard(|| Ok(Array(jnp::lexsort(&keys, axis))))
}

/// `jnp.partition(a, kth, axis=-1)`: `a` with its `kth` smallest element along `axis` in
/// place, the smaller ones before it and the larger after.
#[pyfunction]
#[pyo3(signature = (a, kth, axis=-1))]
fn partition(a: Arg, kth: isize, axis: isize) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::partition(a.operand(), kth, axis))))
}

/// `jnp.argpartition(a, kth, axis=-1)`: the indices that `partition` `a`.
#[pyfunction]
#[pyo3(signature = (a, kth, axis=-1))]
fn argpartition(a: Arg, kth: isize, axis: isize) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::argpartition(a.operand(), kth, axis))))
}

/// `jnp.searchsorted(a, v, side='left', sorter=None, *, method='scan')`: where the values
/// `v` go in the sorted vector `a` (`a[sorter]` with `sorter`) to keep it sorted.
#[pyfunction]
#[pyo3(signature = (a, v, side="left", sorter=None, *, method="scan"))]
fn searchsorted(a: Arg, v: Arg, side: &str, sorter: Option<Arg>, method: &str) -> PyResult<Array> {
    let methods = ["scan", "scan_unrolled", "sort", "compare_all"];
    check_method("searchsorted", method, &methods)?;
    let sorter = opt_tensor(sorter);
    guard(|| {
        let a = match &sorter {
            Some(s) => jnp::take(a.operand(), s, 0, TakeMode::Clip),
            None => a.operand().into_tensor(),
        };
        Ok(Array(jnp::searchsorted(&a, v.operand(), side)))
    })
}

/// `jnp.digitize(x, bins, right=False, *, method=None)`: the index of the bin of each value
/// of `x` (`bins` monotonic, increasing or decreasing).
#[pyfunction]
#[pyo3(signature = (x, bins, right=false, *, method=None))]
fn digitize(x: Arg, bins: Arg, right: bool, method: Option<&str>) -> PyResult<Array> {
    if let Some(m) = method {
        let methods = ["scan", "scan_unrolled", "sort", "compare_all"];
        check_method("digitize", m, &methods)?;
    }
    guard(|| Ok(Array(jnp::digitize(x.operand(), bins.operand(), right))))
}

/// `t`'s largest element plus one (0 when empty): the length `bincount` needs, read from
/// concrete values as JAX does.
fn concrete_length(t: &Tensor) -> usize {
    if t.size() == 0 {
        0
    } else {
        (jnp::max(t, None).item() + 1.0).max(0.0) as usize
    }
}

/// `jnp.bincount(x, weights=None, minlength=0, *, length=None, out_sharding=None)`: how
/// often each value `0..length` occurs in the non-negative integers `x` (the sum of
/// their `weights`); without `length`, `max(x) + 1` (at least `minlength`) from concrete
/// values.
#[pyfunction]
#[pyo3(signature = (x, weights=None, minlength=0, *, length=None, out_sharding=None))]
fn bincount(
    x: Arg,
    weights: Option<Arg>,
    minlength: usize,
    length: Option<usize>,
    out_sharding: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    refuse("bincount", &[("out_sharding", out_sharding)])?;
    let x = x.operand().into_tensor();
    let w = opt_tensor(weights);
    guard(|| {
        let length = length.unwrap_or_else(|| concrete_length(&x).max(minlength));
        Ok(Array(jnp::bincount(&x, w.as_ref(), length)))
    })
}

/// A scalar `fill_value=` for the nonzero family (JAX's tuple of one per axis is not
/// supported).
fn index_fill(name: &str, fill: Option<&Bound<'_, PyAny>>) -> PyResult<Option<i64>> {
    match fill {
        Some(f) if !f.is_none() => f
            .extract()
            .map(Some)
            .map_err(|_| unsupported(name, "a fill_value other than one integer")),
        _ => Ok(None),
    }
}

/// `jnp.nonzero(a, *, size=None, fill_value=None)`: the indices of `a`'s nonzero elements,
/// one vector per axis: the first `size` (all, from concrete values, when `None`), padded
/// with `fill_value` (0).
#[pyfunction]
#[pyo3(signature = (a, *, size=None, fill_value=None))]
fn nonzero<'py>(
    py: Python<'py>,
    a: Arg,
    size: Option<usize>,
    fill_value: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let fill = index_fill("nonzero", fill_value)?;
    let a = a.operand().into_tensor();
    let out = guard(|| Ok(jnp::nonzero(&a, size_or_count(&a, size), fill)))?;
    PyTuple::new(py, out.into_iter().map(Array))
}

/// `jnp.flatnonzero(a, *, size=None, fill_value=None)`: the indices of the nonzero
/// elements of `a` flattened.
#[pyfunction]
#[pyo3(signature = (a, *, size=None, fill_value=None))]
fn flatnonzero(
    a: Arg,
    size: Option<usize>,
    fill_value: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let fill = index_fill("flatnonzero", fill_value)?;
    let a = a.operand().into_tensor();
    guard(|| {
        let n = size_or_count(&a, size);
        Ok(Array(jnp::flatnonzero(&a, n, fill)))
    })
}

/// `jnp.argwhere(a, *, size=None, fill_value=None)`: the indices of `a`'s nonzero
/// elements, one row each.
#[pyfunction]
#[pyo3(signature = (a, *, size=None, fill_value=None))]
fn argwhere(a: Arg, size: Option<usize>, fill_value: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
    let fill = index_fill("argwhere", fill_value)?;
    let a = a.operand().into_tensor();
    guard(|| {
        let n = size_or_count(&a, size);
        Ok(Array(jnp::argwhere(&a, n, fill)))
    })
}

/// `jnp.isin(element, test_elements, assume_unique=False, invert=False, *, method='auto')`:
/// whether each element of `element` occurs in `test_elements` (not, with `invert`).
#[pyfunction]
#[pyo3(signature = (element, test_elements, assume_unique=false, invert=false, *, method="auto"))]
fn isin(
    element: Arg,
    test_elements: Arg,
    assume_unique: bool,
    invert: bool,
    method: &str,
) -> PyResult<Array> {
    // A hint for speed only: the result is the same.
    let _ = assume_unique;
    let methods = ["auto", "compare_all", "binary_search", "sort"];
    check_method("isin", method, &methods)?;
    guard(|| {
        Ok(Array(jnp::isin(
            element.operand(),
            test_elements.operand(),
            invert,
        )))
    })
}

/// Adds this file's functions to the `stats` submodule.
pub(crate) fn add(sub: &Bound<'_, PyModule>) -> PyResult<()> {
    sub.add_function(wrap_pyfunction!(argsort, sub)?)?;
    sub.add_function(wrap_pyfunction!(lexsort, sub)?)?;
    sub.add_function(wrap_pyfunction!(partition, sub)?)?;
    sub.add_function(wrap_pyfunction!(argpartition, sub)?)?;
    sub.add_function(wrap_pyfunction!(searchsorted, sub)?)?;
    sub.add_function(wrap_pyfunction!(digitize, sub)?)?;
    sub.add_function(wrap_pyfunction!(bincount, sub)?)?;
    sub.add_function(wrap_pyfunction!(nonzero, sub)?)?;
    sub.add_function(wrap_pyfunction!(flatnonzero, sub)?)?;
    sub.add_function(wrap_pyfunction!(argwhere, sub)?)?;
    sub.add_function(wrap_pyfunction!(isin, sub)?)?;
    Ok(())
}
