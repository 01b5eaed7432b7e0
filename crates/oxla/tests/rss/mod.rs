//! This process's resident memory (Linux `/proc/self`), for the tests that check measured
//! memory against plans. Each test binary uses part of it.
#![allow(dead_code)]

/// A `/proc/self/status` field given in KiB, in bytes (0 where there is none).
fn status_bytes(field: &str) -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<usize>().ok())
        .map_or(0, |kib| kib * 1024)
}

/// Resident bytes now.
pub fn rss() -> usize {
    status_bytes("VmRSS:")
}

/// Peak resident bytes so far (or since [`reset_peak_rss`]).
pub fn peak_rss() -> usize {
    status_bytes("VmHWM:")
}

/// Resident bytes now, after resetting the peak to them (`clear_refs`).
pub fn reset_peak_rss() -> usize {
    std::fs::write("/proc/self/clear_refs", "5").expect("can reset the peak RSS");
    rss()
}
