//! The functions the cases differentiate (losses, a small network, JAX's `logsumexp` and
//! `.at[].add`) and the shorthands the table uses for `grad` and sums.

use oxla::numpy as jnp;
use oxla::prims::{GatherMode, ScatterDims};
use oxla::{grad, lax, nn, vmap, Tensor, Tree};

use crate::{seeds, T, T2, T4};

/// The leaves of a result.
pub fn leaves<O: Tree>(o: O) -> Vec<Tensor> {
    o.leaves()
}

/// `jax.grad(f)(x)` of a function of one tensor.
pub fn g1(f: impl Fn(T) -> T, x: &T) -> T {
    grad(f).call(x.clone())
}

/// `jax.grad(f, argnums=(0, 1))(x, y)`.
pub fn g2(f: impl Fn(T2) -> T, x: &T, y: &T) -> T2 {
    grad(f).argnums([0, 1]).call((x.clone(), y.clone()))
}

pub fn sum(x: &T) -> T {
    x.sum(None)
}

/// `x.at[idx].add(v)` for integer `idx` of rank 1 indexing axis 0, as JAX's indexing builds
/// it (`idx` in bounds and non-negative here).
pub fn at_add(x: &T, idx: &T, v: &T) -> T {
    let n = idx.shape()[0];
    let idx = idx.reshape(&[n, 1]);
    let sd = ScatterDims {
        update_window_dims: (1..v.ndim()).collect(),
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        ..ScatterDims::default()
    };
    lax::scatter_add(x, &idx, v, sd, GatherMode::FillOrDrop)
}

/// `jax.scipy.special.logsumexp(x, axis)`: `log(sum(exp(x - max))) + max`, with the max of
/// a row that is not finite replaced by 0.
pub fn logsumexp(x: &T, axis: isize) -> T {
    let m = jnp::max(x, jnp::keepdims(axis));
    let m = jnp::where_(jnp::isinf(&m), 0.0f32, &m);
    let s = jnp::log(jnp::sum(jnp::exp(&(x - &m)), jnp::keepdims(axis)));
    jnp::squeeze(&(s + m), [axis])
}

/// The manifest's `vecfun`: R^3 -> R^5.
pub fn vecfun(x: T) -> T {
    let e = |i: i32| x.index(i);
    jnp::stack(
        &[
            e(0) * e(1),
            jnp::sin(e(2)) * e(0),
            jnp::exp(&(e(1) - e(2))),
            jnp::power(e(0), 2) + jnp::tanh(e(1)),
            sum(&jnp::power(&x, 3)) / (1.0 + jnp::power(e(2), 2)),
        ],
        0,
    )
}

/// The manifest's `two_outputs`: (R^3, R^2) -> (R^2, R).
pub fn two_outputs((x, y): T2) -> T2 {
    (
        jnp::tanh(&(x.index(..2) * &y)),
        sum(&jnp::sin(&x)) * y.index(0),
    )
}

/// The manifest's `two_args_scalar`: (R^3, R^2) -> R.
pub fn two_args_scalar((x, y): T2) -> T {
    sum(&(jnp::sin(&x) * y.index(0))) + sum(&jnp::power(&y, 3)) * x.index(1)
}

/// `(a[0], a[1])`.
pub fn a2(a: &[T]) -> T2 {
    (a[0].clone(), a[1].clone())
}

/// The manifest's `rosenbrock`.
pub fn rosenbrock(x: T) -> T {
    let hi = x.index(1..);
    let lo = x.index(..-1);
    sum(&(jnp::power(hi - jnp::power(&lo, 2), 2) * 100.0 + jnp::power(1.0 - lo, 2)))
}

/// The manifest's `lin_loss(p, x, y) = (tanh(dot(w, x) + b) - y) ** 2`.
pub fn lin_loss((p, x, y): (T2, T, T)) -> T {
    let (w, b) = p;
    jnp::power(jnp::tanh(&(jnp::dot(&w, &x) + b)) - y, 2)
}

/// seed 002's `squared_error(params, x, y_true)`.
pub fn squared_error((p, x, y): (T2, T, T)) -> T {
    seeds::squared_error(&p, &x, &y)
}

/// seed 002's `predict(params, x) = w * x + b`.
pub fn predict((p, x): (T2, T)) -> T {
    let (w, b) = p;
    w * x + b
}

/// seed 002's `mean_squared_error`, with `vmap(predict)` inside.
pub fn mean_squared_error((p, xs, ys): (T2, T, T)) -> T {
    let pred: T = vmap(predict).in_axes((None, 0)).call((p, xs));
    jnp::power(pred - ys, 2).mean(None)
}

/// seed 002's `jax.vmap(jax.grad(squared_error, argnums=0), in_axes=(None, 0, 0))`.
pub fn seed002_per_example(args: (T2, T, T)) -> T2 {
    vmap(|a| grad(squared_error).call::<_, T2>(a))
        .in_axes((None, 0, 0))
        .call(args)
}

/// `(w, b), x, y` from a seed 002 case's flat inputs.
pub fn seed002_args(a: &[T]) -> (T2, T, T) {
    ((a[0].clone(), a[1].clone()), a[2].clone(), a[3].clone())
}

/// pegrad.py's `mlp_loss(p, x, y)`: a 784-256-10 tanh MLP with log-softmax cross-entropy.
pub fn mlp_loss((p, x, y): (T4, T, T)) -> T {
    let (w1, b1, w2, b2) = p;
    let h = jnp::tanh(&(x.matmul(&w1) + b1));
    let logits = h.matmul(&w2) + b2;
    -sum(&(y * nn::log_softmax(&logits, -1)))
}
