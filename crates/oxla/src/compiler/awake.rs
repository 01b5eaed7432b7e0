//! Keeping the kernels' thread pool awake while a compiled program runs.
//!
//! A program is a sequence of steps, most of them parallel over the pool. Between two
//! steps rayon's idle threads go to sleep after a few microseconds, and each parallel step
//! then pays for waking them (a futex call and a context switch) — more than some small
//! kernels take. While a program runs, the pool's other
//! threads instead poll for work and run what the step's thread spawns; one that finds
//! nothing for [`SPIN`] (a long step on one thread) goes back to sleep, so that it does not
//! hold a core the rest of the machine could use. A pool with more threads than the
//! process has cores is left to sleep as rayon makes it: there a polling thread would take
//! the core from a thread with work.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The planned peak bytes from which a program runs on the pool: a smaller one runs on
/// the calling thread, where a compiled call of a few small kernels takes less time than
/// handing it to the pool.
pub(super) const WORTH_WAKING: usize = 1 << 20;

/// How long a polling thread that finds no work keeps polling before it sleeps: longer
/// than the gap between two steps of a program, short beside a step that runs this long
/// on one thread.
const SPIN: Duration = Duration::from_millis(1);

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
/// Only the outermost call keeps the pool awake; a nested or concurrent one, or one on a
/// pool with more threads than cores, runs `f` on a thread of the pool as it is.
pub(super) fn run_awake<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    let threads = rayon::current_num_threads();
    if threads < 2 || threads > crate::env::cores() || AWAKE.swap(true, Ordering::AcqRel) {
        return rayon::scope(|_| f());
    }
    let _released = Finish(&AWAKE);
    let done = AtomicBool::new(false);
    rayon::scope(|s| {
        let me = rayon::current_thread_index();
        let done = &done;
        s.spawn_broadcast(move |_, ctx| {
            if Some(ctx.index()) != me {
                poll(done);
            }
        });
        let _finish = Finish(done);
        f()
    })
}

/// Runs the pool's work until `done`, or until none came for [`SPIN`].
fn poll(done: &AtomicBool) {
    let mut last_work = Instant::now();
    while !done.load(Ordering::Acquire) {
        if rayon::yield_now() == Some(rayon::Yield::Executed) {
            last_work = Instant::now();
        } else if last_work.elapsed() > SPIN {
            return;
        } else {
            std::hint::spin_loop();
        }
    }
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
    fn a_poller_without_work_goes_back_to_sleep() {
        // Its program still runs (`done` is false) and no work comes: it returns, where
        // before it polled until the program ended.
        super::poll(&std::sync::atomic::AtomicBool::new(false));
    }

    #[test]
    fn parallel_work_inside_runs_on_the_pool() {
        use rayon::prelude::*;
        let s: u64 = run_awake(|| (0..10_000u64).into_par_iter().sum());
        assert_eq!(s, 10_000 * 9_999 / 2);
    }
}
