//! Where in the user's code an equation was traced: the Rust caller's line
//! (`#[track_caller]`), or a line a front end names (the Python file and line that called
//! oxla), so that errors and memory plans point at the user's code in either language.

use std::collections::HashSet;
use std::fmt;
use std::panic::Location;
use std::sync::{Mutex, OnceLock};

/// The user's source line an equation was traced at. Copy, compared by value.
///
/// ```
/// let here = oxla::Source::caller();
/// assert!(here.file().ends_with(".rs"));
/// let py = oxla::Source::named("train.py", 12);
/// assert_eq!(py.to_string(), "train.py:12");
/// assert_eq!(py, oxla::Source::named("train.py", 12));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Source(Kind);

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Rust(&'static Location<'static>),
    Named(&'static Named),
}

/// A line a front end named, interned for the life of the process.
#[derive(PartialEq, Eq, Hash)]
struct Named {
    file: Box<str>,
    line: u32,
}

/// Every named line so far: a program has a bounded number of lines, and an equation keeps
/// its line as a `Copy` value.
static NAMED: Mutex<Option<HashSet<&'static Named>>> = Mutex::new(None);

impl Source {
    /// The caller's line in Rust.
    #[track_caller]
    pub fn caller() -> Source {
        Source(Kind::Rust(Location::caller()))
    }

    /// A line of a file in another language (a Python front end's `file.py:12`).
    pub fn named(file: &str, line: u32) -> Source {
        let key = Named {
            file: file.into(),
            line,
        };
        let mut set = NAMED.lock().unwrap_or_else(|e| e.into_inner());
        let set = set.get_or_insert_with(HashSet::new);
        if let Some(&n) = set.get(&key) {
            return Source(Kind::Named(n));
        }
        let n: &'static Named = Box::leak(Box::new(key));
        set.insert(n);
        Source(Kind::Named(n))
    }

    /// The file's path.
    pub fn file(&self) -> &'static str {
        match self.0 {
            Kind::Rust(l) => l.file(),
            Kind::Named(n) => &n.file,
        }
    }

    /// The line, from 1.
    pub fn line(&self) -> u32 {
        match self.0 {
            Kind::Rust(l) => l.line(),
            Kind::Named(n) => n.line,
        }
    }
}

impl From<&'static Location<'static>> for Source {
    fn from(l: &'static Location<'static>) -> Source {
        Source(Kind::Rust(l))
    }
}

/// `file:line:column` for a Rust line (as [`Location`] prints), `file:line` for a named one.
impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Kind::Rust(l) => l.fmt(f),
            Kind::Named(n) => write!(f, "{}:{}", n.file, n.line),
        }
    }
}

impl fmt::Debug for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A front end's way to name the user's line: called when an equation is traced, it
/// returns the line of the user's code that is running (the innermost Python frame outside
/// the front end's package), or `None` to keep the Rust caller's.
pub type SourceHook = fn() -> Option<Source>;

static HOOK: OnceLock<SourceHook> = OnceLock::new();

/// Installs the front end's [`SourceHook`] for the process (the first installed stays).
/// Equations traced afterwards record the line it names, unless a transform replaying an
/// equation keeps that equation's own line.
pub fn set_source_hook(hook: SourceHook) {
    let _ = HOOK.set(hook);
}

/// The front end's line for an equation traced now, if a hook is installed and names one.
pub(crate) fn front_end_line() -> Option<Source> {
    HOOK.get().and_then(|h| h())
}
