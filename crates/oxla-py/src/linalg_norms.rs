//! `oxla.numpy.linalg`'s norms (`norm`, `vector_norm`, `matrix_norm`, `cond`) and the array
//! API's matrix helpers (`trace`, `diagonal`, `matrix_transpose`, `outer`,
//! `multi_dot`, `cross`), in `_oxla.linalg`.

use oxla::numpy::linalg::{self as la, MatrixOrd};
use oxla::numpy::{self as jnp, Axis};
use oxla::Tensor;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::array::Array;
use crate::convert::tensor;
use crate::convert::{axis_of, dtype_arg, tensors, Arg};
use crate::errors::guard;
use crate::linalg::only_defaults;

/// A matrix norm's `ord`: `'fro'`, `'nuc'`, `inf`, `-inf`, `1`, `-1`, `2` or `-2`.
fn matrix_ord(ord: &Bound<'_, PyAny>) -> PyResult<MatrixOrd> {
    if let Ok(s) = ord.extract::<String>() {
        return match s.as_str() {
            "fro" => Ok(MatrixOrd::Fro),
            "nuc" => Ok(MatrixOrd::Nuc),
            _ => Err(PyValueError::new_err(format!(
                "Invalid order '{s}' for matrix norm."
            ))),
        };
    }
    let o: f64 = ord.extract()?;
    let table = [
        (f64::INFINITY, MatrixOrd::Inf),
        (f64::NEG_INFINITY, MatrixOrd::NegInf),
        (1.0, MatrixOrd::One),
        (-1.0, MatrixOrd::NegOne),
        (2.0, MatrixOrd::Two),
        (-2.0, MatrixOrd::NegTwo),
    ];
    table
        .iter()
        .find(|(v, _)| *v == o)
        .map(|&(_, m)| m)
        .ok_or_else(|| PyValueError::new_err(format!("Invalid order '{o}' for matrix norm.")))
}

/// A vector norm's `ord`: a number (`inf`, `-inf` and `0` included).
fn vector_ord(ord: Option<&Bound<'_, PyAny>>) -> PyResult<f64> {
    match ord {
        Some(o) if !o.is_none() => o
            .extract()
            .map_err(|_| PyValueError::new_err(format!("Invalid order '{o}' for vector norm."))),
        _ => Ok(2.0),
    }
}

/// The matrix norm of `x` over its axes `rows` and `cols`, keeping them as size 1 on
/// request.
fn matrix_norm_over(x: &Tensor, ord: MatrixOrd, rows: isize, cols: isize, keep: bool) -> Tensor {
    let n = x.ndim() as isize;
    let (r, c) = (rows.rem_euclid(n.max(1)), cols.rem_euclid(n.max(1)));
    let moved = jnp::moveaxis(x, vec![r, c], vec![-2, -1]);
    let out = la::matrix_norm(&moved, ord);
    if keep {
        let mut kept = vec![r, c];
        kept.sort_unstable();
        jnp::expand_dims(&out, kept)
    } else {
        out
    }
}

/// `jnp.linalg.norm(x, ord=None, axis=None, keepdims=False)`: a vector norm over one axis,
/// a matrix norm over two (numpy's rules for `axis=None`: the 2-norm of all elements
/// without `ord`, else by the rank).
#[pyfunction]
#[pyo3(signature = (x, ord=None, axis=None, keepdims=false))]
fn norm(
    x: Arg,
    ord: Option<&Bound<'_, PyAny>>,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
) -> PyResult<Array> {
    let t = tensor(&x);
    let ord = ord.filter(|o| !o.is_none());
    let axes: Vec<isize> = match axis.filter(|a| !a.is_none()) {
        None if ord.is_none() => {
            return guard(|| Ok(Array(la::norm(&t, axis_of(None, keepdims)?))));
        }
        None => match t.ndim() {
            1 => vec![0],
            2 => vec![0, 1],
            _ => {
                return Err(PyValueError::new_err(
                    "Improper number of dimensions to norm.",
                ))
            }
        },
        Some(a) => match a.extract::<isize>() {
            Ok(i) => vec![i],
            Err(_) => a.extract()?,
        },
    };
    match axes[..] {
        [a] => {
            let p = vector_ord(ord)?;
            let axis = if keepdims {
                jnp::keepdims(a)
            } else {
                Axis::from(a)
            };
            guard(|| Ok(Array(la::vector_norm(&t, p, axis))))
        }
        [r, c] => {
            let o = ord.map_or(Ok(MatrixOrd::Fro), matrix_ord)?;
            guard(|| Ok(Array(matrix_norm_over(&t, o, r, c, keepdims))))
        }
        _ => Err(PyValueError::new_err("Improper number of axes for norm")),
    }
}

