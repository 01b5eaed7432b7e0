//! Building a kernel: the nodes that compute a value from the stored values it reads, each
//! with the index map from the kernel's loops to its own indices.
//!
//! Nodes are built with an explicit stack rather than by recursion, so a long chain of
//! fused equations takes no more of the thread's stack than a short one.

use std::collections::{HashMap, HashSet};

use super::{fusable_reduce, Affine, Kernel, Node, NodeId, NodeOp, Start};
use crate::array::{strides_of, Array, DType};
use crate::core::Prim;
use crate::core::{Atom, ClosedJaxpr, Eqn, Var};

/// The index map of a node: one affine function of the loops per dimension of its value.
type Map = Vec<Affine>;

/// A step of building a kernel's nodes.
enum Task<'a> {
    /// Build the node of an operand at a map (or find it built).
    Visit(&'a Atom, Map),
    /// Build an equation's node at a map from the last `usize` nodes built (its operands),
    /// and remember it under the key.
    Finish(&'a Eqn, Map, Option<(u32, Map)>, usize),
}

/// The state of building one kernel.
pub(super) struct Builder<'a> {
    cj: &'a ClosedJaxpr,
    producer: &'a HashMap<u32, usize>,
    stored: &'a HashSet<u32>,
    nloops: usize,
    nodes: Vec<Node>,
    memo: HashMap<(u32, Map), NodeId>,
    inputs: Vec<Var>,
    /// The slot of each input, by variable.
    slots: HashMap<u32, usize>,
    eqns: Vec<usize>,
    root: &'a Eqn,
}

