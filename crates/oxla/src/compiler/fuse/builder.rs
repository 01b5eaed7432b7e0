//! Building a kernel: the nodes that compute a value from the stored values it reads, each
//! with the index map from the kernel's loops to its own indices.
//!
//! Nodes are built with an explicit stack rather than by recursion, so a long chain of
//! fused equations takes no more of the thread's stack than a short one.

use std::collections::{HashMap, HashSet};

mod lower;

use super::stored::fusable_reduce;
use super::{Affine, Kernel, Node, NodeId, NodeOp};
use crate::array::{strides_of, Array, DType};
use crate::core::prim::Kind;
use crate::core::{Atom, ClosedJaxpr, Eqn, Prim, Var};

/// The index map of a node: one affine function of the loops per dimension of its value.
type IndexMap = Vec<Affine>;

/// A step of building a kernel's nodes.
enum Task<'a> {
    /// Build the node of an operand at a map (or find it built).
    Visit(&'a Atom, IndexMap),
    /// Build an equation's node at a map from the last `usize` nodes built (its operands),
    /// and remember it under the key.
    Finish(&'a Eqn, IndexMap, Option<(u32, IndexMap)>, usize),
}

/// The state of building one kernel.
pub(super) struct Builder<'a> {
    cj: &'a ClosedJaxpr,
    producer: &'a HashMap<u32, usize>,
    stored: &'a HashSet<u32>,
    nloops: usize,
    nodes: Vec<Node>,
    memo: HashMap<(u32, IndexMap), NodeId>,
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
        let (loops, reduce, body): (Vec<usize>, _, Option<&Atom>) = match e.prim.kind() {
            Kind::Reduce { op, axes } if fusable_reduce(e) => {
                let shape = e.inputs[0].aval().shape.to_vec();
                let flags = (0..shape.len()).map(|d| axes.contains(&d)).collect();
                (shape, Some((op, flags)), Some(&e.inputs[0]))
            }
            Kind::Lanewise(_)
            | Kind::Iota { .. }
            | Kind::Remap(_)
            | Kind::View
            | Kind::Pad { .. }
            | Kind::Concatenate { .. }
            | Kind::Gather { .. }
            | Kind::Reduce { .. }
            | Kind::Alone => (e.outputs[0].aval.shape.to_vec(), None, None),
        };
        self.nloops = loops.len();
        let identity: IndexMap = (0..loops.len())
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
    fn load(&mut self, v: &Var, shape: &[usize], map: &IndexMap, clamp: bool) -> NodeId {
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
    fn atom(&mut self, a: &'a Atom, map: IndexMap) -> NodeId {
        self.build(vec![Task::Visit(a, map)])
    }

    /// The node of equation `e` (the kernel's root) at `map`.
    fn root(&mut self, e: &'a Eqn, map: IndexMap) -> NodeId {
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
    fn expand(
        &self,
        e: &'a Eqn,
        map: IndexMap,
        key: Option<(u32, IndexMap)>,
        tasks: &mut Vec<Task<'a>>,
    ) {
        let operands = self.operands(e, &map);
        tasks.push(Task::Finish(e, map, key, operands.len()));
        tasks.extend(operands.into_iter().rev().map(|(a, m)| Task::Visit(a, m)));
    }
}
