//! Fusion: grouping equations into loop-nest kernels whose intermediates are never
//! materialised.
//!
//! Elementwise operations, `broadcast_in_dim`, `transpose`, `slice`, `rev`, `pad`,
//! `concatenate`, `iota`, `select_n` and `gather` become index arithmetic inside the kernel
//! of the value that consumes them; a reduction fuses with its producer. A value is
//! materialised only where it must be: arguments, constants and results, outputs of
//! primitives that run on their own kernels (`dot_general`, `sort`, `scatter-add`, ...),
//! reductions, operands that need a buffer (the operand of a gather or a reshape), and
//! values whose fused expression is too large to recompute in every consumer.

use std::collections::HashMap;
use std::panic::Location;

use smallvec::SmallVec;

use crate::array::{strides_of, Array, DType, Values, ValuesMut};
use crate::core::{Atom, ClosedJaxpr, Eqn, Var};
use crate::prims::{GatherMode, Prim, ReduceOp};

/// An affine function of the kernel's loop indices: `base + sum(coef[k] * loop[k])`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Affine {
    pub(crate) base: i64,
    pub(crate) coef: Vec<i64>,
}

impl Affine {
    fn constant(v: i64, loops: usize) -> Affine {
        Affine {
            base: v,
            coef: vec![0; loops],
        }
    }

    fn loop_index(k: usize, loops: usize) -> Affine {
        let mut a = Affine::constant(0, loops);
        a.coef[k] = 1;
        a
    }

    fn scale_add(&self, s: i64, c: i64) -> Affine {
        Affine {
            base: self.base * s + c,
            coef: self.coef.iter().map(|&k| k * s).collect(),
        }
    }

