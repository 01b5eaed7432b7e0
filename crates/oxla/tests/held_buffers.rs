//! Freed large buffers are held for the next call of the same sizes, and never raise the
//! peak: one test in its own process, so that the held bytes and the peak RSS are its own.

mod rss;

use oxla::{jit, memory, numpy as jnp, Tensor};
use rss::{peak_rss, reset_peak_rss};

/// `run`'s result and how much it grew the peak resident memory.
fn growth<T>(run: impl FnOnce() -> T) -> (T, usize) {
    let before = reset_peak_rss();
    let out = run();
    (out, peak_rss() - before)
}

#[test]
fn held_buffers_are_reused_and_never_raise_the_peak() {
    const MIB: usize = 1 << 20;
    let f = jit(|x: Tensor| &x * 2.0);
    let (small, large) = (jnp::ones(&[16 * MIB]), jnp::ones(&[24 * MIB]));
    memory::release_held();
    // A 64 MiB result, dropped: held.
    drop(f.call(small.clone()).unwrap());
    assert_eq!(memory::held_bytes(), 64 * MIB);
    // A 96 MiB result fits no held buffer: the 64 MiB go back first, so the peak grows by
    // the difference only.
    let (r, grew) = growth(|| f.call(large.clone()).unwrap());
    assert_eq!(memory::held_bytes(), 0);
    assert!(grew <= 48 * MIB, "the peak grew by {grew} B");
    // Dropped and asked for again, the 96 MiB are handed out again: no growth at all.
    drop(r);
    assert_eq!(memory::held_bytes(), 96 * MIB);
    let (r, grew) = growth(|| f.call(large.clone()).unwrap());
    assert_eq!(memory::held_bytes(), 0);
    assert!(grew <= 8 * MIB, "the peak grew by {grew} B");
    assert!(r.to_vec::<f32>().iter().all(|&v| v == 2.0));
    drop(r);
    memory::release_held();
    assert_eq!(memory::held_bytes(), 0);

    // A miss that stays under the most ever alive releases nothing: with two results of
    // one size alive while one of them is held, the other held buffers stay (the
    // per-example gradients' 1.6 GB result was fresh memory on every call). `extra` raises
    // the most ever alive by 96 MiB.
    let both = jit(|(x, y): (Tensor, Tensor)| (&x * 2.0, &y * 2.0));
    let extra = jnp::ones(&[24 * MIB]);
    drop(both.call((small.clone(), large.clone())).unwrap());
    drop(extra);
    memory::release_held();
    drop(both.call((small.clone(), large.clone())).unwrap());
    assert_eq!(memory::held_bytes(), 160 * MIB);
    let first = f.call(large.clone()).unwrap();
    assert_eq!(memory::held_bytes(), 64 * MIB);
    let second = f.call(large.clone()).unwrap();
    assert_eq!(memory::held_bytes(), 64 * MIB, "the 64 MiB stay held");
    let (third, grew) = growth(|| f.call(small.clone()).unwrap());
    assert_eq!(memory::held_bytes(), 0);
    assert!(grew <= 8 * MIB, "the peak grew by {grew} B");
    assert!(second.to_vec::<f32>().iter().all(|&v| v == 2.0));
    drop((first, second, third));
    memory::release_held();
}
