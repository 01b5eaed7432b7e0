//! Seed 002 at scale: per-example gradients `jit(vmap(grad(loss)))` and the mean gradient
//! `jit(grad(mean loss))` of a 784-256-10 tanh MLP, with the parameters and data drawn as
//! `shared/jax-reference/pegrad.py` draws them.
//!
//! `cargo run --release --example pegrad -- --batch 256`

#[path = "cli/mod.rs"]
mod cli;
#[path = "seeds/mod.rs"]
mod seeds;

use std::time::{Duration, Instant};

use clap::Parser;
use cli::median;

/// Per-example and mean gradients of a 784-256-10 MLP under `jit`, timed.
#[derive(Parser)]
struct Args {
    /// Examples in the batch.
    #[arg(long, default_value_t = 256)]
    batch: usize,
    /// Print each compiled step's memory plan and what fused.
    #[arg(long)]
    explain: bool,
}

fn time<O>(f: impl Fn() -> O) -> (Duration, Duration) {
    let t = Instant::now();
    f();
    let first = t.elapsed();
    let mut steady: Vec<Duration> = (0..20)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    (first, median(&mut steady))
}

fn main() -> oxla::Result<()> {
    let cli = Args::parse();
    let b = cli.batch;
    let per_example = seeds::per_example_grads();
    let mean = seeds::mean_grad();
    let args = seeds::mlp_data(b);
    if cli.explain {
        for (name, c) in [
            ("per_example", per_example.lower(&args).compile()),
            ("mean", mean.lower(&args).compile()),
        ] {
            println!("# {name}\n{}", c.memory_analysis());
            // The median of each step's time over twenty runs.
            let mut runs: Vec<Vec<Duration>> = vec![];
            for _ in 0..20 {
                runs.push(c.profile(args.clone())?.1);
            }
            for (i, s) in c.fusion().iter().enumerate() {
                let mut t: Vec<Duration> = runs.iter().map(|r| r[i]).collect();
                let reads: Vec<String> = s.inputs.iter().map(|a| a.to_string()).collect();
                println!(
                    "{:>9.1?}  {} <- {:?} reads {reads:?}",
                    median(&mut t),
                    s.output,
                    s.primitives
                );
            }
        }
    }
    let (first, steady) = time(|| per_example.call(args.clone()).expect("runs"));
    println!("per_example batch {b}: first {first:.2?}, steady median {steady:.2?}");
    let (first, steady) = time(|| mean.call(args.clone()).expect("runs"));
    println!("mean        batch {b}: first {first:.2?}, steady median {steady:.2?}");
    let g = mean.call(args)?;
    println!(
        "mean gradient checksum: sum(dw1) = {}",
        g.0.sum(None).item()
    );
    Ok(())
}
