//! The primitive: JAX's lax primitives with their parameters, as jaxpr equations hold them.
//!
//! `Prim` lives in `core` (as `Primitive` lives in JAX's `core.py`); the parameter types,
//! shape rules and kernels it dispatches to live in [`crate::prims`], over `array` alone.
//! Control flow is one variant, [`Prim::Control`], holding a [`ControlFlow`] object whose
//! rules its own module defines; a host callback is another, [`Prim::DebugCallback`]. Every `match` on [`Prim`] is exhaustive, so adding a
//! primitive makes the compiler list every rule still owed.

mod kind;
mod params;
mod rules;
mod scratch;

use std::fmt;
use std::sync::Arc;

pub(crate) use kind::{Kind, Remap};

use super::callback::HostCallback;
use super::control_flow::ControlFlow;
use crate::array::{DType, Shape};
use crate::prims::{
    ArgOp, BinaryOp, Collective, ConvParams, DotReduce, FftType, GatherDims, GatherMode, LinalgOp,
    ReduceOp, ScatterDims, ScatterOp, UnaryOp,
};

/// A primitive operation with its parameters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Prim {
    /// Elementwise function of one operand (`exp`, `neg`, ...).
    Unary(UnaryOp),
    /// Elementwise function of two operands of one shape, or one of them rank 0.
    Binary(BinaryOp),
    /// `x ** y` for a constant integer `y`.
    IntegerPow {
        /// The exponent.
        y: i32,
    },
    /// `cases[which]` elementwise; `which` is bool (two cases) or int32.
    SelectN,
    /// Value conversion to another dtype.
    ConvertElementType {
        /// Target dtype.
        new_dtype: DType,
    },
    /// Reinterpretation of the bits as another dtype of the same width.
    BitcastConvertType {
        /// Target dtype.
        new_dtype: DType,
    },
    /// `0, 1, 2, ...` along one dimension of a new array.
    Iota {
        /// Element type.
        dtype: DType,
        /// Result shape.
        shape: Shape,
        /// Dimension that counts.
        dimension: usize,
    },
    /// Broadcast to `shape`, operand dimension `i` becoming `broadcast_dimensions[i]`.
    BroadcastInDim {
        /// Result shape.
        shape: Shape,
        /// Where each operand dimension lands.
        broadcast_dimensions: Vec<usize>,
    },
    /// Row-major reshape.
    Reshape {
        /// Result shape.
        new_sizes: Shape,
    },
    /// Reversal of the listed dimensions.
    Rev {
        /// Dimensions reversed.
        dimensions: Vec<usize>,
    },
    /// Permutation of dimensions.
    Transpose {
        /// `result.shape[i] = operand.shape[permutation[i]]`.
        permutation: Vec<usize>,
    },
    /// Removal of size-1 dimensions.
    Squeeze {
        /// Dimensions removed.
        dimensions: Vec<usize>,
    },
    /// A strided window with static bounds.
    Slice {
        /// First index per dimension.
        start_indices: Vec<usize>,
        /// One past the last index per dimension.
        limit_indices: Vec<usize>,
        /// Step per dimension; `None` means all ones.
        strides: Option<Vec<usize>>,
    },
    /// Padding with a scalar: `(low, high, interior)` per dimension; low/high may be negative.
    Pad {
        /// One `(low, high, interior)` per dimension.
        padding_config: Vec<(i64, i64, i64)>,
    },
    /// Joining operands along a dimension.
    Concatenate {
        /// The dimension joined along.
        dimension: usize,
    },
    /// `reduce_sum`, `reduce_max`, ... over `axes`.
    Reduce {
        /// The monoid.
        op: ReduceOp,
        /// Axes reduced away.
        axes: Vec<usize>,
    },
    /// `argmax`/`argmin` along one axis.
    ArgReduce {
        /// Which extremum.
        op: ArgOp,
        /// The single axis reduced away.
        axes: Vec<usize>,
        /// Dtype of the indices.
        index_dtype: DType,
    },
    /// Inclusive prefix sum along `axis`.
    Cumsum {
        /// The axis.
        axis: usize,
        /// Sum from the end.
        reverse: bool,
    },
    /// Tensor contraction with batch dimensions.
    DotGeneral {
        /// `(lhs_contracting, rhs_contracting)`.
        contracting: (Vec<usize>, Vec<usize>),
        /// `(lhs_batch, rhs_batch)`.
        batch: (Vec<usize>, Vec<usize>),
        /// Result dtype, if not the operands'.
        preferred_element_type: Option<DType>,
    },
    /// A product reduced over some of its free dimensions as it is made, never stored:
    /// `reduce(map(dot_general(lhs, rhs)), axes)` (see [`DotReduce`]). Only the compiler
    /// makes it, from a traced program (`compiler/simplify/products.rs`); bound under a
    /// trace (a compiled jaxpr evaluated under a transform), it binds the primitives it
    /// fuses instead, so no transform rule sees it.
    DotReduce(DotReduce),
    /// A window of static size at dynamic (clamped) start indices, one scalar operand each.
    DynamicSlice {
        /// Window size.
        slice_sizes: Vec<usize>,
    },
    /// Writes `update` into `operand` at dynamic (clamped) start indices.
    DynamicUpdateSlice,
    /// XLA's gather.
    Gather {
        /// Dimension numbers.
        dims: GatherDims,
        /// Window size in the operand.
        slice_sizes: Vec<usize>,
        /// Out-of-bounds behaviour.
        mode: GatherMode,
    },
    /// XLA's scatter: `scatter`, `scatter-add`, `scatter-mul`, `scatter-min`, `scatter-max`.
    Scatter {
        /// How an update combines with the value in place.
        op: ScatterOp,
        /// Dimension numbers.
        dims: ScatterDims,
        /// Out-of-bounds behaviour.
        mode: GatherMode,
    },
    /// Sort of `num_keys` key operands (lexicographic), carrying the rest along.
    Sort {
        /// The dimension sorted.
        dimension: usize,
        /// Whether equal keys keep their order.
        is_stable: bool,
        /// How many leading operands are keys.
        num_keys: usize,
    },
    /// The Threefry-2x32 block cipher, elementwise on `(k0, k1, x0, x1)` u32 arrays: both
    /// words (JAX's primitive), or the one word the compiler's simplification keeps where
    /// that is all the program reads (then it fuses, as an elementwise operation).
    Threefry2x32 {
        /// The words computed: [`ThreefryWords::Both`](crate::prims::ThreefryWords::Both) as
        /// traced.
        words: crate::prims::ThreefryWords,
    },
    /// The identity, whose derivative is zero: differentiation treats the value as a
    /// constant.
    StopGradient,
    /// A control-flow primitive holding bodies: the chunked map, `scan`, `cond`, `while`
    /// (see [`ControlFlow`]). Two are one primitive only if they are one object.
    Control(Arc<dyn ControlFlow>),
    /// A host function of the operands' concrete values, run for its effect (printing):
    /// JAX's `debug_callback`, printed as `debug_print` for `debug::print!`. It has no
    /// results; equality is by identity (see [`HostCallback`]).
    DebugCallback(Arc<HostCallback>),
    /// XLA's convolution with strides, padding, dilations, layouts and groups.
    ConvGeneralDilated(ConvParams),
    /// A dense decomposition or triangular solve of `jax.lax.linalg` on the last two
    /// dimensions (see [`LinalgOp`]).
    Linalg(LinalgOp),
    /// The discrete Fourier transform over the trailing `fft_lengths.len()` axes (1 to 3):
    /// JAX's `fft`.
    Fft {
        /// Which transform.
        fft_type: FftType,
        /// The transform's lengths (of the real signal's axes for `RFFT`/`IRFFT`).
        fft_lengths: Vec<usize>,
    },
    /// A collective over named mapped axes (`psum`, `all_gather`, ...), or, once batched, a
    /// sum, maximum or minimum over positions (see [`Collective`]).
    Collective(Collective),
}

