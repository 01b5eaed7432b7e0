//! The main job: the three seed programs, run eagerly, with their jaxprs and timings.
//!
//! `cargo run --release --example tour [-- --n 16 --images 2000]`
//!
//! The per-example functions are batched with `vmap`; grad and jit are being built.

#[path = "cli/mod.rs"]
mod cli;
#[path = "seeds/mod.rs"]
mod seeds;

use std::time::Instant;

use cli::arg;
use oxla::{jit, make_jaxpr, numpy as jnp, random, vmap, Array, DType, Tensor};

fn seed_004(n: usize) {
    println!("== seed 004: 3x3x3 neighbourhood sums over an {n}^3 x 19 lattice of ones");
    let lattice = jnp::ones(&[n, n, n, 19]);
    let ids = jnp::arange((n * n * n) as i32);
    for variant in [1, 2] {
        let batched = seeds::memory_test_batched(variant);
        let t = Instant::now();
        let compiled = jit(batched)
            .lower(&(ids.clone(), lattice.clone()))
            .and_then(|l| l.compile())
            .expect("compiles");
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
    let big = Tensor::new(Array::zeros(DType::F32, &[400, 400, 400, 19]));
    let body = |(id, v): (Tensor, Tensor)| seeds::memory_test(&id, &v, 2);
    let j = make_jaxpr(body, (Tensor::scalar(0i32), big));
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
        .call((params, xs.clone(), ys.clone()))
        .expect("fits in memory");
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
    let m = 200.min(n);
    let t = Instant::now();
    let few = imgs.index(..m);
    let all = |(block, imgs): (Tensor, Tensor)| -> Tensor {
        vmap(move |x: Tensor| -> Tensor {
            vmap(|y: Tensor| seeds::neg_l1(&x, &y))
                .call(imgs.clone())
                .expect("traced")
        })
        .call(block)
        .expect("traced")
    };
    let compiled = jit(all)
        .lower(&(few.clone(), few.clone()))
        .and_then(|l| l.compile())
        .expect("compiles");
    let l1 = compiled.call((few.clone(), few)).expect("fits");
    println!(
        "negative L1, jit(vmap(vmap(aff))) over the first {m} images: {:?} in {:.2?} \
         (temporary memory planned: {} bytes), row 0 starts {}",
        l1.shape(),
        t.elapsed(),
        compiled.memory_analysis().temp_bytes,
        l1.index((0, ..3))
    );
}

fn main() {
    let n = arg("--n", 100);
    let images = arg("--images", 2000);
    let t = Instant::now();
    seed_004(n);
    seed_002();
    seed_000(images);
    println!("\ntour done in {:.2?}", t.elapsed());
}
