//! Which values of a scan's step hold one row per example of a batch whose rows never mix,
//! so that the loop can run as several loops, each over a band of the batch's rows on a
//! thread of its own (`bands.rs`).
//!
//! An RNN's step computes `tanh(h @ wh + x @ wx + b)` for a batch of `h`: row `r` of the
//! new carry reads row `r` of `h` and of `x` alone. Each step's product is too small to
//! share between threads (a split per step costs more in waking the other thread than it
//! saves), but the whole loop over half the rows is not: the bands exchange nothing
//! until they end.
//!
//! The analysis walks the step once. The carry and the slices whose leading axis is the
//! batch's are split along it; the captured values are whole. A rule per primitive says
//! along which axis a result is split given its operands' (elementwise operations,
//! broadcasts, transposes, reshapes that keep the axis, reductions and products that
//! do not reduce over it); any other primitive must read whole values only. A broadcast
//! of a whole value is the same along its new axes, so it splits there when a split
//! value meets it (`b` of the RNN, `broadcast_in_dim` to `[16, 128]`), unless a whole
//! use needs it as it is. [`band`] then retypes the step for a band of `n` rows, and
//! checks every equation's shape rule against the result.

#[cfg(test)]
mod tests;

use std::collections::HashMap;

use crate::core::prim::Kind;
use crate::core::{Atom, Aval, Eqn, Jaxpr, Prim};
use crate::prims::linalg::free_dims;

/// How a value of the step relates to the batch's rows.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cut {
    /// The same in every band.
    Whole,
    /// A whole value broadcast along the axes of the mask: split along one of them on
    /// demand, as long as no whole use needs it first.
    Spread(u64),
    /// One row per example along this axis.
    Split(usize),
}

/// The step's values split along the batch: which inputs and outputs are (always along
/// their leading axis), and the axis of each split variable.
#[derive(Clone, Debug)]
pub(super) struct Layout {
    /// The batch's rows.
    pub(super) rows: usize,
    /// Per input of the step: split along axis 0.
    pub(super) inputs: Vec<bool>,
    /// Per output of the step: split along axis 0.
    pub(super) outputs: Vec<bool>,
    /// The axis of each split variable, by id.
    axes: HashMap<u32, usize>,
}

/// The walk's state: each variable's cut, and the spread ones already used whole.
struct Walk {
    cuts: HashMap<u32, Cut>,
    used_whole: Vec<u32>,
}

impl Walk {
    fn cut(&self, a: &Atom) -> Cut {
        a.var().map_or(Cut::Whole, |v| self.cuts[&v.id])
    }

    /// Asks for `a` split along `axis`: a spread value becomes split if nothing used it
    /// whole.
    fn demand(&mut self, a: &Atom, axis: usize) -> Option<()> {
        let v = a.var()?;
        match self.cuts[&v.id] {
            Cut::Split(b) if b == axis => Some(()),
            Cut::Spread(mask) if mask >> axis & 1 == 1 && !self.used_whole.contains(&v.id) => {
                self.cuts.insert(v.id, Cut::Split(axis));
                Some(())
            }
            _ => None,
        }
    }

    /// Uses `a` as it is; fails for a split value.
    fn whole(&mut self, a: &Atom) -> Option<()> {
        match (a.var(), self.cut(a)) {
            (_, Cut::Split(_)) => None,
            (Some(v), Cut::Spread(_)) => {
                self.used_whole.push(v.id);
                Some(())
            }
            _ => Some(()),
        }
    }
}

