//! The working memory of each primitive's own kernel: the bytes it holds beyond its
//! operands and results while it runs, which the memory plan counts at its step.

use super::Prim;
use crate::array::Aval;
use crate::prims::{conv, decomp, fft, linalg, reduce, sort};

impl Prim {
    /// The most bytes this primitive's eager kernel holds beyond its operands and results
    /// while it runs on operands of `inputs` (0 for those that write their results
    /// directly). Loop primitives count their bodies' memory elsewhere
    /// ([`ControlFlow::working_bytes`](crate::core::ControlFlow::working_bytes)).
    pub(crate) fn scratch_bytes(&self, inputs: &[Aval]) -> usize {
        match self {
            Prim::Unary(_)
            | Prim::Binary(_)
            | Prim::IntegerPow { .. }
            | Prim::SelectN
            | Prim::ConvertElementType { .. }
            | Prim::BitcastConvertType { .. }
            | Prim::Iota { .. }
            | Prim::BroadcastInDim { .. }
            | Prim::Reshape { .. }
            | Prim::Rev { .. }
            | Prim::Transpose { .. }
            | Prim::Squeeze { .. }
            | Prim::Slice { .. }
            | Prim::Pad { .. }
            | Prim::Concatenate { .. }
            | Prim::Cumsum { .. }
            | Prim::DynamicSlice { .. }
            | Prim::DynamicUpdateSlice
            | Prim::Gather { .. }
            | Prim::Scatter { .. }
            | Prim::Threefry2x32 { .. }
            | Prim::StopGradient
            | Prim::Control(_)
            | Prim::DebugCallback(_) => 0,
            Prim::Reduce { axes, .. } => reduce::permuted_bytes(&inputs[0], axes),
            Prim::ArgReduce {
                axes, index_dtype, ..
            } => {
                // The indices are found as i32 and then converted.
                let converted = if *index_dtype == crate::DType::I32 {
                    0
                } else {
                    4 * inputs[0].size() / inputs[0].shape[axes[0]].max(1)
                };
                reduce::permuted_bytes(&inputs[0], axes) + converted
            }
            Prim::DotGeneral {
                contracting,
                batch,
                preferred_element_type,
            } => linalg::scratch_bytes(contracting, batch, *preferred_element_type, inputs),
            Prim::DotReduce(p) => crate::prims::dot_reduce::scratch_bytes(p, inputs),
            Prim::Sort { dimension, .. } => sort::scratch_bytes(inputs, *dimension),
            Prim::ConvGeneralDilated(p) => conv::scratch_bytes(p, inputs),
            Prim::Linalg(op) => decomp::scratch_bytes(*op, inputs),
            Prim::Fft { fft_lengths, .. } => fft::scratch_bytes(fft_lengths, inputs),
            // A sum, maximum or minimum over positions runs as the reduction.
            Prim::Collective(c) => c.scratch_bytes(inputs),
        }
    }
}