    fn add(&self, other: &Affine) -> Affine {
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
    Lit(crate::array::Array),
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
    pub(crate) source: &'static Location<'static>,
    /// The kernel's schedule, worked out on its first run.
    pub(crate) prepared: std::sync::OnceLock<super::kernel::Prepared>,
    /// An elementwise operation applied to the reduction's result before it is stored
    /// (giving the kernel's output dtype): the primitive and its operands, `None` for the
    /// reduced value.
    pub(crate) epilogue: Option<(Prim, Vec<Option<crate::array::Array>>)>,
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
    fn coalesce(&mut self) {
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

/// Whether an equation can become index arithmetic inside its consumer's kernel.
fn fusable(e: &Eqn) -> bool {
    match &e.prim {
        Prim::Unary(_)
        | Prim::Binary(_)
        | Prim::IntegerPow { .. }
        | Prim::SelectN
        | Prim::ConvertElementType { .. }
        | Prim::BitcastConvertType { .. }
        | Prim::Iota { .. }
        | Prim::BroadcastInDim { .. }
        | Prim::Transpose { .. }
        | Prim::Rev { .. }
        | Prim::Slice { .. }
        | Prim::Concatenate { .. }
        | Prim::Reshape { .. }
        | Prim::Squeeze { .. } => true,
        Prim::Pad { padding_config } => padding_config.iter().all(|&(_, _, i)| i == 0),
        Prim::Gather { mode, .. } => *mode != GatherMode::FillOrDrop,
        _ => false,
    }
}

/// Whether an equation is a reduction that can be a kernel's root.
fn fusable_reduce(e: &Eqn) -> bool {
    matches!(
        e.prim,
        Prim::Reduce {
            op: ReduceOp::Sum | ReduceOp::Max | ReduceOp::Min,
            ..
        }
    ) && e.outputs[0].aval.dtype.is_numeric()
}

/// Largest fused expression (in equations) recomputed in each consumer rather than stored.
const RECOMPUTE_LIMIT: usize = 48;

/// Longest chain of equations one kernel computes; see [`cap_kernels`]. (The programs of
/// the seeds and the tests fuse chains of at most about 20.)
const DEPTH_LIMIT: usize = 128;

/// Largest fused expression (in equations, counted as a tree) of one kernel; see
/// [`cap_kernels`]. (The seeds' and the tests' largest count 1,355, of 73 equations.)
const TREE_LIMIT: usize = 1 << 14;

/// The steps of a program: which equations become kernels and which run alone.
pub(crate) fn fuse(cj: &ClosedJaxpr) -> Vec<Step> {
    let j = &cj.jaxpr;
    let producer: HashMap<u32, usize> = j
        .eqns
        .iter()
        .enumerate()
        .flat_map(|(i, e)| e.outputs.iter().map(move |o| (o.id, i)))
        .collect();
    // Decide which values are materialised.
    let mut stored: std::collections::HashSet<u32> = std::collections::HashSet::new();
    for v in j.constvars.iter().chain(&j.invars) {
        stored.insert(v.id);
    }
    for a in &j.outvars {
        if let Atom::Var(v) = a {
            stored.insert(v.id);
        }
    }
    for e in &j.eqns {
        let alone = !fusable(e);
        if alone || fusable_reduce(e) {
            for o in &e.outputs {
                stored.insert(o.id);
            }
        }
        let needs_buffer: Vec<usize> = match &e.prim {
            Prim::Gather { .. } | Prim::Reshape { .. } | Prim::Squeeze { .. } => vec![0],
            _ if alone && !fusable_reduce(e) => (0..e.inputs.len()).collect(),
            _ => vec![],
        };
        for i in needs_buffer {
            if let Atom::Var(v) = &e.inputs[i] {
                stored.insert(v.id);
            }
        }
    }
    // A reduction read only by an elementwise operation with literal operands runs that
    // operation on its result in the same kernel (its epilogue) instead of being stored.
    let mut epilogues: HashMap<usize, usize> = HashMap::new();
    let out_ids: std::collections::HashSet<u32> = j
        .outvars
        .iter()
        .filter_map(Atom::var)
        .map(|v| v.id)
        .collect();
    let mut uses: HashMap<u32, usize> = HashMap::new();
    for v in j.eqns.iter().flat_map(|e| &e.inputs).filter_map(Atom::var) {
        *uses.entry(v.id).or_default() += 1;
    }
    for (i, e) in j.eqns.iter().enumerate() {
        let elementwise = matches!(
            e.prim,
            Prim::Unary(_)
                | Prim::Binary(_)
                | Prim::IntegerPow { .. }
                | Prim::ConvertElementType { .. }
        );
        let vars: Vec<&Var> = e
            .inputs
            .iter()
            .filter_map(|a| match a {
                Atom::Var(v) => Some(v),
                Atom::Lit(_) => None,
            })
            .collect();
        let [v] = vars[..] else { continue };
        let Some(&r) = producer.get(&v.id) else {
            continue;
        };
        let re = &j.eqns[r];
        let single_use = uses.get(&v.id) == Some(&1);
        if elementwise
            && fusable_reduce(re)
            && single_use
            && !out_ids.contains(&v.id)
            && e.outputs[0].aval.shape == re.outputs[0].aval.shape
        {
            stored.remove(&v.id);
            stored.insert(e.outputs[0].id);
            epilogues.insert(i, r);
        }
    }
    let epilogues = &epilogues;
    cap_kernels(j, &mut stored);
    // A value fused into several kernels is recomputed by each; one with a large
    // expression is stored instead, and the kernels are formed again.
    for _ in 0..4 {
        let (steps, shared) = form(cj, &producer, &stored, epilogues);
        let mut size: HashMap<u32, usize> = HashMap::new();
        let mut heavy = Vec::new();
        for e in &j.eqns {
            let own = 1 + e
                .inputs
                .iter()
                .filter_map(|a| match a {
                    Atom::Var(v) if !stored.contains(&v.id) => size.get(&v.id).copied(),
                    _ => None,
                })
                .sum::<usize>();
            for o in &e.outputs {
                size.insert(o.id, own);
                if shared.contains(&o.id) && own > RECOMPUTE_LIMIT {
                    heavy.push(o.id);
                }
            }
        }
        if heavy.is_empty() {
            return steps;
        }
        stored.extend(heavy);
    }
    form(cj, &producer, &stored, epilogues).0
}

/// Stores every value whose fused expression would chain [`DEPTH_LIMIT`] equations, or
/// count [`TREE_LIMIT`] as a tree (an operand used twice by one
/// equation counts once; one reached along several paths counts once per path, so the
/// count is never below the kernel's nodes). Each kernel then has a bounded number of
/// nodes, and so of lane buffers: a chain of 100,000 operations becomes 782 kernels
/// of 128 operations, each storing its result for the next, instead of one kernel with
/// 200,000 lane buffers (800 MB at 1,024 lanes of `f32`). Values are computed by the same
/// operations either way, so results are bitwise the same. Linear in the program.
fn cap_kernels(j: &crate::core::Jaxpr, stored: &mut std::collections::HashSet<u32>) {
    // Per unstored value: equations of its expression as a tree, and of its longest chain.
    let mut size: HashMap<u32, (usize, usize)> = HashMap::new();
    for e in j.eqns.iter().filter(|e| fusable(e)) {
        let mut operands: SmallVec<[u32; 4]> = SmallVec::new();
        for v in e.inputs.iter().filter_map(Atom::var) {
            if !stored.contains(&v.id) && !operands.contains(&v.id) {
                operands.push(v.id);
            }
        }
        let (mut tree, mut depth) = (1usize, 1usize);
        for id in &operands {
            let (t, d) = size.get(id).copied().unwrap_or((0, 0));
            tree = tree.saturating_add(t);
            depth = depth.max(d + 1);
        }
        for o in &e.outputs {
            if tree >= TREE_LIMIT || depth >= DEPTH_LIMIT {
                stored.insert(o.id);
            } else if !stored.contains(&o.id) {
                size.insert(o.id, (tree, depth));
            }
        }
    }
}

/// The steps for a given set of stored values, and the unstored values that more than one
/// kernel computes.
fn form(
    cj: &ClosedJaxpr,
    producer: &HashMap<u32, usize>,
    stored: &std::collections::HashSet<u32>,
    epilogues: &HashMap<usize, usize>,
) -> (Vec<Step>, std::collections::HashSet<u32>) {
    let mut steps = Vec::new();
    let mut seen: HashMap<u32, usize> = HashMap::new();
    for (i, e) in cj.jaxpr.eqns.iter().enumerate() {
        if !e.outputs.iter().any(|o| stored.contains(&o.id)) {
            continue;
        }
        let view = matches!(e.prim, Prim::Reshape { .. } | Prim::Squeeze { .. });
        if let Some(&r) = epilogues.get(&i) {
            let re = &cj.jaxpr.eqns[r];
            let mut b = Builder::new(cj, producer, stored, re);
            let mut kernel = b.kernel(r);
            let operands = e
                .inputs
                .iter()
                .map(|a| match a {
                    Atom::Lit(l) => Some(l.clone()),
                    Atom::Var(_) => None,
                })
                .collect();
            kernel.epilogue = Some((e.prim.clone(), operands));
            kernel.out = e.outputs[0].clone();
            kernel.eqns.insert(0, i);
            steps.push(Step::Kernel(Box::new(kernel)));
        } else if (fusable(e) || fusable_reduce(e)) && !view {
            let mut b = Builder::new(cj, producer, stored, e);
            let kernel = b.kernel(i);
            let mine: std::collections::HashSet<u32> = kernel.eqns[1..]
                .iter()
                .flat_map(|&k| cj.jaxpr.eqns[k].outputs.iter().map(|o| o.id))
                .collect();
            for id in mine {
                *seen.entry(id).or_default() += 1;
            }
            steps.push(Step::Kernel(Box::new(kernel)));
        } else {
            steps.push(Step::Prim(i));
        }
    }
    let shared = seen
        .into_iter()
        .filter(|&(_, n)| n > 1)
        .map(|(v, _)| v)
        .collect();
    (steps, shared)
}

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

struct Builder<'a> {
    cj: &'a ClosedJaxpr,
    producer: &'a HashMap<u32, usize>,
    stored: &'a std::collections::HashSet<u32>,
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
    fn new(
        cj: &'a ClosedJaxpr,
        producer: &'a HashMap<u32, usize>,
        stored: &'a std::collections::HashSet<u32>,
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

    fn kernel(&mut self, index: usize) -> Kernel {
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
        match body {
            Some(a) => self.atom(a, identity),
            None => self.root(e, identity),
        };
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
