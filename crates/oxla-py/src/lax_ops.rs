//! lax's primitives beyond the elementwise table: reductions, windows, convolutions, cumulative ops, bit operations, bound for Python.

use pyo3::prelude::*;

/// Adds this file's functions to the extension module.
pub(crate) fn register(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
