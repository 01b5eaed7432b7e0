//! Eager dispatch cost of small primitives (`docs/performance.md` compares it with JAX's).

use criterion::{criterion_group, criterion_main, Criterion};
use oxla::numpy as jnp;
use std::hint::black_box;

fn eager_small_ops(c: &mut Criterion) {
    let x = jnp::array(&[1.0f32, 2.0, 3.0, 4.0], &[4]);
    let y = jnp::array(&[0.5f32, 0.25, 0.125, 1.0], &[4]);
    c.bench_function("eager add f32[4]", |b| {
        b.iter(|| black_box(&x) + black_box(&y))
    });
    c.bench_function("eager mul scalar f32[4]", |b| {
        b.iter(|| black_box(&x) * 2.0)
    });
    c.bench_function("eager exp f32[4]", |b| b.iter(|| jnp::exp(black_box(&x))));
    c.bench_function("eager sum f32[4]", |b| b.iter(|| black_box(&x).sum(None)));
}

criterion_group!(benches, eager_small_ops);
criterion_main!(benches);
