//! `oxla.numpy`'s creation functions: like JAX's, they stage `broadcast_in_dim` of a
//! literal or `iota` when traced, never a constant of the whole array.

use oxla::array::{Array as OxArray, DType};
use oxla::numpy::{self as jnp, Operand};
use oxla::Tensor;
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use crate::array::Array;
use crate::convert::{default_float, dtype_arg, Arg};
use crate::errors::guard;

/// A fill value in `dtype` when one is given (a literal of that dtype), else as it is.
fn fill(value: &Arg, dtype: Option<DType>) -> Operand {
    match (value, dtype) {
        (Arg::Bool(b), Some(d)) => Tensor::new(OxArray::scalar_from_f64(*b as u8 as f64, d)).into(),
        (Arg::Int(i), Some(d)) => Tensor::new(OxArray::scalar_from_f64(*i as f64, d)).into(),
        (Arg::Float(f), Some(d)) => Tensor::new(OxArray::scalar_from_f64(*f, d)).into(),
        (Arg::Array(t), Some(d)) => t.astype(d).into(),
        (v, None) => v.operand(),
    }
}

/// A shape given as an int or a sequence of ints.
fn shape_arg(shape: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    match shape.extract::<usize>() {
        Ok(n) => Ok(vec![n]),
        Err(_) => shape.extract(),
    }
}

/// `jnp.full(shape, fill_value, dtype=None)`.
#[pyfunction]
#[pyo3(signature = (shape, fill_value, dtype=None))]
fn full(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    fill_value: Arg,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let (shape, dtype) = (shape_arg(shape)?, dtype_arg(py, dtype)?);
    guard(|| Ok(Array(jnp::full(&shape, fill(&fill_value, dtype)))))
}

/// An array of `shape` filled with `value` in `dtype`, else the default float (float64
/// under x64).
fn filled(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    value: f64,
) -> PyResult<Array> {
    let (shape, dtype) = (shape_arg(shape)?, dtype_arg(py, dtype)?);
    let d = dtype.unwrap_or_else(default_float);
    guard(|| Ok(Array(jnp::full(&shape, fill(&Arg::Float(value), Some(d))))))
}

/// `jnp.zeros(shape, dtype=None)`.
#[pyfunction]
#[pyo3(signature = (shape, dtype=None))]
fn zeros(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    filled(py, shape, dtype, 0.0)
}

/// `jnp.ones(shape, dtype=None)`.
#[pyfunction]
#[pyo3(signature = (shape, dtype=None))]
fn ones(
    py: Python<'_>,
    shape: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    filled(py, shape, dtype, 1.0)
}

/// `jnp.full_like(a, fill_value, dtype=None)`.
#[pyfunction]
#[pyo3(signature = (a, fill_value, dtype=None))]
fn full_like(
    py: Python<'_>,
    a: Arg,
    fill_value: Arg,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let dtype = dtype_arg(py, dtype)?;
    guard(|| {
        let a = a.operand().into_tensor();
        let d = dtype.unwrap_or(a.dtype());
        Ok(Array(jnp::full(a.shape(), fill(&fill_value, Some(d)))))
    })
}

/// `jnp.zeros_like(a, dtype=None)`.
#[pyfunction]
#[pyo3(signature = (a, dtype=None))]
fn zeros_like(py: Python<'_>, a: Arg, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
    full_like(py, a, Arg::Int(0), dtype)
}

/// `jnp.ones_like(a, dtype=None)`.
#[pyfunction]
#[pyo3(signature = (a, dtype=None))]
fn ones_like(py: Python<'_>, a: Arg, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
    full_like(py, a, Arg::Int(1), dtype)
}

/// `jnp.arange(start, stop=None, step=None, dtype=None)`.
#[pyfunction]
#[pyo3(signature = (start, stop=None, step=None, dtype=None))]
fn arange(
    py: Python<'_>,
    start: Arg,
    stop: Option<Arg>,
    step: Option<Arg>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let dtype = dtype_arg(py, dtype)?;
    guard(|| {
        let t = match (stop, step) {
            (None, None) => match (dtype, start.operand()) {
                (Some(d), Operand::Scalar(n, _)) => {
                    oxla::lax::iota(d, &[n.ceil().max(0.0) as usize], 0)
                }
                (_, s) => jnp::arange(s),
            },
            (stop, step) => {
                let (start, stop) = match stop {
                    Some(stop) => (start.operand(), stop.operand()),
                    None => (Operand::from(0), start.operand()),
                };
                let step = step.map_or(Operand::from(1), |s| s.operand());
                jnp::arange_step(start, stop, step)
            }
        };
        Ok(Array(match dtype {
            Some(d) if d != t.dtype() => t.astype(d),
            _ => t,
        }))
    })
}

/// `jnp.linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0)`:
/// `num` evenly spaced points (scalar ends), with the spacing too when `retstep`.
#[pyfunction]
#[pyo3(signature = (start, stop, num=50, endpoint=true, retstep=false, dtype=None, axis=0))]
#[allow(clippy::too_many_arguments)]
fn linspace(
    py: Python<'_>,
    start: f64,
    stop: f64,
    num: usize,
    endpoint: bool,
    retstep: bool,
    dtype: Option<&Bound<'_, PyAny>>,
    axis: isize,
) -> PyResult<PyObject> {
    if axis != 0 && axis != -1 {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "linspace: axis {axis} is out of bounds for the result's one axis"
        )));
    }
    let dtype = dtype_arg(py, dtype)?;
    let div = if endpoint { num.saturating_sub(1) } else { num };
    // JAX's step of a single point is NaN.
    let step = if div == 0 {
        f64::NAN
    } else {
        (stop - start) / div as f64
    };
    // Without the endpoint, the same points as `num + 1` with it, less the last.
    let stop = if endpoint || num == 0 {
        stop
    } else {
        start + step * (num - 1) as f64
    };
    let t = guard(|| {
        let t = jnp::linspace(start, stop, num);
        Ok(dtype.map_or_else(|| t.clone(), |d| t.astype(d)))
    })?;
    if retstep {
        let step = Tensor::new(OxArray::scalar_from_f64(step, t.dtype()));
        (Array(t), Array(step)).into_py_any(py)
    } else {
        Array(t).into_py_any(py)
    }
}

/// `jnp.eye(N, M=None, k=0, dtype=None)`: ones on the `k`-th diagonal of an `N x M` matrix
/// (square when `M` is `None`), zeros elsewhere.
#[pyfunction]
#[pyo3(signature = (N, M=None, k=0, dtype=None))]
#[allow(non_snake_case)]
fn eye(
    py: Python<'_>,
    N: usize,
    M: Option<usize>,
    k: isize,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let dtype = dtype_arg(py, dtype)?;
    guard(|| {
        let t = match (M, k) {
            (None, 0) => jnp::eye(N),
            (m, k) => jnp::subtract(jnp::tri(N, m, k), jnp::tri(N, m, k - 1)),
        };
        Ok(Array(dtype.map_or_else(|| t.clone(), |d| t.astype(d))))
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(full, m)?)?;
    m.add_function(wrap_pyfunction!(zeros, m)?)?;
    m.add_function(wrap_pyfunction!(ones, m)?)?;
    m.add_function(wrap_pyfunction!(full_like, m)?)?;
    m.add_function(wrap_pyfunction!(zeros_like, m)?)?;
    m.add_function(wrap_pyfunction!(ones_like, m)?)?;
    m.add_function(wrap_pyfunction!(arange, m)?)?;
    m.add_function(wrap_pyfunction!(linspace, m)?)?;
    m.add_function(wrap_pyfunction!(eye, m)?)?;
    Ok(())
}