impl Prim {
    /// The primitive's name as JAX prints it.
    pub fn name(&self) -> &'static str {
        match self {
            Prim::Unary(op) => op.name(),
            Prim::Binary(op) => op.name(),
            Prim::IntegerPow { .. } => "integer_pow",
            Prim::SelectN => "select_n",
            Prim::StopGradient => "stop_gradient",
            Prim::ConvertElementType { .. } => "convert_element_type",
            Prim::BitcastConvertType { .. } => "bitcast_convert_type",
            Prim::Iota { .. } => "iota",
            Prim::BroadcastInDim { .. } => "broadcast_in_dim",
            Prim::Reshape { .. } => "reshape",
            Prim::Rev { .. } => "rev",
            Prim::Transpose { .. } => "transpose",
            Prim::Squeeze { .. } => "squeeze",
            Prim::Slice { .. } => "slice",
            Prim::Pad { .. } => "pad",
            Prim::Concatenate { .. } => "concatenate",
            Prim::Reduce { op, .. } => op.name(),
            Prim::ArgReduce { op, .. } => op.name(),
            Prim::Cumsum { .. } => "cumsum",
            Prim::DotGeneral { .. } => "dot_general",
            Prim::DotReduce(_) => "dot_reduce",
            Prim::DynamicSlice { .. } => "dynamic_slice",
            Prim::DynamicUpdateSlice => "dynamic_update_slice",
            Prim::Gather { .. } => "gather",
            Prim::Scatter { op, .. } => op.name(),
            Prim::Sort { .. } => "sort",
            Prim::Threefry2x32 {
                words: crate::prims::ThreefryWords::Both,
            } => "threefry2x32",
            Prim::Threefry2x32 { .. } => "threefry_bits",
            Prim::Control(c) => c.name(),
            Prim::DebugCallback(c) => c.name(),
            Prim::ConvGeneralDilated(_) => "conv_general_dilated",
            Prim::Linalg(op) => op.name(),
            Prim::Fft { .. } => "fft",
            Prim::Collective(c) => c.name(),
        }
    }
}

impl fmt::Display for Prim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        let params = self.params();
        if !params.is_empty() {
            f.write_str("[")?;
            for (i, (k, v)) in params.iter().enumerate() {
                if i > 0 {
                    f.write_str(" ")?;
                }
                write!(f, "{k}={v}")?;
            }
            f.write_str("]")?;
        }
        Ok(())
    }
}