/// `jnp.linalg.vector_norm(x, /, *, axis=None, keepdims=False, ord=2)`.
#[pyfunction]
#[pyo3(signature = (x, /, *, axis=None, keepdims=false, ord=2.0))]
fn vector_norm(
    x: Arg,
    axis: Option<&Bound<'_, PyAny>>,
    keepdims: bool,
    ord: f64,
) -> PyResult<Array> {
    let axis = axis_of(axis, keepdims)?;
    guard(|| Ok(Array(la::vector_norm(x.operand(), ord, axis))))
}

/// `jnp.linalg.matrix_norm(x, /, *, keepdims=False, ord='fro')`: over the last two axes.
#[pyfunction]
#[pyo3(signature = (x, /, *, keepdims=false, ord=None))]
fn matrix_norm(x: Arg, keepdims: bool, ord: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
    let o = ord
        .filter(|o| !o.is_none())
        .map_or(Ok(MatrixOrd::Fro), matrix_ord)?;
    let t = tensor(&x);
    guard(|| Ok(Array(matrix_norm_over(&t, o, -2, -1, keepdims))))
}

/// `jnp.linalg.cond(x, p=None)`: the condition number (`p=None`: in the 2-norm).
#[pyfunction]
#[pyo3(signature = (x, p=None))]
fn cond(x: Arg, p: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
    let p = p.filter(|p| !p.is_none()).map(matrix_ord).transpose()?;
    guard(|| Ok(Array(la::cond(x.operand(), p))))
}

/// `jnp.linalg.trace(x, /, *, offset=0, dtype=None)`: the sum of the `offset` diagonal of
/// the last two axes.
#[pyfunction]
#[pyo3(signature = (x, /, *, offset=0, dtype=None))]
fn trace(
    py: Python<'_>,
    x: Arg,
    offset: isize,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let d = dtype_arg(py, dtype)?;
    guard(|| {
        let t = tensor(&x);
        let t = d.map_or(t.clone(), |d| t.astype(d));
        Ok(Array(la::trace(&t, offset)))
    })
}

/// `jnp.linalg.diagonal(x, /, *, offset=0)`: the `offset` diagonal of the last two axes.
#[pyfunction]
#[pyo3(signature = (x, /, *, offset=0))]
fn diagonal(x: Arg, offset: isize) -> PyResult<Array> {
    guard(|| Ok(Array(la::diagonal(x.operand(), offset))))
}

/// `jnp.linalg.matrix_transpose(x, /)`: the last two axes swapped.
#[pyfunction]
#[pyo3(signature = (x, /))]
fn matrix_transpose(x: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(la::matrix_transpose(x.operand()))))
}

/// `jnp.linalg.outer(x1, x2, /)`: the outer product of two vectors.
#[pyfunction]
#[pyo3(signature = (x1, x2, /))]
fn outer(x1: Arg, x2: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(la::outer(x1.operand(), x2.operand()))))
}

/// `jnp.linalg.multi_dot(arrays, *, precision=None)`: the product of a chain of matrices
/// (the first and last may be vectors).
#[pyfunction]
#[pyo3(signature = (arrays, *, precision=None))]
fn multi_dot(arrays: Vec<Arg>, precision: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
    only_defaults("linalg.multi_dot", &[("precision", precision)])?;
    if arrays.is_empty() {
        return Err(PyTypeError::new_err("multi_dot takes at least one array"));
    }
    guard(|| Ok(Array(la::multi_dot(&tensors(arrays)))))
}

/// `jnp.linalg.cross(x1, x2, /, *, axis=-1)`: the cross product of 3-vectors along `axis`.
#[pyfunction]
#[pyo3(signature = (x1, x2, /, *, axis=-1))]
fn cross(x1: Arg, x2: Arg, axis: isize) -> PyResult<Array> {
    guard(|| Ok(Array(la::cross(x1.operand(), x2.operand(), axis))))
}

/// Adds this file's functions to `_oxla.linalg`.
pub(crate) fn register(sub: &Bound<'_, PyModule>) -> PyResult<()> {
    sub.add_function(wrap_pyfunction!(norm, sub)?)?;
    sub.add_function(wrap_pyfunction!(vector_norm, sub)?)?;
    sub.add_function(wrap_pyfunction!(matrix_norm, sub)?)?;
    sub.add_function(wrap_pyfunction!(cond, sub)?)?;
    sub.add_function(wrap_pyfunction!(trace, sub)?)?;
    sub.add_function(wrap_pyfunction!(diagonal, sub)?)?;
    sub.add_function(wrap_pyfunction!(matrix_transpose, sub)?)?;
    sub.add_function(wrap_pyfunction!(outer, sub)?)?;
    sub.add_function(wrap_pyfunction!(multi_dot, sub)?)?;
    sub.add_function(wrap_pyfunction!(cross, sub)?)?;
    Ok(())
}
