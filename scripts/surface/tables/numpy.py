"""jax.numpy: the functions of `oxla::numpy` (the table `crates/oxla/tests/surface/numpy.rs`)."""

import jax.numpy as jnp
import numpy as np

from registry import case, f32, i32, ties_f32, with_edges


@case("exp_edges", lambda rng: [with_edges(f32(rng, (2, 4), -3, 3))])
def _(x):
    return jnp.exp(x)


@case("cumsum_axis1", lambda rng: [f32(rng, (3, 4))])
def _(x):
    return jnp.cumsum(x, axis=1)


@case("argmax_ties", lambda rng: [ties_f32(rng, (3, 5))], grad=False)
def _(x):
    return jnp.argmax(x, axis=1)


@case("where_take", lambda rng: [f32(rng, (3, 4)), f32(rng, (3, 4))])
def _(x, y):
    return jnp.where(x > 0, x * y, y), jnp.sum(x, axis=0)


@case("sum_int", lambda rng: [i32(rng, (3, 4))])
def _(x):
    return jnp.sum(x, axis=1)
