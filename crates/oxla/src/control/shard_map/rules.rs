//! The map over devices under the other transforms: each rule traces each transformed body
//! on the blocks of the devices that run it and stages a new map of them.
//!
//! - **vmap**: the body is batched (over the vmap's own axis name, so collectives over it
//!   inside the devices' body batch too); batched operands carry the batch axis first, and
//!   so do the results.
//! - **JVP**: the tangents are operands and results cut as their primals are.
//! - **VJP**: the body recomputes its forward pass and pulls back. A result joined from
//!   blocks has its cotangent cut the same way; a result the same on every device gives
//!   each device its cotangent divided by the device count (under JAX's convention a
//!   collective's transpose sums over the devices, which gives the whole back); a summed
//!   result gives each device its whole cotangent. The cotangent of a mapped operand is
//!   joined from the blocks, that of an unmapped one summed over the devices.

use super::{block_aval, stage_advised, OutSpec, ShardMapSpec};
use crate::array::Aval;
use crate::core::{trace_avals, ClosedJaxpr, Tensor};
use crate::numpy::scalar_tensor;
use crate::ops as lax;
use crate::transforms::ad::{jvp_jaxpr, vjp_jaxpr};
use crate::transforms::batching::{batch_jaxpr, moveaxis};
use crate::transforms::bodies::{dense_tangents, float_positions, sparse_tangents};
use crate::transforms::jvp_rules::zeros_of_aval;
use crate::transforms::vmap::place_output;

/// `f` traced on one device's blocks of `operands` (cut along `in_dims`) for each of the
/// map's bodies, given that body: the bodies of the new map.
fn trace_blocks(
    spec: &ShardMapSpec,
    operands: &[Tensor],
    in_dims: &[Option<usize>],
    f: impl Fn(&ClosedJaxpr, Vec<Tensor>) -> Vec<Tensor>,
) -> Vec<ClosedJaxpr> {
    let total = spec.rows.iter().sum();
    spec.programs()
        .map(|(share, body)| {
            let avals: Vec<Aval> = operands
                .iter()
                .zip(in_dims)
                .map(|(x, d)| block_aval(&x.aval(), *d, share, total))
                .collect();
            trace_avals(|xs| f(body, xs), &operands.to_vec(), &avals).0
        })
        .collect()
}

/// A new map of `bodies` over the devices of `spec`.
fn restage(
    spec: &ShardMapSpec,
    operands: &[Tensor],
    in_dims: Vec<Option<usize>>,
    bodies: Vec<ClosedJaxpr>,
    out_specs: Vec<OutSpec>,
) -> Vec<Tensor> {
    let fits = vec![None; bodies.len()];
    stage_advised(
        &spec.axis_name,
        &spec.rows,
        operands,
        in_dims,
        bodies,
        out_specs,
        fits,
        spec.span,
    )
}

pub(super) fn batch(
    spec: &ShardMapSpec,
    args: &[Tensor],
    dims: &[Option<usize>],
    n: usize,
    name: Option<&str>,
) -> (Vec<Tensor>, Vec<Option<usize>>) {
    // Inside the map, its own axis shadows an enclosing one of the same name.
    let name = name.filter(|n| **n != *spec.axis_name);
    let moved: Vec<Tensor> = args
        .iter()
        .zip(dims)
        .map(|(x, d)| d.map_or(x.clone(), |d| moveaxis(x, d, 0)))
        .collect();
    let in_dims: Vec<Option<usize>> = spec
        .in_dims
        .iter()
        .zip(dims)
        .map(|(s, d)| s.map(|s| s + usize::from(d.is_some())))
        .collect();
    let inner: Vec<Option<usize>> = dims.iter().map(|d| d.map(|_| 0)).collect();
    let bodies = trace_blocks(spec, &moved, &in_dims, |body, xs| {
        batch_jaxpr(body, xs.into_iter().zip(inner.clone()).collect(), n, name)
            .into_iter()
            .enumerate()
            .map(|(k, (t, d))| place_output(t, d, Some(0), n, k))
            .collect()
    });
    let out_specs: Vec<OutSpec> = spec
        .out_specs
        .iter()
        .map(|s| match s {
            OutSpec::Concat(d) => OutSpec::Concat(d + 1),
            other => *other,
        })
        .collect();
    let outs = restage(spec, &moved, in_dims, bodies, out_specs);
    let k = outs.len();
    (outs, vec![Some(0); k])
}

