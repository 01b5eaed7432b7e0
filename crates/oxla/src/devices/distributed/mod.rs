//! Devices across processes (`--features mpi`): one process per MPI rank (`mpirun -np 2
//! ...`), each with its local devices; the devices of a `pmap` (or `shard_map`) are every
//! rank's, rank by rank. A collective over its axis is combined among the local devices
//! first (the in-process `Group`), then across the ranks by one thread of each process,
//! with MPI's own collectives and messages.
//!
//! [`initialize`] starts MPI (threads serialized: one thread of a process calls MPI at a
//! time) and returns the guard that ends it; a panic on any rank, on any thread, caught or
//! not, aborts every rank, so no rank waits for ever at a collective another will never
//! reach.
//!
//! `OXLA_COLLECTIVE_CHECK=1` checks, before each collective across ranks, that every rank
//! is at the same one (a hash of its primitive, parameters and operand, all-gathered):
//! ranks at different ones fail naming both collectives and their lines.
//! `OXLA_COLLECTIVE_TIMEOUT` bounds each wait across ranks: past it, the rank says where it
//! waits and aborts every rank. So does an allocation the system refuses in a compiled call
//! whose map spans the ranks: the others would wait for this one.
//!
//! The reductions (`reduce.rs`) carry every dtype but complex maxima and minima; the moves
//! (`moves.rs`: gathers, `all_to_all`, `ppermute`) carry bytes, so every dtype. Before a
//! compiled call whose map spans the ranks, they agree on its memory plan (`agree.rs`).

mod agree;
mod moves;
mod reduce;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use mpi::environment::Universe;
use mpi::request::{Request, Scope};
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives};
use mpi::Threading;

use crate::array::Buffer;

pub(crate) use agree::agree_on_memory;
pub(crate) use moves::{all_gather, all_to_all, permute, Message};
pub(crate) use reduce::{all_reduce, reduce_scatter, Combine};

/// The MPI environment while a [`Distributed`] guard lives.
static UNIVERSE: Mutex<Option<Universe>> = Mutex::new(None);

/// This process's rank and the number of ranks, once [`initialize`]d.
static WORLD: Mutex<Option<(usize, usize)>> = Mutex::new(None);

/// Held by the thread calling MPI: one at a time (serialized threads).
static CALLING: Mutex<()> = Mutex::new(());

/// MPI, started by [`initialize`]; dropping it ends MPI (`MPI_Finalize`), which every rank
/// must reach.
#[must_use = "MPI ends when the guard drops: keep it for the program's life"]
pub struct Distributed {
    rank: usize,
    size: usize,
    /// MPI ends on the thread that started it: the guard stays there.
    _here: std::marker::PhantomData<*const ()>,
}

impl Distributed {
    /// This process's rank (JAX's `jax.process_index()`).
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of processes (JAX's `jax.process_count()`).
    pub fn size(&self) -> usize {
        self.size
    }
}

impl Drop for Distributed {
    fn drop(&mut self) {
        *WORLD.lock().unwrap_or_else(|e| e.into_inner()) = None;
        drop(UNIVERSE.lock().unwrap_or_else(|e| e.into_inner()).take());
    }
}

/// Starts MPI, as `jax.distributed.initialize()`: after it, [`process_index`](crate::process_index)
/// and [`process_count`](crate::process_count) are the rank and the number of ranks, the
/// device count is every rank's devices, and a `pmap` runs over the devices of every rank,
/// its collectives combining across the ranks.
///
/// ```no_run
/// let mpi = oxla::distributed::initialize();
/// println!("rank {} of {}", mpi.rank(), mpi.size());
/// ```
///
/// # Panics
/// When MPI cannot start, gives fewer than serialized threads, or was started already.
pub fn initialize() -> Distributed {
    let mut universe = UNIVERSE.lock().unwrap_or_else(|e| e.into_inner());
    assert!(
        universe.is_none(),
        "oxla::distributed::initialize: MPI is started already"
    );
    let (u, level) = mpi::initialize_with_threading(Threading::Serialized)
        .expect("oxla::distributed::initialize: MPI cannot start (or started before)");
    assert!(
        level >= Threading::Serialized,
        "oxla::distributed::initialize: this MPI gives threads {level:?}, oxla needs Serialized"
    );
    let world = u.world();
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    // Every rank must split its messages alike, or each would wait for rounds the other
    // never sends.
    let mine = [crate::env::mpi_max_count() as u64];
    let mut counts = vec![0u64; size];
    world.all_gather_into(&mine[..], &mut counts[..]);
    assert!(
        counts.iter().all(|&c| c == counts[0]),
        "oxla::distributed::initialize: the ranks' OXLA_MPI_MAX_COUNT differ ({counts:?}); \
         set it alike on every rank"
    );
    *universe = Some(u);
    *WORLD.lock().unwrap_or_else(|e| e.into_inner()) = Some((rank, size));
    if size > 1 {
        // A rank that panics would leave the others waiting at its next collective.
        let before = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            before(info);
            let started = WORLD.try_lock().map(|w| w.is_some()).unwrap_or(true);
            if started {
                eprintln!("oxla: rank {rank} panicked; aborting every rank");
                abort_every_rank();
            }
        }));
    }
    Distributed {
        rank,
        size,
        _here: std::marker::PhantomData,
    }
}

