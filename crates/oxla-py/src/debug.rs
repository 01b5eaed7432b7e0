//! `jax.debug.callback` (and `print`, built on it in Python): a Python function called
//! with the concrete values of traced arrays when the program runs.

use pyo3::prelude::*;

use crate::convert::{tensors, Arg};
use crate::errors::guard;
use crate::transforms::arrays;

/// Stages a call of Python `f` on the concrete values of `args` (a list of arrays), made
/// eagerly at once, each time a compiled program reaches it, once per example under
/// `vmap`, and on the forward pass under `grad`.
#[pyfunction]
fn debug_callback(f: Py<PyAny>, args: Vec<Arg>) -> PyResult<()> {
    let args = tensors(args);
    guard(|| {
        oxla::debug::callback(
            move |values: Vec<oxla::Tensor>| {
                Python::with_gil(|py| {
                    if let Err(e) = f.call1(py, (arrays(values),)) {
                        // As JAX: a failing callback is reported, not raised into the program.
                        e.print(py);
                    }
                })
            },
            args,
        );
        Ok(())
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(debug_callback, m)?)?;
    Ok(())
}
