//! The one classification of primitives the compiler reads: whether a primitive becomes
//! lanes or index arithmetic inside a kernel, a view of its operand's buffer, a kernel's
//! root, or a step of its own. Fusion, the values that need a buffer, the epilogue of a
//! reduction, the memory plan's views and the batching rule's elementwise family all derive
//! from [`Prim::kind`], an exhaustive match, so a new primitive is classified once, where
//! the compiler asks for it. [`Prim::has_effects`] says which equations the compiler must
//! keep, in order, whatever their results.

use super::Prim;
use crate::prims::ThreefryWords;
use crate::prims::{GatherDims, GatherMode, Lanewise, ReduceOp};

/// How the compiler treats a primitive (see the module documentation).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind<'a> {
    /// Elementwise: a kernel node computing lanes from its operands' lanes.
    Lanewise(Lanewise),
    /// `iota`: the index along `dimension`, computed in the kernel.
    Iota {
        /// The dimension that counts.
        dimension: usize,
    },
    /// A read of its one operand at remapped indices, computed in the kernel.
    Remap(Remap<'a>),
    /// `reshape` and `squeeze`: the operand's row-major buffer read as a new shape. Run
    /// alone, the result shares the operand's buffer; in a kernel, a load of the stored
    /// operand at the result's own indices.
    View,
    /// `pad` without interior padding: the operand where the index is in range, the
    /// padding value elsewhere.
    Pad {
        /// `(low, high, interior)` per dimension, interior all zero.
        padding_config: &'a [(i64, i64, i64)],
    },
    /// `concatenate`: the operand whose range holds the index along `dimension`.
    Concatenate {
        /// The dimension joined along.
        dimension: usize,
    },
    /// `gather` with clamped or promised-in-bounds indices: a load of the stored operand
    /// at indices computed in the kernel.
    Gather {
        /// Dimension numbers.
        dims: &'a GatherDims,
        /// Window size in the operand.
        slice_sizes: &'a [usize],
    },
    /// A sum, max or min over `axes`: the root of a kernel whose loops run over its
    /// operand (for numeric results).
    Reduce {
        /// The monoid.
        op: ReduceOp,
        /// Axes reduced away.
        axes: &'a [usize],
    },
    /// A step of its own: the primitive's own kernel runs on stored operands.
    Alone,
}

