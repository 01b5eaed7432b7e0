//! scipy.special's functions and lax's special functions (gamma family, Bessel, zeta, error functions), bound for Python.

use pyo3::prelude::*;

/// Adds this file's functions to the extension module.
pub(crate) fn register(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
