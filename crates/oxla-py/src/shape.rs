//! numpy's shape, polynomial and miscellaneous functions, bound for Python in the `shape`
//! submodule of `_oxla` (`oxla.numpy` takes them, with JAX's keywords, from `_shape.py`).
//! This file: rearranging one array (`rot90`, `tile`, `repeat`, `moveaxis`, ...).

use oxla::numpy::{self as jnp, Operand, Repeats};
use oxla::Tensor;
use pyo3::prelude::*;

use crate::array::Array;
use crate::convert::{axis_of, Arg};
use crate::errors::guard;
use crate::transforms::arrays;

/// `jnp.fliplr(m)`: `m` reversed along its second axis.
#[pyfunction]
fn fliplr(m: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::fliplr(m.operand()))))
}

/// `jnp.flipud(m)`: `m` reversed along its first axis.
#[pyfunction]
fn flipud(m: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::flipud(m.operand()))))
}

/// `jnp.rot90(m, k=1, axes=(0, 1))`: `m` turned `k` quarter turns from `axes[0]` towards
/// `axes[1]`.
#[pyfunction]
#[pyo3(signature = (m, k=1, axes=(0, 1)))]
fn rot90(m: Arg, k: isize, axes: (isize, isize)) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::rot90(m.operand(), k, axes))))
}

/// `jnp.tile(A, reps)`: `A` repeated `reps` times along each axis.
#[pyfunction]
#[pyo3(signature = (A, reps))]
#[allow(non_snake_case)]
fn tile(A: Arg, reps: &Bound<'_, PyAny>) -> PyResult<Array> {
    let reps: Vec<usize> = match reps.extract::<usize>() {
        Ok(n) => vec![n],
        Err(_) => reps.extract()?,
    };
    guard(|| Ok(Array(jnp::tile(A.operand(), &reps))))
}

/// `jnp.repeat(a, repeats, axis=None)`: each element repeated `repeats` times (one count,
/// or one per element along `axis`).
#[pyfunction]
#[pyo3(signature = (a, repeats, axis=None, *, total_repeat_length=None))]
fn repeat(
    a: Arg,
    repeats: &Bound<'_, PyAny>,
    axis: Option<&Bound<'_, PyAny>>,
    total_repeat_length: Option<usize>,
) -> PyResult<Array> {
    if total_repeat_length.is_some() {
        return Err(pyo3::exceptions::PyNotImplementedError::new_err(
            "oxla's repeat takes total_repeat_length=None for now",
        ));
    }
    let repeats = match repeats.extract::<usize>() {
        Ok(n) => Repeats::Each(n),
        Err(_) => Repeats::PerElement(repeats.extract()?),
    };
    let axis = axis_of(axis, false)?;
    guard(|| Ok(Array(jnp::repeat(a.operand(), repeats, axis))))
}

/// `jnp.moveaxis(a, source, destination)`: the axes `source` moved to `destination`.
#[pyfunction]
fn moveaxis(a: Arg, source: &Bound<'_, PyAny>, destination: &Bound<'_, PyAny>) -> PyResult<Array> {
    let (s, d) = (
        axis_of(Some(source), false)?,
        axis_of(Some(destination), false)?,
    );
    guard(|| Ok(Array(jnp::moveaxis(a.operand(), s, d))))
}

/// `jnp.swapaxes(a, axis1, axis2)`: two axes interchanged.
#[pyfunction]
fn swapaxes(a: Arg, axis1: isize, axis2: isize) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::swapaxes(a.operand(), axis1, axis2))))
}

/// `jnp.rollaxis(a, axis, start=0)`: `axis` moved to before position `start`.
#[pyfunction]
#[pyo3(signature = (a, axis, start=0))]
fn rollaxis(a: Arg, axis: isize, start: isize) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::rollaxis(a.operand(), axis, start))))
}

/// `jnp.unstack(x, axis=0)`: the slices of `x` along `axis`.
#[pyfunction]
#[pyo3(signature = (x, /, *, axis=0))]
fn unstack(x: Arg, axis: isize) -> PyResult<Vec<Array>> {
    guard(|| Ok(arrays(jnp::unstack(x.operand(), axis))))
}

/// `jnp.atleast_1d`, `atleast_2d`, `atleast_3d` of one array, by rank (1, 2 or 3).
#[pyfunction]
fn atleast(rank: usize, x: Arg) -> PyResult<Array> {
    let f: fn(Operand) -> Tensor = match rank {
        1 => |x| jnp::atleast_1d(x),
        2 => |x| jnp::atleast_2d(x),
        _ => |x| jnp::atleast_3d(x),
    };
    guard(|| Ok(Array(f(x.operand()))))
}

/// Adds the `shape` submodule.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let sub = PyModule::new(m.py(), "shape")?;
    sub.add_function(wrap_pyfunction!(fliplr, &sub)?)?;
    sub.add_function(wrap_pyfunction!(flipud, &sub)?)?;
    sub.add_function(wrap_pyfunction!(rot90, &sub)?)?;
    sub.add_function(wrap_pyfunction!(tile, &sub)?)?;
    sub.add_function(wrap_pyfunction!(repeat, &sub)?)?;
    sub.add_function(wrap_pyfunction!(moveaxis, &sub)?)?;
    sub.add_function(wrap_pyfunction!(swapaxes, &sub)?)?;
    sub.add_function(wrap_pyfunction!(rollaxis, &sub)?)?;
    sub.add_function(wrap_pyfunction!(unstack, &sub)?)?;
    sub.add_function(wrap_pyfunction!(atleast, &sub)?)?;
    crate::shape_join::register(&sub)?;
    crate::shape_diag::register(&sub)?;
    crate::shape_poly::register(&sub)?;
    crate::shape_extra::register(&sub)?;
    crate::shape_misc::register(&sub)?;
    m.add_submodule(&sub)?;
    Ok(())
}
