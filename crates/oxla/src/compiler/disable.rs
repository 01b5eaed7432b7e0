//! `disable_jit`: running jitted functions eagerly, op by op, for stepping through them.

use std::cell::Cell;

thread_local! {
    static DISABLED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with `jit` disabled on this thread (`jax.disable_jit()`): inside it,
/// `jit(g).call(x)` runs `g` as a plain function, so every primitive runs eagerly when it
/// is reached (values can be printed and a debugger steps through them) and `g` is
/// neither traced nor compiled. Other transforms (`vmap`, `grad`, the loops of `lax`)
/// work as usual. The previous state comes back when `f` returns or panics.
///
/// ```
/// use oxla::{disable_jit, jit, numpy as jnp, Tensor};
/// let f = jit(|x: Tensor| {
///     // Eager inside disable_jit: `x` is a concrete array, not a tracer.
///     assert_eq!(x.to_vec::<f32>(), vec![1.0, 2.0]);
///     x * 2.0
/// });
/// let y = disable_jit(|| f.call(jnp::array(&[1.0f32, 2.0], &[2]))).unwrap();
/// assert_eq!(y.to_vec::<f32>(), vec![2.0, 4.0]);
/// assert_eq!(f.cache_size(), 0);
/// ```
pub fn disable_jit<R>(f: impl FnOnce() -> R) -> R {
    crate::env::scoped(&DISABLED, true, f)
}

/// Whether `jit` is disabled on this thread (inside [`disable_jit`]).
pub(crate) fn jit_disabled() -> bool {
    DISABLED.with(Cell::get)
}
