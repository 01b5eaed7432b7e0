//! How each kind of fusable primitive lowers inside a kernel: the index maps at which it
//! reads its operands ([`Builder::operands`]), and the node it computes from theirs
//! ([`Builder::finish`]). One small function per [`Kind`].

use super::{Builder, IndexMap};
use crate::array::{strides_of, DType};
use crate::compiler::fuse::{Affine, NodeId, NodeOp, Start};
use crate::core::prim::{Kind, Remap};
use crate::core::{Atom, Eqn, Prim};
use crate::prims::{BinaryOp, GatherDims};

impl<'a> Builder<'a> {
    /// The operands equation `e` at `map` computes in the kernel, with their maps, in the
    /// order their nodes are built.
    pub(super) fn operands(&self, e: &'a Eqn, map: &IndexMap) -> Vec<(&'a Atom, IndexMap)> {
        match e.prim.kind() {
            Kind::Lanewise(_) => self.lanewise_operands(e, map),
            Kind::Iota { .. } | Kind::View => vec![],
            Kind::Remap(r) => vec![(&e.inputs[0], self.remap(r, &e.inputs[0], map))],
            Kind::Pad { padding_config } => {
                let m = map
                    .iter()
                    .zip(padding_config)
                    .map(|(a, &(lo, _, _))| a.scale_add(1, -lo))
                    .collect();
                vec![(&e.inputs[0], m), (&e.inputs[1], vec![])]
            }
            Kind::Concatenate { dimension } => concatenate_operands(e, dimension, map),
            Kind::Gather { dims, .. } => self.gather_operands(e, dims, map),
            Kind::Reduce { .. } | Kind::Alone => {
                unreachable!("{} is not fusable", e.prim.name())
            }
        }
    }

    /// The node of equation `e` at `map`, given the nodes of its [`operands`](Self::operands).
    pub(super) fn finish(&mut self, e: &Eqn, map: &IndexMap, args: &[NodeId]) -> NodeId {
        let out = &e.outputs[0].aval;
        let dtype = out.dtype;
        match e.prim.kind() {
            Kind::Lanewise(_) => {
                let deps = args.iter().fold(0, |m, &a| m | self.nodes[a].deps);
                let op = NodeOp::Apply {
                    prim: e.prim.clone(),
                    args: args.to_vec(),
                };
                self.push(op, dtype, deps)
            }
            Kind::Iota { dimension } => {
                let value = map[dimension].clone();
                let deps = value.deps();
                self.push(NodeOp::Iota { value }, dtype, deps)
            }
            Kind::Remap(_) => args[0],
            Kind::View => match &e.inputs[0] {
                Atom::Lit(l) => self.push(NodeOp::Lit(l.clone()), dtype, 0),
                Atom::Var(v) => self.load(v, &out.shape, map, true),
            },
            Kind::Pad { padding_config } => self.pad(e, padding_config, map, args, dtype),
            Kind::Concatenate { dimension } => self.concatenate(e, dimension, map, args, dtype),
            Kind::Gather { dims, slice_sizes } => {
                self.gather(e, dims, slice_sizes, map, args, dtype)
            }
            Kind::Reduce { .. } | Kind::Alone => {
                unreachable!("{} is not fusable", e.prim.name())
            }
        }
    }

    /// The maps of an elementwise equation's operands: size-1 dimensions broadcast (index
    /// 0), rank-0 operands read once.
    fn lanewise_operands(&self, e: &'a Eqn, map: &IndexMap) -> Vec<(&'a Atom, IndexMap)> {
        let out = &e.outputs[0].aval.shape;
        let operand_map = |a: &Atom| -> IndexMap {
            let s = a.aval().shape;
            if s.is_empty() {
                return vec![];
            }
            s.iter()
                .zip(out)
                .zip(map)
                .map(|((&d, &o), m)| {
                    if d == 1 && o != 1 {
                        Affine::constant(0, self.nloops)
                    } else {
                        m.clone()
                    }
                })
                .collect()
        };
        e.inputs.iter().map(|a| (a, operand_map(a))).collect()
    }

    /// The map at which a remapping primitive reads its operand `x`.
    fn remap(&self, r: Remap, x: &Atom, map: &IndexMap) -> IndexMap {
        let z = || Affine::constant(0, self.nloops);
        let xs = x.aval().shape;
        match r {
            Remap::Broadcast(dims) => dims
                .iter()
                .enumerate()
                .map(|(i, &d)| if xs[i] == 1 { z() } else { map[d].clone() })
                .collect(),
            Remap::Transpose(permutation) => {
                let mut m = vec![z(); permutation.len()];
                for (i, &p) in permutation.iter().enumerate() {
                    m[p] = map[i].clone();
                }
                m
            }
            Remap::Rev(dimensions) => map
                .iter()
                .enumerate()
                .map(|(d, a)| {
                    if dimensions.contains(&d) {
                        a.scale_add(-1, xs[d] as i64 - 1)
                    } else {
                        a.clone()
                    }
                })
                .collect(),
            Remap::Slice { start, strides } => map
                .iter()
                .enumerate()
                .map(|(d, a)| {
                    let st = strides.map_or(1, |s| s[d]) as i64;
                    a.scale_add(st, start[d] as i64)
                })
                .collect(),
        }
    }

