//! Data-parallel training, JAX's recipe: the batch split over devices, every device's
//! gradient of its shard averaged with `pmean`, the same update applied everywhere
//! (`pmap(grad)` + `pmean`). The 784-256-10 MLP of seed 002, trained by gradient descent.
//!
//! ```text
//! OXLA_NUM_DEVICES=2 cargo run --release --example data_parallel -- --batch 512 --steps 20
//! ```
//!
//! Each step is one jitted function holding the `pmap`. The parameters are checked against
//! the same steps taken on one device with the whole batch's mean gradient.

#[path = "seeds/mod.rs"]
mod seeds;

use std::time::Instant;

use clap::Parser;
use oxla::{grad, jit, lax, pmap, Tensor};
use seeds::{mlp_data, mlp_loss, Params};

/// Gradient descent on a batch split over the devices.
#[derive(Parser)]
struct Args {
    /// Examples in the whole batch (a multiple of the device count).
    #[arg(long, default_value_t = 512)]
    batch: usize,
    /// Steps of gradient descent.
    #[arg(long, default_value_t = 20)]
    steps: usize,
    /// The learning rate.
    #[arg(long, default_value_t = 0.1)]
    lr: f32,
}

/// The mean loss of a batch.
fn batch_loss((p, x, y): (Params, Tensor, Tensor)) -> Tensor {
    let per: Tensor = oxla::vmap(mlp_loss)
        .in_axes((None::<i32>, 0, 0))
        .call((p, x, y));
    per.mean(None)
}

/// `p - lr * g`, leaf by leaf.
fn update(p: &Params, g: &Params, lr: f32) -> Params {
    (
        &p.0 - &g.0 * lr,
        &p.1 - &g.1 * lr,
        &p.2 - &g.2 * lr,
        &p.3 - &g.3 * lr,
    )
}

/// The gradient of the mean loss, averaged over the devices' shards with `pmean`.
fn pmean_grad(p: Params, x: Tensor, y: Tensor) -> Params {
    let devices = oxla::local_device_count() as isize;
    let shard = |t: &Tensor| {
        let mut s = vec![devices, -1];
        s.extend(t.shape()[1..].iter().map(|&d| d as isize));
        t.reshape(&s)
    };
    let (xs, ys) = (shard(&x), shard(&y));
    pmap(|(p, x, y): (Params, Tensor, Tensor)| {
        let g: Params = grad(batch_loss).call((p, x, y));
        (
            lax::pmean(&g.0, "batch"),
            lax::pmean(&g.1, "batch"),
            lax::pmean(&g.2, "batch"),
            lax::pmean(&g.3, "batch"),
        )
    })
    .axis_name("batch")
    .in_axes((None::<i32>, 0, 0))
    .out_axes(None::<i32>)
    .call((p, xs, ys))
}

fn main() {
    let cli = Args::parse();
    let (params, x, y) = mlp_data(cli.batch);
    let lr = cli.lr;
    let parallel = jit(move |(p, x, y): (Params, Tensor, Tensor)| {
        let g = pmean_grad(p.clone(), x, y);
        update(&p, &g, lr)
    });
    let single = jit(move |(p, x, y): (Params, Tensor, Tensor)| {
        let g: Params = grad(batch_loss).call((p.clone(), x, y));
        update(&p, &g, lr)
    });
    let loss = jit(batch_loss);
    println!(
        "{} examples over {} devices, {} steps",
        cli.batch,
        oxla::local_device_count(),
        cli.steps
    );
    let (mut p, mut q) = (params.clone(), params);
    let t = Instant::now();
    for step in 0..cli.steps {
        p = parallel.call((p, x.clone(), y.clone())).expect("fits");
        if step % 5 == 4 || step + 1 == cli.steps {
            let l: Tensor = loss.call((p.clone(), x.clone(), y.clone())).expect("fits");
            println!("step {:3}: loss {:.5}", step + 1, l.item());
        }
    }
    let t_parallel = t.elapsed().as_secs_f64();
    let t = Instant::now();
    for _ in 0..cli.steps {
        q = single.call((q, x.clone(), y.clone())).expect("fits");
    }
    let t_single = t.elapsed().as_secs_f64();
    let leaves = |p: &Params| [p.0.clone(), p.1.clone(), p.2.clone(), p.3.clone()];
    let worst = leaves(&p)
        .iter()
        .zip(leaves(&q))
        .map(|(a, b)| (a - &b).abs().max(None).item())
        .fold(0.0, f64::max);
    println!(
        "devices: {t_parallel:.2} s; one device, whole batch: {t_single:.2} s; largest parameter \
         difference {worst:.1e}"
    );
    assert!(
        worst < 1e-4,
        "the data-parallel parameters drift from one device's"
    );
}
