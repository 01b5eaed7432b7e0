"""`jax.lax`: the reductions and bitwise functions under JAX's names (the table
`crates/oxla/tests/surface/lax_reduce.rs`)."""

import numpy as np
from jax import lax

from registry import boolean, case, f32, i32, ties_f32, with_edges


@case("reduce_sum_axes", lambda rng: [f32(rng, (2, 3, 4))])
def _(x):
    return lax.reduce_sum(x, (0, 2))


@case("reduce_prod_axis", lambda rng: [f32(rng, (3, 4), 0.5, 1.5)])
def _(x):
    return lax.reduce_prod(x, (1,))


@case("reduce_max_edges", lambda rng: [with_edges(f32(rng, (3, 4)), (np.nan, np.inf, -np.inf))])
def _(x):
    return lax.reduce_max(x, (1,)), lax.reduce_min(x, (0,))


@case("reduce_max_ties", lambda rng: [ties_f32(rng, (3, 5))])
def _(x):
    return lax.reduce_max(x, (1,)), lax.reduce_min(x, (1,))


@case("reduce_and_or", lambda rng: [boolean(rng, (3, 4))])
def _(x):
    return lax.reduce_and(x, (1,)), lax.reduce_or(x, (0,))


@case("argmax_argmin_ties", lambda rng: [ties_f32(rng, (4, 5))])
def _(x):
    return lax.argmax(x, 1, np.int32), lax.argmin(x, 0, np.int32)


@case("argmax_nan", lambda rng: [with_edges(f32(rng, (6,)), (0.5, np.nan, 2.0))])
def _(x):
    return lax.argmax(x, 0, np.int32), lax.argmin(x, 0, np.int32)


@case("bitwise_i32", lambda rng: [i32(rng, (3, 4), -50, 50), i32(rng, (3, 4), -50, 50)])
def _(x, y):
    return lax.bitwise_and(x, y), lax.bitwise_or(x, y), lax.bitwise_xor(x, y), lax.bitwise_not(x)


@case("bitwise_bool", lambda rng: [boolean(rng, (5,)), boolean(rng, (5,))])
def _(x, y):
    return lax.bitwise_and(x, y), lax.bitwise_or(x, y), lax.bitwise_xor(x, y), lax.bitwise_not(x)
