//! Simplification of a jaxpr before it is planned: constant folding, algebraic identities,
//! collapsing chains of reshapes, transposes and broadcasts, common subexpressions and dead
//! code. Every rewrite keeps the equation's source line.

use std::collections::{HashMap, HashSet};

use crate::array::{Array, DType};
use crate::core::Prim;
use crate::core::{Atom, ClosedJaxpr, Eqn, Jaxpr, Tensor, Var};
use crate::prims::{BinaryOp, GatherDims, GatherMode, ReduceOp, UnaryOp};

/// Largest result (in elements) that constant folding computes at compile time.
const FOLD_LIMIT: usize = 4096;

/// Simplifies `cj` until nothing changes.
pub(crate) fn simplify(mut cj: ClosedJaxpr) -> ClosedJaxpr {
    for _ in 0..8 {
        let (next, changed) = Pass::run(&cj);
        cj = dce(next);
        if !changed {
            break;
        }
    }
    cj
}

/// One rewriting sweep over the equations.
struct Pass {
    subst: HashMap<u32, Atom>,
    /// Concrete values of constvars and folded results.
    known: HashMap<u32, Array>,
    /// The equation that produced each variable (after rewriting).
    producer: HashMap<u32, Eqn>,
    cse: HashMap<String, Vec<Var>>,
    eqns: Vec<Eqn>,
    constvars: Vec<Var>,
    consts: Vec<Tensor>,
    next_id: u32,
    changed: bool,
}

fn max_id(j: &Jaxpr) -> u32 {
    let vars = j
        .constvars
        .iter()
        .chain(&j.invars)
        .chain(j.eqns.iter().flat_map(|e| &e.outputs));
    vars.map(|v| v.id + 1).max().unwrap_or(0)
}

impl Pass {
    fn run(cj: &ClosedJaxpr) -> (ClosedJaxpr, bool) {
        let j = &cj.jaxpr;
        let mut p = Pass {
            subst: HashMap::new(),
            known: HashMap::new(),
            producer: HashMap::new(),
            cse: HashMap::new(),
            eqns: Vec::new(),
            constvars: j.constvars.clone(),
            consts: cj.consts.clone(),
            next_id: max_id(j),
            changed: false,
        };
        for (v, t) in j.constvars.iter().zip(&cj.consts) {
            if let Some(a) = t.try_array() {
                p.known.insert(v.id, a.clone());
            }
        }
        for e in &j.eqns {
            let inputs: Vec<Atom> = e.inputs.iter().map(|a| p.sub(a)).collect();
            p.rewrite(Eqn {
                prim: e.prim.clone(),
                inputs,
                outputs: e.outputs.clone(),
                source: e.source,
            });
        }
        let outvars = j.outvars.iter().map(|a| p.sub(a)).collect();
        let jaxpr = Jaxpr {
            constvars: p.constvars,
            invars: j.invars.clone(),
            eqns: p.eqns,
            outvars,
        };
        (
            ClosedJaxpr {
                jaxpr,
                consts: p.consts,
            },
            p.changed,
        )
    }

    fn sub(&self, a: &Atom) -> Atom {
        match a {
            Atom::Var(v) => self.subst.get(&v.id).cloned().unwrap_or_else(|| a.clone()),
            Atom::Lit(_) => a.clone(),
        }
    }

    fn value(&self, a: &Atom) -> Option<Array> {
        match a {
            Atom::Lit(l) => Some(l.clone()),
            Atom::Var(v) => self.known.get(&v.id).cloned(),
        }
    }

    /// The single value every element of `a` is known to have.
    fn scalar(&self, a: &Atom) -> Option<f64> {
        if let Some(v) = self.value(a) {
            let vals = v.to_f64_vec();
            let first = *vals.first()?;
            return vals.iter().all(|&x| x == first).then_some(first);
        }
        let Atom::Var(v) = a else { return None };
        match self.producer.get(&v.id) {
            Some(Eqn {
                prim: Prim::BroadcastInDim { .. },
                inputs,
                ..
            }) => self.scalar(&inputs[0]),
            _ => None,
        }
    }

