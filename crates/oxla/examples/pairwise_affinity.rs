//! Seed 000 as its author wanted: the pairwise affinities of `n` images written for one
//! pair, `vmap(vmap(aff))`, with memory you can see and bound.
//!
//! ```text
//! cargo run --release --example pairwise_affinity -- --n 10000 --size 100 --mode l1
//! cargo run --release --example pairwise_affinity -- --n 2000 --size 32 --mode prodl1 --budget 1GiB
//! OXLA_MEMORY_LIMIT=2GiB cargo run --release --example pairwise_affinity -- --n 2000 --size 32 --mode prodl1
//! ```
//!
//! - `--mode l1`: `aff(a, b) = -sum(abs(a - b))`. Fusion keeps the `n x n x size²`
//!   broadcast virtual: the call holds its input and its output, nothing of pair size.
//! - `--mode prodl1`: `aff(a, b) = -sum(abs(a @ b))`. The compiler reduces each pair's
//!   product while `gemm`'s tiles of it are in cache (`dot_reduce`), so the `n² size²`
//!   products are never stored: the call holds its input, its output and a few tiles. `--budget 1GiB`
//!   runs the outer `vmap` with `memory_budget`, in chunks whose plan fits, with a
//!   progress bar.
//! - `--chunk K`: the outer `vmap` in chunks of `K` rows.
//! - `--explain`: the memory plan's largest buffers with the equation and source line that
//!   make each; `--memory-svg FILE`: the live bytes over the program, as an SVG chart.
//! - At `--n 2000 --size 32 --mode prodl1`, the sampled rows are checked against JAX's
//!   (`tests/golden_affinity/rows.npy`, made by `generate.py` there).
//!
//! Under `OXLA_MEMORY_LIMIT`, a plan that cannot fit fails before running, naming its
//! largest buffer (`jit(f).call`, which can plan `f` again, also names a chunk size of a
//! chunked map that it has planned and seen fit).

#[path = "cli/mod.rs"]
mod cli;

use std::time::Instant;

use clap::Parser;
use cli::{peak_rss_mib, rss_mib};
use oxla::memory::{format_bytes, parse_bytes};
use oxla::{jit, numpy as jnp, random, vmap, Tensor};

fn l1((a, b): (Tensor, Tensor)) -> Tensor {
    -jnp::sum(jnp::abs(&(a - b)), None)
}

fn prodl1((a, b): (Tensor, Tensor)) -> Tensor {
    -jnp::sum(jnp::abs(a.matmul(&b)), None)
}

/// How the outer `vmap` runs.
#[derive(Clone, Copy)]
enum Chunking {
    Whole,
    Chunk(usize),
    Budget(usize),
}

/// `vmap(vmap(aff, in_axes=(None, 0)))(imgs, imgs)`, the outer one chunked as asked.
fn affinities(imgs: Tensor, aff: fn((Tensor, Tensor)) -> Tensor, how: Chunking) -> Tensor {
    let all = imgs.clone();
    let row = move |a: Tensor| -> Tensor { vmap(aff).in_axes((None, 0)).call((a, all.clone())) };
    let outer = vmap(row);
    match how {
        Chunking::Whole => outer.call(imgs),
        Chunking::Chunk(k) => outer.chunk_size(k).progress(true).call(imgs),
        Chunking::Budget(b) => outer
            .memory_budget(b)
            .progress(true)
            .call(imgs)
            .expect("one image at a time fits the budget"),
    }
}

