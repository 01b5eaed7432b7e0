//! Compile time of long elementwise chains: `x = x * 1.0001 + 0.5`, two equations a step,
//! traced, compiled (simplify, fuse, plan) and run on a thread with a 2 MiB stack; then the
//! jitted gradient of a chain as long of `y = sin(y) + 0.5`.
//!
//! `cargo run --release --example long_chain -- [EQUATIONS...] [--stack MiB]`
//! (default: 10000 40000 100000 equations, 2 MiB).

use std::time::Instant;

use clap::Parser;
use oxla::{grad, jit, make_jaxpr, numpy as jnp, Tensor};

/// The chain of `eqns` equations on `x`.
fn chain(x: Tensor, eqns: usize) -> Tensor {
    let mut x = x;
    for _ in 0..eqns / 2 {
        x = x * 1.0001 + 0.5;
    }
    x
}

fn measure(eqns: usize) {
    let x = jnp::linspace(-1.0, 1.0, 1024);
    let t = Instant::now();
    let traced = make_jaxpr(|x| chain(x, eqns), x.clone());
    let trace_s = t.elapsed().as_secs_f64();
    assert_eq!(traced.jaxpr.eqns.len(), eqns / 2 * 2);
    drop(traced);
    let f = jit(move |x| chain(x, eqns));
    let t = Instant::now();
    let compiled = f.lower(&x).compile();
    let compile_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let y = compiled.call(x.clone()).expect("runs");
    let run_s = t.elapsed().as_secs_f64();
    let kernels = compiled.fusion().len();
    let t = Instant::now();
    drop(compiled);
    let drop_s = t.elapsed().as_secs_f64();
    let mut want = x.to_vec::<f32>();
    for v in &mut want {
        for _ in 0..eqns / 2 {
            *v = *v * 1.0001 + 0.5;
        }
    }
    let same = y.to_vec::<f32>() == want;
    println!(
        "{eqns:>7} equations: trace {trace_s:6.3} s, lower+compile {compile_s:6.3} s, \
         run {run_s:6.3} s, drop {drop_s:6.3} s, {kernels} kernels, bitwise equal: {same}"
    );
    // The gradient of `sum(y)`, `y = sin(y) + 0.5` chained: its backward pass reads every
    // step's value.
    let sin_chain = move |x: Tensor| (0..eqns / 2).fold(x, |y, _| jnp::sin(&y) + 0.5).sum(None);
    let g = jit(move |x| grad(sin_chain).call(x));
    let t = Instant::now();
    let compiled = g.lower(&x).compile();
    let compile_s = t.elapsed().as_secs_f64();
    let steps = compiled.jaxpr().jaxpr.eqns.len();
    let t = Instant::now();
    let dx: Tensor = compiled.call(x).expect("runs");
    let run_s = t.elapsed().as_secs_f64();
    let finite = dx.to_vec::<f32>().iter().all(|v| v.is_finite());
    println!(
        "{steps:>7} equations of the gradient of a sin chain: trace+compile {compile_s:6.3} s, \
         run {run_s:6.3} s, {} steps, finite: {finite}",
        compiled.fusion().len()
    );
}

/// Compile time of long elementwise chains and of their gradients.
#[derive(Parser)]
struct Args {
    /// Equations in each chain measured.
    #[arg(value_name = "EQUATIONS", default_values_t = [10_000, 40_000, 100_000])]
    sizes: Vec<usize>,
    /// Stack of the thread that traces, compiles and runs, in MiB.
    #[arg(long = "stack", value_name = "MiB", default_value_t = 2)]
    stack_mib: usize,
}

fn main() {
    let Args { sizes, stack_mib } = Args::parse();
    println!("stack: {stack_mib} MiB");
    std::thread::Builder::new()
        .stack_size(stack_mib << 20)
        .spawn(move || sizes.into_iter().for_each(measure))
        .expect("spawned")
        .join()
        .expect("measured");
}
