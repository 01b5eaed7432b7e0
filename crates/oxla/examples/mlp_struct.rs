//! A small MLP whose parameters are a struct deriving `Tree`: SGD steps with a `tree_map2`
//! update, then per-example gradients by `jit(vmap(grad(loss)))` returning the struct,
//! checked against the same computation on a tuple of the parameters.
//!
//! `cargo run --example mlp_struct [-- --steps 20]`

use clap::Parser;
use oxla::tree::{tree_map2, tree_structure};
use oxla::{grad, jit, numpy as jnp, random, value_and_grad, vmap, Tensor, Tree};

/// A two-layer perceptron: `tanh(x @ w1 + b1) @ w2 + b2`.
#[derive(Tree, Clone)]
struct Mlp {
    w1: Tensor,
    b1: Tensor,
    w2: Tensor,
    b2: Tensor,
}

/// The same parameters as a tuple, for the check.
type MlpTuple = (Tensor, Tensor, Tensor, Tensor);

fn init(key: &Tensor, inputs: usize, hidden: usize) -> Mlp {
    let normal = |i: u32, shape: &[usize], scale: f64| {
        random::normal(&random::fold_in(key, i), shape) * scale
    };
    Mlp {
        w1: normal(0, &[inputs, hidden], (1.0 / inputs as f64).sqrt()),
        b1: jnp::zeros(&[hidden]),
        w2: normal(1, &[hidden], (1.0 / hidden as f64).sqrt()),
        b2: jnp::zeros(&[]),
    }
}

/// Squared error on one example (`x`: features, `y`: a scalar target).
fn loss((p, x, y): (Mlp, Tensor, Tensor)) -> Tensor {
    let h = (x.matmul(&p.w1) + &p.b1).tanh();
    let d = h.matmul(&p.w2) + &p.b2 - &y;
    &d * &d
}

/// The mean loss over a batch.
fn batch_loss((p, xs, ys): (Mlp, Tensor, Tensor)) -> Tensor {
    let losses = vmap(loss).in_axes((None, 0, 0)).call((p, xs, ys));
    jnp::mean(&losses, None)
}

fn loss_tuple(((w1, b1, w2, b2), x, y): (MlpTuple, Tensor, Tensor)) -> Tensor {
    loss((Mlp { w1, b1, w2, b2 }, x, y))
}

fn allclose(a: &Tensor, b: &Tensor) -> bool {
    jnp::allclose(a, b).to_vec::<bool>()[0]
}

/// Trains a small MLP on a synthetic regression, then checks per-example gradients.
#[derive(Parser)]
struct Args {
    /// SGD steps.
    #[arg(long, default_value_t = 20)]
    steps: usize,
}

fn main() -> oxla::Result<()> {
    let Args { steps } = Args::parse();
    let (n, inputs, hidden, lr) = (32, 4, 16, 0.1);
    let key = random::key(0);
    let xs = random::normal(&random::fold_in(&key, 1), &[n, inputs]);
    let ys = xs.matmul(&jnp::linspace(-1.0, 1.0, inputs)).sin();
    let mut params = init(&random::fold_in(&key, 2), inputs, hidden);
    println!("parameters: {}", tree_structure(&params));

    // One jitted function computes the loss and its gradient, an `Mlp`.
    let step = jit(value_and_grad(batch_loss).as_fn());
    let mut first = None;
    let mut last = 0.0;
    for _ in 0..steps {
        let (l, g) = step.call((params.clone(), xs.clone(), ys.clone()))?;
        params = tree_map2(|p, g| p - g * lr, &params, &g);
        first.get_or_insert(l.item());
        last = l.item();
    }
    println!(
        "loss {:.4} -> {last:.4} after {steps} SGD steps",
        first.unwrap_or(last)
    );

    // Per-example gradients: jit(vmap(grad(loss))), mapping the data, not the parameters.
    let per_example = jit(vmap(grad(loss).as_fn()).in_axes((None, 0, 0)).as_fn());
    let grads = per_example.call((params.clone(), xs.clone(), ys.clone()))?;
    println!(
        "per-example gradients: {} with w1 {:?}, b1 {:?}, w2 {:?}, b2 {:?}",
        tree_structure(&grads),
        grads.w1.shape(),
        grads.b1.shape(),
        grads.w2.shape(),
        grads.b2.shape()
    );

    // The same with a tuple of parameters.
    let per_example_tuple = jit(vmap(grad(loss_tuple).as_fn()).in_axes((None, 0, 0)).as_fn());
    let tuple_params = (params.w1, params.b1, params.w2, params.b2);
    let (w1, b1, w2, b2) = per_example_tuple.call((tuple_params, xs, ys))?;
    let same = allclose(&grads.w1, &w1)
        && allclose(&grads.b1, &b1)
        && allclose(&grads.w2, &w2)
        && allclose(&grads.b2, &b2);
    println!("struct and tuple per-example gradients agree: {same}");
    assert!(same, "the struct's gradients differ from the tuple's");
    Ok(())
}
