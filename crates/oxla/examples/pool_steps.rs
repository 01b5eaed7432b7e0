//! A training step called back to back on the kernels' thread pool: the mean gradient of
//! seed 002's MLP, its time per call once the pool has settled. Run with several
//! `OXLA_NUM_THREADS` to see what the pool's size costs.
//!
//! ```text
//! OXLA_NUM_THREADS=1000 cargo run --release --example pool_steps [-- --batch 512 --calls 20]
//! ```

#[path = "cli/mod.rs"]
mod cli;
#[path = "seeds/mod.rs"]
mod seeds;

use std::time::{Duration, Instant};

use clap::Parser;
use cli::median;

/// Seed 002's mean-gradient step called back to back.
#[derive(Parser)]
struct Args {
    /// Examples per step.
    #[arg(long, default_value_t = 512)]
    batch: usize,
    /// Calls per timed round (ten rounds; the median is reported).
    #[arg(long, default_value_t = 20)]
    calls: usize,
}

fn main() {
    let Args { batch, calls } = Args::parse();
    let data = seeds::mlp_data(batch);
    let f = seeds::mean_grad();
    let t = Instant::now();
    f.call(data.clone()).expect("compiles");
    let first = t.elapsed();
    // Let the threads the first call started go to sleep.
    std::thread::sleep(Duration::from_millis(500));
    let mut rounds: Vec<Duration> = (0..10)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..calls {
                f.call(data.clone()).expect("runs");
            }
            t.elapsed() / calls as u32
        })
        .collect();
    println!(
        "mean gradient, batch {batch}, {} threads: first call {first:.1?}, then {:.2?} per call \
         (median of 10 rounds of {calls})",
        rayon::current_num_threads(),
        median(&mut rounds)
    );
}
