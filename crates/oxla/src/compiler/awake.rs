//! Keeping the kernels' thread pool awake while a compiled program runs.
//!
//! A program is a sequence of steps, most of them parallel over the pool. Between two
//! steps rayon's idle threads go to sleep after a few microseconds, and each parallel step
//! then pays for waking them (a futex call and a context switch, 20-50 µs on a small
//! machine) — more than some small kernels take. While a program runs, every other thread
//! of the pool instead polls for work and runs what the step's thread spawns.

use std::sync::atomic::{AtomicBool, Ordering};

/// The planned peak bytes from which a program runs on the pool: a smaller one runs on
/// the calling thread (a compiled call of a few small kernels takes about a microsecond,
/// and handing it to the pool about twenty).
pub(super) const WORTH_WAKING: usize = 1 << 20;

/// Whether some program already keeps the pool awake (programs nest: a loop's body).
static AWAKE: AtomicBool = AtomicBool::new(false);

/// Sets its flag when dropped, also when the program panics, so that the pollers stop.
struct Finish<'a>(&'a AtomicBool);

impl Drop for Finish<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// Runs `f` on a thread of the pool while the pool's other threads poll for work.
///
/// Only the outermost call keeps the pool awake; a nested or concurrent one runs `f` on a
/// thread of the pool as it is.
pub(super) fn run_awake<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if rayon::current_num_threads() < 2 || AWAKE.swap(true, Ordering::AcqRel) {
        return rayon::scope(|_| f());
    }
    let _released = Finish(&AWAKE);
    let done = AtomicBool::new(false);
    rayon::scope(|s| {
        let me = rayon::current_thread_index();
        let done = &done;
        s.spawn_broadcast(move |_, ctx| {
            if Some(ctx.index()) == me {
                return;
            }
            while !done.load(Ordering::Acquire) {
                if rayon::yield_now() != Some(rayon::Yield::Executed) {
                    std::hint::spin_loop();
                }
            }
        });
        let _finish = Finish(done);
        f()
    })
}

#[cfg(test)]
mod tests {
    use super::run_awake;

    #[test]
    fn nested_and_panicking_programs_release_the_pool() {
        let v = run_awake(|| run_awake(|| (0..4).map(|i| run_awake(|| i)).sum::<i32>()));
        assert_eq!(v, 6);
        let caught = std::panic::catch_unwind(|| run_awake(|| panic!("a failing step")));
        assert!(caught.is_err());
        assert_eq!(run_awake(|| 1), 1);
    }

    #[test]
    fn parallel_work_inside_runs_on_the_pool() {
        use rayon::prelude::*;
        let s: u64 = run_awake(|| (0..10_000u64).into_par_iter().sum());
        assert_eq!(s, 10_000 * 9_999 / 2);
    }
}
