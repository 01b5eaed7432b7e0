//! Prints the jaxprs of the seed programs, as `jax.make_jaxpr` prints them.
//!
//! `cargo run --release --example jaxpr_tour`

#[path = "seeds/mod.rs"]
mod seeds;

use clap::Parser;
use oxla::{make_jaxpr, numpy as jnp, vmap, Array, DType, Tensor};

/// Prints the jaxprs of the seed programs.
#[derive(Parser)]
struct Args {}

fn main() {
    Args::parse();
    println!("# seed 004: f(x) = (x[:, None] * x[None, :]).sum() on f32[100]");
    println!("{}\n", make_jaxpr(seeds::outer_sum, jnp::ones(&[100])));

    println!("# seed 004: vmap(f) on f32[10,100]");
    let vf = |x: Tensor| vmap(seeds::outer_sum).call(x);
    println!("{}\n", make_jaxpr(vf, jnp::ones(&[10, 100])));

    println!("# seed 004: memory_test1's body for one lattice id (N = 400, dof = 19)");
    // Zeroed pages are not touched: the 4.9 GB lattice costs no memory until written.
    let lattice = Tensor::new(Array::zeros(DType::F32, &[400, 400, 400, 19]));
    let body = |(id, v): (Tensor, Tensor)| seeds::memory_test(&id, &v, 1);
    let args = (Tensor::scalar(0i32), lattice);
    println!("{}\n", make_jaxpr(body, args.clone()));

    println!("# the same with source lines");
    println!("{}\n", make_jaxpr(body, args).pretty().source_info(true));

    println!("# seed 004: vmap(memory_test2, in_axes=(0, None)) over every lattice id (N = 400)");
    let ids = Tensor::new(Array::zeros(DType::I32, &[400 * 400 * 400]));
    let lattice = Tensor::new(Array::zeros(DType::F32, &[400, 400, 400, 19]));
    let batched = seeds::memory_test_batched(2);
    let text = make_jaxpr(batched, (ids, lattice)).to_string();
    let lines: Vec<&str> = text.lines().collect();
    println!("... {} lines; the gather and what follows:", lines.len());
    let gather = lines
        .iter()
        .position(|l| l.contains("= gather["))
        .unwrap_or(0);
    println!("{}\n", lines[gather..].join("\n"));

    println!("# seed 002: squared_error(params, x, y_true) on scalars");
    let se = |(p, x, y): ((Tensor, Tensor), Tensor, Tensor)| seeds::squared_error(&p, &x, &y);
    let s = || Tensor::scalar(1.0f32);
    println!("{}", make_jaxpr(se, ((s(), s()), s(), s())));
}