/// This process's rank and the number of ranks, when MPI is started.
pub(crate) fn world() -> Option<(usize, usize)> {
    *WORLD.lock().unwrap_or_else(|e| e.into_inner())
}

/// Ends every rank's process, saying why this one ends them.
pub(crate) fn abort_naming(why: &str) -> ! {
    let rank = world().map_or(0, |w| w.0);
    eprintln!("oxla: rank {rank}: {why}; aborting every rank");
    abort_every_rank()
}

/// Ends every rank's process (`MPI_Abort`).
fn abort_every_rank() -> ! {
    // Another thread inside MPI may hold the lock; MPI_Abort ends it anyway.
    let _calling = CALLING.try_lock();
    SimpleCommunicator::world().abort(1)
}

/// A collective as errors name it: with the user's line that binds it, when known.
fn shown(what: &str) -> String {
    match super::group::current_line() {
        Some(line) => format!("{what} (at {line})"),
        None => what.to_string(),
    }
}

/// The wait of this rank at the collective `what`, bounded by `OXLA_COLLECTIVE_TIMEOUT`.
struct Deadline<'w> {
    what: &'w str,
    start: Instant,
    limit: Option<Duration>,
}

impl<'w> Deadline<'w> {
    /// The wait at `what`, from now.
    fn new(what: &'w str) -> Deadline<'w> {
        Deadline {
            what,
            start: Instant::now(),
            limit: crate::env::collective_timeout(),
        }
    }

    /// Waits for `request`, part of the collective, to finish. Past the timeout, prints
    /// which rank waits at which collective and aborts every rank: the ranks that did not
    /// come may never come.
    fn wait<'a, D: ?Sized, S: Scope<'a>>(&self, request: Request<'a, D, S>) {
        let Some(limit) = self.limit else {
            request.wait_without_status();
            return;
        };
        let mut request = request;
        loop {
            request = match request.test() {
                Ok(_) => return,
                Err(r) => r,
            };
            if self.start.elapsed() > limit {
                let rank = world().map_or(0, |w| w.0);
                eprintln!(
                    "OXLA_COLLECTIVE_TIMEOUT: rank {rank} waited {:.1} s at {} for the other \
                     ranks, which did not all come; aborting every rank",
                    limit.as_secs_f64(),
                    shown(self.what)
                );
                abort_every_rank();
            }
            std::thread::yield_now();
        }
    }
}

/// Runs an MPI collective under `deadline`: `$world.$name($args)`, MPI's blocking call
/// (its tuned algorithms), when no timeout is set; else `$world.$immediate(scope, $args)`,
/// the immediate one (a slower schedule), tested until it finishes or the time runs out.
macro_rules! collective {
    ($deadline:expr, $world:ident . $name:ident / $immediate:ident ( $($arg:expr),* )) => {
        if $deadline.limit.is_some() {
            ::mpi::request::scope(|scope| $deadline.wait($world.$immediate(scope, $($arg),*)))
        } else {
            $world.$name($($arg),*)
        }
    };
}
use collective;

/// Runs `$body` with `$t` the element type MPI carries for `$dtype`: the type itself, or
/// its bits' unsigned integer for bool (0 or 1); `$other` for the rest.
macro_rules! with_mpi_dtype {
    ($dtype:expr, $t:ident, $body:block, $other:ident => $rest:expr) => {
        with_mpi_dtype!(@arms $dtype, $t, $body, $other => $rest,
            [F32 f32, F64 f64, I8 i8, I16 i16, I32 i32, I64 i64, U8 u8, U16 u16, U32 u32,
             U64 u64, Bool u8])
    };
    (@arms $dtype:expr, $t:ident, $body:block, $other:ident => $rest:expr,
     [$($v:ident $ty:ty),*]) => {
        match $dtype {
            $(DType::$v => {
                type $t = $ty;
                $body
            })*
            $other => $rest,
        }
    };
}
use with_mpi_dtype;

/// With `OXLA_COLLECTIVE_CHECK` set, checks that every rank is at the collective `what`
/// (its primitive, parameters and operand) before it runs across the ranks: ranks at
/// different ones panic, each naming rank 0's collective and the first other rank's, with
/// their lines (and the panic aborts every rank).
fn check_same(what: &str) {
    use std::hash::{Hash, Hasher};
    if !crate::env::collective_check() {
        return;
    }
    let world = SimpleCommunicator::world();
    let ranks = world.size() as usize;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    what.hash(&mut hasher);
    let mine = [hasher.finish()];
    let mut all = vec![0u64; ranks];
    calling(what, |deadline| {
        collective!(
            deadline,
            world.all_gather_into / immediate_all_gather_into(&mine[..], &mut all[..])
        );
    });
    let Some(k) = all.iter().position(|&h| h != all[0]) else {
        return;
    };
    // Every rank saw the mismatch: they exchange what they are at, with its line.
    let shown = shown(what);
    let mut text = [0u8; SHOWN];
    let n = shown.len().min(SHOWN);
    text[..n].copy_from_slice(&shown.as_bytes()[..n]);
    let mut texts = vec![0u8; SHOWN * ranks];
    calling(what, |deadline| {
        collective!(
            deadline,
            world.all_gather_into / immediate_all_gather_into(&text[..], &mut texts[..])
        );
    });
    let at = |r: usize| {
        let t = &texts[r * SHOWN..(r + 1) * SHOWN];
        String::from_utf8_lossy(&t[..t.iter().position(|&b| b == 0).unwrap_or(SHOWN)]).into_owned()
    };
    panic!(
        "ranks disagree on the collective: rank 0 is at {}, rank {k} at {} \
         (OXLA_COLLECTIVE_CHECK; a collective inside control flow whose path differs between \
         ranks?)",
        at(0),
        at(k)
    );
}

/// Bytes of a collective's description exchanged when ranks disagree.
const SHOWN: usize = 512;

/// A buffer of `bytes` bytes that its caller writes whole (MPI, or a copy reordering what
/// MPI wrote) before it is read: no clearing, and a held buffer when one fits.
fn fresh(bytes: usize) -> Buffer {
    // SAFETY: every caller writes every byte before the buffer is read or made an array:
    // it hands the whole buffer to an MPI call that fills it, or copies into all of it.
    unsafe { Buffer::uninit(bytes) }
}

/// The most elements one MPI message carries: MPI counts in `int`, and
/// `OXLA_MPI_MAX_COUNT` may lower it. Larger collectives go in several messages.
fn max_count() -> usize {
    crate::env::mpi_max_count()
}

/// The most elements (bytes, for the moves) one round of a collective past MPI's count
/// takes from each of `ranks` ranks, alike on all: a `ranks`-th of `limit`, the count one
/// call may carry, and at most 64 Mi, so that the buffers of a round stay small beside
/// the collective.
fn round_piece(limit: usize, ranks: usize) -> usize {
    (limit / ranks).clamp(1, 64 << 20)
}

/// Packs elements `lo..lo + len` of each of `send`'s runs of `run` elements (one per rank,
/// in rank order) one after the other into `into`: a round's part of every rank's run.
fn pack_round<T: Copy>(send: &[T], run: usize, lo: usize, len: usize, into: &mut Vec<T>) {
    into.clear();
    for r in send.chunks(run) {
        into.extend_from_slice(&r[lo..lo + len]);
    }
}

/// Runs `f`, this thread's MPI calls for the collective `what`, holding the MPI lock (one
/// thread calls MPI at a time) and bounded by `OXLA_COLLECTIVE_TIMEOUT` (`f` waits under
/// the deadline it is given).
fn calling<R>(what: &str, f: impl FnOnce(&Deadline) -> R) -> R {
    let deadline = Deadline::new(what);
    let _calling = CALLING.lock().unwrap_or_else(|e| e.into_inner());
    f(&deadline)
}
