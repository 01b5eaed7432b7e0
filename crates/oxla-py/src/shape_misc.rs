//! `roll`, `interp`, `nan_to_num`, `broadcast_shapes` and `result_type`, for the `shape`
//! submodule.

use oxla::numpy::{self as jnp, Operand, Outside};
use pyo3::exceptions::{PyNotImplementedError, PyValueError};
use pyo3::prelude::*;

use crate::array::Array;
use crate::convert::{dtype_of, Arg};
use crate::errors::guard;

/// Ints: one int, or a sequence of them.
fn ints(ob: &Bound<'_, PyAny>) -> PyResult<Vec<isize>> {
    match ob.extract::<isize>() {
        Ok(i) => Ok(vec![i]),
        Err(_) => ob.extract(),
    }
}

/// `jnp.roll(a, shift, axis=None)`: elements shifted cyclically by `shift` along `axis`
/// (`None`: `a` flattened, shape restored); a sequence of shifts goes with one of axes.
#[pyfunction]
#[pyo3(signature = (a, shift, axis=None))]
fn roll(a: Arg, shift: &Bound<'_, PyAny>, axis: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
    let shifts = ints(shift)?;
    let axes: Option<Vec<isize>> = match axis {
        Some(ax) if !ax.is_none() => Some(ints(ax)?),
        _ => None,
    };
    let pairs: Vec<(isize, Option<isize>)> = match axes {
        None if shifts.len() == 1 => vec![(shifts[0], None)],
        None => {
            return Err(PyValueError::new_err(
                "roll: one shift for axis=None, got a sequence",
            ))
        }
        Some(axes) if shifts.len() == 1 => axes.iter().map(|&ax| (shifts[0], Some(ax))).collect(),
        Some(axes) if axes.len() == 1 || axes.len() == shifts.len() => shifts
            .iter()
            .enumerate()
            .map(|(i, &s)| (s, Some(axes[i.min(axes.len() - 1)])))
            .collect(),
        Some(axes) => {
            return Err(PyValueError::new_err(format!(
                "roll: {} shifts for {} axes",
                shifts.len(),
                axes.len()
            )))
        }
    };
    guard(|| {
        let mut t = a.operand().into_tensor();
        for (s, ax) in pairs {
            t = jnp::roll(&t, s, ax);
        }
        Ok(Array(t))
    })
}

/// `jnp.ravel(a, order='C')`: `a` flattened in row-major order.
#[pyfunction]
#[pyo3(signature = (a, order="C"))]
fn ravel(a: Arg, order: &str) -> PyResult<Array> {
    if order != "C" {
        return Err(PyNotImplementedError::new_err(
            "oxla's ravel takes order='C' for now",
        ));
    }
    guard(|| Ok(Array(jnp::ravel(a.operand()))))
}

/// `interp`'s `left=`/`right=`: `None` (the end value), a number, or `"extrapolate"`.
fn outside(ob: Option<&Bound<'_, PyAny>>) -> PyResult<Outside> {
    match ob {
        None => Ok(Outside::Edge),
        Some(o) if o.is_none() => Ok(Outside::Edge),
        Some(o) => match o.extract::<String>() {
            Ok(s) if s == "extrapolate" => Ok(Outside::Extrapolate),
            Ok(s) => Err(PyValueError::new_err(format!(
                "interp: left and right take a number, None or 'extrapolate', got {s:?}"
            ))),
            Err(_) => Ok(Outside::Value(o.extract()?)),
        },
    }
}

/// `jnp.interp(x, xp, fp, left=None, right=None, period=None)`: the piecewise-linear
/// interpolant through `(xp, fp)` at `x`.
#[pyfunction]
#[pyo3(signature = (x, xp, fp, left=None, right=None, period=None))]
fn interp(
    x: Arg,
    xp: Arg,
    fp: Arg,
    left: Option<&Bound<'_, PyAny>>,
    right: Option<&Bound<'_, PyAny>>,
    period: Option<f64>,
) -> PyResult<Array> {
    let (left, right) = (outside(left)?, outside(right)?);
    guard(|| {
        Ok(Array(jnp::interp(
            x.operand(),
            xp.operand(),
            fp.operand(),
            left,
            right,
            period,
        )))
    })
}

/// `jnp.nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None)`: NaN and infinities
/// replaced by finite values.
#[pyfunction]
#[pyo3(signature = (x, copy=true, nan=0.0, posinf=None, neginf=None))]
fn nan_to_num(
    x: Arg,
    copy: bool,
    nan: f64,
    posinf: Option<f64>,
    neginf: Option<f64>,
) -> PyResult<Array> {
    let _ = copy;
    guard(|| Ok(Array(jnp::nan_to_num(x.operand(), nan, posinf, neginf))))
}

/// `jnp.iscomplexobj(x)` and `jnp.isrealobj(x)`, by `complex`: whether `x`'s dtype is
/// complex (or not).
#[pyfunction]
fn is_complex_dtype(x: Arg, complex: bool) -> bool {
    let t = x.operand().into_tensor();
    jnp::iscomplexobj(&t) == complex
}

/// `jnp.iscomplex(x)`: whether each element has a nonzero imaginary part.
#[pyfunction]
fn iscomplex(x: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::iscomplex(x.operand()))))
}

/// `jnp.isreal(x)`: whether each element has a zero imaginary part.
#[pyfunction]
fn isreal(x: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::isreal(x.operand()))))
}

/// `jnp.broadcast_shapes(*shapes)`: the shape the shapes broadcast to.
#[pyfunction]
#[pyo3(signature = (*shapes))]
fn broadcast_shapes(shapes: Vec<Vec<usize>>) -> PyResult<Vec<usize>> {
    let refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
    guard(|| Ok(jnp::broadcast_shapes(&refs)))
}

/// `jnp.result_type(*args)`: the dtype of arrays, Python scalars (weak) and dtypes
/// combined, by JAX's promotion.
#[pyfunction]
#[pyo3(signature = (*args))]
fn result_type<'py>(py: Python<'py>, args: Vec<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
    let mut ops: Vec<Operand> = Vec::with_capacity(args.len());
    for a in &args {
        let is_dtype = a.is_instance_of::<pyo3::types::PyType>()
            || a.is_instance_of::<pyo3::types::PyString>()
            || a.is_instance(&py.import("numpy")?.getattr("dtype")?)?;
        ops.push(if is_dtype {
            let d = dtype_of(py, a)?;
            guard(|| Ok(Operand::from(jnp::empty(&[], Some(d)))))?
        } else {
            a.extract::<Arg>()?.operand()
        });
    }
    let d = guard(|| Ok(jnp::result_type(&ops)))?;
    py.import("numpy")?.call_method1("dtype", (d.numpy_name(),))
}

/// Adds this file's functions to the `shape` submodule.
pub(crate) fn register(sub: &Bound<'_, PyModule>) -> PyResult<()> {
    sub.add_function(wrap_pyfunction!(roll, sub)?)?;
    sub.add_function(wrap_pyfunction!(ravel, sub)?)?;
    sub.add_function(wrap_pyfunction!(interp, sub)?)?;
    sub.add_function(wrap_pyfunction!(nan_to_num, sub)?)?;
    sub.add_function(wrap_pyfunction!(is_complex_dtype, sub)?)?;
    sub.add_function(wrap_pyfunction!(iscomplex, sub)?)?;
    sub.add_function(wrap_pyfunction!(isreal, sub)?)?;
    sub.add_function(wrap_pyfunction!(broadcast_shapes, sub)?)?;
    sub.add_function(wrap_pyfunction!(result_type, sub)?)?;
    Ok(())
}
