//! The main job: the three seed programs, with their results, jaxprs, memory plans and
//! timings, and a progress bar on the long steps.
//!
//! `cargo run --release --example tour [-- --n 100 --images 2000]`

#[path = "seeds/mod.rs"]
mod seeds;

use std::time::Instant;

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use oxla::core::trace_avals;
use oxla::{jit, make_jaxpr, numpy as jnp, random, vmap, Aval, DType, Tensor};

fn seed_004(n: usize) {
    println!("== seed 004: 3x3x3 neighbourhood sums over an {n}^3 x 19 lattice of ones");
    let lattice = jnp::ones(&[n, n, n, 19]);
    let ids = jnp::arange((n * n * n) as i32);
    for variant in [1, 2] {
        let batched = seeds::memory_test_batched(variant);
        let t = Instant::now();
        let compiled = jit(batched)
            .lower(&(ids.clone(), lattice.clone()))
            .compile();
        let compile = t.elapsed();
        if variant == 2 {
            println!("{}", compiled.memory_analysis());
        }
        let t = Instant::now();
        let r = compiled
            .call((ids.clone(), lattice.clone()))
            .expect("fits in memory");
        println!(
            "jit(vmap(memory_test{variant}, in_axes=(0, None))): {} sites, max = {}, min = {} \
             (compile {compile:.2?}, run {:.2?})",
            n * n * n,
            r.max(None).item(),
            r.min(None).item(),
            t.elapsed()
        );
    }
    // Traced at N = 400 from avals alone: the 4.9 GB lattice is never allocated.
    let body = |(id, v): (Tensor, Tensor)| seeds::memory_test(&id, &v, 2);
    let structure = (Tensor::scalar(0i32), Tensor::scalar(0.0f32));
    let avals = [
        Aval::new(DType::I32, &[]),
        Aval::new(DType::F32, &[400, 400, 400, 19]),
    ];
    let j = trace_avals(body, &structure, &avals).0;
    println!(
        "jaxpr of memory_test2's body at N = 400: {} equations; its last lines:",
        j.jaxpr.eqns.len()
    );
    let text = j.to_string();
    let lines: Vec<&str> = text.lines().collect();
    for l in &lines[lines.len().saturating_sub(12)..] {
        println!("{l}");
    }
    println!();
}

fn seed_002() {
    println!("== seed 002: squared error of a linear model, per example");
    let params = (Tensor::scalar(2.0f32), Tensor::scalar(1.0f32));
    let xs = jnp::linspace(0.0, 1.0, 5);
    let ys = &xs * 2.5 + 0.5;
    let se = |(p, x, y): ((Tensor, Tensor), Tensor, Tensor)| seeds::squared_error(&p, &x, &y);
    let losses: Tensor = vmap(se)
        .in_axes((None, 0, 0))
        .call((params, xs.clone(), ys.clone()));
    println!("x      = {xs}");
    println!("y_true = {ys}");
    println!("vmap(squared_error, in_axes=(None, 0, 0)) = {losses}");
    let s = || Tensor::scalar(1.0f32);
    println!("{}\n", make_jaxpr(se, ((s(), s()), s(), s())));
}

fn seed_000(n: usize) {
    println!("== seed 000: pairwise affinities of {n} random 100x100 images");
    let t = Instant::now();
    let imgs = random::normal(&random::key(0), &[n, 100, 100]);
    println!(
        "images drawn (jax.random.normal, PRNGKey(0)) in {:.2?}",
        t.elapsed()
    );
    let checksum = |r: &Tensor| r.index((..4, ..4)).sum(None).item();
    let t = Instant::now();
    let inner = seeds::affinity_matmul(&imgs);
    println!(
        "inner products: {:?} in {:.2?}, checksum sum(r[:4, :4]) = {}",
        inner.shape(),
        t.elapsed(),
        checksum(&inner)
    );
    let t = Instant::now();
    let cosine = seeds::affinity_cosine(&imgs);
    println!(
        "cosine:         {:?} in {:.2?}, checksum = {}",
        cosine.shape(),
        t.elapsed(),
        checksum(&cosine)
    );
    // Seed 000 as its author wrote it: blocks of 100 images against all of them.
    let block = 100.min(n);
    let block_vs_all = jit(|(block, all): (Tensor, Tensor)| {
        vmap(|x: Tensor| vmap(|y: Tensor| seeds::neg_l1(&x, &y)).call(all.clone())).call(block)
    });
    let first = (imgs.index(..block), imgs.clone());
    let plan = block_vs_all.lower(&first).compile();
    let temp = plan.memory_analysis().temp_bytes;
    let t = Instant::now();
    let bar = ProgressBar::new((n / block) as u64).with_style(
        ProgressStyle::with_template("negative L1 {bar:40} {pos}/{len} blocks, {eta} left")
            .expect("a valid template"),
    );
    let rows: Vec<Tensor> = (0..n / block)
        .map(|b| {
            let blk = imgs.index(b * block..(b + 1) * block);
            let r = block_vs_all.call((blk, imgs.clone())).expect("fits");
            bar.inc(1);
            r
        })
        .collect();
    bar.finish_and_clear();
    let l1 = jnp::concatenate(&rows, 0);
    println!(
        "negative L1, jit(vmap(vmap(aff))) by blocks of {block}: {:?} in {:.2?} \
         (temporary memory planned per block: {temp} bytes), row 0 starts {}",
        l1.shape(),
        t.elapsed(),
        l1.index((0, ..3))
    );
}

/// The three seed programs, with their results, jaxprs, memory plans and timings.
#[derive(Parser)]
struct Args {
    /// Side of seed 004's lattice (`n^3` sites).
    #[arg(long, default_value_t = 100)]
    n: usize,
    /// Images in seed 000's affinities.
    #[arg(long, default_value_t = 2000)]
    images: usize,
}

fn main() {
    let Args { n, images } = Args::parse();
    let t = Instant::now();
    seed_004(n);
    seed_002();
    seed_000(images);
    println!("\ntour done in {:.2?}", t.elapsed());
}
