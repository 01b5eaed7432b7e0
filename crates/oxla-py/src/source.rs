//! The user's Python line: named in errors, and recorded by every equation traced from
//! Python ([`oxla::set_source_hook`]), so that memory plans, `explain` and traced errors
//! point at the user's `file.py:line` rather than at this crate's bindings.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, MutexGuard};

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;

/// `sys._getframe`, and the `oxla` package's directory.
static GETFRAME: GILOnceCell<(PyObject, String)> = GILOnceCell::new();

/// What the frames walked so far ran: every equation traced from Python asks for its line,
/// so a file's verdict and a line's [`oxla::Source`] are found once, not per equation.
#[derive(Default)]
struct Seen {
    /// By the address of a frame's `co_filename` object (held here, so that the address
    /// stays its own): whether the file is the user's (not oxla's, nor Python's frozen
    /// import machinery's).
    files: HashMap<usize, (PyObject, bool)>,
    /// The lines named so far, by their file object's address and the line.
    lines: HashMap<(usize, u32), oxla::Source>,
}

/// The most files [`Seen`] keeps: code compiled again and again under names made at run
/// time makes a new file object each time, and each would be held for good.
const MOST_FILES: usize = 4096;

impl Seen {
    /// Records a file's verdict; past [`MOST_FILES`] forgets every file and line first,
    /// returning them to be dropped once the lock is released.
    fn remember(&mut self, key: usize, file: PyObject, users: bool) -> Option<Seen> {
        let forgotten = (self.files.len() >= MOST_FILES).then(|| std::mem::take(self));
        self.files.insert(key, (file, users));
        forgotten
    }
}

static SEEN: LazyLock<Mutex<Seen>> = LazyLock::new(Mutex::default);

/// [`SEEN`], locked only around a lookup or an insertion: never while Python runs, which
/// may trace (a finalizer calling oxla) and so come back here.
fn seen() -> MutexGuard<'static, Seen> {
    SEEN.lock().unwrap_or_else(|e| e.into_inner())
}

/// The file and line of the innermost Python frame outside the `oxla` package (and
/// outside Python's frozen import machinery): the user's code that called oxla.
pub(crate) fn user_line(py: Python<'_>) -> PyResult<Option<oxla::Source>> {
    let (getframe, package) = GETFRAME.get_or_try_init(py, || -> PyResult<_> {
        let package = py.import("oxla")?.getattr("__path__")?.get_item(0)?;
        let getframe = py.import("sys")?.getattr("_getframe")?.unbind();
        Ok((getframe, package.extract()?))
    })?;
    let mut frame = getframe.bind(py).call1((0,))?;
    while !frame.is_none() {
        let file = frame
            .getattr(intern!(py, "f_code"))?
            .getattr(intern!(py, "co_filename"))?;
        if users_file(&file, package)? {
            let line: u32 = frame.getattr(intern!(py, "f_lineno"))?.extract()?;
            return Ok(Some(named(&file, line)?));
        }
        frame = frame.getattr(intern!(py, "f_back"))?;
    }
    Ok(None)
}

/// Whether `file` (a frame's `co_filename`) is the user's: outside the `package`
/// directory and Python's frozen import machinery. Decided once per file object.
fn users_file(file: &Bound<'_, PyAny>, package: &str) -> PyResult<bool> {
    let key = file.as_ptr() as usize;
    if let Some(&(_, users)) = seen().files.get(&key) {
        return Ok(users);
    }
    let name: String = file.extract()?;
    let users = !name.starts_with(package) && !name.starts_with("<frozen");
    let forgotten = seen().remember(key, file.clone().unbind(), users);
    drop(forgotten);
    Ok(users)
}

/// The [`oxla::Source`] of `line` in `file`, named once per file object and line.
fn named(file: &Bound<'_, PyAny>, line: u32) -> PyResult<oxla::Source> {
    let key = file.as_ptr() as usize;
    if let Some(&s) = seen().lines.get(&(key, line)) {
        return Ok(s);
    }
    let s = oxla::Source::named(&file.extract::<String>()?, line);
    let mut held = seen();
    // Only while the file is held: its address is then its own.
    if held.files.contains_key(&key) {
        held.lines.insert((key, line), s);
    }
    Ok(s)
}

/// The hook oxla calls for each equation traced: the user's Python line, where the
/// running code has one. Only on a thread inside a call from Python: a thread oxla
/// started (a device's) asks nothing, so it never waits for the interpreter while the
/// Python thread waits for it.
fn python_line() -> Option<oxla::Source> {
    if !crate::errors::called_from_python() {
        return None;
    }
    Python::with_gil(|py| user_line(py).ok().flatten())
}

/// Makes equations traced from now on record the user's Python line.
pub(crate) fn install() {
    oxla::set_source_hook(python_line);
}
