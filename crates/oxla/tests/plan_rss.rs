//! The memory plan is an upper bound: for each family of primitives, a compiled call's
//! measured peak resident memory grows by no more than its plan says it adds (its planned
//! peak less the arguments and constants already resident), plus a small constant.
//!
//! Each case runs in a process of its own (this binary runs itself again with
//! `OXLA_PLAN_RSS_CASE` naming the case), so that its peak is its own. The call runs under
//! a memory limit equal to its planned peak: it passes the limit, and nothing freed is
//! held outside the plan. `cargo test --test plan_rss -- --nocapture` prints the table.

mod rss;

use oxla::lax;
use oxla::prims::{GatherDims, GatherMode, ScatterDims};
use oxla::tree::Tree;
use oxla::{jit, memory, numpy as jnp, random, vmap, Tensor};

/// What a measurement may exceed the plan by: allocator and page rounding, thread stacks,
/// the code's own pages.
const SLACK: usize = 24 << 20;

const MIB: f64 = (1 << 20) as f64;

/// `n` values in `[0, 1)` from a fixed linear congruential sequence (made here, not by
/// oxla, so that making them allocates nothing the measurement sees).
fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}

fn floats(shape: &[usize], seed: u64) -> Tensor {
    jnp::array(&values(shape.iter().product(), seed), shape)
}

/// Indices in `[0, bound)`, as `i32[n, 1]`; every tenth one out of bounds.
fn indices(n: usize, bound: usize) -> Tensor {
    let v: Vec<i32> = values(n, 3)
        .iter()
        .enumerate()
        .map(|(i, &u)| {
            if i % 10 == 9 {
                bound as i32 + 5
            } else {
                (u * bound as f32) as i32
            }
        })
        .collect();
    jnp::array(&v, &[n, 1])
}

/// Compiles `f` for `args`, runs it under a limit of its planned peak, and returns the
/// bytes the plan adds to what is resident and the growth of the measured peak.
fn measure<A: Tree + Clone, O: Tree>(f: impl Fn(A) -> O, args: A) -> (usize, usize) {
    // Start the thread pool and the kernels' lane buffers outside the measurement.
    let warm = jit(|x: Tensor| (jnp::exp(&x) * 2.0).sum(None));
    warm.call(jnp::ones(&[1 << 20])).unwrap();
    let compiled = jit(f).lower(&args).compile();
    let plan = compiled.memory_analysis().clone();
    memory::set_memory_limit(Some(plan.peak_bytes));
    let before = rss::reset_peak_rss();
    let out = compiled.call(args).expect("the call fits its own plan");
    let grew = rss::peak_rss().saturating_sub(before);
    drop(out);
    let planned = plan.peak_bytes - plan.argument_bytes - plan.constant_bytes;
    (planned, grew)
}

fn gather_dims() -> GatherDims {
    GatherDims {
        offset_dims: vec![],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        ..GatherDims::default()
    }
}

fn scatter_dims() -> ScatterDims {
    ScatterDims {
        update_window_dims: vec![],
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        operand_batching_dims: vec![],
        scatter_indices_batching_dims: vec![],
    }
}

/// A case's measurement: the bytes its plan adds and the growth of the measured peak.
type Measure = fn() -> (usize, usize);

