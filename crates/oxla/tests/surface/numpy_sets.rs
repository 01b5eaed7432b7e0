//! `jax.numpy` set functions with JAX's static `size`: `unique_values`, `unique_counts`,
//! `unique_inverse`, `union1d`, `intersect1d`, `setdiff1d`, `setxor1d`. One row a golden case
//! of `scripts/surface/tables/numpy_sets.py`.
//!
//! `nofd`: the float cases hold ties (and NaN), which a finite-difference step splits into
//! distinct values; their cotangents are still checked against JAX's.

use oxla::numpy as jnp;
use oxla::Tensor;

fn pair(p: (Tensor, Tensor)) -> [Tensor; 2] {
    [p.0, p.1]
}

surface! {
    unique_values [nofd]: |a| vec![
        jnp::unique_values(&a[0], 3, None),
        jnp::unique_values(&a[0], 12, None),
        jnp::unique_values(&a[0], 12, Some(-9.0)),
    ];
    unique_values_nan [nofd]: |a| {
        let mut out = vec![jnp::unique_values(&a[0], 7, Some(5.0))];
        out.extend(pair(jnp::unique_counts(&a[0], 6, Some(5.0))));
        out
    };
    unique_counts: |a| {
        let mut out = pair(jnp::unique_counts(&a[0], 3, None)).to_vec();
        out.extend(pair(jnp::unique_counts(&a[0], 8, Some(0.0))));
        out
    };
    unique_inverse [nofd]: |a| {
        let mut out = pair(jnp::unique_inverse(&a[0], 10, Some(0.0))).to_vec();
        out.extend(pair(jnp::unique_inverse(&a[0], 2, None)));
        out
    };
    union1d [nofd]: |a| vec![
        jnp::union1d(&a[0], &a[1], 4, None),
        jnp::union1d(&a[0], &a[1], 12, Some(7.0)),
    ];
    union1d_int_empty [nograd]: |a| vec![
        jnp::union1d(&a[0], &a[1], 5, Some(-1.0)),
        jnp::union1d(&a[1], &a[1], 2, Some(3.0)),
    ];
    intersect1d [nograd]: |a| vec![
        jnp::intersect1d(&a[0], &a[1], 3, None),
        jnp::intersect1d(&a[0], &a[1], 8, None),
        jnp::intersect1d(&a[0], &a[1], 8, Some(-5.0)),
        jnp::intersect1d(a[0].index(0..0), &a[1], 2, None),
    ];
    setdiff1d [nograd]: |a| vec![
        jnp::setdiff1d(&a[0], &a[1], 2, None),
        jnp::setdiff1d(&a[0], &a[1], 8, None),
        jnp::setdiff1d(&a[0], &a[1], 8, Some(9.0)),
        jnp::setdiff1d(a[0].index(0..0), &a[1], 3, None),
    ];
    setxor1d [nograd]: |a| vec![
        jnp::setxor1d(&a[0], &a[1], 3, None),
        jnp::setxor1d(&a[0], &a[1], 11, Some(-7.0)),
    ];
    sets_float [nofd]: |a| vec![
        jnp::intersect1d(&a[0], &a[1], 4, None),
        jnp::setdiff1d(&a[0], &a[1], 6, None),
        jnp::setxor1d(&a[0], &a[1], 10, Some(0.5)),
    ];
}