/// The layout of a step of `num_carry` carried and `num_xs` sliced inputs, if its rows
/// never mix: the batch is the leading axis of the first carry of rank 1 or more, every
/// carry of that leading size is split, and the step has no effects and no empty inputs
/// or results.
pub(super) fn layout(j: &Jaxpr, num_carry: usize, num_xs: usize) -> Option<Layout> {
    let empty = (j.invars.iter().map(|v| v.aval.size()))
        .chain(j.out_avals().iter().map(Aval::size))
        .any(|n| n == 0);
    // A collective runs on its member's thread alone.
    if j.has_effects() || j.names_any_axis() || empty {
        return None;
    }
    let rows = *j.invars[..num_carry]
        .iter()
        .find_map(|v| v.aval.shape.first())?;
    if rows < 2 {
        return None;
    }
    let inputs: Vec<bool> = (j.invars.iter().enumerate())
        .map(|(i, v)| i < num_carry + num_xs && v.aval.shape.first() == Some(&rows))
        .collect();
    let mut walk = Walk {
        cuts: (j.invars.iter().zip(&inputs))
            .map(|(v, &s)| (v.id, if s { Cut::Split(0) } else { Cut::Whole }))
            .collect(),
        used_whole: Vec::new(),
    };
    for e in &j.eqns {
        let cuts = rule(e, &mut walk)?;
        for (v, c) in e.outputs.iter().zip(cuts) {
            walk.cuts.insert(v.id, c);
        }
    }
    let mut outputs = Vec::with_capacity(j.outvars.len());
    for (k, o) in j.outvars.iter().enumerate() {
        // A carry keeps its input's cut; a stacked result is split along its leading axis
        // or whole.
        let split = if k < num_carry {
            inputs[k]
        } else {
            walk.cut(o) == Cut::Split(0)
        };
        if split {
            walk.demand(o, 0)?;
        } else {
            walk.whole(o)?;
        }
        outputs.push(split);
    }
    let axes = (walk.cuts.iter())
        .filter_map(|(&id, c)| match c {
            Cut::Split(a) => Some((id, *a)),
            _ => None,
        })
        .collect();
    Some(Layout {
        rows,
        inputs,
        outputs,
        axes,
    })
}

/// The cuts of an equation's results from its operands', or `None` where the rows would
/// mix.
fn rule(e: &Eqn, walk: &mut Walk) -> Option<Vec<Cut>> {
    let cuts: Vec<Cut> = e.inputs.iter().map(|a| walk.cut(a)).collect();
    let split = cuts.iter().find_map(|c| match c {
        Cut::Split(a) => Some(*a),
        _ => None,
    });
    let Some(a) = split else {
        if let Prim::BroadcastInDim {
            shape,
            broadcast_dimensions,
        } = &e.prim
        {
            let from = e.inputs[0].aval();
            let mut mask = (0..shape.len()).fold(0u64, |m, d| m | 1 << d);
            for (i, &d) in broadcast_dimensions.iter().enumerate() {
                if from.shape[i] == shape[d] {
                    mask &= !(1 << d);
                }
            }
            walk.whole(&e.inputs[0])?;
            return Some(vec![Cut::Spread(mask)]);
        }
        for x in &e.inputs {
            walk.whole(x)?;
        }
        return Some(vec![Cut::Whole; e.outputs.len()]);
    };
    let shape = |i: usize| e.inputs[i].aval().shape;
    let out = match &e.prim {
        p if matches!(p.kind(), Kind::Lanewise(_)) => {
            // Another operand either broadcasts along the axis (rank 0 or size 1 there) and
            // is read whole, or must split along it.
            for (x, c) in e.inputs.iter().zip(&cuts) {
                let s = x.aval().shape;
                if *c == Cut::Split(a) {
                    continue;
                }
                if s.is_empty() || s[a] == 1 {
                    walk.whole(x)?;
                } else {
                    walk.demand(x, a)?;
                }
            }
            a
        }
        Prim::StopGradient => a,
        Prim::Cumsum { axis, .. } if *axis != a => a,
        Prim::BroadcastInDim {
            broadcast_dimensions,
            ..
        } => broadcast_dimensions[a],
        Prim::Transpose { permutation } => permutation.iter().position(|&p| p == a)?,
        Prim::Rev { dimensions } if !dimensions.contains(&a) => a,
        Prim::Squeeze { dimensions } if !dimensions.contains(&a) => {
            a - dimensions.iter().filter(|&&d| d < a).count()
        }
        Prim::Reduce { axes, .. } | Prim::ArgReduce { axes, .. } if !axes.contains(&a) => {
            a - axes.iter().filter(|&&d| d < a).count()
        }
        Prim::Reshape { new_sizes } => {
            let from = shape(0);
            if from.contains(&0) {
                return None;
            }
            let before: usize = from[..a].iter().product();
            (0..new_sizes.len()).find(|&b| {
                new_sizes[..b].iter().product::<usize>() == before && new_sizes[b] == from[a]
            })?
        }
        Prim::Slice {
            start_indices,
            limit_indices,
            strides,
        } => {
            let unit = strides.as_ref().is_none_or(|s| s[a] == 1);
            (start_indices[a] == 0 && limit_indices[a] == shape(0)[a] && unit).then_some(a)?
        }
        Prim::DotGeneral {
            contracting, batch, ..
        } => dot(
            contracting,
            batch,
            &cuts,
            [shape(0).len(), shape(1).len()],
            walk,
            e,
        )?,
        _ => return None,
    };
    Some(vec![Cut::Split(out)])
}

