//! CPU devices: the machine split into `OXLA_NUM_DEVICES` devices (or
//! [`set_num_devices`] before first use), each with its own thread pool and its share of
//! the threads, as JAX's `--xla_force_host_platform_device_count`. The default is one
//! device with every thread, so nothing changes for a program that maps nothing over
//! devices.
//!
//! A mapped function over devices (`pmap`) runs its body once per device, each on its own
//! pool; the members meet at every collective through a `Group` (`group.rs`), the
//! in-process communicator.

#[cfg(feature = "mpi")]
pub mod distributed;
mod group;

use std::sync::{Arc, Mutex, OnceLock};

pub(crate) use group::{as_member, at_line, member, Group};

/// One CPU device: its own pool of threads.
struct Device {
    pool: rayon::ThreadPool,
}

/// The device count asked for by [`set_num_devices`], before the devices start.
static ASKED: Mutex<Option<usize>> = Mutex::new(None);

/// The devices, started on first use from [`set_num_devices`] or `OXLA_NUM_DEVICES`.
fn devices() -> &'static [Device] {
    static DEVICES: OnceLock<Vec<Device>> = OnceLock::new();
    DEVICES.get_or_init(|| {
        let asked = *ASKED.lock().unwrap_or_else(|e| e.into_inner());
        let n = match asked {
            Some(n) => n,
            None => crate::env::num_devices().unwrap_or_else(|m| panic!("{m}")),
        };
        crate::env::init_threads();
        let threads = rayon::current_num_threads().min(crate::env::cores()).max(n);
        (0..n)
            .map(|d| {
                // The threads split as evenly as they go, the first devices taking the rest.
                let mine = threads / n + usize::from(d < threads % n);
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(mine)
                    .thread_name(move |t| format!("oxla-device-{d}-{t}"))
                    .build()
                    .unwrap_or_else(|e| panic!("oxla: cannot start device {d}'s threads: {e}"));
                Device { pool }
            })
            .collect()
    })
}

/// Whether a member waiting at a collective may spin before it sleeps: the devices'
/// threads are no more than the cores, so a spinning member takes no core another needs.
fn members_may_spin() -> bool {
    static SPIN: OnceLock<bool> = OnceLock::new();
    *SPIN.get_or_init(|| {
        let threads: usize = devices().iter().map(|d| d.pool.current_num_threads()).sum();
        threads <= crate::env::cores()
    })
}

/// Splits the machine into `n` CPU devices, each with its own share of the threads, as
/// `OXLA_NUM_DEVICES=n` does (JAX's `jax_num_cpu_devices`). Call it before the first use
/// of the devices; the default is one device.
///
/// # Panics
/// When `n` is 0, or when the devices have started with another count.
#[track_caller]
pub fn set_num_devices(n: usize) {
    let at = std::panic::Location::caller();
    assert!(
        n > 0,
        "set_num_devices: 0 devices cannot run anything\n  at {at}"
    );
    *ASKED.lock().unwrap_or_else(|e| e.into_inner()) = Some(n);
    let have = devices().len();
    assert!(
        have == n,
        "set_num_devices({n}): the devices started already, {have} of them; call it before \
         their first use (or set OXLA_NUM_DEVICES)\n  at {at}"
    );
}

/// The number of devices (JAX's `jax.device_count()`): every process's (each process has
/// as many).
pub fn device_count() -> usize {
    devices().len() * process_count()
}

/// The number of devices of this process (JAX's `jax.local_device_count()`).
pub fn local_device_count() -> usize {
    devices().len()
}

/// This process's index among the processes (JAX's `jax.process_index()`): its MPI rank
/// once `oxla::distributed::initialize` (`--features mpi`) ran, else 0.
pub fn process_index() -> usize {
    processes().0
}

/// The number of processes (JAX's `jax.process_count()`): the MPI ranks once
/// `oxla::distributed::initialize` (`--features mpi`) ran, else 1.
pub fn process_count() -> usize {
    processes().1
}

/// `a`, summed with the other processes' (MPI) when a map spans `processes` of them.
pub(crate) fn sum_across_processes(
    a: crate::array::Array,
    processes: usize,
) -> crate::array::Array {
    #[cfg(feature = "mpi")]
    if processes > 1 {
        return distributed::all_reduce(&a, distributed::Combine::Sum, "a map's summed result");
    }
    let _ = processes;
    a
}

/// `a`, this process's part of a map's result, joined along `dimension` with the other
/// processes' in rank order (MPI): process `p`'s is `parts[p]` long along it.
pub(crate) fn gather_across_processes(
    a: crate::array::Array,
    dimension: usize,
    parts: &[usize],
) -> crate::array::Array {
    #[cfg(feature = "mpi")]
    if parts.len() > 1 {
        return distributed::all_gather(&a, dimension, parts, "a map's joined result");
    }
    let _ = (dimension, parts);
    a
}

/// `verdict`, a compiled call's check of its memory plan `analysis` against this process's
/// limits, agreed between the processes its maps span (under MPI): an out-of-memory error
/// on one is the same error on every one, before anything runs.
pub(crate) fn agree_on_memory(
    verdict: crate::error::Result<()>,
    analysis: &crate::memory::MemoryAnalysis,
) -> crate::error::Result<()> {
    #[cfg(feature = "mpi")]
    return distributed::agree_on_memory(verdict, analysis);
    #[cfg(not(feature = "mpi"))]
    {
        let _ = analysis;
        verdict
    }
}

