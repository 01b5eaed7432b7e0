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
//! - `--mode prodl1`: `aff(a, b) = -sum(abs(a @ b))`, whose per-pair product must be
//!   materialised: `n² size²` floats unchunked. `--budget 1GiB` runs the outer `vmap` with
//!   `memory_budget`, in chunks whose plan fits, with a progress bar.
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

use cli::{arg, peak_rss_mib, rss_mib};
use oxla::memory::{format_bytes, parse_bytes};
use oxla::{jit, numpy as jnp, random, vmap, Tensor};

fn l1((a, b): (Tensor, Tensor)) -> Tensor {
    -jnp::sum(&jnp::abs(&(a - b)), None)
}

fn prodl1((a, b): (Tensor, Tensor)) -> Tensor {
    -jnp::sum(&jnp::abs(&a.matmul(&b)), None)
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
    let row = move |a: Tensor| -> Tensor {
        vmap(aff)
            .in_axes((None, 0))
            .call((a, all.clone()))
            .expect("traced")
    };
    let outer = vmap(row);
    let outer = match how {
        Chunking::Whole => outer,
        Chunking::Chunk(k) => outer.chunk_size(k).progress(true),
        Chunking::Budget(b) => outer.memory_budget(b).progress(true),
    };
    outer.call(imgs).expect("traced")
}

/// The value of `--name TEXT`.
fn text_arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    let i = args.iter().position(|a| a == name)?;
    args.get(i + 1).cloned()
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
    let n = arg("--n", 1000);
    let size = arg("--size", 32);
    let mode = text_arg("--mode").unwrap_or_else(|| "l1".into());
    let aff = match mode.as_str() {
        "l1" => l1,
        "prodl1" => prodl1,
        m => panic!("--mode {m}: l1 or prodl1"),
    };
    let how = match (text_arg("--budget"), text_arg("--chunk")) {
        (Some(b), _) => Chunking::Budget(parse_bytes(&b).expect("--budget: a size like 1GiB")),
        (None, Some(k)) => Chunking::Chunk(k.parse().expect("--chunk: a number")),
        (None, None) => Chunking::Whole,
    };
    // Drawn by a compiled function: its fused kernels hold no big intermediates.
    let draw = jit(move |k: Tensor| random::normal(&k, &[n, size, size]));
    let imgs = draw.call(random::key(0)).expect("draws");
    let f = jit(move |imgs: Tensor| affinities(imgs, aff, how));
    let compiled = f.lower(&imgs).and_then(|l| l.compile()).expect("compiles");
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
    if std::env::args().any(|a| a == "--explain") {
        println!("{plan}");
    }
    if let Some(path) = text_arg("--memory-svg") {
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