/// The axis of a product's result split: along a free axis of one operand (the other
/// whole), or a batch axis of both.
fn dot(
    (lc, rc): &(Vec<usize>, Vec<usize>),
    (lb, rb): &(Vec<usize>, Vec<usize>),
    cuts: &[Cut],
    [l_rank, r_rank]: [usize; 2],
    walk: &mut Walk,
    e: &Eqn,
) -> Option<usize> {
    let (lf, rf) = (free_dims(l_rank, lc, lb), free_dims(r_rank, rc, rb));
    match (cuts[0], cuts[1]) {
        (Cut::Split(a), Cut::Split(b)) => {
            let k = lb.iter().position(|&d| d == a)?;
            (rb[k] == b).then_some(k)
        }
        (Cut::Split(a), _) => {
            walk.whole(&e.inputs[1])?;
            lf.iter().position(|&d| d == a).map(|p| lb.len() + p)
        }
        (_, Cut::Split(b)) => {
            walk.whole(&e.inputs[0])?;
            rf.iter()
                .position(|&d| d == b)
                .map(|p| lb.len() + lf.len() + p)
        }
        _ => None,
    }
}

/// The step retyped for a band of `n` rows: each split variable's axis and the shape
/// parameters that name it set to `n`, every equation's shape rule checked against its
/// retyped results (`None` if one disagrees).
pub(super) fn band(j: &Jaxpr, layout: &Layout, n: usize) -> Option<Jaxpr> {
    let aval = |id: u32, a: &Aval| -> Aval {
        let mut a = a.clone();
        if let Some(&axis) = layout.axes.get(&id) {
            a.shape[axis] = n;
        }
        a
    };
    let atom = |x: &Atom| -> Atom {
        match x {
            Atom::Var(v) => {
                let mut v = v.clone();
                v.aval = aval(v.id, &v.aval);
                Atom::Var(v)
            }
            lit => lit.clone(),
        }
    };
    let mut out = j.clone();
    for v in out.invars.iter_mut() {
        v.aval = aval(v.id, &v.aval);
    }
    for e in out.eqns.iter_mut() {
        e.inputs = e.inputs.iter().map(atom).collect();
        for v in e.outputs.iter_mut() {
            v.aval = aval(v.id, &v.aval);
        }
        let axis = (e.outputs.first()).and_then(|v| layout.axes.get(&v.id).copied());
        match (&mut e.prim, axis) {
            (Prim::BroadcastInDim { shape, .. }, Some(a)) => shape[a] = n,
            (Prim::Reshape { new_sizes }, Some(a)) => new_sizes[a] = n,
            (Prim::Slice { limit_indices, .. }, Some(a)) => limit_indices[a] = n,
            _ => {}
        }
        let ins: Vec<Aval> = e.inputs.iter().map(Atom::aval).collect();
        let want: Vec<Aval> = e.outputs.iter().map(|v| v.aval.clone()).collect();
        if e.prim.abstract_eval(&ins).ok()? != want {
            return None;
        }
    }
    out.outvars = out.outvars.iter().map(atom).collect();
    Some(out)
}
