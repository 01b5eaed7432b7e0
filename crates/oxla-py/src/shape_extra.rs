//! Float decomposition (`divmod`, `modf`, `frexp`), `round`, `empty`, `copy`, the axis
//! permutations `permute_dims`/`matrix_transpose` and the dtype queries
//! `promote_types`/`can_cast`, for the `shape` submodule.

use oxla::array::DType;
use oxla::numpy::{self as jnp, Casting};
use pyo3::exceptions::{PyNotImplementedError, PyValueError};
use pyo3::prelude::*;

use crate::array::Array;
use crate::convert::{dtype_arg, dtype_of, Arg};
use crate::errors::guard;
use crate::transforms::pair;

/// `jnp.divmod(x1, x2)`: `(floor_divide(x1, x2), mod(x1, x2))`.
#[pyfunction]
fn divmod(x1: Arg, x2: Arg) -> PyResult<(Array, Array)> {
    guard(|| Ok(pair(jnp::divmod(x1.operand(), x2.operand()))))
}

/// `jnp.modf(x)`: the fractional and integral parts of `x`, both with its sign.
#[pyfunction]
fn modf(x: Arg) -> PyResult<(Array, Array)> {
    guard(|| Ok(pair(jnp::modf(x.operand()))))
}

/// `jnp.frexp(x)`: mantissas in `[0.5, 1)` and integer exponents, `x = m * 2**e`.
#[pyfunction]
fn frexp(x: Arg) -> PyResult<(Array, Array)> {
    guard(|| Ok(pair(jnp::frexp(x.operand()))))
}

/// `jnp.round(a, decimals=0)` (also `around`): `a` rounded half to even at `decimals`.
#[pyfunction]
#[pyo3(signature = (a, decimals=0))]
fn round(a: Arg, decimals: i32) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::round(a.operand(), decimals))))
}

/// `jnp.empty(shape, dtype=None)`: an array of `shape` (zeros, as JAX's).
#[pyfunction]
#[pyo3(signature = (shape, dtype=None, *, device=None))]
fn empty(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    no_device(device)?;
    let shape: Vec<usize> = match shape.extract::<usize>() {
        Ok(n) => vec![n],
        Err(_) => shape.extract()?,
    };
    let dtype = dtype_arg(py, dtype)?;
    guard(|| Ok(Array(jnp::empty(&shape, dtype))))
}

/// `jnp.empty_like(prototype, dtype=None, shape=None)`: an array like `prototype` (zeros).
#[pyfunction]
#[pyo3(signature = (prototype, dtype=None, shape=None, *, device=None))]
fn empty_like(
    py: Python<'_>,
    prototype: Arg,
    dtype: Option<&Bound<'_, PyAny>>,
    shape: Option<Vec<usize>>,
    device: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    no_device(device)?;
    let dtype = dtype_arg(py, dtype)?;
    guard(|| {
        let t = jnp::empty_like(prototype.operand(), dtype);
        Ok(Array(match shape {
            Some(s) => jnp::empty(&s, Some(t.dtype())),
            None => t,
        }))
    })
}

/// JAX's `device=` argument: only `None` (oxla places arrays itself).
fn no_device(device: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    match device {
        Some(d) if !d.is_none() => Err(PyNotImplementedError::new_err(
            "oxla takes device=None for now",
        )),
        _ => Ok(()),
    }
}

/// `jnp.copy(a, order=None)`: a copy of `a`.
#[pyfunction]
#[pyo3(signature = (a, order=None))]
fn copy(a: Arg, order: Option<&str>) -> PyResult<Array> {
    if order.is_some_and(|o| o != "K" && o != "C") {
        return Err(PyNotImplementedError::new_err(
            "oxla's copy takes order=None, 'K' or 'C'",
        ));
    }
    guard(|| Ok(Array(jnp::copy(a.operand()))))
}

/// `jnp.permute_dims(a, /, axes)`: `a`'s axes in the order `axes`.
#[pyfunction]
#[pyo3(signature = (a, /, axes))]
fn permute_dims(a: Arg, axes: Vec<isize>) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::permute_dims(a.operand(), &axes))))
}

/// `jnp.matrix_transpose(x, /)`: the last two axes swapped.
#[pyfunction]
#[pyo3(signature = (x, /))]
fn matrix_transpose(x: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::matrix_transpose(x.operand()))))
}

/// A dtype argument of the dtype queries: a dtype-like, a dtype's name (`"bfloat16"` too,
/// which numpy lacks), or an array (its dtype).
fn query_dtype(py: Python<'_>, d: &Bound<'_, PyAny>) -> PyResult<DType> {
    if let Ok(a) = d.downcast::<Array>() {
        return Ok(a.get().0.dtype());
    }
    if let Some(t) = d
        .extract::<String>()
        .ok()
        .and_then(|s| DType::from_numpy_name(&s))
    {
        return Ok(t);
    }
    dtype_of(py, d)
}

/// `jnp.promote_types(a, b)`: the dtype both promote to, by JAX's lattice.
#[pyfunction]
fn promote_types<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let d = jnp::promote_types(query_dtype(py, a)?, query_dtype(py, b)?);
    match d {
        DType::BF16 => Ok(pyo3::types::PyString::new(py, "bfloat16").into_any()),
        d => py.import("numpy")?.call_method1("dtype", (d.numpy_name(),)),
    }
}

/// `jnp.can_cast(from_, to, casting='safe')`: whether `from_` converts to `to` under the
/// rule `casting`.
#[pyfunction]
#[pyo3(signature = (from_, to, casting="safe"))]
fn can_cast(
    py: Python<'_>,
    from_: &Bound<'_, PyAny>,
    to: &Bound<'_, PyAny>,
    casting: &str,
) -> PyResult<bool> {
    let casting = match casting {
        "no" => Casting::No,
        "equiv" => Casting::Equiv,
        "safe" => Casting::Safe,
        "same_kind" => Casting::SameKind,
        "unsafe" => Casting::Unsafe,
        _ => {
            return Err(PyValueError::new_err(format!(
                "casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe', got \
                 {casting:?}"
            )))
        }
    };
    Ok(jnp::can_cast(
        query_dtype(py, from_)?,
        query_dtype(py, to)?,
        casting,
    ))
}

/// Adds this file's functions to the `shape` submodule.
pub(crate) fn register(sub: &Bound<'_, PyModule>) -> PyResult<()> {
    sub.add_function(wrap_pyfunction!(divmod, sub)?)?;
    sub.add_function(wrap_pyfunction!(modf, sub)?)?;
    sub.add_function(wrap_pyfunction!(frexp, sub)?)?;
    sub.add_function(wrap_pyfunction!(round, sub)?)?;
    sub.add_function(wrap_pyfunction!(empty, sub)?)?;
    sub.add_function(wrap_pyfunction!(empty_like, sub)?)?;
    sub.add_function(wrap_pyfunction!(copy, sub)?)?;
    sub.add_function(wrap_pyfunction!(permute_dims, sub)?)?;
    sub.add_function(wrap_pyfunction!(matrix_transpose, sub)?)?;
    sub.add_function(wrap_pyfunction!(promote_types, sub)?)?;
    sub.add_function(wrap_pyfunction!(can_cast, sub)?)?;
    Ok(())
}
