//! Seed 004: how much memory a vmapped 3x3x3 neighbourhood gather takes, known before it
//! runs; then both variants run.
//!
//! `cargo run --release --example vmap_memory -- --n 100 [--repeat K]`

#[path = "cli/mod.rs"]
mod cli;
#[path = "seeds/mod.rs"]
mod seeds;

use std::time::Instant;

use clap::Parser;
use cli::{median, peak_rss_mib};
use oxla::{jit, make_jaxpr, numpy as jnp};

/// Seed 004's planned and measured memory, both variants.
#[derive(Parser)]
struct Args {
    /// Side of the lattice (`n^3` sites).
    #[arg(long, default_value_t = 100)]
    n: usize,
    /// Runs of each variant (the median time is reported; 0 counts as 1).
    #[arg(long, default_value_t = 1)]
    repeat: usize,
}

fn main() -> oxla::Result<()> {
    let Args { n, repeat } = Args::parse();
    let repeat = repeat.max(1);
    let sites = n * n * n;
    let ids = jnp::arange(sites as i32);
    let lattice = jnp::ones(&[n, n, n, 19]);
    for variant in [1, 2] {
        let f = jit(seeds::memory_test_batched(variant));
        if variant == 2 {
            // jit inside a trace stages its function there, as jax.jit does under make_jaxpr.
            let staged = |a| f.call(a).expect("traced");
            println!("# jaxpr of jit(vmap(memory_test2, in_axes=(0, None))) at N = {n}");
            println!("{}\n", make_jaxpr(staged, (ids.clone(), lattice.clone())));
        }
        let t = Instant::now();
        let compiled = f.lower(&(ids.clone(), lattice.clone())).compile();
        println!("# memory_test{variant}: compiled in {:.2?}", t.elapsed());
        println!("{}\n", compiled.memory_analysis());
        let mut times = Vec::new();
        let mut r = None;
        for _ in 0..repeat {
            let t = Instant::now();
            r = Some(compiled.call((ids.clone(), lattice.clone()))?);
            times.push(t.elapsed());
        }
        let r = r.expect("at least one run");
        let secs = median(&mut times);
        let (lo, hi) = (r.min(None).item(), r.max(None).item());
        println!(
            "memory_test{variant}: {sites} sites in {secs:.2?} (median of {repeat}); every output between {lo} and {hi}; peak RSS {} MiB\n",
            peak_rss_mib()
        );
    }
    Ok(())
}