    fn fresh(&mut self, dtype: DType, shape: &[usize]) -> Var {
        let v = Var {
            id: self.next_id,
            aval: crate::core::Aval::new(dtype, shape),
        };
        self.next_id += 1;
        v
    }

    /// Binds `out` to `a` instead of computing it.
    fn alias(&mut self, out: &Var, a: Atom) {
        self.subst.insert(out.id, a);
        self.changed = true;
    }

    fn emit(&mut self, e: Eqn) {
        let key = format!(
            "{:?}|{}",
            e.prim,
            e.inputs
                .iter()
                .map(|a| match a {
                    Atom::Var(v) => format!("v{}", v.id),
                    Atom::Lit(l) => format!("{}{:?}", l.dtype(), l.as_bytes()),
                })
                .collect::<Vec<_>>()
                .join(",")
        );
        if let Some(prev) = self.cse.get(&key).cloned() {
            for (o, p) in e.outputs.iter().zip(prev) {
                self.alias(o, Atom::Var(p));
            }
            return;
        }
        self.cse.insert(key, e.outputs.clone());
        for o in &e.outputs {
            self.producer.insert(o.id, e.clone());
        }
        self.eqns.push(e);
    }

    fn rewrite(&mut self, e: Eqn) {
        if self.fold(&e)
            || self.identity(&e)
            || self.broadcast_identity(&e)
            || self.collapse(&e)
            || self.transposed_operand(&e)
            || self.outer_product(&e)
        {
            return;
        }
        self.emit(e);
    }

    /// A `dot_general` that contracts nothing, or only size-1 dimensions, is a product of
    /// broadcasts: elementwise work that fuses with its neighbours and writes the result
    /// once, where a matrix multiply with an inner dimension of 1 runs far below the memory
    /// bandwidth. (Per-example gradients of a dense layer are such outer products.)
    fn outer_product(&mut self, e: &Eqn) -> bool {
        let Prim::DotGeneral {
            contracting, batch, ..
        } = &e.prim
        else {
            return false;
        };
        let out = e.outputs[0].aval.clone();
        let lhs = e.inputs[0].aval();
        if contracting.0.iter().any(|&d| lhs.shape[d] != 1) || !out.dtype.is_numeric() {
            return false;
        }
        let nb = batch.0.len();
        let lhs_free = lhs.ndim() - nb - contracting.0.len();
        let l = self.broadcast_side(e, 0, &batch.0, &contracting.0, nb, &out);
        let r = self.broadcast_side(e, 1, &batch.1, &contracting.1, nb + lhs_free, &out);
        self.changed = true;
        self.rewrite(Eqn {
            prim: Prim::Binary(BinaryOp::Mul),
            inputs: vec![l, r],
            outputs: e.outputs.clone(),
            source: e.source,
        });
        true
    }

