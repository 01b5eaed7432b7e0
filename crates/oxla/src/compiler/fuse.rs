//! Fusion: grouping equations into loop-nest kernels whose intermediates are never
//! materialised.
//!
//! Elementwise operations, `broadcast_in_dim`, `transpose`, `slice`, `rev`, `pad`,
//! `concatenate`, `iota`, `select_n` and `gather` become index arithmetic inside the kernel
//! of the value that consumes them; a reduction fuses with its producer. A value is
//! materialised only where it must be: arguments, constants and results, outputs of
//! primitives that run on their own kernels (`dot_general`, `sort`, `scatter-add`, ...),
//! reductions, operands that need a buffer (the operand of a gather or a reshape), values
//! whose fused expression is too large to recompute in every consumer, and values that
//! would make a kernel too large (a long chain is cut into kernels of bounded size).
//! Every pass is linear in the program and none recurses along it.

mod builder;
mod stored;

pub(crate) use super::kernel::ir::{Affine, Kernel, Node, NodeId, NodeOp, Start};
pub(crate) use stored::fuse;

use crate::core::{Atom, ClosedJaxpr, Var};

/// One step of a compiled program.
#[derive(Clone, Debug)]
pub(crate) enum Step {
    /// An equation run by its primitive's own kernel.
    Prim(usize),
    /// A fused kernel.
    Kernel(Box<Kernel>),
}

impl Step {
    /// Ids of the variables the step reads.
    pub(crate) fn reads(&self, cj: &ClosedJaxpr) -> Vec<u32> {
        match self {
            Step::Prim(i) => cj.jaxpr.eqns[*i]
                .inputs
                .iter()
                .filter_map(Atom::var)
                .map(|v| v.id)
                .collect(),
            Step::Kernel(k) => k.inputs.iter().map(|v| v.id).collect(),
        }
    }

    /// The variables the step writes.
    pub(crate) fn writes<'a>(&'a self, cj: &'a ClosedJaxpr) -> &'a [Var] {
        match self {
            Step::Prim(i) => &cj.jaxpr.eqns[*i].outputs,
            Step::Kernel(k) => std::slice::from_ref(&k.out),
        }
    }
}
