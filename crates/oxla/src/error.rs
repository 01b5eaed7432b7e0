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
    /// An `.npz` file was not a zip archive of `.npy` files, or could not be written.
    #[error("npz: {0}")]
    Npz(String),
    /// A `.safetensors` file was malformed or of an unsupported dtype, or could not be
    /// written.
    #[error("safetensors: {0}")]
    Safetensors(String),
    /// A tensor could not be converted to another library's array: a dtype that is not the
    /// element type asked for, or a tracer, which has no data.
    #[error("conversion: {0}")]
    Conversion(String),
    /// A compiled call ran out of memory: its plan exceeds the limit
    /// (`memory::set_memory_limit`, `OXLA_MEMORY_LIMIT`) and nothing ran, or the system
    /// refused one of its buffers while it ran. Either way the inputs are untouched, and
    /// the process can go on calling.
    #[error("out of memory: {}", out_of_memory_text(*needed, *limit, *refused, largest, advice))]
    OutOfMemory {
        /// Bytes the plan needs at its peak.
        needed: usize,
        /// The limit in force, if any.
        limit: Option<usize>,
        /// Bytes of the allocation the system refused, when it did (the plan was within
        /// the limit).
        refused: Option<usize>,
        /// The largest buffer at the peak: size, aval, kind, primitive, equation, line.
        largest: String,
        /// What would fit: a chunk size for a chunked map of the program under which the
        /// program, planned again at that size, fits the limit (given by `jit(f).call`,
        /// which can trace `f` again; empty when there is none or it cannot be checked).
        advice: String,
    },
}

/// The text of [`Error::OutOfMemory`], after "out of memory: ".
fn out_of_memory_text(
    needed: usize,
    limit: Option<usize>,
    refused: Option<usize>,
    largest: &str,
    advice: &str,
) -> String {
    use crate::env::format_bytes;
    let needed = format_bytes(needed);
    let limit = limit.map(format_bytes);
    match (refused, limit) {
        (Some(bytes), limit) => format!(
            "the system refused an allocation of {} ({bytes} bytes); the call needs {needed} \
             at its peak ({}); its largest buffer is {largest}{advice}",
            format_bytes(bytes),
            limit.map_or("no memory limit set".into(), |l| format!(
                "the limit is {l}"
            ))
        ),
        (None, limit) => format!(
            "the call needs {needed} at its peak, over the limit of {}; its largest buffer \
             is {largest}{advice}",
            limit.unwrap_or_else(|| "-".into())
        ),
    }
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