    /// Operand `side` of an outer-product `dot_general` broadcast to the result: its batch
    /// dimensions first, its free dimensions at `at`, its size-1 contracted ones dropped.
    fn broadcast_side(
        &mut self,
        e: &Eqn,
        side: usize,
        batch: &[usize],
        contracting: &[usize],
        at: usize,
        out: &crate::core::Aval,
    ) -> Atom {
        let aval = e.inputs[side].aval();
        let free: Vec<usize> = (0..aval.ndim())
            .filter(|d| !batch.contains(d) && !contracting.contains(d))
            .collect();
        let perm: Vec<usize> = batch
            .iter()
            .chain(&free)
            .chain(contracting)
            .copied()
            .collect();
        let mut cur = e.inputs[side].clone();
        let mut step = |this: &mut Self, prim: Prim, dtype: DType, shape: &[usize]| {
            let v = this.fresh(dtype, shape);
            this.rewrite(Eqn {
                prim,
                inputs: vec![cur.clone()],
                outputs: vec![v.clone()],
                source: e.source,
            });
            cur = this.sub(&Atom::Var(v));
        };
        let permuted: Vec<usize> = perm.iter().map(|&d| aval.shape[d]).collect();
        if perm.iter().enumerate().any(|(i, &p)| i != p) {
            step(
                self,
                Prim::Transpose {
                    permutation: perm.clone(),
                },
                aval.dtype,
                &permuted,
            );
        }
        let kept = &permuted[..batch.len() + free.len()];
        if !contracting.is_empty() {
            let new_sizes = crate::array::shape_of(kept);
            step(self, Prim::Reshape { new_sizes }, aval.dtype, kept);
        }
        if aval.dtype != out.dtype {
            let new_dtype = out.dtype;
            step(
                self,
                Prim::ConvertElementType { new_dtype },
                new_dtype,
                kept,
            );
        }
        let broadcast_dimensions = (0..batch.len()).chain(at..at + free.len()).collect();
        let shape = out.shape.clone();
        step(
            self,
            Prim::BroadcastInDim {
                shape: shape.clone(),
                broadcast_dimensions,
            },
            out.dtype,
            &shape,
        );
        cur
    }

    /// `dot_general` of a transposed operand contracts the untransposed one with remapped
    /// dimensions, when that keeps the order of its free dimensions: no transposed copy.
    fn transposed_operand(&mut self, e: &Eqn) -> bool {
        let Prim::DotGeneral {
            contracting,
            batch,
            preferred_element_type,
        } = &e.prim
        else {
            return false;
        };
        for side in 0..2 {
            let Atom::Var(v) = &e.inputs[side] else {
                continue;
            };
            let Some(Eqn {
                prim: Prim::Transpose { permutation },
                inputs,
                ..
            }) = self.producer.get(&v.id).cloned()
            else {
                continue;
            };
            let (c, b) = if side == 0 {
                (&contracting.0, &batch.0)
            } else {
                (&contracting.1, &batch.1)
            };
            let free: Vec<usize> = (0..permutation.len())
                .filter(|d| !c.contains(d) && !b.contains(d))
                .map(|d| permutation[d])
                .collect();
            if free.windows(2).any(|w| w[0] > w[1]) {
                continue;
            }
            let map = |ds: &[usize]| ds.iter().map(|&d| permutation[d]).collect::<Vec<_>>();
            let (mut contracting, mut batch) = (contracting.clone(), batch.clone());
            if side == 0 {
                contracting.0 = map(c);
                batch.0 = map(b);
            } else {
                contracting.1 = map(c);
                batch.1 = map(b);
            }
            let mut ins = e.inputs.clone();
            ins[side] = inputs[0].clone();
            self.changed = true;
            self.rewrite(Eqn {
                prim: Prim::DotGeneral {
                    contracting,
                    batch,
                    preferred_element_type: *preferred_element_type,
                },
                inputs: ins,
                outputs: e.outputs.clone(),
                source: e.source,
            });
            return true;
        }
        false
    }

    /// `x * 1` and `x + 0` where `x` has size-1 (or no) dimensions the result broadcasts:
    /// a broadcast of `x`, which later rules can fold into reductions.
    fn broadcast_identity(&mut self, e: &Eqn) -> bool {
        let Prim::Binary(op) = e.prim else {
            return false;
        };
        let out = &e.outputs[0];
        let neutral = match op {
            BinaryOp::Mul => 1.0,
            BinaryOp::Add => 0.0,
            _ => return false,
        };
        let (a, b) = (&e.inputs[0], &e.inputs[1]);
        let x = if self.scalar(b) == Some(neutral) {
            a
        } else if self.scalar(a) == Some(neutral) {
            b
        } else {
            return false;
        };
        let xa = x.aval();
        if xa.dtype != out.aval.dtype || xa.shape == out.aval.shape {
            return false;
        }
        let dims: Vec<usize> = if xa.ndim() == 0 {
            vec![]
        } else {
            (0..xa.ndim()).collect()
        };
        self.changed = true;
        self.rewrite(Eqn {
            prim: Prim::BroadcastInDim {
                shape: out.aval.shape.clone(),
                broadcast_dimensions: dims,
            },
            inputs: vec![x.clone()],
            outputs: e.outputs.clone(),
            source: e.source,
        });
        true
    }

