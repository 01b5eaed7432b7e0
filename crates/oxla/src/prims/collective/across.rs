//! The collectives that exchange blocks between processes (MPI): `psum_scatter`,
//! `ppermute` and `all_to_all` over an axis of every rank's devices, rank by rank. The
//! members of a process meet first; one of them then exchanges the process's part with the
//! other ranks (`devices::distributed`), and each member takes its own from the result.

use std::sync::Arc;

use super::exchange::{block, combined};
use crate::array::{Array, Buffer};
use crate::devices::distributed::{self, Message};
use crate::devices::Group;
use crate::prims::{shape, ReduceOp};

/// `psum_scatter` across processes: this process's members' operands summed, the sum
/// reduced and scattered among the ranks (each keeping its members' blocks along
/// `dimension`), and member `rank` takes its block of them.
pub(super) fn reduce_scatter(
    group: &Group,
    rank: usize,
    what: String,
    x: &Array,
    dimension: usize,
) -> Array {
    let ours = combined(group, rank, what.clone(), ReduceOp::Sum, x, |here| {
        distributed::reduce_scatter(&here, dimension, &what)
    });
    block(&ours, dimension, group.size(), rank)
}

/// `ppermute` across processes: every member's operand sent to its destination along the
/// axis (within this process, handed over; to another, a message), and member `rank`
/// gets its source's, or zeros without one.
pub(super) fn ppermute(
    group: &Group,
    rank: usize,
    what: String,
    x: &Array,
    perm: &[(usize, usize)],
) -> Array {
    let (first, n) = (group.first(), group.size());
    let here = |d: usize| (first..first + n).contains(&d);
    let got = group.meet(rank, what.clone(), x.clone(), |xs: Vec<Array>| {
        let sends: Vec<Message<&[u8]>> = perm
            .iter()
            .filter(|&&(src, dst)| here(src) && !here(dst))
            .map(|&(src, dst)| Message {
                rank: dst / n,
                tag: dst,
                bytes: xs[src - first].as_bytes(),
            })
            .collect();
        let from: Vec<(usize, usize)> = perm
            .iter()
            .copied()
            .filter(|&(src, dst)| here(dst) && !here(src))
            .collect();
        let receives: Vec<Message<usize>> = from
            .iter()
            .map(|&(src, dst)| Message {
                rank: src / n,
                tag: dst,
                bytes: xs[0].nbytes(),
            })
            .collect();
        let mut received = distributed::permute(&sends, &receives, &what).into_iter();
        let mut mine: Vec<Option<Array>> = vec![None; n];
        for &(src, dst) in perm.iter().filter(|&&(_, dst)| here(dst)) {
            mine[dst - first] = Some(if here(src) {
                xs[src - first].clone()
            } else {
                let buf = received.next().expect("one message a remote source");
                Array::from_buffer(xs[0].dtype(), xs[0].shape(), buf)
            });
        }
        mine
    });
    got[rank]
        .clone()
        .unwrap_or_else(|| Array::zeros(x.dtype(), x.shape()))
}

/// `all_to_all` across processes: block `j` of every member's operand along `split_axis`
/// goes to device `j` of the axis; member `rank` joins the blocks it gets, in device order,
/// along `concat_axis`.
pub(super) fn all_to_all(
    group: &Group,
    rank: usize,
    what: String,
    x: &Array,
    split_axis: usize,
    concat_axis: usize,
) -> Array {
    let n = group.size();
    let ranks = group.processes();
    let devices = n * ranks;
    let got: Arc<(Buffer, Vec<usize>)> = group.meet(rank, what.clone(), x.clone(), |xs| {
        // For each rank, for each member here, for each member there: the block.
        let mut send = Vec::with_capacity(x.nbytes() * n);
        for r in 0..ranks {
            for a in &xs {
                for m in 0..n {
                    send.extend_from_slice(block(a, split_axis, devices, r * n + m).as_bytes());
                }
            }
        }
        let shape = block(&xs[0], split_axis, devices, 0).shape().to_vec();
        (distributed::all_to_all(&send, &what), shape)
    });
    let (received, shape) = &*got;
    let bytes: usize = shape.iter().product::<usize>() * x.dtype().size();
    // Received: for each rank, for each of its members, for each member here: the block.
    let blocks: Vec<Array> = (0..devices)
        .map(|g| {
            let at = (g * n + rank) * bytes;
            let run = Buffer::from_slice(&received.as_bytes()[at..at + bytes]);
            Array::from_buffer(x.dtype(), shape, run)
        })
        .collect();
    shape::concatenate(&blocks, concat_axis)
}
