//! Moves across the ranks, of bytes (so of every dtype): `all_gather_into` (its varcount
//! form for blocks of uneven length) for `all_gather`, `all_to_all_into` for `all_to_all`,
//! and point-to-point messages for `ppermute`. A move past what one message carries
//! (`max_count`) goes in rounds, each moving the next run of every rank's bytes.

use mpi::datatype::PartitionMut;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives, Destination, Source};
use mpi::Count;

use super::{calling, check_same, collective, fresh, max_count, pack_round, round_piece};
use crate::array::{Array, Buffer};

/// Every rank's `a` joined along `dimension` in rank order: rank `r`'s is `lengths[r]`
/// long along it, and the same shape as `a` elsewhere.
pub(crate) fn all_gather(a: &Array, dimension: usize, lengths: &[usize], what: &str) -> Array {
    check_same(what);
    let outer: usize = a.shape()[..dimension].iter().product();
    let unit = a.shape()[dimension + 1..].iter().product::<usize>() * a.dtype().size();
    let inners: Vec<usize> = lengths.iter().map(|l| l * unit).collect();
    let counts: Vec<usize> = inners.iter().map(|i| outer * i).collect();
    let all = gather_bytes(a.as_bytes(), &counts, what);
    let mut shape = a.shape().to_vec();
    shape[dimension] = lengths.iter().sum();
    if outer <= 1 {
        // Rank-major is the result's own order.
        return Array::from_buffer(a.dtype(), &shape, all);
    }
    // [rank, outer, inner] to [outer, rank, inner].
    let starts = offsets(&counts);
    let mut out = fresh(all.len_bytes());
    let (from, to) = (all.as_bytes(), out.as_mut_slice::<u8>());
    let mut at = 0;
    for o in 0..outer {
        for (&start, &inner) in starts.iter().zip(&inners) {
            let src = start + o * inner;
            to[at..at + inner].copy_from_slice(&from[src..src + inner]);
            at += inner;
        }
    }
    Array::from_buffer(a.dtype(), &shape, out)
}

/// Where each of `counts`' runs starts when they lie one after the other.
fn offsets(counts: &[usize]) -> Vec<usize> {
    counts
        .iter()
        .scan(0, |at, &c| {
            let start = *at;
            *at += c;
            Some(start)
        })
        .collect()
}

/// MPI's counts and displacements of runs of `counts` bytes, one after the other.
fn partition(counts: &[usize]) -> (Vec<Count>, Vec<Count>) {
    let count = |c: usize| Count::try_from(c).expect("a round's bytes fit MPI's count");
    (
        counts.iter().map(|&c| count(c)).collect(),
        offsets(counts).into_iter().map(count).collect(),
    )
}

/// Every rank's `send` (`counts[r]` bytes from rank `r`), joined in rank order. When the
/// whole passes what one call counts (MPI's count is of the whole buffer), in rounds of
/// `round_piece` bytes from each rank, received into a buffer of one round and copied
/// into place.
fn gather_bytes(send: &[u8], counts: &[usize], what: &str) -> Buffer {
    let world = SimpleCommunicator::world();
    let ranks = counts.len();
    let total: usize = counts.iter().sum();
    let mut all = fresh(total);
    let limit = max_count();
    let even = counts.iter().all(|&c| c == counts[0]);
    calling(what, |deadline| {
        let to = all.as_mut_slice::<u8>();
        if even && total <= limit {
            collective!(
                deadline,
                world.all_gather_into / immediate_all_gather_into(send, to)
            );
            return;
        }
        if total <= limit {
            let (c, d) = partition(counts);
            let mut parts = PartitionMut::new(to, c, d);
            collective!(
                deadline,
                world.all_gather_varcount_into
                    / immediate_all_gather_varcount_into(send, &mut parts)
            );
            return;
        }
        let piece = round_piece(limit, ranks);
        let starts = offsets(counts);
        let longest = counts.iter().copied().max().unwrap_or(0);
        let mut round = fresh(piece * ranks);
        for lo in (0..longest).step_by(piece) {
            let part: Vec<usize> = counts
                .iter()
                .map(|&c| c.saturating_sub(lo).min(piece))
                .collect();
            let mine = &send[lo.min(send.len())..(lo + piece).min(send.len())];
            let (c, d) = partition(&part);
            let mut parts = PartitionMut::new(round.as_mut_slice::<u8>(), c, d);
            collective!(
                deadline,
                world.all_gather_varcount_into
                    / immediate_all_gather_varcount_into(mine, &mut parts)
            );
            let mut at = 0;
            for (&start, &len) in starts.iter().zip(&part).filter(|(_, &len)| len > 0) {
                to[start + lo..start + lo + len].copy_from_slice(&round.as_bytes()[at..at + len]);
                at += len;
            }
        }
    });
    all
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
/// the result each rank's run for this one, in rank order. Past what one call counts (the
/// whole buffer), in rounds, each packing the next piece of every run together.
pub(crate) fn all_to_all(send: &[u8], what: &str) -> Buffer {
    check_same(what);
    let world = SimpleCommunicator::world();
    let ranks = world.size() as usize;
    assert!(
        send.len().is_multiple_of(ranks),
        "{what}: {} bytes do not split into {ranks} equal runs",
        send.len()
    );
    let run = send.len() / ranks;
    let mut got = fresh(send.len());
    let limit = max_count();
    calling(what, |deadline| {
        let to = got.as_mut_slice::<u8>();
        if send.len() <= limit {
            collective!(
                deadline,
                world.all_to_all_into / immediate_all_to_all_into(send, to)
            );
            return;
        }
        let piece = round_piece(limit, ranks);
        let (mut packed, mut back) = (Vec::with_capacity(piece * ranks), fresh(piece * ranks));
        for lo in (0..run).step_by(piece) {
            let len = piece.min(run - lo);
            pack_round(send, run, lo, len, &mut packed);
            let received = &mut back.as_mut_slice::<u8>()[..ranks * len];
            collective!(
                deadline,
                world.all_to_all_into / immediate_all_to_all_into(&packed[..], received)
            );
            for r in 0..ranks {
                to[r * run + lo..][..len].copy_from_slice(&back.as_bytes()[r * len..][..len]);
            }
        }
    });
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
/// as asked for), all at once; returns the received bytes in the order asked for. A message
/// past what one carries goes in pieces, which MPI keeps in order between two ranks and
/// one tag.
pub(crate) fn permute(
    sends: &[Message<&[u8]>],
    receives: &[Message<usize>],
    what: &str,
) -> Vec<Buffer> {
    check_same(what);
    let world = SimpleCommunicator::world();
    let limit = max_count();
    let mut got: Vec<Buffer> = receives.iter().map(|m| fresh(m.bytes)).collect();
    let tag = |t: usize| i32::try_from(t).expect("a device index fits MPI's tag");
    calling(what, |deadline| {
        mpi::request::scope(|scope| {
            let mut requests = Vec::with_capacity(sends.len() + receives.len());
            for (buf, m) in got.iter_mut().zip(receives) {
                let from = world.process_at_rank(m.rank as i32);
                for piece in buf.as_mut_slice::<u8>().chunks_mut(limit) {
                    requests.push(from.immediate_receive_into_with_tag(scope, piece, tag(m.tag)));
                }
            }
            for m in sends {
                let to = world.process_at_rank(m.rank as i32);
                for piece in m.bytes.chunks(limit) {
                    requests.push(to.immediate_send_with_tag(scope, piece, tag(m.tag)));
                }
            }
            for r in requests {
                deadline.wait(r);
            }
        });
    });
    got
}
