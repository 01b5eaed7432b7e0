//! Devices across processes (`--features mpi`): one process per MPI rank (`mpirun -np 2
//! ...`), each with its local devices; the devices of a `pmap` are every rank's, rank by
//! rank. A collective over its axis is combined among the local devices first (the
//! in-process `Group`), then across the ranks by one thread of each process, with MPI's
//! own collective (`all_reduce_into`, `all_gather_into`).
//!
//! [`initialize`] starts MPI (threads serialized: one thread of a process calls MPI at a
//! time) and returns the guard that ends it; a panic on any rank, on any thread, caught or
//! not, aborts every rank, so no rank waits for ever at a collective another will never
//! reach.
//!
//! `OXLA_COLLECTIVE_CHECK=1` checks, before each collective across ranks, that every rank
//! is at the same one (a hash of its primitive, parameters and operand, all-gathered):
//! ranks at different ones fail naming both collectives and their lines.
//!
//! Not yet: `OXLA_COLLECTIVE_TIMEOUT` does not bound the wait across ranks; `ppermute`,
//! `psum_scatter` (so the gradient of `all_gather`) and `all_to_all` do not cross; arrays
//! cross as f32, f64, i8, i32, i64, u8 or u32; MPI's maximum and minimum do not
//! propagate NaN as oxla's do.

use std::sync::Mutex;

use mpi::collective::SystemOperation;
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives, Equivalence};
use mpi::Threading;

use crate::array::{Array, DType, Elem};

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
                // Another thread inside MPI holds the lock; MPI_Abort ends it anyway.
                let _calling = CALLING.try_lock();
                SimpleCommunicator::world().abort(1);
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

/// How the ranks' arrays combine.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Combine {
    /// Elementwise sum.
    Sum,
    /// Elementwise maximum.
    Max,
    /// Elementwise minimum.
    Min,
}

/// Runs `$body` with `$t` the element type of `$dtype`, for the dtypes MPI carries.
macro_rules! with_mpi_dtype {
    ($dtype:expr, $t:ident, $what:expr, $body:block) => {
        with_mpi_dtype!(@arms $dtype, $t, $what, $body,
            [F32 f32, F64 f64, I8 i8, I32 i32, I64 i64, U8 u8, U32 u32])
    };
    (@arms $dtype:expr, $t:ident, $what:expr, $body:block, [$($v:ident $ty:ty),*]) => {
        match $dtype {
            $(DType::$v => {
                type $t = $ty;
                $body
            })*
            other => panic!(
                "{}: {other} arrays do not yet cross processes (f32, f64, i8, i32, i64, u8 and \
                 u32 do)",
                $what
            ),
        }
    };
}

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
    let mine = hasher.finish();
    let mut all = vec![0u64; ranks];
    let calling = CALLING.lock().unwrap_or_else(|e| e.into_inner());
    world.all_gather_into(&mine, &mut all[..]);
    let Some(k) = all.iter().position(|&h| h != all[0]) else {
        return;
    };
    // Every rank saw the mismatch: they exchange what they are at, with its line.
    let shown = match super::group::current_line() {
        Some(line) => format!("{what} (at {line})"),
        None => what.to_string(),
    };
    let mut text = [0u8; SHOWN];
    let n = shown.len().min(SHOWN);
    text[..n].copy_from_slice(&shown.as_bytes()[..n]);
    let mut texts = vec![0u8; SHOWN * ranks];
    world.all_gather_into(&text[..], &mut texts[..]);
    drop(calling);
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

/// `how` of every rank's `a`, elementwise, the same on every rank.
pub(crate) fn all_reduce(a: &Array, how: Combine, what: &str) -> Array {
    check_same(what);
    with_mpi_dtype!(a.dtype(), T, what, { reduce_as::<T>(a, how) })
}

fn reduce_as<T: Elem + Equivalence + Default>(a: &Array, how: Combine) -> Array {
    let world = SimpleCommunicator::world();
    let send = a.as_slice::<T>();
    let mut recv = vec![T::default(); send.len()];
    let op = match how {
        Combine::Sum => SystemOperation::sum(),
        Combine::Max => SystemOperation::max(),
        Combine::Min => SystemOperation::min(),
    };
    let _calling = CALLING.lock().unwrap_or_else(|e| e.into_inner());
    for (s, r) in send.chunks(CHUNK).zip(recv.chunks_mut(CHUNK)) {
        world.all_reduce_into(s, r, op);
    }
    Array::from_vec(recv, a.shape())
}

/// Elements per MPI message: MPI counts in `int`.
const CHUNK: usize = 1 << 30;

/// Every rank's `a` (each `[outer, inner]` around `dimension`, the same shape on every
/// rank), joined along `dimension` in rank order.
pub(crate) fn all_gather(a: &Array, dimension: usize, what: &str) -> Array {
    check_same(what);
    with_mpi_dtype!(a.dtype(), T, what, { gather_as::<T>(a, dimension) })
}

fn gather_as<T: Elem + Equivalence + Default + Copy>(a: &Array, dimension: usize) -> Array {
    let world = SimpleCommunicator::world();
    let ranks = world.size() as usize;
    let send = a.as_slice::<T>();
    assert!(
        send.len() * ranks <= i32::MAX as usize,
        "an all_gather across processes of {} elements from each of {ranks} ranks passes \
         MPI's count",
        send.len()
    );
    let mut all = vec![T::default(); send.len() * ranks];
    let calling = CALLING.lock().unwrap_or_else(|e| e.into_inner());
    world.all_gather_into(send, &mut all[..]);
    drop(calling);
    // [rank, outer, inner] to [outer, rank, inner].
    let outer: usize = a.shape()[..dimension].iter().product();
    let inner = send.len() / outer.max(1);
    let mut out = Vec::with_capacity(all.len());
    for o in 0..outer {
        for r in 0..ranks {
            let at = r * send.len() + o * inner;
            out.extend_from_slice(&all[at..at + inner]);
        }
    }
    let mut shape = a.shape().to_vec();
    shape[dimension] *= ranks;
    Array::from_vec(out, &shape)
}
