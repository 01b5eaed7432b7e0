//! The kernel IR: a loop nest of typed nodes, each an index computation, a load, or an
//! elementwise primitive of other nodes, evaluated per point of the loops it depends on.

use crate::source::Source;

use smallvec::SmallVec;

use crate::array::{strides_of, Array, DType, Values, ValuesMut};
use crate::core::Prim;
use crate::core::Var;
use crate::prims::ReduceOp;

/// An affine function of the kernel's loop indices: `base + sum(coef[k] * loop[k])`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Affine {
    pub(crate) base: i64,
    pub(crate) coef: Vec<i64>,
}

impl Affine {
    pub(crate) fn constant(v: i64, loops: usize) -> Affine {
        Affine {
            base: v,
            coef: vec![0; loops],
        }
    }

    pub(crate) fn loop_index(k: usize, loops: usize) -> Affine {
        let mut a = Affine::constant(0, loops);
        a.coef[k] = 1;
        a
    }

    pub(crate) fn scale_add(&self, s: i64, c: i64) -> Affine {
        Affine {
            base: self.base * s + c,
            coef: self.coef.iter().map(|&k| k * s).collect(),
        }
    }

    pub(crate) fn add(&self, other: &Affine) -> Affine {
        Affine {
            base: self.base + other.base,
            coef: self
                .coef
                .iter()
                .zip(&other.coef)
                .map(|(a, b)| a + b)
                .collect(),
        }
    }

    /// Loops the function depends on, as a bit mask.
    pub(crate) fn deps(&self) -> u64 {
        self.coef
            .iter()
            .enumerate()
            .filter(|(_, &c)| c != 0)
            .fold(0, |m, (k, _)| m | 1 << k)
    }
}

/// Index of a node in its kernel.
pub(crate) type NodeId = usize;

/// One start index of a fused gather: the node computing it, the operand's stride along
/// that dimension, and the largest start that keeps the window in bounds.
#[derive(Clone, Debug)]
pub(crate) struct Start {
    pub(crate) node: NodeId,
    pub(crate) stride: i64,
    pub(crate) max: i64,
}

/// What a kernel node computes, per loop point.
#[derive(Clone, Debug)]
pub(crate) enum NodeOp {
    /// A scalar literal.
    Lit(Array),
    /// `buffer[offset]`; `clamp` keeps masked-off points in bounds.
    Load {
        slot: usize,
        offset: Affine,
        clamp: bool,
    },
    /// `buffer[sum(stride * clamp(start, 0, max)) + window]`.
    Gather {
        slot: usize,
        starts: Vec<Start>,
        window: Affine,
    },
    /// The loop-dependent integer `value`, converted to the node's dtype.
    Iota { value: Affine },
    /// Whether `lo <= value < hi`.
    InRange { value: Affine, lo: i64, hi: i64 },
    /// An elementwise primitive of other nodes.
    Apply { prim: Prim, args: Vec<NodeId> },
}

/// A node and the loops its value depends on.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub(crate) op: NodeOp,
    pub(crate) dtype: DType,
    pub(crate) deps: u64,
}

/// A fused loop nest computing one materialised value.
#[derive(Clone, Debug)]
pub(crate) struct Kernel {
    /// The value computed.
    pub(crate) out: Var,
    /// Extents of the loops: the output's dimensions, with the reduced ones for a reduction.
    pub(crate) loops: Vec<usize>,
    /// The reduction at the root and which loops it reduces.
    pub(crate) reduce: Option<(ReduceOp, Vec<bool>)>,
    /// Nodes in dependency order; the last is the value (before any reduction).
    pub(crate) nodes: Vec<Node>,
    /// The materialised values the kernel reads, by slot.
    pub(crate) inputs: Vec<Var>,
    /// The equations fused into the kernel, by index.
    pub(crate) eqns: Vec<usize>,
    /// The root equation's source line.
    pub(crate) source: Source,
    /// The kernel's schedule, worked out when its program is compiled.
    pub(crate) prepared: std::sync::OnceLock<super::Prepared>,
    /// An elementwise operation applied to the reduction's result before it is stored
    /// (giving the kernel's output dtype): the primitive and its operands, `None` for the
    /// reduced value.
    pub(crate) epilogue: Option<(Prim, Vec<Option<Array>>)>,
}