    /// Computes equations of known operands and small results at compile time.
    fn fold(&mut self, e: &Eqn) -> bool {
        let size: usize = e.outputs.iter().map(|o| o.aval.size()).sum();
        if size > FOLD_LIMIT {
            return false;
        }
        let Some(vals) = e
            .inputs
            .iter()
            .map(|a| self.value(a))
            .collect::<Option<Vec<_>>>()
        else {
            return false;
        };
        let outs = e.prim.eval(&vals);
        for (o, v) in e.outputs.iter().zip(outs) {
            if v.ndim() == 0 {
                self.alias(o, Atom::Lit(v));
            } else {
                let c = self.fresh(v.dtype(), v.shape());
                self.known.insert(c.id, v.clone());
                self.constvars.push(c.clone());
                self.consts.push(Tensor::new(v));
                self.alias(o, Atom::Var(c));
            }
        }
        true
    }

    /// Rewrites that make an equation's result an existing value.
    fn identity(&mut self, e: &Eqn) -> bool {
        let out = &e.outputs[0];
        let same = |a: &Atom| a.aval() == out.aval;
        let x = e.inputs.first().cloned();
        let pick = match &e.prim {
            Prim::Binary(op) => {
                let (a, b) = (&e.inputs[0], &e.inputs[1]);
                let (sa, sb) = (self.scalar(a), self.scalar(b));
                match op {
                    BinaryOp::Add if sb == Some(0.0) && same(a) => Some(a.clone()),
                    BinaryOp::Add if sa == Some(0.0) && same(b) => Some(b.clone()),
                    BinaryOp::Sub if sb == Some(0.0) && same(a) => Some(a.clone()),
                    BinaryOp::Mul | BinaryOp::Div if sb == Some(1.0) && same(a) => Some(a.clone()),
                    BinaryOp::Mul if sa == Some(1.0) && same(b) => Some(b.clone()),
                    _ => None,
                }
            }
            Prim::Unary(UnaryOp::Neg) => match &e.inputs[0] {
                Atom::Var(v) => match self.producer.get(&v.id) {
                    Some(Eqn {
                        prim: Prim::Unary(UnaryOp::Neg),
                        inputs,
                        ..
                    }) => Some(inputs[0].clone()),
                    _ => None,
                },
                Atom::Lit(_) => None,
            },
            Prim::StopGradient => x,
            Prim::ConvertElementType { .. }
            | Prim::Reshape { .. }
            | Prim::BroadcastInDim { .. }
            | Prim::Squeeze { .. }
            | Prim::Slice { .. } => x.filter(same),
            Prim::Pad { padding_config } => {
                x.filter(|_| padding_config.iter().all(|&c| c == (0, 0, 0)))
            }
            Prim::Transpose { permutation } => {
                x.filter(|_| permutation.iter().enumerate().all(|(i, &p)| i == p))
            }
            Prim::Rev { dimensions } => x.filter(|_| dimensions.is_empty()),
            Prim::Reduce { axes, .. } => x.filter(|_| axes.is_empty()),
            Prim::Concatenate { .. } => x.filter(|_| e.inputs.len() == 1),
            Prim::SelectN => match self.scalar(&e.inputs[0]) {
                Some(w) if e.inputs.len() > 1 => {
                    let case = e.inputs[1 + (w as usize).min(e.inputs.len() - 2)].clone();
                    Some(case).filter(same)
                }
                _ => None,
            },
            _ => None,
        };
        match pick {
            Some(a) => {
                self.alias(out, a);
                true
            }
            None => false,
        }
    }

