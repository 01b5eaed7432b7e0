//! Moves across the ranks, of bytes (so of every dtype): `all_gather_into` for
//! `all_gather`, `all_to_all_into` for `all_to_all`, and point-to-point messages for
//! `ppermute`.

use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives, Destination, Source};

use super::{check_count, check_same, collective, fresh, Deadline, CALLING};
use crate::array::{Array, Buffer};

/// Every rank's `a` (the same shape on every rank), joined along `dimension` in rank order.
pub(crate) fn all_gather(a: &Array, dimension: usize, what: &str) -> Array {
    check_same(what);
    let world = SimpleCommunicator::world();
    let ranks = world.size() as usize;
    let send = a.as_bytes();
    check_count(send.len() * ranks, what);
    let mut all = fresh(send.len() * ranks);
    let deadline = Deadline::new(what);
    let calling = CALLING.lock().unwrap_or_else(|e| e.into_inner());
    collective!(
        deadline,
        world.all_gather_into / immediate_all_gather_into(send, all.as_mut_slice::<u8>())
    );
    drop(calling);
    let mut shape = a.shape().to_vec();
    shape[dimension] *= ranks;
    let outer: usize = a.shape()[..dimension].iter().product();
    if outer <= 1 {
        // Rank-major is the result's own order.
        return Array::from_buffer(a.dtype(), &shape, all);
    }
    // [rank, outer, inner] to [outer, rank, inner].
    let inner = send.len() / outer;
    let mut out = fresh(all.len_bytes());
    let (from, to) = (all.as_bytes(), out.as_mut_slice::<u8>());
    for o in 0..outer {
        for r in 0..ranks {
            let at = (o * ranks + r) * inner;
            let src = r * send.len() + o * inner;
            to[at..at + inner].copy_from_slice(&from[src..src + inner]);
        }
    }
    Array::from_buffer(a.dtype(), &shape, out)
}

/// `a`'s bytes reordered so that the `ranks` blocks along `dimension` come one after the
/// other: `[outer, ranks, inner]` to `[ranks, outer, inner]` (as `a`'s dtype and shape,
/// though the elements are no longer in its order).
pub(super) fn rank_major(a: &Array, dimension: usize, ranks: usize) -> Array {
    let outer: usize = a.shape()[..dimension].iter().product();
    if outer <= 1 {
        return a.clone();
    }
    let bytes = a.as_bytes();
    let inner = bytes.len() / outer / ranks;
    let mut out = fresh(bytes.len());
    let to = out.as_mut_slice::<u8>();
    for r in 0..ranks {
        for o in 0..outer {
            let at = (r * outer + o) * inner;
            let src = (o * ranks + r) * inner;
            to[at..at + inner].copy_from_slice(&bytes[src..src + inner]);
        }
    }
    Array::from_buffer(a.dtype(), a.shape(), out)
}

/// MPI's all-to-all of bytes: `send` holds one equal run for each rank in rank order, and
/// the result each rank's run for this one, in rank order.
pub(crate) fn all_to_all(send: &[u8], what: &str) -> Buffer {
    check_same(what);
    let world = SimpleCommunicator::world();
    let ranks = world.size() as usize;
    assert!(
        send.len().is_multiple_of(ranks),
        "{what}: {} bytes do not split into {ranks} equal runs",
        send.len()
    );
    check_count(send.len() / ranks, what);
    let mut got = fresh(send.len());
    let deadline = Deadline::new(what);
    let calling = CALLING.lock().unwrap_or_else(|e| e.into_inner());
    collective!(
        deadline,
        world.all_to_all_into / immediate_all_to_all_into(send, got.as_mut_slice::<u8>())
    );
    drop(calling);
    got
}

/// A message of a `ppermute` across ranks: the other rank, the tag that matches the two
/// ends (the receiving device's index along the axis), and the bytes.
pub(crate) struct Message<B> {
    pub(crate) rank: usize,
    pub(crate) tag: usize,
    pub(crate) bytes: B,
}

/// Sends every message of `sends` and receives every one of `receives` (each as many bytes
/// as asked for), all at once; returns the received bytes in the order asked for.
pub(crate) fn permute(
    sends: &[Message<&[u8]>],
    receives: &[Message<usize>],
    what: &str,
) -> Vec<Buffer> {
    check_same(what);
    let world = SimpleCommunicator::world();
    let mut got: Vec<Buffer> = receives
        .iter()
        .map(|m| {
            check_count(m.bytes, what);
            fresh(m.bytes)
        })
        .collect();
    let tag = |t: usize| i32::try_from(t).expect("a device index fits MPI's tag");
    let deadline = Deadline::new(what);
    let calling = CALLING.lock().unwrap_or_else(|e| e.into_inner());
    mpi::request::scope(|scope| {
        let mut requests = Vec::with_capacity(sends.len() + receives.len());
        for (buf, m) in got.iter_mut().zip(receives) {
            let from = world.process_at_rank(m.rank as i32);
            requests.push(from.immediate_receive_into_with_tag(
                scope,
                buf.as_mut_slice::<u8>(),
                tag(m.tag),
            ));
        }
        for m in sends {
            check_count(m.bytes.len(), what);
            let to = world.process_at_rank(m.rank as i32);
            requests.push(to.immediate_send_with_tag(scope, m.bytes, tag(m.tag)));
        }
        for r in requests {
            deadline.wait(r);
        }
    });
    drop(calling);
    got
}
