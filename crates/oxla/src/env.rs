//! The environment variables oxla reads, each once: `OXLA_NUM_THREADS` (the size of the
//! kernels' thread pool), `OXLA_MEMORY_LIMIT` (the budget of compiled calls), `OXLA_ISA`
//! (the most instruction set the kernels may use), `OXLA_ENABLE_X64` (64-bit default
//! dtypes, [`crate::config`]), `OXLA_NUM_DEVICES` (CPU devices, [`crate::devices`]),
//! `OXLA_COLLECTIVE_TIMEOUT` (the longest wait at a collective), and under MPI
//! `OXLA_COLLECTIVE_CHECK` and `OXLA_MPI_MAX_COUNT`. A value that cannot be read is never
//! ignored: where it is first needed, oxla panics with a message that names the variable,
//! the value and what it accepts.

use std::cell::Cell;
use std::sync::OnceLock;
use std::thread::LocalKey;

/// The number of threads the kernels' pool runs: a whole number from 1 up.
pub(crate) fn parse_threads(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("0 threads cannot run anything".into()),
        Ok(n) => Ok(n),
        Err(_) => Err("not a whole number".into()),
    }
}

/// Sizes rayon's global pool from `OXLA_NUM_THREADS` (default: rayon's, one thread per
/// core), once, before the first parallel kernel; a count above the cores this process may
/// use runs as many threads as cores, with a note on stderr. A pool the application built
/// before stays as it is.
///
/// # Panics
/// When `OXLA_NUM_THREADS` is set to something other than a thread count, or the pool's
/// threads cannot be started.
pub(crate) fn init_threads() {
    static POOL: OnceLock<Result<(), String>> = OnceLock::new();
    let built = POOL.get_or_init(|| {
        let Ok(v) = std::env::var("OXLA_NUM_THREADS") else {
            return Ok(());
        };
        let n = parse_threads(&v).map_err(|why| {
            format!(
                "OXLA_NUM_THREADS={v:?} is not a thread count ({why}): set it to a whole \
                 number of threads from 1 up, such as 4, or unset it for one thread per core"
            )
        })?;
        let cores = cores();
        if n > cores {
            eprintln!(
                "oxla: OXLA_NUM_THREADS={v:?} asks for more threads than the {cores} cores this \
                 process may use; the kernels' pool runs {cores} (a thread without a core only \
                 waits for one, and wakes the others)"
            );
        }
        let n = n.min(cores);
        match rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
        {
            // Only a failure to start the threads has a source; the other error is a
            // pool the application built first, which is its choice to make.
            Err(e) if std::error::Error::source(&e).is_some() => Err(format!(
                "OXLA_NUM_THREADS={v:?}: cannot start {n} threads ({e}); set fewer"
            )),
            _ => Ok(()),
        }
    });
    if let Err(msg) = built {
        panic!("{msg}");
    }
}

/// The cores this process may run on (its CPU affinity and quota), at least 1.
pub(crate) fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// How many parts a parallel kernel splits its work into: one per thread of the pool, but
/// no more than the cores (a pool the application built may have more). Threads beyond
/// the cores cannot run at once, and each further part wakes one of them to take a core
/// from another.
pub(crate) fn parts() -> usize {
    rayon::current_num_threads().min(cores())
}

/// `OXLA_MEMORY_LIMIT` in bytes, `None` when unset, or the message for a value that is
/// not a size.
pub(crate) fn memory_limit() -> Result<Option<usize>, &'static str> {
    static LIMIT: OnceLock<Result<Option<usize>, String>> = OnceLock::new();
    let limit = LIMIT.get_or_init(|| size_var("OXLA_MEMORY_LIMIT", "compiled call"));
    limit.as_ref().map(|b| *b).map_err(String::as_str)
}

/// `OXLA_DEVICE_MEMORY` (the limit of each device's plan in a compiled call) in bytes,
/// `None` when unset, or the message for a value that is not a size.
pub(crate) fn device_memory() -> Result<Option<usize>, &'static str> {
    static LIMIT: OnceLock<Result<Option<usize>, String>> = OnceLock::new();
    let limit = LIMIT.get_or_init(|| size_var("OXLA_DEVICE_MEMORY", "map over devices"));
    limit.as_ref().map(|b| *b).map_err(String::as_str)
}

