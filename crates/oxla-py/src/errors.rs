//! oxla's errors as Python exceptions.
//!
//! oxla reports a programmer's mistake by panicking with a message that names shapes and
//! the primitive; every call into oxla runs inside [`guard`], which turns the panic into
//! JAX's exception type (read from the message: `ValueError` for an axis out of range,
//! `IndexError` for an index out of bounds or a second `...`, `TypeError` otherwise)
//! without printing it, naming the user's Python file and line. A Python exception raised inside a traced function travels
//! through oxla as a panic payload ([`PyErrPayload`]) and comes out unchanged.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};

use pyo3::exceptions::{PyIndexError, PyMemoryError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    _oxla,
    ConcretizationTypeError,
    PyTypeError,
    "A traced value was used where a concrete one is needed (Python control flow, \
     conversion to numpy or to a Python scalar)."
);
pyo3::create_exception!(
    _oxla,
    OutOfMemoryError,
    PyMemoryError,
    "A compiled call or a budgeted vmap whose memory plan exceeds the limit; carries the \
     plan's figures as attributes."
);

/// A Python exception raised inside a function oxla was tracing.
pub(crate) struct PyErrPayload(pub(crate) PyErr);

thread_local! {
    /// How many [`guard`]s are running on this thread: their panics are reported as
    /// exceptions, not printed.
    static GUARDED: Cell<usize> = const { Cell::new(0) };
}

/// Installs a panic hook that is silent inside [`guard`] and defers to the previous hook
/// elsewhere.
pub(crate) fn install_panic_hook() {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if GUARDED.with(Cell::get) == 0 {
            previous(info);
        }
    }));
}

/// Whether this thread is inside a call from Python into oxla (a [`guard`]): threads oxla
/// starts (devices, workers) are not, and never ask Python anything.
pub(crate) fn called_from_python() -> bool {
    GUARDED.with(Cell::get) > 0
}

/// Runs `f`, turning a panic into the Python exception it stands for.
pub(crate) fn guard<R>(f: impl FnOnce() -> PyResult<R>) -> PyResult<R> {
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            GUARDED.with(|g| g.set(g.get() - 1));
        }
    }
    GUARDED.with(|g| g.set(g.get() + 1));
    let _leave = Leave;
    match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => Err(from_panic(payload)),
    }
}

/// Re-raises a Python exception inside a traced function as a panic that [`guard`]
/// turns back into it.
pub(crate) fn raise(e: PyErr) -> ! {
    panic::resume_unwind(Box::new(PyErrPayload(e)))
}

fn from_panic(payload: Box<dyn std::any::Any + Send>) -> PyErr {
    let payload = match payload.downcast::<PyErrPayload>() {
        Ok(e) => return e.0,
        Err(p) => p,
    };
    let message = if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else {
        "oxla panicked".to_string()
    };
    exception_for(&at_user_line(&message))
}

/// `message` with the Rust locations oxla names (`  at crates/...rs:L:C`: from Python,
/// always this crate's binding that called oxla) replaced by the line of the user's Python
/// code that made the call.
fn at_user_line(message: &str) -> String {
    let rust_location = |l: &str| {
        let l = l.trim_start();
        l.starts_with("at ") && l.contains(".rs:")
    };
    let kept: Vec<&str> = message.lines().filter(|l| !rust_location(l)).collect();
    let kept = kept.join("\n");
    match Python::with_gil(|py| crate::source::user_line(py).ok().flatten()) {
        Some(line) => format!("{kept}\n  at {line}"),
        None => kept,
    }
}

/// JAX's exception type for an oxla panic message.
fn exception_for(message: &str) -> PyErr {
    let lower = message.to_lowercase();
    if lower.contains("has no concrete value") {
        ConcretizationTypeError::new_err(message.to_string())
    } else if lower.starts_with("index:") && lower.contains("out of bounds") {
        // numpy's error; JAX clamps the index instead, which hides the mistake.
        PyIndexError::new_err(message.to_string())
    } else if lower.contains("devices, but only") {
        // JAX's error for a mapped axis longer than the device count.
        PyValueError::new_err(message.to_string())
    } else if lower.contains("varies over the axis") {
        // JAX's error for out_specs that claim a varying result is replicated.
        PyValueError::new_err(message.to_string())
    } else if lower.contains("one ellipsis") {
        PyIndexError::new_err(message.to_string())
    } else if (lower.contains("axis") || lower.contains("axes"))
        && (lower.contains("out of") || lower.contains("bounds"))
    {
        PyValueError::new_err(message.to_string())
    } else {
        PyTypeError::new_err(message.to_string())
    }
}

/// An oxla run-time error as a Python exception: `OutOfMemoryError` with the plan's
/// figures, `RuntimeError` otherwise.
pub(crate) fn from_oxla(py: Python<'_>, e: oxla::Error) -> PyErr {
    match &e {
        oxla::Error::OutOfMemory {
            needed,
            limit,
            fitting_chunk_size,
            largest,
            ..
        } => {
            let err = OutOfMemoryError::new_err(e.to_string());
            let value = err.value(py);
            let largest_bytes = largest.as_ref().map(|l| l.bytes);
            let set = || -> PyResult<()> {
                value.setattr("needed", needed)?;
                value.setattr("limit", limit)?;
                value.setattr("fitting_chunk_size", fitting_chunk_size)?;
                value.setattr("largest_bytes", largest_bytes)?;
                Ok(())
            };
            match set() {
                Ok(()) => err,
                Err(other) => other,
            }
        }
        _ => PyRuntimeError::new_err(e.to_string()),
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add(
        "ConcretizationTypeError",
        py.get_type::<ConcretizationTypeError>(),
    )?;
    m.add("OutOfMemoryError", py.get_type::<OutOfMemoryError>())?;
    Ok(())
}
