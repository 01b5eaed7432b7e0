//! The in-process communicator: the members of one mapped call, one per device, meet at
//! every collective. Each brings its value and a description of the collective it is at
//! (the primitive, its parameters and operand); the last to arrive checks that every
//! member is at the same collective and combines the values once, and every member leaves
//! with the same combined result.
//!
//! No member waits for ever: a member that fails (a panic in its body) ends the group, and
//! the others leave their collective with an error naming it; a member that finishes while
//! others wait at a collective it never reached (its path through control flow differed)
//! makes them fail naming it; members at different collectives get an error naming both;
//! and `OXLA_COLLECTIVE_TIMEOUT` bounds a wait, naming the members that did not come.

use crate::source::Source;
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The members of one mapped call, meeting at its collectives over one axis.
pub(crate) struct Group {
    axis: Arc<str>,
    n: usize,
    /// This process's index among the processes the group spans, and their number.
    process: usize,
    processes: usize,
    state: Mutex<Round>,
    turn: Condvar,
    /// The meetings finished (`Round::generation`), read without the lock by a member
    /// waiting for its meeting to finish before it sleeps.
    meetings_done: AtomicU64,
}

/// How long a member waits for its meeting to finish before it sleeps, when the devices'
/// threads leave it a core: the others are usually moments away, and a sleeping thread's
/// wake-up costs tens of microseconds.
const SPIN: Duration = Duration::from_micros(50);

type Shared = Arc<dyn Any + Send + Sync>;

/// What a member brings to a meeting: the collective it is at (compared between the
/// members), the user's line that binds it (shown in errors), and its value.
type Slot = (String, Option<Source>, Box<dyn Any + Send>);

/// A slot's collective as errors name it: with its line, when known.
fn shown((what, line, _): &Slot) -> String {
    match line {
        Some(line) => format!("{what} (at {line})"),
        None => what.clone(),
    }
}

/// The meeting in progress and the result of the last one.
struct Round {
    /// Counts the meetings finished.
    generation: u64,
    /// What each member brought to the meeting in progress.
    slots: Vec<Option<Slot>>,
    /// The last meeting's result, or why it failed.
    done: Option<Result<Shared, String>>,
    /// A member that failed, ending the group.
    failed: Option<usize>,
    /// The members that finished their body.
    finished: Vec<bool>,
}

/// The panic of a member that leaves because another failed: the other's panic is the
/// one to report.
pub(super) struct Echo(pub(super) String);

/// Whether a panic payload is a member's echo of another's failure.
pub(super) fn is_echo(payload: &(dyn Any + Send)) -> bool {
    payload.is::<Echo>()
}

thread_local! {
    /// The group this thread's member belongs to, and its rank.
    static MEMBER: RefCell<Option<(Arc<Group>, usize)>> = const { RefCell::new(None) };
    /// The user's line of the collective this thread runs.
    static LINE: Cell<Option<Source>> = const { Cell::new(None) };
}

/// The user's line of the collective this thread runs, if it is one's kernel.
#[cfg(feature = "mpi")]
pub(crate) fn current_line() -> Option<Source> {
    LINE.with(Cell::get)
}

/// Runs `f`, a collective's kernel, with `line` as the user's line that bound it: errors
/// of its meeting name it.
pub(crate) fn at_line<R>(line: Source, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Source>);
    impl Drop for Restore {
        fn drop(&mut self) {
            LINE.with(|l| l.set(self.0));
        }
    }
    let _restore = Restore(LINE.with(|l| l.replace(Some(line))));
    f()
}

/// The group and rank of the member running on this thread, inside a mapped call.
pub(crate) fn member() -> Option<(Arc<Group>, usize)> {
    MEMBER.with(|m| m.borrow().clone())
}

/// Runs `f` as `member`: another thread's membership (from [`member`]), carried to this
/// one while it runs part of that member's work.
pub(crate) fn as_member<R>(member: Option<(Arc<Group>, usize)>, f: impl FnOnce() -> R) -> R {
    let _restore = Membership(MEMBER.with(|m| std::mem::replace(&mut *m.borrow_mut(), member)));
    f()
}

/// While alive, this thread is member `rank` of a group.
pub(super) struct Membership(Option<(Arc<Group>, usize)>);

impl Drop for Membership {
    fn drop(&mut self) {
        let before = self.0.take();
        MEMBER.with(|m| *m.borrow_mut() = before);
    }
}

impl Group {
    /// A group of `n` members over the axis `axis`, in this process (`process` of
    /// `processes`, each with `n` members).
    pub(super) fn new(axis: &str, n: usize, process: usize, processes: usize) -> Group {
        Group {
            axis: Arc::from(axis),
            n,
            process,
            processes,
            meetings_done: AtomicU64::new(0),
            state: Mutex::new(Round {
                generation: 0,
                slots: (0..n).map(|_| None).collect(),
                done: None,
                failed: None,
                finished: vec![false; n],
            }),
            turn: Condvar::new(),
        }
    }

    /// The axis the members are mapped over.
    pub(crate) fn axis(&self) -> &str {
        &self.axis
    }

    /// The number of members in this process.
    pub(crate) fn size(&self) -> usize {
        self.n
    }

    /// The number of processes the group spans (1 without MPI).
    pub(crate) fn processes(&self) -> usize {
        self.processes
    }

    /// The index along the axis of this process's first member.
    pub(crate) fn first(&self) -> usize {
        self.process * self.n
    }

