//! The chunked map's batching, forward- and reverse-mode rules: each transforms the body
//! and stages a new map.

use super::MapSpec;
use crate::core::{ClosedJaxpr, Tensor};
use crate::transforms::bodies::{dense_tangents, float_positions, sparse_tangents};

/// Batching: the outer batch axis goes to axis 1 of mapped operands (axis 0 stays the
/// map's) and axis 0 of the others; stacked results carry it at axis 1, summed at 0.
pub(crate) fn batch(
    spec: &MapSpec,
    args: &[Tensor],
    dims: &[Option<usize>],
    n: usize,
) -> (Vec<Tensor>, Vec<Option<usize>>) {
    use crate::transforms::batching::moveaxis;
    let at = |m: bool| usize::from(m);
    let moved: Vec<Tensor> = args
        .iter()
        .zip(dims)
        .zip(&spec.mapped)
        .map(|((x, d), &m)| d.map_or(x.clone(), |d| moveaxis(x, d, at(m))))
        .collect();
    let inner: Vec<Option<usize>> = dims
        .iter()
        .zip(&spec.mapped)
        .map(|(d, &m)| d.map(|_| at(m)))
        .collect();
    let summed = spec.summed.clone();
    let derive = |body: &ClosedJaxpr, c: usize| {
        spec.trace_chunk(&moved, &spec.mapped, c, |xs| {
            let outs = crate::transforms::vmap::batch_jaxpr(
                body,
                xs.into_iter().zip(inner.clone()).collect(),
                n,
            );
            outs.into_iter()
                .zip(&summed)
                .enumerate()
                .map(|(i, ((t, d), &s))| {
                    crate::transforms::vmap::place_output(t, d, Some(at(!s) as isize), n, i)
                })
                .collect()
        })
    };
    let outs = spec.derive(&moved, spec.mapped.clone(), summed.clone(), &derive);
    let dims = summed.iter().map(|&s| Some(at(!s))).collect();
    (outs, dims)
}

/// Forward mode: one map computing the outputs and their tangents together.
pub(crate) fn jvp(
    spec: &MapSpec,
    primals: &[Tensor],
    tangents: &[Option<Tensor>],
) -> (Vec<Tensor>, Vec<Option<Tensor>>) {
    let live: Vec<usize> = (0..primals.len())
        .filter(|&i| tangents[i].is_some())
        .collect();
    let float_out = float_positions(&spec.body.jaxpr.out_avals());
    let mut operands = primals.to_vec();
    operands.extend(live.iter().map(|&i| tangents[i].clone().expect("live")));
    let mut mapped = spec.mapped.clone();
    mapped.extend(live.iter().map(|&i| spec.mapped[i]));
    let mut summed = spec.summed.clone();
    summed.extend(float_out.iter().map(|&j| spec.summed[j]));
    let np = primals.len();
    let derive = |body: &ClosedJaxpr, c: usize| {
        spec.trace_chunk(&operands, &mapped, c, |xs| {
            let (p, t) = xs.split_at(np);
            let tans = sparse_tangents(t.to_vec(), &live, np);
            let (outs, touts) = crate::transforms::ad::jvp_jaxpr(body, p, tans);
            let mut all = outs.clone();
            all.extend(dense_tangents(&outs, &touts, &float_out));
            all
        })
    };
    let mut all = spec.derive(&operands, mapped.clone(), summed, &derive);
    let touts = sparse_tangents(all.split_off(spec.summed.len()), &float_out, all.len());
    (all, touts)
}

/// Reverse mode: a map over the operands and the output cotangents whose body runs the
/// chunk's forward pass again and then its backward pass (rematerialisation), stacking the
/// cotangents of mapped operands and summing those of unmapped ones.
pub(crate) fn vjp(
    spec: &MapSpec,
    ins: &[Tensor],
    cts: &[Option<Tensor>],
    active: &[bool],
) -> Vec<Option<Tensor>> {
    let with_ct: Vec<usize> = (0..cts.len()).filter(|&j| cts[j].is_some()).collect();
    let act: Vec<usize> = (0..ins.len())
        .filter(|&i| active[i] && ins[i].dtype().is_float())
        .collect();
    if with_ct.is_empty() || act.is_empty() {
        return vec![None; ins.len()];
    }
    let mut operands = ins.to_vec();
    operands.extend(with_ct.iter().map(|&j| cts[j].clone().expect("with ct")));
    let mut mapped = spec.mapped.clone();
    mapped.extend(with_ct.iter().map(|&j| !spec.summed[j]));
    let summed: Vec<bool> = act.iter().map(|&i| !spec.mapped[i]).collect();
    let ni = ins.len();
    let n_out = cts.len();
    let derive = |body: &ClosedJaxpr, c: usize| {
        spec.trace_chunk(&operands, &mapped, c, |xs| {
            let (p, cs) = xs.split_at(ni);
            let mut cts = vec![None; n_out];
            for (k, &j) in with_ct.iter().enumerate() {
                cts[j] = Some(cs[k].clone());
            }
            let g = crate::transforms::ad::vjp_jaxpr(body, p, active, &cts);
            act.iter()
                .map(|&i| {
                    g[i].clone()
                        .unwrap_or_else(|| crate::transforms::jvp_rules::zeros_of_aval(&p[i]))
                })
                .collect()
        })
    };
    let grads = spec.derive(&operands, mapped.clone(), summed, &derive);
    let mut out = vec![None; ins.len()];
    for (g, &i) in grads.into_iter().zip(&act) {
        out[i] = Some(g);
    }
    out
}
