//! Process-wide settings, as JAX's `jax.config`: today the x64 switch.
//!
//! With x64 off (the default, as in JAX), the default integer and float are `i32` and
//! `f32`: Rust scalars beside an integer tensor, `arange`, `zeros` and integer sums take
//! them. With x64 on (`enable_x64(true)` or `OXLA_ENABLE_X64=1`), they are `i64` and
//! `f64`, and `int32 * 2.5` is `float64`, as in JAX. Unlike JAX, oxla keeps a 64-bit dtype
//! the user names explicitly (an `f64` vector, `astype(DType::F64)`) with x64 off too:
//! Rust's element types are static, so such an array is what the program asked for.

use std::cell::Cell;
use std::sync::atomic::{AtomicU8, Ordering};

/// 0: not read yet; 1: off; 2: on.
static X64: AtomicU8 = AtomicU8::new(0);

thread_local! {
    /// A scoped setting of this thread ([`with_x64`]), ahead of the process-wide one.
    static SCOPED: Cell<Option<bool>> = const { Cell::new(None) };
}

/// Turns 64-bit default dtypes on or off for the whole process, as JAX's
/// `jax.config.update("jax_enable_x64", on)`. Set it before tracing: a function traced
/// under one setting keeps the dtypes it was traced with.
pub fn enable_x64(on: bool) {
    X64.store(if on { 2 } else { 1 }, Ordering::Relaxed);
}

/// Whether x64 is on for this thread: its [`with_x64`] scope if any, else the process
/// setting ([`enable_x64`], or `OXLA_ENABLE_X64` read once; off by default).
///
/// # Panics
/// When `OXLA_ENABLE_X64` holds something other than `0`, `1`, `true` or `false`.
pub fn x64_enabled() -> bool {
    if let Some(on) = SCOPED.with(Cell::get) {
        return on;
    }
    match X64.load(Ordering::Relaxed) {
        0 => {
            let on = crate::env::enable_x64().unwrap_or_else(|msg| panic!("{msg}"));
            // Another thread's `enable_x64` wins over the environment.
            let _ = X64.compare_exchange(
                0,
                if on { 2 } else { 1 },
                Ordering::Relaxed,
                Ordering::Relaxed,
            );
            X64.load(Ordering::Relaxed) == 2
        }
        v => v == 2,
    }
}

/// Runs `f` with x64 set to `on` on this thread only, as JAX's `jax.enable_x64(on)`
/// context manager; the setting before is restored after, also when `f` panics.
pub fn with_x64<R>(on: bool, f: impl FnOnce() -> R) -> R {
    crate::env::scoped(&SCOPED, Some(on), f)
}