/// The cases: a family and its measurement.
const CASES: &[(&str, Measure)] = &[
    ("elementwise (fused kernel)", || {
        let x = floats(&[1 << 25], 1);
        measure(|x: Tensor| (jnp::tanh(&x) * &x + jnp::exp(&(-&x))) * 0.5, x)
    }),
    ("reduction (sum, max, argmax)", || {
        let x = floats(&[4096, 8192], 2);
        measure(|x: Tensor| (x.sum(1), x.max(0), x.argmax(Some(0))), x)
    }),
    ("dot_general (gemm)", || {
        let (a, b) = (floats(&[2048, 4096], 3), floats(&[4096, 4096], 4));
        measure(|(a, b): (Tensor, Tensor)| a.matmul(&b), (a, b))
    }),
    ("gather (fill or drop)", || {
        let n = 1 << 23;
        let (x, i) = (floats(&[n], 5), indices(n, n));
        measure(
            move |(x, i): (Tensor, Tensor)| {
                lax::gather(&x, &i, gather_dims(), &[1], GatherMode::FillOrDrop)
            },
            (x, i),
        )
    }),
    ("scatter-add", || {
        let n = 1 << 23;
        let (x, i, u) = (floats(&[n], 6), indices(n, n), floats(&[n], 7));
        measure(
            move |(x, i, u): (Tensor, Tensor, Tensor)| {
                lax::scatter_add(&x, &i, &u, scatter_dims(), GatherMode::FillOrDrop)
            },
            (x, i, u),
        )
    }),
    ("sort (one operand)", || {
        let x = floats(&[4096, 4096], 8);
        measure(|x: Tensor| jnp::sort(&x, Some(0)), x)
    }),
    ("sort (key and value)", || {
        let (k, v) = (floats(&[1 << 22], 9), floats(&[1 << 22], 10));
        measure(|(k, v): (Tensor, Tensor)| lax::sort(&[k, v], 0, 1), (k, v))
    }),
    ("concatenate and pad", || {
        let (x, y) = (floats(&[1 << 24], 11), floats(&[1 << 24], 12));
        measure(
            |(x, y): (Tensor, Tensor)| {
                let c = jnp::concatenate(&[x, y.clone()], 0);
                let p = lax::pad(&y, &Tensor::scalar(0.0f32), &[(1, 1, 1)]);
                (c, p)
            },
            (x, y),
        )
    }),
    ("cumsum", || {
        let x = floats(&[8192, 4096], 13);
        measure(|x: Tensor| jnp::cumsum(&x, Some(0)), x)
    }),
    ("scan", || {
        let xs = floats(&[64, 1 << 20], 14);
        measure(
            |xs: Tensor| {
                let init = jnp::zeros(&[1 << 20]);
                let step = |(c, x): (Tensor, Tensor)| {
                    let c = &c * 0.5 + jnp::tanh(&x);
                    (c.clone(), &c * 2.0)
                };
                lax::scan(step, init, xs)
            },
            xs,
        )
    }),
    ("map (chunked vmap)", || {
        let xs = floats(&[512, 1 << 17], 15);
        measure(
            |xs: Tensor| -> Tensor {
                let per = |x: Tensor| jnp::cumsum(&jnp::exp(&x), None) * 0.5;
                vmap(per).chunk_size(64).call(xs)
            },
            xs,
        )
    }),
    ("while (fori_loop)", || {
        let x = floats(&[1 << 25], 16);
        measure(
            |x: Tensor| lax::fori_loop(0, 8, |(_, c): (Tensor, Tensor)| &c * 0.5 + 1.0, x),
            x,
        )
    }),
    ("cond", || {
        let x = floats(&[1 << 25], 17);
        measure(
            |x: Tensor| -> Tensor {
                let p = jnp::less(x.index(0), 0.5);
                lax::cond(&p, |x: Tensor| jnp::exp(&x), |x: Tensor| -x, x)
            },
            x,
        )
    }),
    ("random bits", || {
        measure(|k: Tensor| random::uniform(&k, &[1 << 25]), random::key(18))
    }),
];

#[test]
fn measured_peak_memory_stays_within_the_plan_for_every_family() {
    if let Ok(case) = std::env::var("OXLA_PLAN_RSS_CASE") {
        let (_, run) = CASES.iter().find(|(n, _)| *n == case).expect("a case");
        let (planned, grew) = run();
        println!("\nMEASURED {planned} {grew}");
        return;
    }
    let mut rows = Vec::new();
    for (name, _) in CASES {
        let out = std::process::Command::new(std::env::current_exe().expect("test binary"))
            .args([
                "--exact",
                "measured_peak_memory_stays_within_the_plan_for_every_family",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("OXLA_PLAN_RSS_CASE", name)
            .output()
            .expect("runs");
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text.lines().find_map(|l| l.split("MEASURED ").nth(1));
        let Some(line) = line.filter(|_| out.status.success()) else {
            panic!(
                "case {name} failed:\n{text}\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        let v: Vec<usize> = line.split(' ').map(|x| x.parse().unwrap()).collect();
        rows.push((*name, v[0], v[1]));
    }
    println!(
        "\n| family | planned (MiB) | measured (MiB) | measured / planned |\n|---|---:|---:|---:|"
    );
    for &(name, planned, grew) in &rows {
        println!(
            "| {name} | {:.1} | {:.1} | {:.2} |",
            planned as f64 / MIB,
            grew as f64 / MIB,
            grew as f64 / planned.max(1) as f64
        );
    }
    let over: Vec<_> = rows
        .iter()
        .filter(|&&(_, planned, grew)| grew > planned + SLACK)
        .collect();
    assert!(over.is_empty(), "measured over the plan: {over:?}");
}