/// The size in the environment variable `name`, a limit that `what` must fit.
fn size_var(name: &str, what: &str) -> Result<Option<usize>, String> {
    let Ok(v) = std::env::var(name) else {
        return Ok(None);
    };
    match bytes(&v) {
        Ok(0) => Err(format!(
            "{name}={v:?} would refuse every {what}: set a size such as 2GiB, or unset it \
             for no limit"
        )),
        Ok(b) => Ok(Some(b)),
        Err(why) => Err(format!(
            "{name}={v:?} is not a memory size ({why}): write a number of bytes with an \
             optional unit, such as 2GiB, 2Gi, 512MiB, 2GB, 2G, 1.5GB or 2e9 (k, M, G, T are \
             powers of 1000; Ki, Mi, Gi, Ti, with or without B, powers of 1024), or unset it \
             for no limit"
        )),
    }
}

/// `OXLA_NUM_DEVICES`: how many CPU devices the machine splits into (unset: 1), or the
/// message for a value that is not a count.
pub(crate) fn num_devices() -> Result<usize, String> {
    let Ok(v) = std::env::var("OXLA_NUM_DEVICES") else {
        return Ok(1);
    };
    match v.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!(
            "OXLA_NUM_DEVICES={v:?} is not a device count: set it to a whole number from 1 \
             up, such as 2, or unset it for one device"
        )),
    }
}

/// `OXLA_COLLECTIVE_TIMEOUT`: the longest a device waits for the others at a collective
/// (`60`, `60s`, `1.5s`; unset: no bound).
///
/// # Panics
/// When the value is not a number of seconds.
pub(crate) fn collective_timeout() -> Option<std::time::Duration> {
    static TIMEOUT: OnceLock<Option<std::time::Duration>> = OnceLock::new();
    *TIMEOUT.get_or_init(|| {
        let v = std::env::var("OXLA_COLLECTIVE_TIMEOUT").ok()?;
        let secs = v.trim().trim_end_matches('s').parse::<f64>();
        match secs {
            Ok(t) if t > 0.0 && t.is_finite() => Some(std::time::Duration::from_secs_f64(t)),
            _ => panic!(
                "OXLA_COLLECTIVE_TIMEOUT={v:?} is not a number of seconds: set it to one such \
                 as 60 or 1.5s, or unset it for no bound"
            ),
        }
    })
}

/// `OXLA_MPI_MAX_COUNT`: the most elements one MPI message carries (unset: MPI's own
/// bound, `i32::MAX`, as it counts in `int`). Larger collectives go in several messages; a
/// lower value splits them sooner, which the 2-rank check uses to test the splitting
/// without gigabytes.
///
/// # Panics
/// When the value is not a whole number from 1 up to `i32::MAX`.
#[cfg(feature = "mpi")]
pub(crate) fn mpi_max_count() -> usize {
    static COUNT: OnceLock<usize> = OnceLock::new();
    const MPI: usize = i32::MAX as usize;
    *COUNT.get_or_init(|| {
        let Ok(v) = std::env::var("OXLA_MPI_MAX_COUNT") else {
            return MPI;
        };
        match v.trim().parse::<usize>() {
            Ok(n) if (1..=MPI).contains(&n) => n,
            _ => panic!(
                "OXLA_MPI_MAX_COUNT={v:?} is not a count of elements: set it to a whole number \
                 from 1 to {MPI}, or unset it for MPI's own bound"
            ),
        }
    })
}

/// `OXLA_COLLECTIVE_CHECK` as a switch (unset: off): whether every collective across MPI
/// ranks first checks that the ranks are at the same one.
///
/// # Panics
/// When the value is not a switch.
#[cfg(feature = "mpi")]
pub(crate) fn collective_check() -> bool {
    static CHECK: OnceLock<bool> = OnceLock::new();
    *CHECK.get_or_init(|| {
        std::env::var("OXLA_COLLECTIVE_CHECK").is_ok_and(|v| {
            parse_x64(&v).unwrap_or_else(|_| {
                panic!(
                    "OXLA_COLLECTIVE_CHECK={v:?} is not a switch: set it to 1 (or true) to \
                     check, 0 (or false) or unset not to"
                )
            })
        })
    })
}

