//! Control flow as primitives: the chunked map behind `vmap(f).chunk_size(k)` and
//! `memory_budget`, `lax::map`, `lax::scan`, `lax::fori_loop`, `lax::while_loop`,
//! `lax::cond` and `lax::switch`.
//!
//! Each control-flow primitive holds a closed body jaxpr whose captured values are operands, runs it
//! compiled (fused, with its own memory plan), and has batching, forward- and reverse-mode
//! rules that transform the body and stage a new loop. Reverse mode recomputes each step's
//! forward pass inside the backward body, so it holds one step's residuals at a time.

pub(crate) mod cond;
pub(crate) mod map;
pub(crate) mod scan;
pub(crate) mod while_loop;

pub use cond::{cond, switch, CondSpec};
pub use map::{lax_map, ChunkPlan, LaxMap, MapSpec};
pub use scan::{fori_loop, scan, scan_reverse, ScanSpec};
pub use while_loop::{while_loop, WhileSpec};

use crate::compiler::Executable;

use crate::memory::BufferInfo;
use crate::prims::Prim;

/// The bytes a loop primitive holds while it runs beyond its operands and results (one
/// step's working memory), with its body's largest buffers; `None` for other primitives.
pub(crate) fn working_bytes(prim: &Prim) -> Option<(usize, Vec<BufferInfo>)> {
    match prim {
        Prim::Map(spec) => Some(spec.chunk_bytes()),
        Prim::Scan(spec) => Some(spec.step_bytes()),
        Prim::Cond(spec) => Some(spec.branch_bytes()),
        Prim::While(spec) => Some(spec.step_bytes()),
        _ => None,
    }
}

/// The most bytes any of `bodies` plans beyond the first `shared` bytes of its inputs (the
/// loop's own operands), with the largest buffers of the one that plans the most.
pub(crate) fn body_bytes<'a>(
    bodies: impl IntoIterator<Item = &'a Executable>,
    shared: usize,
) -> (usize, Vec<BufferInfo>) {
    let mut best = (0, vec![]);
    for exe in bodies {
        let a = exe.analysis();
        let bytes = a.peak_bytes.saturating_sub(shared);
        if bytes >= best.0 {
            let largest = a
                .largest
                .iter()
                .filter(|b| {
                    matches!(
                        b.kind,
                        crate::memory::BufferKind::Temporary | crate::memory::BufferKind::Output
                    )
                })
                .cloned()
                .collect();
            best = (bytes, largest);
        }
    }
    best
}