/// `err` ended a compiled call of `analysis` on this process after it started (an
/// allocation the system refused): when a map of the call spans the processes (MPI), the
/// others would wait for this one at its collectives, so every process ends, naming it.
pub(crate) fn failed_across_processes(
    err: &crate::error::Error,
    analysis: &crate::memory::MemoryAnalysis,
) {
    #[cfg(feature = "mpi")]
    if analysis.devices.iter().any(|d| d.processes > 1) {
        distributed::abort_naming(&err.to_string());
    }
    let _ = (err, analysis);
}

/// This process's rank and the number of processes.
fn processes() -> (usize, usize) {
    #[cfg(feature = "mpi")]
    if let Some(w) = distributed::world() {
        return w;
    }
    (0, 1)
}

/// `body(d)` for each device `d` of `devices`, each as a job on the device's pool, all at
/// once; the calling thread, outside every pool, blocks until they finish. No thread
/// starts: the pools' threads wait for work between calls.
fn on_pools<R: Send>(devices: &[Device], body: &(dyn Fn(usize) -> R + Sync)) -> Vec<R> {
    /// Spawns device `d`'s job (the first of `devices`) in a scope of its pool, and within
    /// it the next devices' in theirs; each scope ends when its job has.
    fn spawn<R: Send>(
        devices: &[Device],
        slots: &mut [Option<R>],
        d: usize,
        body: &(dyn Fn(usize) -> R + Sync),
    ) {
        let (Some((device, others)), Some((slot, rest))) =
            (devices.split_first(), slots.split_first_mut())
        else {
            return;
        };
        device.pool.in_place_scope(|s| {
            s.spawn(move |_| *slot = Some(body(d)));
            spawn(others, rest, d + 1, body);
        });
    }
    let mut slots: Vec<Option<R>> = devices.iter().map(|_| None).collect();
    spawn(devices, &mut slots, 0, body);
    slots
        .into_iter()
        .map(|s| s.expect("every device's job ran"))
        .collect()
}

/// Runs `f(d)` on devices `0..n` at once, each on its own pool, the members meeting at
/// their collectives over `axis` through one [`Group`]; returns the results in device
/// order. A panic on one device ends the group (the others' collectives return at once)
/// and is raised again here.
///
/// With `processes` above 1 (a `pmap`, or a `vmap(f).devices` spanning the ranks, under
/// MPI), the group spans every process, which must be as many, each with `n` members: its
/// collectives combine across the processes too.
///
/// One mapped call runs on the devices at a time: two calls' members sharing the devices'
/// threads could each wait at a collective for a member the other holds up.
///
/// # Panics
/// When `n` passes the device count, or inside another map over devices.
pub(crate) fn run<R: Send>(
    axis: &str,
    n: usize,
    processes: usize,
    f: impl Fn(usize) -> R + Sync,
) -> Vec<R> {
    static BUSY: Mutex<()> = Mutex::new(());
    let all = devices();
    assert!(
        n <= all.len(),
        "{n} devices asked for, {} started",
        all.len()
    );
    if let Some((outer, _)) = member() {
        panic!(
            "a map over devices (axis {axis:?}) inside another (axis {:?}): maps over devices \
             do not nest; map the inner function with vmap",
            outer.axis()
        );
    }
    let _busy = BUSY.lock().unwrap_or_else(|e| e.into_inner());
    let process = if processes > 1 {
        let (me, now) = self::processes();
        assert_eq!(
            now, processes,
            "a map over the devices of {processes} processes runs with {now} (MPI ended?)"
        );
        me
    } else {
        0
    };
    let group = Arc::new(Group::new(axis, n, process, processes));
    // Device `d`'s body, as member `d` of the group, on the calling thread.
    let body = |d: usize| {
        let _member = group.join(d);
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(d)));
        match out {
            Ok(_) => group.finish(d),
            Err(_) => group.poison(d),
        }
        out
    };
    let outside = rayon::current_thread_index().is_none();
    let results: Vec<std::thread::Result<R>> = if all.len() == 1 && n == 1 && outside {
        // A process's only device, called from outside every pool: it runs here, its
        // kernels on the global pool of as many threads, sparing a hand-off to the
        // device's pool each call.
        vec![body(0)]
    } else if outside {
        // Each device's body a job on its pool's waiting threads; this thread only waits.
        on_pools(&all[..n], &body)
    } else {
        // From a rayon worker, every device from a thread of its own, the worker only
        // waiting: waiting inside its pool's scope it could take up other work, such as
        // another map over the devices, while it holds them.
        let one = |d: usize| all[d].pool.install(|| body(d));
        std::thread::scope(|s| {
            let members: Vec<_> = (0..n).map(|d| s.spawn(move || one(d))).collect();
            members
                .into_iter()
                .map(|h| h.join().unwrap_or_else(Err))
                .collect()
        })
    };
    // The first failure that is not another's echo, else the first.
    let first = results
        .iter()
        .position(|r| r.as_ref().is_err_and(|e| !group::is_echo(&**e)))
        .or_else(|| results.iter().position(|r| r.is_err()));
    if let Some(k) = first {
        let payload = results
            .into_iter()
            .nth(k)
            .and_then(Result::err)
            .expect("a failure");
        match payload.downcast::<group::Echo>() {
            Ok(echo) => panic!("{}", echo.0),
            Err(payload) => std::panic::resume_unwind(payload),
        }
    }
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|_| unreachable!("no failure")))
        .collect()
}
