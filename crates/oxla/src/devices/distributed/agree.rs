//! Ranks agreeing on a compiled call's memory plan before it runs: a call whose map spans
//! the ranks runs on every rank or on none, so an out-of-memory error on one rank (its
//! limits may differ from the others') is the same error on every rank, instead of the
//! others waiting at the map's first collective for a rank that never comes.

use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives};

use super::{calling, check_same, collective};
use crate::error::Error;
use crate::memory::{DevicePlan, MemoryAnalysis};

/// A verdict as the ranks exchange it: what failed (0: nothing, 1: the whole call's plan,
/// 2: a device's), the device, the bytes needed and the limit.
type Verdict = [u64; 4];

/// `verdict`, this rank's check of `analysis` against its limits, made every rank's: when
/// the call's plan has a map spanning the ranks, the first rank's failure in rank order is
/// returned on every rank (built from this rank's plan of the same program, which the
/// ranks share); otherwise `verdict` itself.
pub(crate) fn agree_on_memory(
    verdict: Result<(), Error>,
    analysis: &MemoryAnalysis,
) -> Result<(), Error> {
    if !analysis.devices.iter().any(|d| d.processes > 1) {
        return verdict;
    }
    let mine: Verdict = match &verdict {
        Ok(()) => [0; 4],
        Err(Error::OutOfMemory {
            needed,
            limit,
            device,
            ..
        }) => [
            1 + u64::from(device.is_some()),
            device.unwrap_or(0) as u64,
            *needed as u64,
            limit.unwrap_or(0) as u64,
        ],
        Err(_) => unreachable!("a plan's check fails only out of memory"),
    };
    let world = SimpleCommunicator::world();
    let mut all = vec![0u64; 4 * world.size() as usize];
    let what = "the memory plan of a call whose map spans the processes";
    check_same(what);
    calling(what, |deadline| {
        collective!(
            deadline,
            world.all_gather_into / immediate_all_gather_into(&mine[..], &mut all[..])
        );
    });
    let Some((rank, first)) = all
        .chunks(4)
        .enumerate()
        .find(|(_, v)| v[0] != 0)
        .map(|(r, v)| (r, [v[0], v[1], v[2], v[3]]))
    else {
        return Ok(());
    };
    if rank == world.rank() as usize {
        return verdict;
    }
    Err(theirs(first, rank, analysis))
}

/// The error of rank `rank`'s verdict, from this rank's plan of the same program.
fn theirs([what, device, needed, limit]: Verdict, rank: usize, analysis: &MemoryAnalysis) -> Error {
    let (device, needed, limit) = (device as usize, needed as usize, limit as usize);
    let bare = |device: Option<usize>| Error::OutOfMemory {
        needed,
        limit: Some(limit),
        refused: None,
        largest: None,
        fitting_chunk_size: None,
        advice: format!("; rank {rank}'s plan, which differs from this rank's"),
        device,
    };
    if what == 1 {
        return if analysis.peak_bytes == needed {
            analysis.out_of_memory(limit)
        } else {
            bare(None)
        };
    }
    // A device of this rank's whose plan peaks alike: the same body on a block of the same
    // length (the ranks' blocks are alike, or of the two lengths of an uneven split).
    match analysis
        .devices
        .iter()
        .find(|d| d.processes > 1 && d.peak_bytes == needed)
    {
        Some(plan) => DevicePlan {
            device,
            ..plan.clone()
        }
        .out_of_memory(limit),
        None => bare(Some(device)),
    }
}