/// `OXLA_ENABLE_X64` as a switch (unset: off), or the message for a value that is not one.
pub(crate) fn enable_x64() -> Result<bool, String> {
    std::env::var("OXLA_ENABLE_X64").map_or(Ok(false), |v| parse_x64(&v))
}

/// A value of `OXLA_ENABLE_X64`: `1`/`true` on, `0`/`false`/empty off (any case, spaces
/// around ignored), or the message for anything else.
pub(crate) fn parse_x64(v: &str) -> Result<bool, String> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" => Ok(true),
        "" | "0" | "false" => Ok(false),
        _ => Err(format!(
            "OXLA_ENABLE_X64={v:?} is not a switch: set it to 1 (or true) for 64-bit \
             default dtypes, 0 (or false) or unset for 32-bit ones"
        )),
    }
}

/// Whether `OXLA_MEMORY_LIMIT` is set, to any value.
pub(crate) fn memory_limit_set() -> bool {
    !matches!(memory_limit(), Ok(None))
}

/// A size such as `"2GiB"`, `"2Gi"`, `"1.5 GB"`, `"2G"`, `"640k"`, `"2e9"` or `"1000000"`
/// in bytes, or why it is not one. Units are case-insensitive, with or without a final
/// `B`: `k`, `M`, `G`, `T` are powers of 1000, `Ki`, `Mi`, `Gi`, `Ti` powers of 1024. A
/// fraction of a byte is dropped; a size below one byte (other than 0) is refused.
pub(crate) fn bytes(s: &str) -> Result<usize, String> {
    let s = s.trim();
    let split = s
        .find(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E')
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let num = num.trim();
    let unit = unit.trim().to_ascii_lowercase();
    let scale: u64 = match unit.strip_suffix('b').unwrap_or(&unit) {
        "" => 1,
        "k" => 1000,
        "m" => 1000u64.pow(2),
        "g" => 1000u64.pow(3),
        "t" => 1000u64.pow(4),
        "ki" => 1 << 10,
        "mi" => 1 << 20,
        "gi" => 1 << 30,
        "ti" => 1 << 40,
        _ => return Err(format!("unknown unit {unit:?}")),
    };
    if num.is_empty() {
        return Err("no number".into());
    }
    // Whole numbers exactly; others (1.5, 2e9) through f64.
    if let Ok(n) = num.parse::<u64>() {
        return n
            .checked_mul(scale)
            .and_then(|b| usize::try_from(b).ok())
            .ok_or_else(|| "too large".into());
    }
    let v: f64 = num
        .parse()
        .map_err(|_| format!("{num:?} is not a number"))?;
    let b = v * scale as f64;
    if !b.is_finite() || b < 0.0 {
        return Err("not a non-negative size".into());
    }
    if b < 1.0 && b != 0.0 {
        return Err("less than one byte".into());
    }
    if b >= usize::MAX as f64 {
        return Err("too large".into());
    }
    Ok(b as usize)
}

/// `OXLA_ISA`: the most instruction set the kernels may use, as a level (1 the baseline,
/// 2 x86-64-v3, 3 x86-64-v4); 3 when unset.
///
/// # Panics
/// When `OXLA_ISA` is set to something other than `baseline`, `v3` or `v4`.
pub(crate) fn isa_level() -> u8 {
    let refuse = |v: &dyn std::fmt::Debug| -> ! {
        panic!("OXLA_ISA={v:?} is not an instruction set: use baseline, v3 or v4")
    };
    match std::env::var("OXLA_ISA") {
        Err(std::env::VarError::NotPresent) => 3,
        Err(std::env::VarError::NotUnicode(v)) => refuse(&v),
        Ok(v) if v == "baseline" => 1,
        Ok(v) if v == "v3" => 2,
        Ok(v) if v == "v4" => 3,
        Ok(v) => refuse(&v),
    }
}

/// `bytes` in binary units with three significant digits.
pub fn format_bytes(bytes: usize) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < units.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.3} {}", units[u])
    }
}

