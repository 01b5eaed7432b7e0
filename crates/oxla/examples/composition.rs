//! Seed 002: composing vmap and grad — per-example gradients, the mean-loss gradient, and
//! the check that the mean of per-example gradients equals the gradient of the mean.
//!
//! `cargo run --release --example composition`

#[path = "seeds/mod.rs"]
mod seeds;

use clap::Parser;
use oxla::{grad, make_jaxpr, numpy as jnp, vmap, Tensor};

type Params = (Tensor, Tensor);

fn predict(params: &Params, x: &Tensor) -> Tensor {
    let (w, b) = params;
    w * x + b
}

fn squared_error((params, x, y_true): (Params, Tensor, Tensor)) -> Tensor {
    seeds::squared_error(&params, &x, &y_true)
}

fn mean_squared_error((params, batch_x, batch_y_true): (Params, Tensor, Tensor)) -> Tensor {
    // vmap inside the loss, as the seed does.
    let batched_predict = vmap(|(p, x): (Params, Tensor)| predict(&p, &x)).in_axes((None, 0));
    let batch_y_pred = batched_predict.call((params, batch_x));
    jnp::mean(&jnp::power(batch_y_pred - batch_y_true, 2), None)
}

/// Per-example gradients, the mean-loss gradient, and the check that they agree.
#[derive(Parser)]
struct Args {}

fn main() {
    Args::parse();
    // Per-example gradients: vmap of grad, mapping x and y but not the parameters.
    let grad_loss_single = grad(squared_error);
    let params = (Tensor::scalar(2.0f32), Tensor::scalar(1.0f32));
    let batch_x = jnp::linspace(0.0, 1.0, 5);
    let batch_y_true = &batch_x * 2.5 + 0.5;
    let grad_loss_batch = vmap(grad_loss_single.as_fn()).in_axes((None, 0, 0));
    let batch_gradients =
        grad_loss_batch.call((params.clone(), batch_x.clone(), batch_y_true.clone()));
    println!("params (w, b): ({}, {})", params.0, params.1);
    println!("batch x: {batch_x}");
    println!("batch y_true: {batch_y_true}");
    println!("\nper-example gradients (dw): {}", batch_gradients.0);
    println!("per-example gradients (db): {}", batch_gradients.1);
    println!("\nshape of dw: {:?}", batch_gradients.0.shape());
    println!("shape of db: {:?}", batch_gradients.1.shape());

    // The gradient of the mean loss.
    let grad_mean_loss = grad(mean_squared_error);
    let mean_batch_gradient =
        grad_mean_loss.call((params.clone(), batch_x.clone(), batch_y_true.clone()));
    println!("\n--- mean gradient ---");
    println!(
        "mean batch gradient (dw, db): ({}, {})",
        mean_batch_gradient.0, mean_batch_gradient.1
    );
    println!("shape of mean dw: {:?}", mean_batch_gradient.0.shape());
    println!("shape of mean db: {:?}", mean_batch_gradient.1.shape());

    let mean_dw = jnp::mean(&batch_gradients.0, None);
    let mean_db = jnp::mean(&batch_gradients.1, None);
    println!("mean of per-example dw: {mean_dw}");
    println!("mean of per-example db: {mean_db}");
    let py = |b: bool| if b { "True" } else { "False" };
    let dw_match = jnp::allclose(&mean_batch_gradient.0, &mean_dw).to_vec::<bool>()[0];
    let db_match = jnp::allclose(&mean_batch_gradient.1, &mean_db).to_vec::<bool>()[0];
    println!("mean gradient matches (dw): {}", py(dw_match));
    println!("mean gradient matches (db): {}", py(db_match));

    println!("\nmake_jaxpr(vmap(grad(squared_error)).in_axes((None, 0, 0))):");
    let traced = |args| grad_loss_batch.call(args);
    println!("{}", make_jaxpr(traced, (params, batch_x, batch_y_true)));
}