    /// Merges chains of reshapes, transposes and broadcasts, and sums of broadcasts.
    fn collapse(&mut self, e: &Eqn) -> bool {
        let Atom::Var(v) = &e
            .inputs
            .first()
            .cloned()
            .unwrap_or(Atom::Lit(Array::scalar(0.0f32)))
        else {
            return false;
        };
        let Some(inner) = self.producer.get(&v.id).cloned() else {
            return false;
        };
        let replaced = match (&e.prim, &inner.prim) {
            (Prim::Reshape { new_sizes }, Prim::Reshape { .. } | Prim::Squeeze { .. }) => Some((
                Prim::Reshape {
                    new_sizes: new_sizes.clone(),
                },
                vec![inner.inputs[0].clone()],
            )),
            (
                Prim::Transpose { permutation },
                Prim::DotGeneral {
                    contracting,
                    batch,
                    preferred_element_type,
                },
            ) if swaps_dot_operands(permutation, &inner) => Some((
                // The product's free dimensions swapped are the product of the swapped
                // operands: no transposed copy.
                Prim::DotGeneral {
                    contracting: (contracting.1.clone(), contracting.0.clone()),
                    batch: (batch.1.clone(), batch.0.clone()),
                    preferred_element_type: *preferred_element_type,
                },
                vec![inner.inputs[1].clone(), inner.inputs[0].clone()],
            )),
            (Prim::Transpose { permutation: p2 }, Prim::Transpose { permutation: p1 }) => Some((
                Prim::Transpose {
                    permutation: p2.iter().map(|&i| p1[i]).collect(),
                },
                vec![inner.inputs[0].clone()],
            )),
            (
                Prim::BroadcastInDim {
                    shape,
                    broadcast_dimensions: d2,
                },
                Prim::BroadcastInDim {
                    broadcast_dimensions: d1,
                    ..
                },
            ) => Some((
                Prim::BroadcastInDim {
                    shape: shape.clone(),
                    broadcast_dimensions: d1.iter().map(|&i| d2[i]).collect(),
                },
                vec![inner.inputs[0].clone()],
            )),
            (
                Prim::Reduce {
                    op: ReduceOp::Sum,
                    axes,
                },
                Prim::BroadcastInDim {
                    shape,
                    broadcast_dimensions,
                },
            ) => return self.sum_of_broadcast(e, axes, &inner, shape, broadcast_dimensions),
            (Prim::Reduce { op, axes }, Prim::Gather { .. }) => {
                return self.reduce_of_gather(e, *op, axes, &inner)
            }
            _ => None,
        };
        match replaced {
            Some((prim, inputs)) => {
                self.changed = true;
                self.rewrite(Eqn {
                    prim,
                    inputs,
                    outputs: e.outputs.clone(),
                    source: e.source,
                });
                true
            }
            None => false,
        }
    }

