//! Helpers shared by the examples and the bench runner: memory and timing figures (each
//! example declares its own flags with `clap`).
#![allow(dead_code)]

/// The bytes per device of a collective's bandwidth table, 8 B to 256 MiB.
pub const BANDWIDTH_SIZES: [usize; 12] = [
    8,
    64,
    512,
    4 << 10,
    32 << 10,
    256 << 10,
    1 << 20,
    2 << 20,
    8 << 20,
    32 << 20,
    128 << 20,
    256 << 20,
];

/// A bandwidth example's `[BYTES [CALLS]]` arguments: one size of [`BANDWIDTH_SIZES`]
/// only, timed over as many calls (to profile it), each `None` when not given.
///
/// # Panics
/// When `BYTES` is not a size of the table or `CALLS` is not a count from 1.
pub fn one_size() -> (Option<usize>, Option<usize>) {
    let arg = |k: usize| {
        std::env::args().nth(k).map(|v| {
            v.parse::<usize>()
                .unwrap_or_else(|_| panic!("{v:?} is not a whole number"))
        })
    };
    let (bytes, calls) = (arg(1), arg(2));
    if let Some(b) = bytes {
        assert!(
            BANDWIDTH_SIZES.contains(&b),
            "BYTES {b} is none of the table's sizes {BANDWIDTH_SIZES:?}"
        );
    }
    assert!(calls != Some(0), "CALLS must be at least 1");
    (bytes, calls)
}

/// This process's peak resident memory so far, in MiB (Linux).
pub fn peak_rss_mib() -> u64 {
    status_mib("VmHWM:")
}

/// This process's resident memory now, in MiB (Linux).
pub fn rss_mib() -> u64 {
    status_mib("VmRSS:")
}

/// A `/proc/self/status` field given in KiB, in MiB.
fn status_mib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(0, |kib| kib / 1024)
}

/// The median of some timings.
pub fn median(times: &mut [std::time::Duration]) -> std::time::Duration {
    times.sort();
    times[times.len() / 2]
}
