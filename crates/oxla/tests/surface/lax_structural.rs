//! `jax.lax`: `dot`, `batch_matmul`, `broadcast`, `broadcast_to_rank`, `select`, `split`,
//! `scatter_mul`/`scatter_min`/`scatter_max` and `optimization_barrier`. One row a golden
//! case of `scripts/surface/tables/lax_structural.py`.
//!
//! `scatter_mul_min_max` is `nograd`: JAX differentiates `scatter_mul` only with
//! `unique_indices=True`, and the case repeats an index (oxla's own rule still applies).

use oxla::lax;
use oxla::prims::{GatherMode, ScatterDims};

fn dims() -> ScatterDims {
    ScatterDims {
        update_window_dims: vec![1],
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        ..ScatterDims::default()
    }
}

surface! {
    dot_shapes: |a| vec![
        lax::dot(&a[0], &a[0], None),
        lax::dot(&a[0], &a[1], None),
        lax::dot(&a[2], &a[1], None),
        lax::dot(&a[2], &a[0], None),
    ];
    batch_matmul: |a| vec![lax::batch_matmul(&a[0], &a[1])];
    broadcast: |a| vec![
        lax::broadcast(&a[0], &[4]),
        lax::broadcast(&a[0], &[]),
        lax::broadcast_to_rank(&a[0], 4),
        lax::broadcast_to_rank(&a[0], 1),
    ];
    select: |a| vec![lax::select(&a[0], &a[1], &a[2])];
    split: |a| {
        let mut out = lax::split(&a[0], &[2, 0, 5], 1);
        out.extend(lax::split(&a[0], &[1, 2], 0));
        out
    };
    scatter_mul_min_max [nograd]: |a| {
        let f = GatherMode::FillOrDrop;
        vec![
            lax::scatter_mul(&a[0], &a[1], &a[2], dims(), f),
            lax::scatter_min(&a[0], &a[1], &a[2], dims(), f),
            lax::scatter_max(&a[0], &a[1], &a[2], dims(), f),
        ]
    };
    optimization_barrier: |a| lax::optimization_barrier(vec![&a[0] * 2.0, a[1].clone()]);
}