    /// Makes this thread member `rank` until the guard drops.
    pub(super) fn join(self: &Arc<Self>, rank: usize) -> Membership {
        Membership(MEMBER.with(|m| m.borrow_mut().replace((self.clone(), rank))))
    }

    /// Ends the group: member `rank` failed. The others leave their collectives.
    pub(super) fn poison(&self, rank: usize) {
        let mut s = self.lock();
        s.failed.get_or_insert(rank);
        self.turn.notify_all();
    }

    /// Member `rank` finished its body: whoever waits for it at a collective never gets it.
    pub(super) fn finish(&self, rank: usize) {
        let mut s = self.lock();
        s.finished[rank] = true;
        self.turn.notify_all();
    }

    fn lock(&self) -> MutexGuard<'_, Round> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Member `rank` brings `value` to the collective `what`; the last member to come
    /// calls `finish` on every member's value, in rank order, and every member gets its
    /// result.
    ///
    /// # Panics
    /// When another member failed, when members are at different collectives, or when the
    /// wait passes `OXLA_COLLECTIVE_TIMEOUT`.
    pub(crate) fn meet<T, R>(
        &self,
        rank: usize,
        what: String,
        value: T,
        finish: impl FnOnce(Vec<T>) -> R,
    ) -> Arc<R>
    where
        T: Send + 'static,
        R: Send + Sync + 'static,
    {
        let mut s = self.lock();
        let generation = s.generation;
        s.slots[rank] = Some((what, LINE.with(Cell::get), Box::new(value)));
        if s.slots.iter().all(Option::is_some) {
            let brought: Vec<Slot> = s
                .slots
                .iter_mut()
                .map(|v| v.take().expect("every member came"))
                .collect();
            s.done = Some(self.combine(brought, finish));
            s.generation += 1;
            self.meetings_done.store(s.generation, Ordering::Release);
            self.turn.notify_all();
        } else {
            drop(s);
            let start = Instant::now();
            while super::members_may_spin()
                && self.meetings_done.load(Ordering::Acquire) == generation
                && start.elapsed() < SPIN
            {
                std::hint::spin_loop();
            }
            s = self.wait(self.lock(), rank, generation);
        }
        match s.done.clone().expect("a finished meeting") {
            Ok(r) => r
                .downcast::<R>()
                .unwrap_or_else(|_| unreachable!("one type a meeting")),
            Err(msg) => panic!("{msg}"),
        }
    }

    /// The result of a meeting every member came to: `finish` of their values, or the
    /// message for members at different collectives.
    fn combine<T: 'static, R: Send + Sync + 'static>(
        &self,
        brought: Vec<Slot>,
        finish: impl FnOnce(Vec<T>) -> R,
    ) -> Result<Shared, String> {
        if let Some(k) = brought.iter().position(|(w, ..)| *w != brought[0].0) {
            return Err(format!(
                "devices disagree on the collective over axis {:?}: device 0 is at {}, \
                 device {k} at {} (a collective inside control flow whose path differs \
                 between devices?)",
                self.axis,
                shown(&brought[0]),
                shown(&brought[k])
            ));
        }
        let values = brought
            .into_iter()
            .map(|(_, _, v)| {
                *v.downcast::<T>()
                    .unwrap_or_else(|_| unreachable!("one type"))
            })
            .collect();
        Ok(Arc::new(finish(values)))
    }

    /// Waits until the meeting `generation` finishes, another member fails, or the time
    /// runs out.
    fn wait<'a>(
        &'a self,
        mut s: MutexGuard<'a, Round>,
        rank: usize,
        generation: u64,
    ) -> MutexGuard<'a, Round> {
        let start = Instant::now();
        let limit = crate::env::collective_timeout();
        while s.generation == generation {
            if let Some(f) = s.failed {
                let what = s.slots[rank]
                    .take()
                    .map(|slot| shown(&slot))
                    .unwrap_or_default();
                drop(s);
                std::panic::panic_any(Echo(format!(
                    "device {rank} left {what} over axis {:?}: device {f} failed",
                    self.axis
                )));
            }
            if let Some(k) = (0..self.n).find(|&k| s.finished[k] && s.slots[k].is_none()) {
                let what = s.slots[rank]
                    .take()
                    .map(|slot| shown(&slot))
                    .unwrap_or_default();
                s.failed.get_or_insert(rank);
                self.turn.notify_all();
                drop(s);
                panic!(
                    "device {rank} waits at {what} over axis {:?}, but device {k} finished \
                     without reaching it (a collective inside control flow whose path differs \
                     between devices?)",
                    self.axis
                );
            }
            s = match limit {
                None => self.turn.wait(s).unwrap_or_else(|e| e.into_inner()),
                Some(limit) => {
                    let left = limit.saturating_sub(start.elapsed());
                    if left.is_zero() {
                        let what = s.slots[rank].as_ref().map(shown);
                        let absent: Vec<usize> =
                            (0..self.n).filter(|&k| s.slots[k].is_none()).collect();
                        s.failed.get_or_insert(rank);
                        self.turn.notify_all();
                        drop(s);
                        panic!(
                            "OXLA_COLLECTIVE_TIMEOUT: device {rank} waited {:.1} s at {} over \
                             axis {:?} for devices {absent:?}, which did not come",
                            limit.as_secs_f64(),
                            what.unwrap_or_default(),
                            self.axis
                        );
                    }
                    self.turn
                        .wait_timeout(s, left)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
            };
        }
        s
    }
}
