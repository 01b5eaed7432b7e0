//! `jax.numpy`: `interp`, `histogram`, `histogram_bin_edges`, `compress`, `extract`,
//! `diag_indices`, `diag_indices_from`, `ravel_multi_index`, `resize`. One row a golden
//! case of `scripts/surface/tables/numpy_index.py`.
//!
//! `nofd`: `extract` pads with NaN, and `histogram_edges` puts values exactly on bin edges, where
//! a finite-difference step jumps bins; their cotangents are still checked against JAX's.

use oxla::numpy::{self as jnp, Outside};
use oxla::Tensor;

fn h(c: (Tensor, Tensor)) -> [Tensor; 2] {
    [c.0, c.1]
}

surface! {
    interp_default: |a| vec![jnp::interp(&a[0], &a[1], &a[2], Outside::Edge, Outside::Edge, None)];
    interp_left_right: |a| vec![
        jnp::interp(&a[0], &a[1], &a[2], Outside::Value(-9.0), Outside::Value(9.0), None),
        jnp::interp(&a[0], &a[1], &a[2], Outside::Extrapolate, Outside::Extrapolate, None),
    ];
    interp_period: |a| vec![
        jnp::interp(&a[0], &a[1], &a[2], Outside::Edge, Outside::Edge, Some(2.0 * std::f64::consts::PI)),
        jnp::interp(&a[0], &a[1], &a[2], Outside::Edge, Outside::Edge, Some(-3.0)),
    ];
    interp_edges: |a| vec![jnp::interp(&a[0], &a[1], &a[2], Outside::Edge, Outside::Edge, None)];
    histogram_count: |a| {
        let mut out = h(jnp::histogram(&a[0], 4, None, None, false)).to_vec();
        out.extend(h(jnp::histogram(&a[0], 3, Some((-0.5, 0.5)), None, false)));
        out.push(jnp::histogram_bin_edges(&a[0], 5, None));
        out
    };
    histogram_weights_density: |a| vec![
        jnp::histogram(&a[0], 4, None, Some(&a[1]), false).0,
        jnp::histogram(&a[0], 4, None, Some(&a[1]), false).1,
        jnp::histogram(&a[0], 4, None, Some(&a[1]), true).0,
        jnp::histogram(&a[0], 3, Some((-1.0, 1.0)), None, true).0,
    ];
    histogram_edges [nofd]: |a| {
        let bins = jnp::array(&[-1.0f32, -0.5, 0.25, 1.0], &[4]);
        let mut out = h(jnp::histogram(&a[0], &bins, None, None, false)).to_vec();
        out.push(jnp::histogram_bin_edges(&a[0], &bins, None));
        out
    };
    histogram_flat: |a| h(jnp::histogram(&a[0], 2, None, None, false)).to_vec();
    histogram_int [nograd]: |a| h(jnp::histogram(&a[0], 3, None, None, false)).to_vec();
    compress_axis: |a| vec![
        jnp::compress(&a[0], &a[1], Some(0), 3, 0.0),
        jnp::compress(&a[0], &a[1], Some(0), 4, 7.0),
        jnp::compress(a[0].index(0..3), &a[1], Some(-1), 2, 0.0),
    ];
    compress_flat: |a| vec![
        jnp::compress(&a[0], &a[1], None, 2, 0.0),
        jnp::compress(&a[0], &a[1], None, 5, -1.0),
        jnp::compress(a[0].index(0..2), &a[1], None, 1, 0.0),
    ];
    extract [nofd]: |a| vec![
        jnp::extract(&a[0], &a[1], 5, 0.0),
        jnp::extract(&a[0], &a[1], 12, f64::NAN),
    ];
    diag_indices [nograd]: |a| {
        let mut out = jnp::diag_indices(4, 2);
        out.extend(jnp::diag_indices(2, 3));
        out.extend(jnp::diag_indices_from(&a[0]));
        out.extend(jnp::diag_indices(0, 2));
        out
    };
    ravel_multi_index [nograd]: |a| vec![
        jnp::ravel_multi_index(&[a[0].clone(), a[1].clone()], &[4, 5], "clip"),
        jnp::ravel_multi_index(&[a[0].clone(), a[1].clone()], &[4, 5], "wrap"),
        jnp::ravel_multi_index(&[jnp::remainder(jnp::abs(&a[0]), 4)], &[4], "ignore"),
    ];
    resize: |a| vec![
        jnp::resize(&a[0], &[4, 2]),
        jnp::resize(&a[0], &[2]),
        jnp::resize(&a[0], &[0, 3]),
        jnp::resize(&a[0], &[3, 3, 1]),
    ];
}
