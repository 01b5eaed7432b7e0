//! Running a scan whose rows never mix (`rows.rs`) as one loop per band of the batch's
//! rows, each on a thread of the pool, writing its rows of the stacked results in place.

#[cfg(test)]
mod tests;

use std::sync::Arc;

use rayon::prelude::*;

use super::rows::{band, layout, Layout};
use super::run::Writer;
use super::ScanSpec;
use crate::array::{is_quiet, quietly, Array, Buffer, Rows};
use crate::compiler::Executable;
use crate::core::ClosedJaxpr;

/// The fewest rows a band holds.
const MIN_ROWS: usize = 4;

/// The fewest elements of split inputs, over all steps, that a scan splits: below it, handing
/// the loop to another thread costs about what the band saves.
const MIN_WORK: usize = 1 << 16;

/// One band: its first row, its rows, and the step compiled for them.
pub(super) struct Band {
    pub(super) first: usize,
    pub(super) rows: usize,
    pub(super) exe: Executable,
}

/// The bands of each number tried (the pool's threads, as many as the rows allow).
pub(super) type BandCache = std::sync::Mutex<Vec<(usize, Option<Arc<[Band]>>)>>;

impl ScanSpec {
    /// The step's layout along the batch, if its rows never mix.
    pub(super) fn layout(&self) -> Option<&Layout> {
        (self.layout)
            .get_or_init(|| layout(&self.body.jaxpr, self.num_carry, self.num_xs))
            .as_ref()
    }

    /// The bands this scan runs on in the current pool: one per thread, each of at least
    /// [`MIN_ROWS`] rows; `None` for a step whose rows mix, a pool of one thread, or a loop
    /// too small to split.
    pub(super) fn bands(&self) -> Option<Arc<[Band]>> {
        let layout = self.layout()?;
        let k = rayon::current_num_threads().min(layout.rows / MIN_ROWS);
        let invars = &self.body.jaxpr.invars;
        let per_step: usize = (invars.iter().zip(&layout.inputs))
            .filter(|(_, &s)| s)
            .map(|(v, _)| v.aval.size())
            .sum();
        if k < 2 || per_step * self.length < MIN_WORK {
            return None;
        }
        let mut cache = self.bands.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, b)) = cache.iter().find(|(c, _)| *c == k) {
            return b.clone();
        }
        // Each band compiles its own step, even bands of as many rows: a kernel keeps its
        // lane buffers for the next call, one set per compiled step.
        let made: Option<Vec<Band>> = (0..k)
            .map(|p| {
                let first = p * layout.rows / k;
                let rows = (p + 1) * layout.rows / k - first;
                let jaxpr = band(&self.body.jaxpr, layout, rows)?;
                let exe = Executable::new(ClosedJaxpr {
                    jaxpr,
                    consts: Vec::new(),
                });
                Some(Band { first, rows, exe })
            })
            .collect();
        let made: Option<Arc<[Band]>> = made.map(Arc::from);
        cache.push((k, made.clone()));
        made
    }

    /// Runs the steps once per band, in parallel, each band writing its rows of the split
    /// stacked results and the first band the whole ones; returns the final carry.
    pub(super) fn run_bands(
        &self,
        bands: &[Band],
        ins: &[Array],
        stacked: &mut [Option<Rows>],
        at: &(dyn Fn(usize, usize) -> usize + Sync),
    ) -> Vec<Array> {
        let layout = self.layout().expect("bands have a layout");
        let nc = self.num_carry;
        let mut writers: Vec<Vec<Writer>> = bands.iter().map(|_| Vec::new()).collect();
        for (y, rows) in stacked.iter_mut().enumerate() {
            match (rows, layout.outputs[nc + y]) {
                (Some(r), true) => {
                    let row = r.row_bytes() / layout.rows;
                    let cuts: Vec<usize> = (bands.iter().map(|b| b.first * row))
                        .chain([r.row_bytes()])
                        .collect();
                    for (w, pieces) in writers.iter_mut().zip(r.bands(&cuts)) {
                        w.push(Writer::Pieces(pieces));
                    }
                }
                (Some(r), false) => {
                    writers[0].push(Writer::Rows(r));
                    writers[1..].iter_mut().for_each(|w| w.push(Writer::Skip));
                }
                (None, _) => writers.iter_mut().for_each(|w| w.push(Writer::Skip)),
            }
        }
        let quiet = is_quiet();
        let carries: Vec<Vec<Array>> = (bands.par_iter().zip(writers))
            .map(|(b, w)| {
                let run = || self.steps(&b.exe, Some((layout, b)), ins, w, at);
                if quiet {
                    quietly(run)
                } else {
                    run()
                }
            })
            .collect();
        (0..nc)
            .map(|c| {
                if !layout.inputs[c] {
                    return carries[0][c].clone();
                }
                let mut buf = Buffer::zeroed(ins[c].nbytes());
                let mut rest = buf.as_mut_bytes();
                for band in &carries {
                    let (piece, tail) = rest.split_at_mut(band[c].nbytes());
                    piece.copy_from_slice(band[c].as_bytes());
                    rest = tail;
                }
                Array::from_buffer(ins[c].dtype(), ins[c].shape(), buf)
            })
            .collect()
    }
}

/// A copy of `a` in a buffer of its own.
pub(super) fn private(a: &Array) -> Array {
    Array::from_buffer(a.dtype(), a.shape(), Buffer::from_bytes(a.as_bytes()))
}