    /// A gather's index operand, read once per start index (the last index dimension).
    fn gather_operands(
        &self,
        e: &'a Eqn,
        dims: &GatherDims,
        map: &IndexMap,
    ) -> Vec<(&'a Atom, IndexMap)> {
        let idx = &e.inputs[1];
        let irank = idx.aval().ndim();
        let batch = batch_dims(e, dims);
        (0..dims.start_index_map.len())
            .map(|k| {
                let mut m: IndexMap = batch.iter().map(|&b| map[b].clone()).collect();
                m.truncate(irank - 1);
                m.push(Affine::constant(k as i64, self.nloops));
                (idx, m)
            })
            .collect()
    }

    /// `pad`: the operand where every padded dimension's index is in range, else the value.
    fn pad(
        &mut self,
        e: &Eqn,
        padding_config: &[(i64, i64, i64)],
        map: &IndexMap,
        args: &[NodeId],
        dtype: DType,
    ) -> NodeId {
        let xs = e.inputs[0].aval().shape;
        let (inner, value) = (args[0], args[1]);
        let mut mask: Option<NodeId> = None;
        for (d, &(lo, hi, _)) in padding_config.iter().enumerate() {
            if lo == 0 && hi == 0 {
                continue;
            }
            let r = self.in_range(map, d, lo, lo + xs[d] as i64);
            mask = Some(match mask {
                None => r,
                Some(prev) => self.and(prev, r),
            });
        }
        match mask {
            None => inner,
            Some(mask) => self.select(mask, value, inner, dtype),
        }
    }

    /// `concatenate`: the operand whose range along `d` holds the index.
    fn concatenate(
        &mut self,
        e: &Eqn,
        d: usize,
        map: &IndexMap,
        args: &[NodeId],
        dtype: DType,
    ) -> NodeId {
        let mut parts = Vec::new();
        let mut start = 0i64;
        for (a, &node) in e.inputs.iter().zip(args) {
            let n = a.aval().shape[d] as i64;
            parts.push((node, start, start + n));
            start += n;
        }
        let (mut acc, _, _) = parts.pop().expect("at least one operand");
        for (node, lo, hi) in parts.into_iter().rev() {
            let r = self.in_range(map, d, lo, hi);
            acc = self.select(r, acc, node, dtype);
        }
        acc
    }

    /// `gather`: a load of the stored operand at the window plus the clamped starts.
    fn gather(
        &mut self,
        e: &Eqn,
        dims: &GatherDims,
        slice_sizes: &[usize],
        map: &IndexMap,
        args: &[NodeId],
        dtype: DType,
    ) -> NodeId {
        let Atom::Var(operand) = &e.inputs[0] else {
            unreachable!("a gather operand is an array")
        };
        let xs = operand.aval.shape.clone();
        let strides = strides_of(&xs);
        let batch = batch_dims(e, dims);
        let mut window = Affine::constant(0, self.nloops);
        let windowed = (0..xs.len()).filter(|d| {
            !dims.collapsed_slice_dims.contains(d) && !dims.operand_batching_dims.contains(d)
        });
        for (w, d) in windowed.enumerate() {
            window = window.add(&map[dims.offset_dims[w]].scale_add(strides[d] as i64, 0));
        }
        for (od, id) in dims
            .operand_batching_dims
            .iter()
            .zip(&dims.start_indices_batching_dims)
        {
            window = window.add(&map[batch[*id]].scale_add(strides[*od] as i64, 0));
        }
        let starts: Vec<Start> = dims
            .start_index_map
            .iter()
            .zip(args)
            .map(|(&d, &node)| Start {
                node,
                stride: strides[d] as i64,
                max: (xs[d] - slice_sizes[d]) as i64,
            })
            .collect();
        let slot = self.slot(operand);
        let deps = starts
            .iter()
            .fold(window.deps(), |m, s| m | self.nodes[s.node].deps);
        let op = NodeOp::Gather {
            slot,
            starts,
            window,
        };
        self.push(op, dtype, deps)
    }

    /// Whether the index of loop map `d` lies in `lo..hi`.
    fn in_range(&mut self, map: &IndexMap, d: usize, lo: i64, hi: i64) -> NodeId {
        let op = NodeOp::InRange {
            value: map[d].clone(),
            lo,
            hi,
        };
        self.push(op, DType::Bool, map[d].deps())
    }

    fn and(&mut self, a: NodeId, b: NodeId) -> NodeId {
        let deps = self.nodes[a].deps | self.nodes[b].deps;
        let op = NodeOp::Apply {
            prim: Prim::Binary(BinaryOp::And),
            args: vec![a, b],
        };
        self.push(op, DType::Bool, deps)
    }

    /// `on_true` where `mask`, else `on_false`.
    fn select(&mut self, mask: NodeId, on_false: NodeId, on_true: NodeId, dtype: DType) -> NodeId {
        let deps = self.nodes[mask].deps | self.nodes[on_false].deps | self.nodes[on_true].deps;
        let op = NodeOp::Apply {
            prim: Prim::SelectN,
            args: vec![mask, on_false, on_true],
        };
        self.push(op, dtype, deps)
    }
}

/// The operands of a `concatenate` along `d`, each read at the index less its start.
fn concatenate_operands<'a>(e: &'a Eqn, d: usize, map: &IndexMap) -> Vec<(&'a Atom, IndexMap)> {
    let mut start = 0i64;
    e.inputs
        .iter()
        .map(|a| {
            let mut m = map.clone();
            m[d] = map[d].scale_add(1, -start);
            start += a.aval().shape[d] as i64;
            (a, m)
        })
        .collect()
}

/// A gather's output dimensions that are batch dimensions, in order of the indices' dims.
fn batch_dims(e: &Eqn, dims: &GatherDims) -> Vec<usize> {
    (0..e.outputs[0].aval.ndim())
        .filter(|d| !dims.offset_dims.contains(d))
        .collect()
}
