//! The user's Python line: named in errors, and recorded by every equation traced from
//! Python ([`oxla::set_source_hook`]), so that memory plans, `explain` and traced errors
//! point at the user's `file.py:line` rather than at this crate's bindings.

use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;

/// `sys._getframe`, and the `oxla` package's directory.
static GETFRAME: GILOnceCell<(PyObject, String)> = GILOnceCell::new();

/// The file and line of the innermost Python frame outside the `oxla` package (and
/// outside Python's frozen import machinery): the user's code that called oxla.
pub(crate) fn user_frame(py: Python<'_>) -> PyResult<Option<(String, u32)>> {
    let (getframe, package) = GETFRAME.get_or_try_init(py, || -> PyResult<_> {
        let package = py.import("oxla")?.getattr("__path__")?.get_item(0)?;
        let getframe = py.import("sys")?.getattr("_getframe")?.unbind();
        Ok((getframe, package.extract()?))
    })?;
    let mut frame = getframe.bind(py).call1((0,))?;
    while !frame.is_none() {
        let file: String = frame.getattr("f_code")?.getattr("co_filename")?.extract()?;
        if !file.starts_with(package.as_str()) && !file.starts_with("<frozen") {
            return Ok(Some((file, frame.getattr("f_lineno")?.extract()?)));
        }
        frame = frame.getattr("f_back")?;
    }
    Ok(None)
}

/// The hook oxla calls for each equation traced: the user's Python line, where the
/// running code has one. Only on a thread inside a call from Python: a thread oxla
/// started (a device's) asks nothing, so it never waits for the interpreter while the
/// Python thread waits for it.
fn python_line() -> Option<oxla::Source> {
    if !crate::errors::called_from_python() {
        return None;
    }
    Python::with_gil(|py| {
        let (file, line) = user_frame(py).ok().flatten()?;
        Some(oxla::Source::named(&file, line))
    })
}

/// Makes equations traced from now on record the user's Python line.
pub(crate) fn install() {
    oxla::set_source_hook(python_line);
}
