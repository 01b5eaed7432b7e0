//! `oxla.numpy`'s products (`einsum`, `tensordot`, `vdot`, `vecdot`, `matvec`, `vecmat`,
//! `kron`, `cross`), `trace` and `angle`, in `_oxla.linalg.products` (the package's
//! `numpy/_products.py` exports them).

use oxla::numpy::{self as jnp, TensordotAxes};
use pyo3::exceptions::{PyNotImplementedError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::array::Array;
use crate::convert::tensor;
use crate::convert::{dtype_arg, tensors, Arg};
use crate::errors::guard;
use crate::linalg::only_defaults;

/// The dot products' JAX arguments that oxla does not take yet.
fn dot_options(
    name: &str,
    precision: Option<&Bound<'_, PyAny>>,
    preferred_element_type: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    only_defaults(
        name,
        &[
            ("precision", precision),
            ("preferred_element_type", preferred_element_type),
        ],
    )
}

/// `jnp.einsum(subscripts, /, *operands, out=None, optimize='auto', precision=None,
/// preferred_element_type=None, out_sharding=None)`: the contraction the subscripts name
/// (`optimize` picks a contraction order in JAX; oxla contracts left to right).
#[pyfunction]
#[pyo3(signature = (
    subscripts, /, *operands, out=None, optimize=None, precision=None,
    preferred_element_type=None, out_sharding=None
))]
fn einsum(
    subscripts: &Bound<'_, PyAny>,
    operands: Vec<Arg>,
    out: Option<&Bound<'_, PyAny>>,
    optimize: Option<&Bound<'_, PyAny>>,
    precision: Option<&Bound<'_, PyAny>>,
    preferred_element_type: Option<&Bound<'_, PyAny>>,
    out_sharding: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let _ = optimize;
    only_defaults("einsum", &[("out", out), ("out_sharding", out_sharding)])?;
    dot_options("einsum", precision, preferred_element_type)?;
    if !subscripts.is_instance_of::<PyString>() {
        return Err(PyNotImplementedError::new_err(
            "oxla's einsum takes a subscripts string, not the operand/sublist form",
        ));
    }
    let spec: String = subscripts.extract()?;
    guard(|| Ok(Array(jnp::einsum(&spec, &tensors(operands)))))
}

/// One side of `tensordot`'s `axes` pairs: an int or a sequence of ints.
fn axis_list(x: &Bound<'_, PyAny>) -> PyResult<Vec<isize>> {
    match x.extract::<isize>() {
        Ok(i) => Ok(vec![i]),
        Err(_) => x.extract(),
    }
}

/// `jnp.tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None,
/// out_sharding=None)`: `a` and `b` contracted over the last `axes` of `a` and the first of
/// `b`, or over the pairs `axes=(a_axes, b_axes)`.
#[pyfunction]
#[pyo3(signature = (
    a, b, axes=None, *, precision=None, preferred_element_type=None, out_sharding=None
))]
fn tensordot(
    a: Arg,
    b: Arg,
    axes: Option<&Bound<'_, PyAny>>,
    precision: Option<&Bound<'_, PyAny>>,
    preferred_element_type: Option<&Bound<'_, PyAny>>,
    out_sharding: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    dot_options("tensordot", precision, preferred_element_type)?;
    only_defaults("tensordot", &[("out_sharding", out_sharding)])?;
    let axes = match axes.filter(|x| !x.is_none()) {
        None => TensordotAxes::Count(2),
        Some(x) => match x.extract::<isize>() {
            Ok(n) if n >= 0 => TensordotAxes::Count(n as usize),
            Ok(n) => {
                return Err(PyTypeError::new_err(format!(
                    "tensordot requires axes to be a non-negative integer, got {n}"
                )))
            }
            Err(_) => {
                let (xa, xb): (Bound<'_, PyAny>, Bound<'_, PyAny>) = x.extract().map_err(|_| {
                    PyTypeError::new_err(
                        "tensordot axes argument must be an int, a pair of ints, or a pair of \
                         lists of ints",
                    )
                })?;
                TensordotAxes::Pairs(axis_list(&xa)?, axis_list(&xb)?)
            }
        },
    };
    guard(|| Ok(Array(jnp::tensordot(a.operand(), b.operand(), axes))))
}

