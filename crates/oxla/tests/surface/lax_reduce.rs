//! `jax.lax`: the reductions (`reduce_sum` ...), `argmax`/`argmin` and the bitwise functions
//! under JAX's names. One row a golden case of `scripts/surface/tables/lax_reduce.py`.
//!
//! `reduce_max_ties` skips finite differences: at a tie the maximum has a kink, and JAX (and
//! oxla, checked against JAX's cotangents) shares the cotangent equally among the tied
//! elements, which no one-sided difference reproduces.

use oxla::{lax, DType};

surface! {
    reduce_sum_axes: |a| vec![lax::reduce_sum(&a[0], &[0, 2])];
    reduce_prod_axis: |a| vec![lax::reduce_prod(&a[0], &[1])];
    reduce_max_edges: |a| vec![lax::reduce_max(&a[0], &[1]), lax::reduce_min(&a[0], &[0])];
    reduce_max_ties [nofd]: |a| vec![lax::reduce_max(&a[0], &[1]), lax::reduce_min(&a[0], &[1])];
    reduce_and_or: |a| vec![lax::reduce_and(&a[0], &[1]), lax::reduce_or(&a[0], &[0])];
    argmax_argmin_ties: |a| vec![
        lax::argmax(&a[0], 1, DType::I32),
        lax::argmin(&a[0], 0, DType::I32),
    ];
    argmax_nan: |a| vec![lax::argmax(&a[0], 0, DType::I32), lax::argmin(&a[0], 0, DType::I32)];
    bitwise_i32: |a| vec![
        lax::bitwise_and(&a[0], &a[1]),
        lax::bitwise_or(&a[0], &a[1]),
        lax::bitwise_xor(&a[0], &a[1]),
        lax::bitwise_not(&a[0]),
    ];
    bitwise_bool: |a| vec![
        lax::bitwise_and(&a[0], &a[1]),
        lax::bitwise_or(&a[0], &a[1]),
        lax::bitwise_xor(&a[0], &a[1]),
        lax::bitwise_not(&a[0]),
    ];
}
