//! numpy's `take` and `take_along_axis`, in the `_oxla.stats` submodule.

use oxla::numpy::{self as jnp, TakeMode};
use pyo3::exceptions::{PyNotImplementedError, PyValueError};
use pyo3::prelude::*;

use crate::array::Array;
use crate::convert::Arg;
use crate::errors::guard;
use crate::stats::refuse;

/// JAX's `mode=` and `fill_value=` of a gather as oxla's mode: `None` or `'fill'`
/// (out-of-bounds indices give `fill_value`, or NaN and the like), `'clip'`, `'wrap'`
/// (`take` only), `'promise_in_bounds'` (`take_along_axis` only: clipped, a valid choice
/// for indices in bounds).
fn take_mode(name: &str, mode: Option<&str>, fill_value: Option<f64>) -> PyResult<TakeMode> {
    match mode {
        None | Some("fill") => Ok(fill_value.map_or(TakeMode::Fill, TakeMode::FillWith)),
        Some("clip") => Ok(TakeMode::Clip),
        Some("promise_in_bounds") if name == "take_along_axis" => Ok(TakeMode::Clip),
        Some("wrap") if name == "take" => Ok(TakeMode::Wrap),
        Some("raise") => Err(PyNotImplementedError::new_err(format!(
            "The 'raise' mode to jnp.{name} is not supported."
        ))),
        Some(other) => Err(PyValueError::new_err(format!(
            "jnp.{name}: invalid mode {other:?}"
        ))),
    }
}

/// `jnp.take(a, indices, axis=None, out=None, mode=None, unique_indices=False,
/// indices_are_sorted=False, fill_value=None)`: the elements of `a` at `indices` along
/// `axis` (`None`: of `a` flattened); `unique_indices` and `indices_are_sorted` are hints
/// for speed only.
#[pyfunction]
#[pyo3(signature = (a, indices, axis=None, out=None, mode=None, unique_indices=false,
                    indices_are_sorted=false, fill_value=None))]
#[allow(clippy::too_many_arguments)]
fn take(
    a: Arg,
    indices: Arg,
    axis: Option<isize>,
    out: Option<&Bound<'_, PyAny>>,
    mode: Option<&str>,
    unique_indices: bool,
    indices_are_sorted: bool,
    fill_value: Option<f64>,
) -> PyResult<Array> {
    let _ = (unique_indices, indices_are_sorted);
    refuse("take", &[("out", out)])?;
    let mode = take_mode("take", mode, fill_value)?;
    guard(|| Ok(Array(jnp::take(a.operand(), indices.operand(), axis, mode))))
}

/// `jnp.take_along_axis(arr, indices, axis=-1, mode=None, fill_value=None, *,
/// wrap_negative_indices=None)`: the elements of `arr` at `indices` along `axis` (`None`:
/// both flattened), the other dimensions broadcast.
#[pyfunction]
#[pyo3(signature = (arr, indices, axis=Some(-1), mode=None, fill_value=None, *,
                    wrap_negative_indices=None))]
fn take_along_axis(
    arr: Arg,
    indices: Arg,
    axis: Option<isize>,
    mode: Option<&str>,
    fill_value: Option<f64>,
    wrap_negative_indices: Option<bool>,
) -> PyResult<Array> {
    if wrap_negative_indices == Some(false) {
        return Err(PyNotImplementedError::new_err(
            "oxla's jnp.take_along_axis does not take wrap_negative_indices=False yet",
        ));
    }
    let mode = take_mode("take_along_axis", mode, fill_value)?;
    guard(|| {
        Ok(Array(jnp::take_along_axis(
            arr.operand(),
            indices.operand(),
            axis,
            mode,
        )))
    })
}

/// Adds this file's functions to the `stats` submodule.
pub(crate) fn add(sub: &Bound<'_, PyModule>) -> PyResult<()> {
    sub.add_function(wrap_pyfunction!(take, sub)?)?;
    sub.add_function(wrap_pyfunction!(take_along_axis, sub)?)?;
    Ok(())
}