/// `jnp.vdot(a, b, *, precision=None, preferred_element_type=None)`: the dot product of
/// `a` and `b` flattened, `a` conjugated.
#[pyfunction]
#[pyo3(signature = (a, b, *, precision=None, preferred_element_type=None))]
fn vdot(
    a: Arg,
    b: Arg,
    precision: Option<&Bound<'_, PyAny>>,
    preferred_element_type: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    dot_options("vdot", precision, preferred_element_type)?;
    guard(|| Ok(Array(jnp::vdot(a.operand(), b.operand()))))
}

/// `jnp.vecdot(x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None)`: the
/// dot product of vectors along `axis` (broadcast), `x1` conjugated.
#[pyfunction]
#[pyo3(signature = (x1, x2, /, *, axis=-1, precision=None, preferred_element_type=None))]
fn vecdot(
    x1: Arg,
    x2: Arg,
    axis: isize,
    precision: Option<&Bound<'_, PyAny>>,
    preferred_element_type: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    dot_options("vecdot", precision, preferred_element_type)?;
    guard(|| Ok(Array(jnp::vecdot(x1.operand(), x2.operand(), axis))))
}

/// `jnp.matvec(x1, x2, /)`: matrices times vectors, batched.
#[pyfunction]
#[pyo3(signature = (x1, x2, /))]
fn matvec(x1: Arg, x2: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::matvec(x1.operand(), x2.operand()))))
}

/// `jnp.vecmat(x1, x2, /)`: (conjugated) vectors times matrices, batched.
#[pyfunction]
#[pyo3(signature = (x1, x2, /))]
fn vecmat(x1: Arg, x2: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::vecmat(x1.operand(), x2.operand()))))
}

/// `jnp.kron(a, b)`: the Kronecker product.
#[pyfunction]
fn kron(a: Arg, b: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::kron(a.operand(), b.operand()))))
}

/// `jnp.cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None)`: the cross product of 2- or
/// 3-vectors along `axisa` of `a` and `axisb` of `b`, placed along `axisc` (`axis`: all
/// three).
#[pyfunction]
#[pyo3(signature = (a, b, axisa=-1, axisb=-1, axisc=-1, axis=None))]
fn cross(
    a: Arg,
    b: Arg,
    axisa: isize,
    axisb: isize,
    axisc: isize,
    axis: Option<isize>,
) -> PyResult<Array> {
    guard(|| {
        Ok(Array(jnp::cross(
            a.operand(),
            b.operand(),
            axisa,
            axisb,
            axisc,
            axis,
        )))
    })
}

/// `jnp.trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None)`: the sum of the
/// `offset` diagonal in axes `axis1` and `axis2`.
#[pyfunction]
#[pyo3(signature = (a, offset=0, axis1=0, axis2=1, dtype=None, out=None))]
fn trace(
    py: Python<'_>,
    a: Arg,
    offset: isize,
    axis1: isize,
    axis2: isize,
    dtype: Option<&Bound<'_, PyAny>>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    only_defaults("trace", &[("out", out)])?;
    let d = dtype_arg(py, dtype)?;
    guard(|| {
        let t = tensor(&a);
        let t = d.map_or(t.clone(), |d| t.astype(d));
        Ok(Array(jnp::trace(&t, offset, axis1, axis2)))
    })
}

/// `jnp.angle(z, deg=False)`: the argument of complex numbers (in degrees with `deg`).
#[pyfunction]
#[pyo3(signature = (z, deg=false))]
fn angle(z: Arg, deg: bool) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::angle(z.operand(), deg))))
}

/// Adds `_oxla.linalg.products` to `_oxla.linalg`.
pub(crate) fn register(linalg: &Bound<'_, PyModule>) -> PyResult<()> {
    let sub = PyModule::new(linalg.py(), "products")?;
    sub.add_function(wrap_pyfunction!(einsum, &sub)?)?;
    sub.add_function(wrap_pyfunction!(tensordot, &sub)?)?;
    sub.add_function(wrap_pyfunction!(vdot, &sub)?)?;
    sub.add_function(wrap_pyfunction!(vecdot, &sub)?)?;
    sub.add_function(wrap_pyfunction!(matvec, &sub)?)?;
    sub.add_function(wrap_pyfunction!(vecmat, &sub)?)?;
    sub.add_function(wrap_pyfunction!(kron, &sub)?)?;
    sub.add_function(wrap_pyfunction!(cross, &sub)?)?;
    sub.add_function(wrap_pyfunction!(trace, &sub)?)?;
    sub.add_function(wrap_pyfunction!(angle, &sub)?)?;
    linalg.add_submodule(&sub)
}
