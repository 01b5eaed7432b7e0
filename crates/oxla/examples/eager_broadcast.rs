//! Eager broadcasting: the outer product of two vectors, `x[:, None] * y[None, :]`, run
//! op by op and under `jit`, with its time and the peak resident memory it adds.
//!
//! ```text
//! cargo run --release --example eager_broadcast [-- --n 10000 --reps 5]
//! ```
//!
//! The size-1 operands are read in place (stride 0), so the eager call holds its result
//! only: at n = 10,000, 400 MB. `docs/performance.md` compares its time with JAX's eager
//! `x[:, None] * y[None, :]`.

#[path = "cli/mod.rs"]
mod cli;

use std::time::{Duration, Instant};

use clap::Parser;
use cli::{median, peak_rss_mib, rss_mib};
use oxla::{jit, numpy as jnp, Tensor};

/// An eager outer product against the same under `jit`.
#[derive(Parser)]
struct Args {
    /// Length of each vector (the result is `n x n` f32).
    #[arg(long, default_value_t = 10_000)]
    n: usize,
    /// Timed runs after the first (the median is reported).
    #[arg(long, default_value_t = 5)]
    reps: usize,
}

fn outer(x: &Tensor, y: &Tensor) -> Tensor {
    x.index((.., None)) * y.index((None, ..))
}

/// Times `f` `reps` times after a first run, whose time and added peak memory it prints.
fn measure(what: &str, reps: usize, f: impl Fn() -> Tensor) {
    let before = rss_mib();
    let t = Instant::now();
    let r = f();
    let first = t.elapsed();
    let peak = peak_rss_mib().saturating_sub(before);
    let result_mib = r.array().nbytes() >> 20;
    drop(r);
    let mut times: Vec<Duration> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            drop(f());
            t.elapsed()
        })
        .collect();
    println!(
        "{what}: first {first:.1?}, median of {reps} {:.1?}; peak RSS +{peak} MiB \
         (result {result_mib} MiB)",
        median(&mut times)
    );
}

fn main() {
    let Args { n, reps } = Args::parse();
    let x = jnp::linspace(0.0, 1.0, n);
    let y = jnp::linspace(-1.0, 2.0, n);
    measure("eager x[:, None] * y[None, :]", reps, || outer(&x, &y));
    let f = jit(|(x, y): (Tensor, Tensor)| outer(&x, &y));
    measure("jit   x[:, None] * y[None, :]", reps, || {
        f.call((x.clone(), y.clone())).expect("no memory limit")
    });
}