    /// A reduction over gathered window dimensions that span the whole of their operand
    /// dimension reduces the operand first and gathers from the smaller result, when the
    /// gather reads each operand element at least once on average: the windows are never
    /// read element by element. (The sum is reassociated, as XLA's reductions may be.)
    fn reduce_of_gather(&mut self, e: &Eqn, op: ReduceOp, axes: &[usize], g: &Eqn) -> bool {
        let Prim::Gather {
            dims,
            slice_sizes,
            mode,
        } = &g.prim
        else {
            return false;
        };
        let operand = g.inputs[0].aval();
        let out = &g.outputs[0].aval;
        let reducible = matches!(op, ReduceOp::Sum | ReduceOp::Max | ReduceOp::Min);
        if !reducible || *mode == GatherMode::FillOrDrop || out.size() < operand.size() {
            return false;
        }
        // The operand's window dimensions, in the order of the offset dimensions.
        let window = (0..operand.ndim()).filter(|d| {
            !dims.collapsed_slice_dims.contains(d) && !dims.operand_batching_dims.contains(d)
        });
        let (dropped, dropped_out): (Vec<usize>, Vec<usize>) = window
            .zip(dims.offset_dims.iter().copied())
            .filter(|&(d, o)| {
                axes.contains(&o)
                    && slice_sizes[d] == operand.shape[d]
                    && !dims.start_index_map.contains(&d)
            })
            .unzip();
        if dropped.is_empty() {
            return false;
        }
        let renumber = |d: usize, gone: &[usize]| d - gone.iter().filter(|&&x| x < d).count();
        let remap = |ds: &[usize]| -> Vec<usize> {
            ds.iter()
                .filter(|d| !dropped.contains(d))
                .map(|&d| renumber(d, &dropped))
                .collect()
        };
        let keep = |shape: &[usize], gone: &[usize]| -> Vec<usize> {
            (0..shape.len())
                .filter(|d| !gone.contains(d))
                .map(|d| shape[d])
                .collect()
        };
        let dtype = out.dtype;
        let reduced = self.fresh(dtype, &keep(&operand.shape, &dropped));
        self.changed = true;
        self.rewrite(Eqn {
            prim: Prim::Reduce {
                op,
                axes: dropped.clone(),
            },
            inputs: vec![g.inputs[0].clone()],
            outputs: vec![reduced.clone()],
            source: e.source,
        });
        let new_dims = GatherDims {
            offset_dims: dims
                .offset_dims
                .iter()
                .filter(|o| !dropped_out.contains(o))
                .map(|&o| renumber(o, &dropped_out))
                .collect(),
            collapsed_slice_dims: remap(&dims.collapsed_slice_dims),
            start_index_map: dims
                .start_index_map
                .iter()
                .map(|&d| renumber(d, &dropped))
                .collect(),
            operand_batching_dims: remap(&dims.operand_batching_dims),
            start_indices_batching_dims: dims.start_indices_batching_dims.clone(),
        };
        let rest: Vec<usize> = axes
            .iter()
            .filter(|a| !dropped_out.contains(a))
            .map(|&a| renumber(a, &dropped_out))
            .collect();
        let gathered = if rest.is_empty() {
            e.outputs[0].clone()
        } else {
            self.fresh(dtype, &keep(&out.shape, &dropped_out))
        };
        let reduced = self.sub(&Atom::Var(reduced));
        self.rewrite(Eqn {
            prim: Prim::Gather {
                dims: new_dims,
                slice_sizes: keep(slice_sizes, &dropped),
                mode: *mode,
            },
            inputs: vec![reduced, g.inputs[1].clone()],
            outputs: vec![gathered.clone()],
            source: g.source,
        });
        if !rest.is_empty() {
            let gathered = self.sub(&Atom::Var(gathered));
            self.rewrite(Eqn {
                prim: Prim::Reduce { op, axes: rest },
                inputs: vec![gathered],
                outputs: e.outputs.clone(),
                source: e.source,
            });
        }
        true
    }

