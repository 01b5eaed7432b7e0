//! Errors for everything that can fail at run time.
//!
//! A programmer's mistake at trace time (a shape mismatch, a bad axis) panics with a message
//! naming the primitive, the shapes and the caller's source line; what can fail at run time
//! returns [`Result`].

use crate::source::Source;
use std::fmt;
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
    ///
    /// ```
    /// use oxla::{jit, memory, numpy as jnp, vmap, Error, Tensor};
    /// // Sorting each example's 200 x 200 table holds 64 of them (10 MiB) at once.
    /// let f = |x: Tensor| {
    ///     let table = x.index((.., None)) * x.index((None, ..));
    ///     jnp::sort(&table, Some(-1)).index((.., -1)).sum(None)
    /// };
    /// let g = jit(move |xs: Tensor| vmap(f).chunk_size(64).call(xs));
    /// memory::set_memory_limit(Some(4 << 20));
    /// let err = g.call(jnp::ones(&[64, 200])).unwrap_err();
    /// memory::set_memory_limit(None);
    /// let Error::OutOfMemory { needed, limit, largest, fitting_chunk_size, .. } = err else {
    ///     unreachable!()
    /// };
    /// assert!(needed > limit.unwrap());
    /// assert_eq!(largest.unwrap().shape, vec![64, 200, 200]);
    /// assert!(fitting_chunk_size.is_some_and(|k| k < 64));
    /// ```
    #[error("out of memory{}: {}", device.map_or(String::new(), |d| format!(" on device {d}")), out_of_memory_text(*needed, *limit, *refused, largest.as_deref(), advice))]
    OutOfMemory {
        /// Bytes the plan needs at its peak.
        needed: usize,
        /// The limit in force, if any.
        limit: Option<usize>,
        /// Bytes of the allocation the system refused, when it did (the plan was within
        /// the limit).
        refused: Option<usize>,
        /// The largest buffer at the peak: size, dtype and shape, kind, primitive, equation
        /// and the user's line that makes it.
        largest: Option<Box<LargestBuffer>>,
        /// A chunk size for the program's chunked map (`vmap(..).chunk_size(k)` or
        /// `lax::map(..).batch_size(k)`) under which the program, planned again at that
        /// size, fits the limit (given by `jit(f).call`, which can trace `f` again; `None`
        /// when there is none or it cannot be checked).
        fitting_chunk_size: Option<usize>,
        /// The advice in words (where the chunked map is, what it would need), as the
        /// error's text ends; empty when there is none.
        advice: String,
        /// The device whose plan exceeds the limit of each device
        /// ([`set_device_memory_limit`](crate::memory::set_device_memory_limit),
        /// `OXLA_DEVICE_MEMORY`) or whose budget no chunk fits; `None` for the whole call.
        device: Option<usize>,
    },
}

/// What a planned buffer holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferKind {
    /// An argument of the call (owned by the caller).
    Argument,
    /// A constant captured by the program.
    Constant,
    /// An intermediate value, freed after its last use.
    Temporary,
    /// A result of the call.
    Output,
}

impl fmt::Display for BufferKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BufferKind::Argument => "argument",
            BufferKind::Constant => "constant",
            BufferKind::Temporary => "temporary",
            BufferKind::Output => "output",
        })
    }
}

/// The largest buffer at the peak of a call that ran out of memory, as
/// [`Error::OutOfMemory`] carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LargestBuffer {
    /// Size in bytes.
    pub bytes: usize,
    /// The dtype's short name (`"f32"`).
    pub dtype: &'static str,
    /// The shape.
    pub shape: Vec<usize>,
    /// What the buffer holds.
    pub kind: BufferKind,
    /// The primitive that computes it (empty for arguments and constants).
    pub primitive: &'static str,
    /// The index of that equation in the compiled jaxpr.
    pub equation: Option<usize>,
    /// The user's source line of that equation.
    pub source: Option<Source>,
}

impl fmt::Display for LargestBuffer {
    /// `"3.8 GiB f32[1000,1000,1000] (temporary, `mul` at equation 2, src/main.rs:4:9)"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dims: Vec<String> = self.shape.iter().map(usize::to_string).collect();
        let eqn = self.equation.map_or("-".to_string(), |e| e.to_string());
        let at = self.source.map_or("-".to_string(), |l| l.to_string());
        write!(
            f,
            "{} {}[{}] ({}, `{}` at equation {eqn}, {at})",
            crate::env::format_bytes(self.bytes),
            self.dtype,
            dims.join(","),
            self.kind,
            if self.primitive.is_empty() {
                "-"
            } else {
                self.primitive
            },
        )
    }
}

/// The text of [`Error::OutOfMemory`], after "out of memory: ".
fn out_of_memory_text(
    needed: usize,
    limit: Option<usize>,
    refused: Option<usize>,
    largest: Option<&LargestBuffer>,
    advice: &str,
) -> String {
    use crate::env::format_bytes;
    let largest = largest.map_or("-".to_string(), LargestBuffer::to_string);
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
