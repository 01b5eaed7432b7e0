//! `jax.numpy`: the functions of [`oxla::numpy`], one row a golden case of
//! `scripts/surface/tables/numpy.py`.

use oxla::numpy as jnp;

surface! {
    exp_edges: |a| vec![jnp::exp(&a[0])];
    cumsum_axis1: |a| vec![jnp::cumsum(&a[0], 1)];
    argmax_ties: |a| vec![jnp::argmax(&a[0], 1)];
    where_take: |a| vec![jnp::where_(a[0].gt(0), &a[0] * &a[1], &a[1]), jnp::sum(&a[0], 0)];
    sum_int: |a| vec![jnp::sum(&a[0], 1)];
}
