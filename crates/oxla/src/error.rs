//! Errors for everything that can fail at run time.
//!
//! A programmer's mistake at trace time (a shape mismatch, a bad axis) panics with a message
//! naming the primitive, the shapes and the caller's source line; what can fail at run time
//! returns [`Result`].

use std::path::Path;

/// oxla's error type.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A `.npy` file was malformed or of an unsupported dtype.
    #[error("npy: {0}")]
    Npy(String),
    /// A compiled call's memory plan exceeds the limit (`memory::set_memory_limit`,
    /// `OXLA_MEMORY_LIMIT`); nothing ran and the inputs are untouched.
    #[error(
        "out of memory: the call needs {} at its peak, over the limit of {}; its largest \
         buffer is {largest}{advice}",
        crate::memory::format_bytes(*needed),
        crate::memory::format_bytes(*limit)
    )]
    OutOfMemory {
        /// Bytes the plan needs at its peak.
        needed: usize,
        /// The limit in force.
        limit: usize,
        /// The largest buffer at the peak: size, aval, kind, primitive, equation, line.
        largest: String,
        /// What would fit: a chunk size for a chunked map of the program under which the
        /// program, planned again at that size, fits the limit (given by `jit(f).call`,
        /// which can trace `f` again; empty when there is none or it cannot be checked).
        advice: String,
    },
}

impl Error {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Error {
        Error::Io {
            path: path.display().to_string(),
            source,
        }
    }

    pub(crate) fn with_context(self, what: &str) -> Error {
        match self {
            Error::Npy(m) => Error::Npy(format!("{what}: {m}")),
            e => e,
        }
    }
}

/// `Result` with oxla's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
