//! Seed 002 at scale: per-example gradients `jit(vmap(grad(loss)))` and the mean gradient
//! `jit(grad(mean loss))` of a 784-256-10 tanh MLP, with the parameters and data drawn as
//! `shared/jax-reference/pegrad.py` draws them.
//!
//! `cargo run --release --example pegrad -- --batch 256`

#[path = "cli/mod.rs"]
mod cli;

use std::time::{Duration, Instant};

use cli::{arg, median};
use oxla::{grad, jit, nn, numpy as jnp, random, vmap, Tensor};

type Params = (Tensor, Tensor, Tensor, Tensor);

fn loss((p, x, y): (Params, Tensor, Tensor)) -> Tensor {
    let (w1, b1, w2, b2) = p;
    let h = jnp::tanh(&(jnp::matmul(&x, &w1) + b1));
    let logits = jnp::matmul(&h, &w2) + b2;
    -jnp::sum(&(y * nn::log_softmax(&logits, -1)), None)
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
    let b = arg("--batch", 256);
    let ks = random::split(&random::key(42), 3);
    let k = |i: usize| ks.index(i);
    let params: Params = (
        random::normal(&k(0), &[784, 256]) * 0.05,
        jnp::zeros(&[256]),
        random::normal(&k(1), &[256, 10]) * 0.05,
        jnp::zeros(&[10]),
    );
    let x = random::normal(&k(2), &[b, 784]);
    let y = nn::one_hot(&(jnp::arange(b as i32) % 10), 10);

    let per_example = jit(|a: (Params, Tensor, Tensor)| -> Params {
        vmap(|a| grad(loss).call(a).expect("scalar loss"))
            .in_axes((None, 0, 0))
            .call(a)
            .expect("traced")
    });
    let mean = jit(|(p, x, y): (Params, Tensor, Tensor)| -> Params {
        let mean_loss = |(p, x, y): (Params, Tensor, Tensor)| -> Tensor {
            let l: Tensor = vmap(loss)
                .in_axes((None, 0, 0))
                .call((p, x, y))
                .expect("traced");
            l.mean(None)
        };
        grad(mean_loss).call((p, x, y)).expect("scalar loss")
    });
    let args = (params, x, y);
    if std::env::args().any(|a| a == "--explain") {
        for (name, c) in [
            ("per_example", per_example.lower(&args)?.compile()?),
            ("mean", mean.lower(&args)?.compile()?),
        ] {
            println!("# {name}\n{}", c.memory_analysis());
            for s in c.fusion() {
                let reads: Vec<String> = s.inputs.iter().map(|a| a.to_string()).collect();
                println!("{} <- {:?} reads {reads:?}", s.output, s.primitives);
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