pub(super) fn jvp(
    spec: &ShardMapSpec,
    primals: &[Tensor],
    tangents: &[Option<Tensor>],
) -> (Vec<Tensor>, Vec<Option<Tensor>>) {
    let np = primals.len();
    let live: Vec<usize> = (0..np).filter(|&i| tangents[i].is_some()).collect();
    let mut ops = primals.to_vec();
    ops.extend(live.iter().map(|&i| tangents[i].clone().expect("live")));
    let mut in_dims = spec.in_dims.clone();
    in_dims.extend(live.iter().map(|&i| spec.in_dims[i]));
    let n_out = spec.out_specs.len();
    let fo = float_positions(&spec.programs().next().expect("a body").1.jaxpr.out_avals());
    let bodies = trace_blocks(spec, &ops, &in_dims, |body, xs| {
        let t = sparse_tangents(xs[np..].to_vec(), &live, np);
        let (o, to) = jvp_jaxpr(body, &xs[..np], t);
        let mut r = o.clone();
        r.extend(dense_tangents(&o, &to, &fo));
        r
    });
    let mut out_specs = spec.out_specs.clone();
    out_specs.extend(fo.iter().map(|&k| spec.out_specs[k]));
    let mut outs = restage(spec, &ops, in_dims, bodies, out_specs);
    let touts = sparse_tangents(outs.split_off(n_out), &fo, n_out);
    (outs, touts)
}

pub(super) fn vjp(
    spec: &ShardMapSpec,
    ins: &[Tensor],
    cts: &[Option<Tensor>],
    active: &[bool],
) -> Vec<Option<Tensor>> {
    let np = ins.len();
    let with_ct: Vec<usize> = (0..cts.len()).filter(|&k| cts[k].is_some()).collect();
    let act: Vec<usize> = (0..np)
        .filter(|&i| active[i] && ins[i].dtype().is_inexact())
        .collect();
    if with_ct.is_empty() || act.is_empty() {
        return vec![None; np];
    }
    let mut ops = ins.to_vec();
    let mut in_dims = spec.in_dims.clone();
    for &k in &with_ct {
        let ct = cts[k].clone().expect("with ct");
        let (ct, dim) = match spec.out_specs[k] {
            OutSpec::Concat(d) => (ct, Some(d)),
            OutSpec::Invariant => {
                // Every device's, of every process the map spans, gets its share.
                let devices = spec.size() * spec.span.processes;
                let share = scalar_tensor(1.0 / devices as f64, ct.dtype());
                (lax::mul(&ct, &share), None)
            }
            OutSpec::Summed => (ct, None),
        };
        ops.push(ct);
        in_dims.push(dim);
    }
    let n_out = cts.len();
    let bodies = trace_blocks(spec, &ops, &in_dims, |body, xs| {
        let mut c = vec![None; n_out];
        for (j, &k) in with_ct.iter().enumerate() {
            c[k] = Some(xs[np + j].clone());
        }
        let g = vjp_jaxpr(body, &xs[..np], active, &c);
        act.iter()
            .map(|&i| g[i].clone().unwrap_or_else(|| zeros_of_aval(&xs[i])))
            .collect()
    });
    let out_specs: Vec<OutSpec> = act
        .iter()
        .map(|&i| spec.in_dims[i].map_or(OutSpec::Summed, OutSpec::Concat))
        .collect();
    let grads = restage(spec, &ops, in_dims, bodies, out_specs);
    let mut out = vec![None; np];
    for (g, &i) in grads.into_iter().zip(&act) {
        out[i] = Some(g);
    }
    out
}
