//! Freed large buffers are held for the next call of the same sizes, and never raise the
//! peak: one test in its own process, so that the held bytes and the peak RSS are its own.

use oxla::{jit, memory, numpy as jnp, Tensor};

/// Resident bytes now, after resetting the peak to them (Linux `clear_refs`).
fn reset_peak_rss() -> usize {
    std::fs::write("/proc/self/clear_refs", "5").expect("can reset the peak RSS");
    status("VmRSS:")
}

/// A `/proc/self/status` field given in KiB, in bytes.
fn status(field: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<usize>().ok())
        .map_or(0, |kib| kib * 1024)
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
    let before = reset_peak_rss();
    let r = f.call(large.clone()).unwrap();
    let grew = status("VmHWM:") - before;
    assert_eq!(memory::held_bytes(), 0);
    assert!(grew <= 48 * MIB, "the peak grew by {grew} B");
    // Dropped and asked for again, the 96 MiB are handed out again: no growth at all.
    drop(r);
    assert_eq!(memory::held_bytes(), 96 * MIB);
    let before = reset_peak_rss();
    let r = f.call(large.clone()).unwrap();
    let grew = status("VmHWM:") - before;
    assert_eq!(memory::held_bytes(), 0);
    assert!(grew <= 8 * MIB, "the peak grew by {grew} B");
    assert!(r.to_vec::<f32>().iter().all(|&v| v == 2.0));
    drop(r);
    memory::release_held();
    assert_eq!(memory::held_bytes(), 0);
}