/// How a [`Kind::Remap`] primitive maps the result's indices to its operand's.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Remap<'a> {
    /// `broadcast_in_dim`: operand dimension `i` is result dimension `dims[i]`.
    Broadcast(&'a [usize]),
    /// `transpose`: result dimension `i` is operand dimension `permutation[i]`.
    Transpose(&'a [usize]),
    /// `rev`: the listed dimensions read backwards.
    Rev(&'a [usize]),
    /// `slice`: index `i` reads `start + i * stride`.
    Slice {
        /// First index per dimension.
        start: &'a [usize],
        /// Step per dimension; `None` means all ones.
        strides: Option<&'a [usize]>,
    },
}

impl Prim {
    /// How the compiler treats this primitive.
    pub(crate) fn kind(&self) -> Kind<'_> {
        match self {
            Prim::Unary(op) => Kind::Lanewise(Lanewise::Unary(*op)),
            Prim::Binary(op) => Kind::Lanewise(Lanewise::Binary(*op)),
            Prim::IntegerPow { y } => Kind::Lanewise(Lanewise::IntegerPow(*y)),
            Prim::SelectN => Kind::Lanewise(Lanewise::SelectN),
            Prim::Threefry2x32 {
                words: words @ (ThreefryWords::Xor | ThreefryWords::Hi | ThreefryWords::Lo),
            } => Kind::Lanewise(Lanewise::Threefry(*words)),
            Prim::ConvertElementType { .. } => Kind::Lanewise(Lanewise::Convert),
            Prim::BitcastConvertType { .. } => Kind::Lanewise(Lanewise::Bitcast),
            Prim::Iota { dimension, .. } => Kind::Iota {
                dimension: *dimension,
            },
            Prim::BroadcastInDim {
                broadcast_dimensions,
                ..
            } => Kind::Remap(Remap::Broadcast(broadcast_dimensions)),
            Prim::Transpose { permutation } => Kind::Remap(Remap::Transpose(permutation)),
            Prim::Rev { dimensions } => Kind::Remap(Remap::Rev(dimensions)),
            Prim::Slice {
                start_indices,
                strides,
                ..
            } => Kind::Remap(Remap::Slice {
                start: start_indices,
                strides: strides.as_deref(),
            }),
            Prim::Reshape { .. } | Prim::Squeeze { .. } => Kind::View,
            Prim::Pad { padding_config } if padding_config.iter().all(|p| p.2 == 0) => {
                Kind::Pad { padding_config }
            }
            Prim::Concatenate { dimension } => Kind::Concatenate {
                dimension: *dimension,
            },
            Prim::Gather {
                dims,
                slice_sizes,
                mode,
            } if *mode != GatherMode::FillOrDrop => Kind::Gather { dims, slice_sizes },
            Prim::Reduce {
                op: op @ (ReduceOp::Sum | ReduceOp::Max | ReduceOp::Min),
                axes,
            } => Kind::Reduce { op: *op, axes },
            Prim::Pad { .. }
            | Prim::Gather { .. }
            | Prim::Reduce { .. }
            | Prim::StopGradient
            | Prim::ArgReduce { .. }
            | Prim::Cumsum { .. }
            | Prim::DotGeneral { .. }
            | Prim::DotReduce(_)
            | Prim::DynamicSlice { .. }
            | Prim::DynamicUpdateSlice
            | Prim::Scatter { .. }
            | Prim::Sort { .. }
            | Prim::Threefry2x32 {
                words: ThreefryWords::Both,
            }
            | Prim::Control(_)
            | Prim::DebugCallback(_)
            | Prim::ConvGeneralDilated(_) => Kind::Alone,
            // A collective over positions alone is rewritten into its reduction before
            // fusion (`compiler/simplify/reductions.rs`).
            Prim::Linalg(_) | Prim::Fft { .. } | Prim::Collective(_) => Kind::Alone,
        }
    }

    /// Whether running the primitive does more than compute its results: a host callback,
    /// or a loop whose body holds one. Such an equation is never removed, merged, folded
    /// or moved, and runs as a step of its own (its [`Kind::Alone`]) in program order, so
    /// effects happen in the order they were traced, each after the values it reads.
    pub(crate) fn has_effects(&self) -> bool {
        match self {
            Prim::DebugCallback(_) => true,
            Prim::Control(c) => c.bodies().iter().any(|b| b.jaxpr.has_effects()),
            // Every other primitive computes its results and nothing else.
            _ => false,
        }
    }

    /// Whether the primitive, or an equation of a body it holds, is a collective over the
    /// mapped axis called `name`: batching over that axis must then apply its rule even
    /// when no operand is mapped (a `psum` of a value the same on every member is the
    /// value times the axis size).
    pub(crate) fn names_axis(&self, name: &str) -> bool {
        match self {
            Prim::Collective(c) => c.names_axis(name),
            // A map over devices binds its own axis: inside it, the name is that map's.
            Prim::Control(c) => {
                c.binds_axis() != Some(name) && c.bodies().iter().any(|b| b.jaxpr.names_axis(name))
            }
            _ => false,
        }
    }

    /// Whether the primitive, or an equation of a body it holds, is a collective over a
    /// named axis: it has a value only on the members of that axis, so the compiler never
    /// computes it ahead (constant folding) nor on other threads (a scan in bands).
    pub(crate) fn names_any_axis(&self) -> bool {
        match self {
            Prim::Collective(c) => !c.names().is_empty(),
            Prim::Control(c) => c.bodies().iter().any(|b| b.jaxpr.names_any_axis()),
            _ => false,
        }
    }
}