    /// `sum(broadcast(z), axes)` over axes the broadcast created (or expanded from size 1)
    /// is the sum over the others times their size: the broadcast is never computed.
    fn sum_of_broadcast(
        &mut self,
        e: &Eqn,
        axes: &[usize],
        inner: &Eqn,
        shape: &[usize],
        bdims: &[usize],
    ) -> bool {
        let operand = inner.inputs[0].aval();
        let created: Vec<usize> = axes
            .iter()
            .copied()
            .filter(|a| !bdims.contains(a))
            .collect();
        let expanded: Vec<usize> = bdims
            .iter()
            .enumerate()
            .filter(|&(i, d)| axes.contains(d) && operand.shape[i] == 1 && shape[*d] != 1)
            .map(|(_, &d)| d)
            .collect();
        let dtype = e.outputs[0].aval.dtype;
        if created.is_empty() && expanded.is_empty() || !dtype.is_numeric() {
            return false;
        }
        let factor: usize = created.iter().chain(&expanded).map(|&a| shape[a]).product();
        let kept: Vec<usize> = (0..shape.len()).filter(|d| !created.contains(d)).collect();
        let new_shape: Vec<usize> = kept
            .iter()
            .map(|&d| if expanded.contains(&d) { 1 } else { shape[d] })
            .collect();
        let pos = |d: usize| kept.iter().position(|&k| k == d).expect("kept axis");
        let narrow = self.fresh(dtype, &new_shape);
        let rest: Vec<usize> = axes
            .iter()
            .copied()
            .filter(|a| !created.contains(a))
            .map(pos)
            .collect();
        let summed = self.fresh(dtype, &e.outputs[0].aval.shape);
        self.changed = true;
        self.rewrite(Eqn {
            prim: Prim::BroadcastInDim {
                shape: crate::array::shape_of(&new_shape),
                broadcast_dimensions: bdims.iter().map(|&d| pos(d)).collect(),
            },
            inputs: inner.inputs.clone(),
            outputs: vec![narrow.clone()],
            source: inner.source,
        });
        let narrow = self.sub(&Atom::Var(narrow));
        self.rewrite(Eqn {
            prim: Prim::Reduce {
                op: ReduceOp::Sum,
                axes: rest,
            },
            inputs: vec![narrow],
            outputs: vec![summed.clone()],
            source: e.source,
        });
        let summed = self.sub(&Atom::Var(summed));
        let factor = crate::numpy::scalar_tensor(factor as f64, dtype);
        self.rewrite(Eqn {
            prim: Prim::Binary(BinaryOp::Mul),
            inputs: vec![summed, Atom::Lit(factor.array().clone())],
            outputs: e.outputs.clone(),
            source: e.source,
        });
        true
    }
}

/// Whether `perm` keeps a dot_general's batch dimensions first and swaps its block of lhs
/// free dimensions with its block of rhs free dimensions.
fn swaps_dot_operands(perm: &[usize], dot: &Eqn) -> bool {
    let Prim::DotGeneral {
        contracting, batch, ..
    } = &dot.prim
    else {
        return false;
    };
    let nb = batch.0.len();
    let free = |i: usize, c: &[usize]| dot.inputs[i].aval().ndim() - c.len() - nb;
    let (fl, fr) = (free(0, &contracting.0), free(1, &contracting.1));
    let want: Vec<usize> = (0..nb)
        .chain(nb + fl..nb + fl + fr)
        .chain(nb..nb + fl)
        .collect();
    fl > 0 && fr > 0 && perm == want.as_slice()
}

/// Removes equations whose results are unused, and unused constvars.
fn dce(cj: ClosedJaxpr) -> ClosedJaxpr {
    let j = cj.jaxpr;
    let mut live: HashSet<u32> = j
        .outvars
        .iter()
        .filter_map(Atom::var)
        .map(|v| v.id)
        .collect();
    let mut kept = Vec::new();
    for e in j.eqns.into_iter().rev() {
        if e.outputs.iter().any(|o| live.contains(&o.id)) {
            for a in &e.inputs {
                if let Atom::Var(v) = a {
                    live.insert(v.id);
                }
            }
            kept.push(e);
        }
    }
    kept.reverse();
    let (constvars, consts): (Vec<Var>, Vec<Tensor>) = j
        .constvars
        .into_iter()
        .zip(cj.consts)
        .filter(|(v, _)| live.contains(&v.id))
        .unzip();
    ClosedJaxpr {
        jaxpr: Jaxpr {
            constvars,
            invars: j.invars,
            eqns: kept,
            outvars: j.outvars,
        },
        consts,
    }
}