/// The pairwise affinities of `n` random images, `vmap(vmap(aff))`, with its memory plan.
#[derive(Parser)]
struct Args {
    /// Images.
    #[arg(long, default_value_t = 1000)]
    n: usize,
    /// Side of each image, in pixels.
    #[arg(long, default_value_t = 32)]
    size: usize,
    /// `l1`: -sum(abs(a - b)); `prodl1`: -sum(abs(a @ b)).
    #[arg(long, default_value = "l1", value_parser = ["l1", "prodl1"])]
    mode: String,
    /// Run the outer `vmap` in chunks whose plan fits this size (like 1GiB).
    #[arg(long, value_parser = budget_bytes, conflicts_with = "chunk")]
    budget: Option<usize>,
    /// Run the outer `vmap` in chunks of this many rows.
    #[arg(long)]
    chunk: Option<usize>,
    /// Print the plan's largest buffers with the equation and source line that make each.
    #[arg(long)]
    explain: bool,
    /// Write the live bytes over the program to this file, as an SVG chart.
    #[arg(long, value_name = "FILE")]
    memory_svg: Option<String>,
}

/// A `--budget` value in bytes.
fn budget_bytes(s: &str) -> Result<usize, String> {
    parse_bytes(s).ok_or_else(|| format!("`{s}` is not a size like 1GiB"))
}

/// Compares the sampled rows with JAX's, when the sizes are those of the golden file.
fn check_rows(r: &Tensor, n: usize, size: usize, mode: &str) {
    if (n, size, mode) != (2000, 32, "prodl1") {
        return;
    }
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/golden_affinity/rows.npy"
    );
    let want = Tensor::read_npy(path).expect("the golden rows");
    let mut worst: f64 = 0.0;
    for (k, &i) in [0usize, 1, 1000, 1999].iter().enumerate() {
        let got = r.index(i).to_vec::<f32>();
        for (g, w) in got.iter().zip(want.index(k).to_vec::<f32>()) {
            worst = worst.max(((g - w).abs() / w.abs().max(1.0)) as f64);
        }
    }
    let verdict = if worst <= 1e-5 { "agree" } else { "DISAGREE" };
    println!(
        "rows 0, 1, 1000, 1999 against JAX's: largest relative difference {worst:.1e}: {verdict}"
    );
    assert!(worst <= 1e-5, "sampled rows differ from JAX's");
}

fn main() {
    let cli = Args::parse();
    let (n, size, mode) = (cli.n, cli.size, cli.mode);
    let aff = match mode.as_str() {
        "l1" => l1,
        "prodl1" => prodl1,
        m => unreachable!("clap accepts only l1 and prodl1, not {m}"),
    };
    let how = match (cli.budget, cli.chunk) {
        (Some(b), _) => Chunking::Budget(b),
        (None, Some(k)) => Chunking::Chunk(k),
        (None, None) => Chunking::Whole,
    };
    // Drawn by a compiled function: its fused kernels hold no big intermediates.
    let draw = jit(move |k: Tensor| random::normal(&k, &[n, size, size]));
    let imgs = draw.call(random::key(0)).expect("draws");
    let f = jit(move |imgs: Tensor| affinities(imgs, aff, how));
    let compiled = f.lower(&imgs).compile();
    let plan = compiled.memory_analysis();
    println!(
        "{mode}: {n} images of {size}x{size}; inputs {}, output {}, planned peak {}",
        format_bytes(plan.argument_bytes),
        format_bytes(plan.output_bytes),
        format_bytes(plan.peak_bytes)
    );
    for c in &plan.chunks {
        println!(
            "  chunked: {} rows in chunks of {} ({} per chunk)",
            c.length,
            c.chunk,
            format_bytes(c.chunk_bytes)
        );
    }
    if cli.explain {
        println!("{plan}");
    }
    if let Some(path) = cli.memory_svg {
        std::fs::write(&path, plan.to_svg()).expect("writes the SVG");
        println!("  memory chart written to {path}");
    }
    let before = rss_mib();
    let t = Instant::now();
    let r = match compiled.call(imgs) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let seconds = t.elapsed().as_secs_f64();
    let checksum = r.index((..4, ..4)).sum(None).item();
    println!(
        "done in {seconds:.2} s; peak RSS {} MiB ({before} MiB resident before the call); checksum sum(r[:4, :4]) = {checksum}",
        peak_rss_mib()
    );
    check_rows(&r, n, size, &mode);
}