impl Kernel {
    /// Whether loop `d` is reduced.
    pub(crate) fn reduced(&self, d: usize) -> bool {
        self.reduce.as_ref().is_some_and(|(_, f)| f[d])
    }

    /// The epilogue applied to the reduced values `v`, written into `out` (of `v`'s length
    /// and the kernel's output dtype); `false` when there is no epilogue.
    pub(crate) fn apply_epilogue(&self, v: Values, out: ValuesMut) -> bool {
        let Some((prim, operands)) = &self.epilogue else {
            return false;
        };
        let args: SmallVec<[Values; 3]> = operands
            .iter()
            .map(|o| o.as_ref().map_or(v, Array::values))
            .collect();
        prim.eval_lanes(&args, out);
        true
    }

    /// The affine maps of the nodes.
    fn affines_mut(&mut self) -> impl Iterator<Item = &mut Affine> {
        self.nodes.iter_mut().filter_map(|n| match &mut n.op {
            NodeOp::Load { offset: a, .. }
            | NodeOp::Gather { window: a, .. }
            | NodeOp::Iota { value: a }
            | NodeOp::InRange { value: a, .. } => Some(a),
            NodeOp::Lit(_) | NodeOp::Apply { .. } => None,
        })
    }

    /// Merges neighbouring loops that every index map walks as one (`coef[d]` is
    /// `coef[d + 1]` times the inner extent) and that are both reduced or both kept: a
    /// sum over a 100x100 image becomes one loop of 10,000, walked in long blocks.
    pub(crate) fn coalesce(&mut self) {
        let mut d = 0;
        while d + 1 < self.loops.len() {
            let inner = self.loops[d + 1] as i64;
            let same_kind = self.reduced(d) == self.reduced(d + 1);
            let walked_as_one = self
                .affines_mut()
                .all(|a| a.coef[d] == a.coef[d + 1] * inner);
            if !same_kind || !walked_as_one {
                d += 1;
                continue;
            }
            self.loops[d] *= self.loops[d + 1];
            self.loops.remove(d + 1);
            if let Some((_, f)) = &mut self.reduce {
                f.remove(d + 1);
            }
            for a in self.affines_mut() {
                a.coef[d] = a.coef[d + 1];
                a.coef.remove(d + 1);
            }
            let low = (1u64 << (d + 1)) - 1;
            for n in &mut self.nodes {
                let merged = (n.deps >> (d + 1)) & 1;
                n.deps = (n.deps & low) | (merged << d) | ((n.deps >> (d + 2)) << (d + 1));
            }
        }
    }

    /// Input slots whose buffer the kernel may overwrite with its result: of the result's
    /// size, and read only at the element being computed, so that each element is read
    /// before it is written, by the thread that writes it.
    pub(crate) fn in_place_slots(&self) -> Vec<usize> {
        if self.reduce.is_some() {
            return Vec::new();
        }
        let identity = Affine {
            base: 0,
            coef: strides_of(&self.loops).iter().map(|&s| s as i64).collect(),
        };
        let out = &self.out.aval;
        (0..self.inputs.len())
            .filter(|&s| {
                let a = &self.inputs[s].aval;
                a.nbytes() == out.nbytes() && a.dtype.size() == out.dtype.size()
            })
            .filter(|&s| {
                self.nodes.iter().all(|n| match &n.op {
                    NodeOp::Load { slot, offset, .. } if *slot == s => *offset == identity,
                    NodeOp::Gather { slot, .. } => *slot != s,
                    _ => true,
                })
            })
            .collect()
    }
}
