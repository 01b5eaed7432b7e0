//! The memory limit of compiled calls (`memory::set_memory_limit`, `OXLA_MEMORY_LIMIT`),
//! kept beside the allocator: a buffer that is dropped while a limit is in force is not
//! held for reuse. Also the limit of each device's plan (`set_device_memory_limit`,
//! `OXLA_DEVICE_MEMORY`).

use std::sync::atomic::{AtomicUsize, Ordering};

/// The limit `set_memory_limit` set: unset (read `OXLA_MEMORY_LIMIT`), none, or bytes.
static LIMIT: AtomicUsize = AtomicUsize::new(UNSET);
const UNSET: usize = usize::MAX;
const UNLIMITED: usize = usize::MAX - 1;

/// Limits the memory a compiled call may plan to use at its peak (arguments, constants,
/// temporaries and results); `None` removes the limit. A call whose plan exceeds it
/// returns [`Error::OutOfMemory`](crate::Error::OutOfMemory) before anything runs, and its
/// inputs are untouched. Overrides the environment variable `OXLA_MEMORY_LIMIT`.
///
/// ```
/// use oxla::{jit, memory, numpy as jnp, Error, Tensor};
/// memory::set_memory_limit(Some(1 << 20));
/// let f = jit(|x: Tensor| jnp::sort(&(x.index((.., None)) * x.index((None, ..))), None));
/// let x = jnp::ones(&[1000]);
/// assert!(matches!(f.call(x.clone()), Err(Error::OutOfMemory { .. })));
/// memory::set_memory_limit(None);
/// assert_eq!(f.call(x)?.shape(), &[1_000_000]);
/// # Ok::<(), oxla::Error>(())
/// ```
pub fn set_memory_limit(bytes: Option<usize>) {
    LIMIT.store(
        bytes.map_or(UNLIMITED, |b| b.min(UNLIMITED - 1)),
        Ordering::Relaxed,
    );
    if bytes.is_some() {
        // Held buffers are outside every plan: a limit holds none.
        super::release_held();
    }
}

/// The limit in force: [`set_memory_limit`]'s, else `OXLA_MEMORY_LIMIT`'s (a size that
/// [`parse_bytes`](crate::memory::parse_bytes) reads, such as `"2GiB"`, `"2Gi"`, `"512MB"` or `"2e9"`), else none.
///
/// # Panics
/// When it reads `OXLA_MEMORY_LIMIT` and the value is not a size of at least one byte: the
/// message names the value and the sizes accepted.
pub fn memory_limit() -> Option<usize> {
    match LIMIT.load(Ordering::Relaxed) {
        UNSET => crate::env::memory_limit().unwrap_or_else(|msg| panic!("{msg}")),
        UNLIMITED => None,
        b => Some(b),
    }
}

/// Whether a limit is or may be in force: one set by [`set_memory_limit`], or
/// `OXLA_MEMORY_LIMIT` set to any value. Never panics (a buffer's drop asks).
pub(crate) fn limited() -> bool {
    match LIMIT.load(Ordering::Relaxed) {
        UNSET => crate::env::memory_limit_set(),
        UNLIMITED => false,
        _ => true,
    }
}

/// The limit `set_device_memory_limit` set: unset (read `OXLA_DEVICE_MEMORY`), none, or
/// bytes.
static DEVICE_LIMIT: AtomicUsize = AtomicUsize::new(UNSET);

/// Limits the memory each device may plan to use in a compiled call (a map over devices:
/// `pmap`, `shard_map`, `vmap(f).devices`), beside the whole call's
/// [`set_memory_limit`]; `None` removes it. A call in which one device's plan exceeds it
/// returns [`Error::OutOfMemory`](crate::Error::OutOfMemory) naming that device (and, for
/// `vmap(f).devices`, a chunk size that fits there) before anything runs. Overrides the
/// environment variable `OXLA_DEVICE_MEMORY`.
pub fn set_device_memory_limit(bytes: Option<usize>) {
    DEVICE_LIMIT.store(
        bytes.map_or(UNLIMITED, |b| b.min(UNLIMITED - 1)),
        Ordering::Relaxed,
    );
}

/// The limit of each device in force: [`set_device_memory_limit`]'s, else
/// `OXLA_DEVICE_MEMORY`'s (a size as for `OXLA_MEMORY_LIMIT`), else none.
///
/// # Panics
/// When it reads `OXLA_DEVICE_MEMORY` and the value is not a size of at least one byte.
pub fn device_memory_limit() -> Option<usize> {
    match DEVICE_LIMIT.load(Ordering::Relaxed) {
        UNSET => crate::env::device_memory().unwrap_or_else(|msg| panic!("{msg}")),
        UNLIMITED => None,
        b => Some(b),
    }
}