/// Runs `f` with the thread-local `cell` holding `value`, and puts back what it held before
/// afterwards, also when `f` panics: every scoped setting of oxla's (the pinned source
/// line, x64, `disable_jit`, the backward pass's dropped effects, a replanned budget).
pub(crate) fn scoped<T: 'static, R>(
    cell: &'static LocalKey<Cell<T>>,
    value: T,
    f: impl FnOnce() -> R,
) -> R {
    struct Restore<T: 'static>(&'static LocalKey<Cell<T>>, Option<T>);
    impl<T> Drop for Restore<T> {
        fn drop(&mut self) {
            if let Some(before) = self.1.take() {
                self.0.with(|c| c.set(before));
            }
        }
    }
    let _restore = Restore(cell, Some(cell.with(|c| c.replace(value))));
    f()
}

#[cfg(test)]
mod tests {
    use super::{bytes, parse_threads, parse_x64};

    #[test]
    fn x64_switch_spellings() {
        for (v, on) in [("1", true), ("true", true), (" TRUE ", true), ("0", false)] {
            assert_eq!(parse_x64(v), Ok(on), "{v:?}");
        }
        assert_eq!(parse_x64("false"), Ok(false));
        assert_eq!(parse_x64(""), Ok(false));
        let msg = parse_x64("yes").unwrap_err();
        assert!(
            msg.contains("OXLA_ENABLE_X64=\"yes\"") && msg.contains("set it to 1"),
            "{msg}"
        );
    }

    #[test]
    fn sizes_in_every_accepted_spelling() {
        let gi = 1usize << 30;
        for (s, b) in [
            ("2Gi", 2 * gi),
            ("2GiB", 2 * gi),
            ("2gib", 2 * gi),
            ("2 GiB", 2 * gi),
            ("2G", 2_000_000_000),
            ("2GB", 2_000_000_000),
            ("2e9", 2_000_000_000),
            ("2E9", 2_000_000_000),
            ("2e9B", 2_000_000_000),
            ("1.5GB", 1_500_000_000),
            ("512Mi", 512 << 20),
            ("512MiB", 512 << 20),
            ("512MB", 512_000_000),
            ("512M", 512_000_000),
            ("640k", 640_000),
            ("640KiB", 640 << 10),
            ("1.5 KiB", 1536),
            ("1Ti", 1 << 40),
            ("3T", 3_000_000_000_000),
            (" 4096 ", 4096),
            ("4096B", 4096),
            ("18446744073709551615", usize::MAX),
            ("2.5", 2),
            ("0", 0),
        ] {
            assert_eq!(bytes(s), Ok(b), "{s:?}");
        }
    }

    #[test]
    fn sizes_that_are_not_refused_with_the_reason() {
        for (s, why) in [
            ("0.5", "less than one byte"),
            ("1e-3", "less than one byte"),
            ("-1GB", "not a non-negative size"),
            ("inf", "unknown unit \"inf\""),
            ("lots", "unknown unit \"lots\""),
            ("3 parsecs", "unknown unit \"parsecs\""),
            ("2Gb it", "unknown unit \"gb it\""),
            ("GiB", "no number"),
            ("", "no number"),
            ("1.2.3MB", "\"1.2.3\" is not a number"),
            ("20000000000Ti", "too large"),
            ("1e30", "too large"),
        ] {
            assert_eq!(bytes(s), Err(why.to_string()), "{s:?}");
        }
    }

    #[test]
    fn thread_counts() {
        assert_eq!(parse_threads("4"), Ok(4));
        assert_eq!(parse_threads(" 1000 "), Ok(1000));
        assert!(parse_threads("0").is_err());
        assert!(parse_threads("-2").is_err());
        assert!(parse_threads("four").is_err());
        assert!(parse_threads("2.5").is_err());
        assert!(parse_threads("").is_err());
    }
}
