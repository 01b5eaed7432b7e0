//! The seed programs (`shared/seeds/`), written as their authors wrote them in JAX.
//! Shared by the examples and the tests.
#![allow(dead_code)]

use oxla::numpy as jnp;
use oxla::Jit;
use oxla::{grad, jit, nn, random, vmap, Tensor};

/// Seed 004: `f(x) = (x[:, None] * x[None, :]).sum()`.
pub fn outer_sum(x: Tensor) -> Tensor {
    (x.index((.., None)) * x.index((None, ..))).sum(None)
}

/// Seed 004: lattice id to `(x, y, z)` on an `n`-cube.
pub fn to_id_xyz(lattice_id: &Tensor, n: i32) -> (Tensor, Tensor, Tensor) {
    let id_z = lattice_id % n;
    let lattice_id = jnp::floor_divide(lattice_id, n);
    let id_y = &lattice_id % n;
    let id_x = jnp::floor_divide(&lattice_id, n);
    (id_x, id_y, id_z)
}

/// Seed 004: the 3x3x3 neighbourhood (periodic) of a lattice site, `(3, 3, 3, dof)`.
pub fn extract_3x3x3_grid(lattice_id: &Tensor, value_tensor: &Tensor) -> Tensor {
    let n = value_tensor.shape()[0] as i32;
    let (id_x, id_y, id_z) = to_id_xyz(lattice_id, n);
    let around = |c: &Tensor| jnp::stack(&[(c - 1) % n, c.clone(), (c + 1) % n], 0);
    let grid = jnp::ix_(&[around(&id_x), around(&id_y), around(&id_z)]);
    value_tensor.index((&grid[0], &grid[1], &grid[2]))
}

/// Seed 004: `memory_test1` (`variant` 1) and `memory_test2` (`variant` 2).
pub fn memory_test(lattice_id: &Tensor, value_tensor: &Tensor, variant: usize) -> Tensor {
    let local = extract_3x3x3_grid(lattice_id, value_tensor);
    let dof = value_tensor.shape()[3];
    let vel = jnp::ones(&[3, 3, 3, dof, variant]);
    let u_local = local.index((.., .., .., .., None)) * vel;
    jnp::sum(&u_local, None)
}

/// Seed 004: `vmap(memory_test, in_axes=(0, None))` over lattice ids, as the seed jits it.
pub fn memory_test_batched(variant: usize) -> impl Fn((Tensor, Tensor)) -> Tensor + Copy {
    move |(ids, lattice)| {
        vmap(move |(id, v): (Tensor, Tensor)| memory_test(&id, &v, variant))
            .in_axes((0, None))
            .call((ids, lattice))
    }
}

/// Seed 002: squared error of a linear model for one example.
pub fn squared_error(params: &(Tensor, Tensor), x: &Tensor, y_true: &Tensor) -> Tensor {
    let (w, b) = params;
    let y_pred = w * x + b;
    jnp::power(y_pred - y_true, 2)
}

/// Seed 000: negative L1 distance between two images.
pub fn neg_l1(a: &Tensor, b: &Tensor) -> Tensor {
    -jnp::sum(jnp::abs(&(a - b)), None)
}

/// Seed 000's product affinity: `-sum(|a @ b|)` of two square images.
pub fn neg_prod_l1(a: &Tensor, b: &Tensor) -> Tensor {
    -jnp::sum(jnp::abs(a.matmul(b)), None)
}

/// Seed 000: inner-product affinities of `n` images by one matrix product.
pub fn affinity_matmul(imgs: &Tensor) -> Tensor {
    let f = imgs.reshape(&[imgs.shape()[0] as isize, -1]);
    f.matmul(f.t())
}

/// Seed 000: cosine affinities.
pub fn affinity_cosine(imgs: &Tensor) -> Tensor {
    let f = imgs.reshape(&[imgs.shape()[0] as isize, -1]);
    let f = &f / jnp::linalg::norm(&f, jnp::keepdims(1));
    f.matmul(f.t())
}

/// Parameters of the 784-256-10 MLP: `(w1, b1, w2, b2)`.
pub type Params = (Tensor, Tensor, Tensor, Tensor);

/// The MLP's loss for one example (seed 002 at scale, `shared/jax-reference/pegrad.py`).
pub fn mlp_loss((p, x, y): (Params, Tensor, Tensor)) -> Tensor {
    let (w1, b1, w2, b2) = p;
    let h = jnp::tanh(&(jnp::matmul(&x, &w1) + b1));
    let logits = jnp::matmul(&h, &w2) + b2;
    -jnp::sum(&(y * nn::log_softmax(&logits, -1)), None)
}

/// The MLP's parameters and a batch of `b` examples, drawn as `pegrad.py` draws them.
pub fn mlp_data(b: usize) -> (Params, Tensor, Tensor) {
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
    (params, x, y)
}

/// The compiled step type of [`per_example_grads`] and [`mean_grad`].
pub type GradStep = Jit<fn((Params, Tensor, Tensor)) -> Params, (Params, Tensor, Tensor), Params>;

/// `jit(vmap(grad(loss), in_axes=(None, 0, 0)))`.
pub fn per_example_grads() -> GradStep {
    fn step(a: (Params, Tensor, Tensor)) -> Params {
        vmap(grad(mlp_loss).as_fn()).in_axes((None, 0, 0)).call(a)
    }
    jit(step as fn(_) -> _)
}

/// `jit(grad(lambda p, x, y: mean(vmap(loss)(p, x, y))))`.
pub fn mean_grad() -> GradStep {
    fn step((p, x, y): (Params, Tensor, Tensor)) -> Params {
        let mean_loss = |(p, x, y): (Params, Tensor, Tensor)| {
            vmap(mlp_loss)
                .in_axes((None, 0, 0))
                .call((p, x, y))
                .mean(None)
        };
        grad(mean_loss).call((p, x, y))
    }
    jit(step as fn(_) -> _)
}
