//! Chunk sizes under a memory budget: the largest chunk whose planned footprint fits
//! (`vmap(f).memory_budget(bytes)`), and the budget an out-of-memory error's advice plans a
//! chunked map under.

use crate::source::Source;

use super::TraceBody;
use crate::compiler::Executable;
use crate::core::Aval;
use crate::error::{Error, LargestBuffer, Result};
use crate::memory::BufferKind;
use crate::transforms::bodies::open;

/// What a chunked map plans to hold at one chunk size: its operands and stacked results
/// (whole) and one chunk's working memory (the body's planned peak less the unmapped
/// operands it shares).
struct Footprint {
    operands: usize,
    results: usize,
    working: usize,
    /// The body's largest buffer at its peak, as `Error::OutOfMemory` describes it.
    largest: Option<Box<LargestBuffer>>,
}

impl Footprint {
    fn total(&self) -> usize {
        self.operands + self.results + self.working
    }
}

/// The largest chunk size (at most `length`) at which the map's planned peak — its operands,
/// its stacked results and one chunk's working memory — fits in `budget`. The bytes are
/// affine in the size: two plans give the line, a third checks the size it gives (and
/// smaller ones, while they do not fit). Nothing runs.
///
/// A budget that a chunk of one example does not fit is [`Error::OutOfMemory`], naming the
/// budget, the user's call `at` and what one example needs.
pub(crate) fn chunk_for_budget(
    mapped: &[bool],
    length: usize,
    budget: usize,
    at: Source,
    trace: &TraceBody,
) -> Result<usize> {
    let footprint = |c: usize| {
        let body = open(trace(c), &[], &[]);
        let whole = |a: &Aval| a.nbytes() / c * length;
        let (mut shared, mut operands) = (0, 0);
        for (i, v) in body.jaxpr.invars.iter().enumerate() {
            if mapped.get(i).copied().unwrap_or(false) {
                operands += whole(&v.aval);
            } else {
                shared += v.aval.nbytes();
                operands += v.aval.nbytes();
            }
        }
        let results: usize = body.jaxpr.out_avals().iter().map(whole).sum();
        let plan = Executable::new(body);
        // The body's own largest buffer (its operands are counted whole above).
        let mut own = plan.analysis().clone();
        own.largest
            .retain(|b| matches!(b.kind, BufferKind::Temporary | BufferKind::Output));
        let largest = own.largest_buffer();
        Footprint {
            operands,
            results,
            working: plan.analysis().peak_bytes.saturating_sub(shared),
            largest,
        }
    };
    let bytes = |c: usize| footprint(c).total();
    if length == 0 {
        return Ok(1);
    }
    let k1 = length.min(8);
    let k2 = length.min(16);
    let (b1, b2) = (bytes(k1) as f64, bytes(k2) as f64);
    let slope = if k2 > k1 {
        (b2 - b1) / (k2 - k1) as f64
    } else {
        0.0
    };
    let mut k = if slope <= 0.0 {
        length
    } else {
        let k = k1 as f64 + (budget as f64 - b1) / slope;
        k.floor().clamp(1.0, length as f64) as usize
    };
    while k > 1 && bytes(k) > budget {
        k = (k * 9 / 10).min(k - 1).max(1);
    }
    if k > 1 {
        return Ok(k);
    }
    let one = footprint(1);
    if one.total() <= budget {
        return Ok(1);
    }
    let b = crate::memory::format_bytes;
    let advice = format!(
        "; the limit is vmap's memory_budget({budget}), called at {at}, and even one example \
         per chunk needs {} ({} of arguments, {} of results, {} of one example's working \
         memory): raise the budget or pass smaller arguments",
        b(one.total()),
        b(one.operands),
        b(one.results),
        b(one.working),
    );
    Err(Error::OutOfMemory {
        needed: one.total(),
        limit: Some(budget),
        refused: None,
        largest: one.largest,
        fitting_chunk_size: None,
        advice,
        device: None,
    })
}