impl<'a> Builder<'a> {
    /// A builder of the kernel whose root equation is `root`.
    pub(super) fn new(
        cj: &'a ClosedJaxpr,
        producer: &'a HashMap<u32, usize>,
        stored: &'a HashSet<u32>,
        root: &'a Eqn,
    ) -> Builder<'a> {
        Builder {
            cj,
            producer,
            stored,
            nloops: 0,
            nodes: Vec::new(),
            memo: HashMap::new(),
            inputs: Vec::new(),
            slots: HashMap::new(),
            eqns: Vec::new(),
            root,
        }
    }

    /// The kernel of the root equation, equation `index` of the program.
    pub(super) fn kernel(&mut self, index: usize) -> Kernel {
        let e = self.root;
        let (loops, reduce, body): (Vec<usize>, _, Option<&Atom>) = match &e.prim {
            Prim::Reduce { op, axes } if fusable_reduce(e) => {
                let shape = e.inputs[0].aval().shape.to_vec();
                let flags = (0..shape.len()).map(|d| axes.contains(&d)).collect();
                (shape, Some((*op, flags)), Some(&e.inputs[0]))
            }
            _ => (e.outputs[0].aval.shape.to_vec(), None, None),
        };
        self.nloops = loops.len();
        let identity: Map = (0..loops.len())
            .map(|k| Affine::loop_index(k, loops.len()))
            .collect();
        self.eqns.push(index);
        let root = match body {
            Some(a) => self.atom(a, identity),
            None => self.root(e, identity),
        };
        if root + 1 != self.nodes.len() {
            // A fold answered with an earlier node (a `select_n` whose predicate is known
            // here); the kernel's root is its last node.
            let node = self.nodes[root].clone();
            self.nodes.push(node);
        }
        let mut k = Kernel {
            out: e.outputs[0].clone(),
            loops,
            reduce,
            nodes: std::mem::take(&mut self.nodes),
            inputs: std::mem::take(&mut self.inputs),
            eqns: std::mem::take(&mut self.eqns),
            source: e.source,
            epilogue: None,
            prepared: std::sync::OnceLock::new(),
        };
        k.coalesce();
        k
    }

    /// Adds a node, folding what is known when the kernel is built: a range test or an
    /// iota that depends on no loop is a literal, and a `select_n` with a literal
    /// predicate is the case it picks.
    fn push(&mut self, op: NodeOp, dtype: DType, deps: u64) -> NodeId {
        let op = match op {
            NodeOp::InRange { value, lo, hi } if value.deps() == 0 => {
                NodeOp::Lit(Array::scalar((lo..hi).contains(&value.base)))
            }
            NodeOp::Iota { value } if value.deps() == 0 => {
                let v = Array::scalar(value.base as f64);
                NodeOp::Lit(
                    Prim::ConvertElementType { new_dtype: dtype }
                        .eval(&[v])
                        .remove(0),
                )
            }
            NodeOp::Apply {
                prim: Prim::SelectN,
                args,
            } if matches!(self.nodes[args[0]].op, NodeOp::Lit(_)) => {
                let NodeOp::Lit(p) = &self.nodes[args[0]].op else {
                    unreachable!("matched above")
                };
                let which = (p.item().max(0.0) as usize).min(args.len() - 2);
                return args[1 + which];
            }
            op => op,
        };
        self.nodes.push(Node { op, dtype, deps });
        self.nodes.len() - 1
    }

    fn slot(&mut self, v: &Var) -> usize {
        *self.slots.entry(v.id).or_insert_with(|| {
            self.inputs.push(v.clone());
            self.inputs.len() - 1
        })
    }

    /// A load of stored `v` at `map` over the row-major layout of `shape`.
    fn load(&mut self, v: &Var, shape: &[usize], map: &Map, clamp: bool) -> NodeId {
        let strides = strides_of(shape);
        let offset = map
            .iter()
            .zip(&strides)
            .fold(Affine::constant(0, self.nloops), |acc, (m, &s)| {
                acc.add(&m.scale_add(s as i64, 0))
            });
        let slot = self.slot(v);
        let deps = offset.deps();
        self.push(
            NodeOp::Load {
                slot,
                offset,
                clamp,
            },
            v.aval.dtype,
            deps,
        )
    }

    /// The node of operand `a` at `map`, and of every node it needs, built with an
    /// explicit stack: a chain of 100,000 equations takes no more of the thread's stack
    /// than one. Operands are built left to right, each whole before the next, and an
    /// equation's nodes after its operands', as a recursive walk would build them.
    fn atom(&mut self, a: &'a Atom, map: Map) -> NodeId {
        self.build(vec![Task::Visit(a, map)])
    }

    /// The node of equation `e` (the kernel's root) at `map`.
    fn root(&mut self, e: &'a Eqn, map: Map) -> NodeId {
        let mut tasks = Vec::new();
        self.expand(e, map, None, &mut tasks);
        self.build(tasks)
    }

    /// Runs `tasks` to the end; the node the first one stands for.
    fn build(&mut self, mut tasks: Vec<Task<'a>>) -> NodeId {
        let mut built: Vec<NodeId> = Vec::new();
        while let Some(task) = tasks.pop() {
            match task {
                Task::Visit(Atom::Lit(l), _) => {
                    built.push(self.push(NodeOp::Lit(l.clone()), l.dtype(), 0));
                }
                Task::Visit(Atom::Var(v), map) => {
                    let key = (v.id, map);
                    if let Some(&n) = self.memo.get(&key) {
                        built.push(n);
                    } else if self.stored.contains(&v.id) {
                        let n = self.load(v, &v.aval.shape, &key.1, true);
                        self.memo.insert(key, n);
                        built.push(n);
                    } else {
                        let i = self.producer[&v.id];
                        self.eqns.push(i);
                        let map = key.1.clone();
                        self.expand(&self.cj.jaxpr.eqns[i], map, Some(key), &mut tasks);
                    }
                }
                Task::Finish(e, map, key, n) => {
                    let args = built.split_off(built.len() - n);
                    let node = self.finish(e, &map, &args);
                    if let Some(key) = key {
                        self.memo.insert(key, node);
                    }
                    built.push(node);
                }
            }
        }
        built.pop().expect("a node was built")
    }

    /// Schedules equation `e` at `map`: its operands, then the equation itself.
    fn expand(&self, e: &'a Eqn, map: Map, key: Option<(u32, Map)>, tasks: &mut Vec<Task<'a>>) {
        let operands = self.operands(e, &map);
        tasks.push(Task::Finish(e, map, key, operands.len()));
        tasks.extend(operands.into_iter().rev().map(|(a, m)| Task::Visit(a, m)));
    }

    /// The map of an elementwise operand: size-1 dimensions broadcast (index 0).
    fn operand_map(&self, a: &Atom, out: &[usize], map: &Map) -> Map {
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
    }

    /// The operands equation `e` at `map` computes in the kernel, with their maps, in the
    /// order their nodes are built.
    fn operands(&self, e: &'a Eqn, map: &Map) -> Vec<(&'a Atom, Map)> {
        let out = &e.outputs[0].aval;
        let z = || Affine::constant(0, self.nloops);
        // The first operand, of the equations that have one.
        let x = || &e.inputs[0];
        match &e.prim {
            Prim::Unary(_)
            | Prim::Binary(_)
            | Prim::IntegerPow { .. }
            | Prim::SelectN
            | Prim::ConvertElementType { .. }
            | Prim::BitcastConvertType { .. } => e
                .inputs
                .iter()
                .map(|a| (a, self.operand_map(a, &out.shape, map)))
                .collect(),
            Prim::Iota { .. } | Prim::Reshape { .. } | Prim::Squeeze { .. } => vec![],
            Prim::BroadcastInDim {
                broadcast_dimensions,
                ..
            } => {
                let xs = x().aval().shape;
                let m: Map = broadcast_dimensions
                    .iter()
                    .enumerate()
                    .map(|(i, &d)| if xs[i] == 1 { z() } else { map[d].clone() })
                    .collect();
                vec![(x(), m)]
            }
            Prim::Transpose { permutation } => {
                let mut m = vec![z(); permutation.len()];
                for (i, &p) in permutation.iter().enumerate() {
                    m[p] = map[i].clone();
                }
                vec![(x(), m)]
            }
            Prim::Rev { dimensions } => {
                let xs = x().aval().shape;
                let m: Map = map
                    .iter()
                    .enumerate()
                    .map(|(d, a)| {
                        if dimensions.contains(&d) {
                            a.scale_add(-1, xs[d] as i64 - 1)
                        } else {
                            a.clone()
                        }
                    })
                    .collect();
                vec![(x(), m)]
            }
            Prim::Slice {
                start_indices,
                strides,
                ..
            } => {
                let m: Map = map
                    .iter()
                    .enumerate()
                    .map(|(d, a)| {
                        let st = strides.as_ref().map_or(1, |s| s[d]) as i64;
                        a.scale_add(st, start_indices[d] as i64)
                    })
                    .collect();
                vec![(x(), m)]
            }
            Prim::Pad { padding_config } => {
                let m: Map = map
                    .iter()
                    .zip(padding_config)
                    .map(|(a, &(lo, _, _))| a.scale_add(1, -lo))
                    .collect();
                vec![(x(), m), (&e.inputs[1], vec![])]
            }
            Prim::Concatenate { dimension } => {
                let d = *dimension;
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
            Prim::Gather { dims, .. } => {
                let idx = &e.inputs[1];
                let irank = idx.aval().ndim();
                // Output dimensions that are batch dimensions, in order of the indices' dims.
                let batch: Vec<usize> = (0..out.ndim())
                    .filter(|d| !dims.offset_dims.contains(d))
                    .collect();
                (0..dims.start_index_map.len())
                    .map(|k| {
                        let mut m: Map = batch.iter().map(|&b| map[b].clone()).collect();
                        m.truncate(irank - 1);
                        m.push(Affine::constant(k as i64, self.nloops));
                        (idx, m)
                    })
                    .collect()
            }
            other => unreachable!("{} is not fusable", other.name()),
        }
    }

    /// The node of equation `e` at `map`, given the nodes of its [`operands`](Self::operands).
    fn finish(&mut self, e: &Eqn, map: &Map, args: &[NodeId]) -> NodeId {
        let out = &e.outputs[0].aval;
        let dtype = out.dtype;
        match &e.prim {
            Prim::Unary(_)
            | Prim::Binary(_)
            | Prim::IntegerPow { .. }
            | Prim::SelectN
            | Prim::ConvertElementType { .. }
            | Prim::BitcastConvertType { .. } => {
                let deps = args.iter().fold(0, |m, &a| m | self.nodes[a].deps);
                self.push(
                    NodeOp::Apply {
                        prim: e.prim.clone(),
                        args: args.to_vec(),
                    },
                    dtype,
                    deps,
                )
            }
            Prim::Iota { dimension, .. } => {
                let value = map[*dimension].clone();
                let deps = value.deps();
                self.push(NodeOp::Iota { value }, dtype, deps)
            }
            Prim::BroadcastInDim { .. }
            | Prim::Transpose { .. }
            | Prim::Rev { .. }
            | Prim::Slice { .. } => args[0],
            Prim::Reshape { .. } | Prim::Squeeze { .. } => match &e.inputs[0] {
                Atom::Lit(l) => self.push(NodeOp::Lit(l.clone()), dtype, 0),
                Atom::Var(v) => self.load(v, &out.shape, map, true),
            },
            Prim::Pad { padding_config } => {
                let xs = e.inputs[0].aval().shape;
                let (inner, value) = (args[0], args[1]);
                let mut mask: Option<NodeId> = None;
                for (d, &(lo, hi, _)) in padding_config.iter().enumerate() {
                    if lo == 0 && hi == 0 {
                        continue;
                    }
                    let r = self.push(
                        NodeOp::InRange {
                            value: map[d].clone(),
                            lo,
                            hi: lo + xs[d] as i64,
                        },
                        DType::Bool,
                        map[d].deps(),
                    );
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
            Prim::Concatenate { dimension } => {
                let d = *dimension;
                let mut parts = Vec::new();
                let mut start = 0i64;
                for (a, &node) in e.inputs.iter().zip(args) {
                    let n = a.aval().shape[d] as i64;
                    parts.push((node, start, start + n));
                    start += n;
                }
                let (mut acc, _, _) = parts.pop().expect("at least one operand");
                for (node, lo, hi) in parts.into_iter().rev() {
                    let r = self.push(
                        NodeOp::InRange {
                            value: map[d].clone(),
                            lo,
                            hi,
                        },
                        DType::Bool,
                        map[d].deps(),
                    );
                    acc = self.select(r, acc, node, dtype);
                }
                acc
            }
            Prim::Gather {
                dims, slice_sizes, ..
            } => {
                let Atom::Var(operand) = &e.inputs[0] else {
                    unreachable!("a gather operand is an array")
                };
                let xs = operand.aval.shape.clone();
                let strides = strides_of(&xs);
                // Output dimensions that are batch dimensions, in order of the indices' dims.
                let batch: Vec<usize> = (0..out.ndim())
                    .filter(|d| !dims.offset_dims.contains(d))
                    .collect();
                let mut window = Affine::constant(0, self.nloops);
                let windowed = (0..xs.len()).filter(|d| {
                    !dims.collapsed_slice_dims.contains(d)
                        && !dims.operand_batching_dims.contains(d)
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
                self.push(
                    NodeOp::Gather {
                        slot,
                        starts,
                        window,
                    },
                    dtype,
                    deps,
                )
            }
            other => unreachable!("{} is not fusable", other.name()),
        }
    }

    fn and(&mut self, a: NodeId, b: NodeId) -> NodeId {
        let deps = self.nodes[a].deps | self.nodes[b].deps;
        self.push(
            NodeOp::Apply {
                prim: Prim::Binary(crate::prims::BinaryOp::And),
                args: vec![a, b],
            },
            DType::Bool,
            deps,
        )
    }

    /// `on_true` where `mask`, else `on_false`.
    fn select(&mut self, mask: NodeId, on_false: NodeId, on_true: NodeId, dtype: DType) -> NodeId {
        let deps = self.nodes[mask].deps | self.nodes[on_false].deps | self.nodes[on_true].deps;
        self.push(
            NodeOp::Apply {
                prim: Prim::SelectN,
                args: vec![mask, on_false, on_true],
            },
            dtype,
            deps,
        )
    }
}
