//! Control flow as primitives: the chunked map behind `vmap(f).chunk_size(k)` and
//! `memory_budget`, `lax::map`, `lax::scan`, `lax::fori_loop`, `lax::while_loop`,
//! `lax::cond` and `lax::switch`.
//!
//! Each control-flow primitive holds a closed body jaxpr whose captured values are operands, runs it
//! compiled (fused, with its own memory plan), and has batching, forward- and reverse-mode
//! rules that transform the body and stage a new loop. Reverse mode recomputes each step's
//! forward pass inside the backward body, so it holds one step's residuals at a time.

/// Equality and hashing by identity, and a `Debug` text that starts with it, for a
/// control-flow primitive's parameters: two are one primitive only if they are one object
/// (bodies are not compared), so the compiler never merges two loops with equal parameters
/// as common subexpressions.
macro_rules! identity {
    ($t:ty, $($field:ident),*) => {
        impl PartialEq for $t {
            fn eq(&self, other: &Self) -> bool {
                std::ptr::eq(self, other)
            }
        }

        impl Eq for $t {}

        impl std::hash::Hash for $t {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                std::ptr::hash(self, state)
            }
        }

        impl std::fmt::Debug for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_struct(stringify!($t))
                    .field("at", &(self as *const Self))
                    $(.field(stringify!($field), &self.$field))*
                    .finish()
            }
        }
    };
}

pub(crate) mod budget;
pub(crate) mod cond;
pub(crate) mod map;
pub(crate) mod scan;
pub(crate) mod while_loop;

pub use cond::{cond, switch, CondSpec};
pub use map::{lax_map, ChunkPlan, LaxMap, MapSpec};
pub use scan::{fori_loop, scan, scan_reverse, ScanSpec};
pub use while_loop::{while_loop, WhileSpec};

use crate::compiler::Executable;
use crate::core::{trace_avals, Aval, ClosedJaxpr, Tensor};

/// Traces `f` on the avals of `operands`.
pub(crate) fn trace_on(
    operands: &[Tensor],
    f: impl FnOnce(Vec<Tensor>) -> Vec<Tensor>,
) -> ClosedJaxpr {
    let avals: Vec<Aval> = operands.iter().map(Tensor::aval).collect();
    trace_avals(f, &operands.to_vec(), &avals).0
}

use crate::memory::BufferInfo;
use crate::prims::Prim;
use crate::transforms::jvp_rules::zeros_like;

/// The positions of the float avals: the values forward mode carries tangents for.
pub(crate) fn float_positions(avals: &[Aval]) -> Vec<usize> {
    (0..avals.len())
        .filter(|&k| avals[k].dtype.is_float())
        .collect()
}

/// The tangents of `outs` at `positions`, a zero where the JVP gave none: a staged JVP
/// body returns one for every position its loop carries tangents for.
pub(crate) fn dense_tangents(
    outs: &[Tensor],
    touts: &[Option<Tensor>],
    positions: &[usize],
) -> Vec<Tensor> {
    positions
        .iter()
        .map(|&k| touts[k].clone().unwrap_or_else(|| zeros_like(&outs[k])))
        .collect()
}

/// `flat[i]` placed at `positions[i]` among `n` tangents, `None` (a zero) elsewhere.
pub(crate) fn sparse_tangents(
    flat: Vec<Tensor>,
    positions: &[usize],
    n: usize,
) -> Vec<Option<Tensor>> {
    let mut t = vec![None; n];
    for (x, &k) in flat.into_iter().zip(positions) {
        t[k] = Some(x);
    }
    t
}

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
