//! `jax.lax`: cumulative reductions, `associative_scan`, `top_k`, `sort_key_val`. One row a golden case of `scripts/surface/tables/lax_cumulative.py`.
//!
//! `nofd` rows: finite differences do not apply at ties (the running maximum, the order of
//! `top_k` and of the sorted keys jump there) or where an output is infinite or NaN; JAX's
//! cotangents are still compared.
//!
//! Deviation from JAX: `cumprod`, `cummax`, `cummin` and `cumlogsumexp` are compositions of
//! `associative_scan` (JAX's own JVP of them), not primitives of their own, so a jaxpr shows
//! the scan's equations; `cumlogsumexp`'s derivative at infinite inputs is the composition's.
//! `associative_scan` takes a negative axis with `reverse` too (JAX's `rev` rejects it).

use oxla::lax;
use oxla::numpy as jnp;
use oxla::Tensor;

fn pair(x: &[Tensor], y: &[Tensor]) -> Vec<Tensor> {
    vec![&x[0] * &y[0], &(&x[1] * &y[0]) + &y[1]]
}

surface! {
    cumsum_reverse: |a| vec![lax::cumsum(&a[0], 1, true), lax::cumsum(&a[0], 0, false)];
    cumprod_axes: |a| vec![lax::cumprod(&a[0], 1, false), lax::cumprod(&a[0], 0, true)];
    cumprod_zeros: |a| vec![lax::cumprod(&a[0], 1, false), lax::cumprod(&a[0], 1, true)];
    cumprod_int: |a| vec![lax::cumprod(&a[0], 1, false)];
    cummax_cummin: |a| vec![
        lax::cummax(&a[0], 1, false),
        lax::cummin(&a[0], 0, false),
        lax::cummax(&a[0], 0, true),
        lax::cummin(&a[0], 1, true),
    ];
    cummax_ties [nofd]: |a| vec![lax::cummax(&a[0], 1, false), lax::cummin(&a[0], 1, true)];
    cummax_edges [nofd]: |a| vec![lax::cummax(&a[0], 1, false), lax::cummin(&a[0], 1, false)];
    cummax_int: |a| vec![lax::cummax(&a[0], 1, false), lax::cummin(&a[0], 0, true)];
    cumlogsumexp: |a| vec![lax::cumlogsumexp(&a[0], 1, false), lax::cumlogsumexp(&a[0], 0, true)];
    associative_scan_add: |a| {
        let add = |x: &[Tensor], y: &[Tensor]| vec![&x[0] + &y[0]];
        let mut out = lax::associative_scan(add, &a[..1], false, -1);
        out.extend(lax::associative_scan(add, &a[..1], true, 1));
        out
    };
    associative_scan_recurrence: |a| {
        let mut out = lax::associative_scan(pair, a, false, 0);
        out.extend(lax::associative_scan(pair, a, true, 0));
        out
    };
    associative_scan_short: |a| {
        let mut out = lax::associative_scan(|x: &[Tensor], y: &[Tensor]| vec![jnp::maximum(&x[0], &y[0])], &a[..1], false, 0);
        out.extend(lax::associative_scan(|x: &[Tensor], y: &[Tensor]| vec![&x[0] * &y[0]], &a[1..], false, 0));
        out
    };
    top_k: |a| {
        let (v, i) = lax::top_k(&a[0], 3);
        vec![v, i]
    };
    top_k_ties_nan [nofd]: |a| {
        let (v, i) = lax::top_k(&a[0], 4);
        vec![v, i]
    };
    top_k_int_full: |a| {
        let (v, i) = lax::top_k(&a[0], 7);
        let (v0, i0) = lax::top_k(&a[0], 0);
        vec![v, i, v0, i0]
    };
    sort_key_val [nofd]: |a| {
        let (k1, v1) = lax::sort_key_val(&a[0], &a[1], 1);
        let (k0, v0) = lax::sort_key_val(&a[0], &a[1], 0);
        vec![k1, v1, k0, v0]
    };
    empty_axis [nofd]: |a| {
        let (v, i) = lax::top_k(&a[0], 0);
        let add = |x: &[Tensor], y: &[Tensor]| vec![&x[0] + &y[0]];
        let mut out = vec![v, i, lax::cummax(&a[0], 1, false), lax::cumprod(&a[0], 1, false)];
        out.extend(lax::associative_scan(add, &a[..1], false, 1));
        out
    };
}
