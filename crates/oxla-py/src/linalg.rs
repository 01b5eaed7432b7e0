//! numpy.linalg, lax.linalg, numpy.fft and complex numbers, bound for Python.

use pyo3::prelude::*;

/// Adds this file's functions to the extension module.
pub(crate) fn register(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
