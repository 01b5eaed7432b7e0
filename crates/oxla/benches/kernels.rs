//! The compiled kernels behind the seed workloads, against the machine's limits (memory
//! bandwidth for elementwise kernels, reductions and gathers; peak f32 FLOP/s for
//! products): `docs/performance.md` has the figures.
//!
//! `cargo bench --bench kernels`. Throughput is reported in bytes moved (elementwise,
//! reductions, gathers) or in floating-point operations (`dot_general`, as "elements").

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use oxla::numpy as jnp;
use oxla::{jit, random, vmap, Tensor};
use std::hint::black_box;

const N: usize = 1 << 22;

fn fused_elementwise(c: &mut Criterion) {
    let x = random::normal(&random::key(0), &[N]);
    let mut g = c.benchmark_group("fused elementwise f32[4M]");
    g.sample_size(20);
    // Read 4 bytes and write 4 bytes per element.
    g.throughput(Throughput::Bytes((8 * N) as u64));
    let exp = jit(|x: Tensor| jnp::exp(&x) * 2.0 + 1.0);
    g.bench_function("exp(x) * 2 + 1", |b| {
        b.iter(|| exp.call(black_box(x.clone())))
    });
    let tanh = jit(|x: Tensor| jnp::tanh(&(&x * 0.5)) + &x);
    g.bench_function("tanh(x / 2) + x", |b| {
        b.iter(|| tanh.call(black_box(x.clone())))
    });
    g.finish();
}

fn reductions(c: &mut Criterion) {
    let x = random::normal(&random::key(1), &[4096, 1024]);
    let mut g = c.benchmark_group("reductions f32[4096,1024]");
    g.sample_size(20);
    g.throughput(Throughput::Bytes((4 * 4096 * 1024) as u64));
    let rows = jit(|x: Tensor| x.sum(1));
    g.bench_function("sum over rows", |b| {
        b.iter(|| rows.call(black_box(x.clone())))
    });
    let cols = jit(|x: Tensor| x.sum(0));
    g.bench_function("sum over columns", |b| {
        b.iter(|| cols.call(black_box(x.clone())))
    });
    let norms = jit(|x: Tensor| jnp::sqrt((&x * &x).sum(1)));
    g.bench_function("row norms", |b| b.iter(|| norms.call(black_box(x.clone()))));
    g.finish();
}

fn gather(c: &mut Criterion) {
    let table = random::normal(&random::key(2), &[100_000, 64]);
    let idx = random::randint(&random::key(3), &[65_536], 0, 100_000);
    let mut g = c.benchmark_group("gather");
    g.sample_size(20);
    // Each gathered row: 256 bytes read, 256 written.
    g.throughput(Throughput::Bytes((65_536 * 64 * 8) as u64));
    let take = jit(|(t, i): (Tensor, Tensor)| t.index(&i));
    g.bench_function("64k random rows of f32[100000,64]", |b| {
        b.iter(|| take.call(black_box((table.clone(), idx.clone()))))
    });
    g.finish();
}

fn dot_general(c: &mut Criterion) {
    let n = 1024;
    let a = random::normal(&random::key(4), &[n, n]);
    let bm = random::normal(&random::key(5), &[n, n]);
    let mut g = c.benchmark_group("dot_general");
    g.sample_size(20);
    g.throughput(Throughput::Elements((2 * n * n * n) as u64));
    let mm = jit(|(a, b): (Tensor, Tensor)| a.matmul(&b));
    g.bench_function("f32[1024,1024] @ f32[1024,1024] (flop)", |b| {
        b.iter(|| mm.call(black_box((a.clone(), bm.clone()))))
    });
    let mt = jit(|(a, b): (Tensor, Tensor)| a.matmul(b.t()));
    g.bench_function("a @ b.T, transposed operand (flop)", |b| {
        b.iter(|| mt.call(black_box((a.clone(), bm.clone()))))
    });
    // The same work as a full product (flops counted for both triangles): one triangle is
    // multiplied and mirrored.
    let sym = jit(|a: Tensor| a.matmul(a.t()));
    g.bench_function("a @ a.T, symmetric (full product's flop)", |b| {
        b.iter(|| sym.call(black_box(a.clone())))
    });
    g.finish();
}

/// One step of a recurrent network and of its gradient: 16 rows against a 128 x 128 weight,
/// read by rows (`h @ w`) and by columns (`dz @ w.T`).
fn few_rows(c: &mut Criterion) {
    let h = random::normal(&random::key(6), &[16, 128]);
    let w = random::normal(&random::key(7), &[128, 128]);
    let mut g = c.benchmark_group("few_rows");
    g.throughput(Throughput::Elements(2 * 16 * 128 * 128));
    let by_rows = jit(|(h, w): (Tensor, Tensor)| h.matmul(&w));
    g.bench_function("f32[16,128] @ f32[128,128] (flop)", |b| {
        b.iter(|| by_rows.call(black_box((h.clone(), w.clone()))))
    });
    let by_columns = jit(|(h, w): (Tensor, Tensor)| h.matmul(w.t()));
    g.bench_function("f32[16,128] @ f32[128,128].T (flop)", |b| {
        b.iter(|| by_columns.call(black_box((h.clone(), w.clone()))))
    });
    g.finish();
}

/// Seed 000's `-sum(abs(a @ b))` for every pair of 32 x 32 images, as a chunked map runs it:
/// 100 rows against 2000 images, and all 2000 rows (the products are reduced as they are
/// made, never stored).
fn reduced_products(c: &mut Criterion) {
    let imgs = random::normal(&random::key(8), &[2000, 32, 32]);
    let pairs = jit(|(rows, all): (Tensor, Tensor)| {
        vmap(move |a: Tensor| {
            vmap(move |b: Tensor| -a.matmul(&b).abs().sum(None)).call(all.clone())
        })
        .call(rows)
    });
    let mut g = c.benchmark_group("reduced_products");
    g.sample_size(10);
    for rows in [100usize, 2000] {
        g.throughput(Throughput::Elements(
            (2 * rows * 2000 * 32 * 32 * 32) as u64,
        ));
        let lhs = imgs.index(0..rows);
        g.bench_function(format!("-sum|a @ b|, {rows} x 2000 pairs (flop)"), |b| {
            b.iter(|| pairs.call(black_box((lhs.clone(), imgs.clone()))))
        });
    }
    g.finish();
}

criterion_group!(
    benches,
    fused_elementwise,
    reductions,
    gather,
    dot_general,
    few_rows,
    reduced_products
);
criterion_main!(benches);
