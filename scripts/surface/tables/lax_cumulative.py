"""`jax.lax`: cumulative reductions, `associative_scan`, `top_k`, `sort_key_val`. (the table `crates/oxla/tests/surface/lax_cumulative.rs`)."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from registry import case, f32, i32, ties_f32, with_edges


@case("cumsum_reverse", lambda rng: [f32(rng, (3, 5))])
def _(x):
    return lax.cumsum(x, axis=1, reverse=True), lax.cumsum(x, axis=0)


@case("cumprod_axes", lambda rng: [f32(rng, (3, 5), 0.5, 1.5)])
def _(x):
    return lax.cumprod(x, axis=1), lax.cumprod(x, axis=0, reverse=True)


@case("cumprod_zeros", lambda rng: [with_edges(f32(rng, (2, 7)), (0.0, 1.0, 0.0))])
def _(x):
    return lax.cumprod(x, axis=1), lax.cumprod(x, axis=1, reverse=True)


@case("cumprod_int", lambda rng: [i32(rng, (3, 4), -2, 3)])
def _(x):
    return lax.cumprod(x, axis=1)


@case("cummax_cummin", lambda rng: [f32(rng, (4, 6))])
def _(x):
    return lax.cummax(x, axis=1), lax.cummin(x, axis=0), lax.cummax(x, axis=0, reverse=True), lax.cummin(x, axis=1, reverse=True)


@case("cummax_ties", lambda rng: [ties_f32(rng, (3, 6))])
def _(x):
    return lax.cummax(x, axis=1), lax.cummin(x, axis=1, reverse=True)


@case("cummax_edges", lambda rng: [with_edges(f32(rng, (2, 5)), (1.0, np.nan, -np.inf, 0.5, np.inf))])
def _(x):
    return lax.cummax(x, axis=1), lax.cummin(x, axis=1)


@case("cummax_int", lambda rng: [i32(rng, (3, 5))])
def _(x):
    return lax.cummax(x, axis=1), lax.cummin(x, axis=0, reverse=True)


@case("cumlogsumexp", lambda rng: [f32(rng, (3, 5), -3, 3)])
def _(x):
    return lax.cumlogsumexp(x, axis=1), lax.cumlogsumexp(x, axis=0, reverse=True)


@case("associative_scan_add", lambda rng: [f32(rng, (3, 6))])
def _(x):
    return lax.associative_scan(jnp.add, x, axis=-1), lax.associative_scan(jnp.add, x, reverse=True, axis=1)


@case("associative_scan_recurrence", lambda rng: [f32(rng, (7, 2), 0.5, 1.0), f32(rng, (7, 2))])
def _(a, b):
    # The linear recurrence h_t = a_t h_{t-1} + b_t as a scan over pairs.
    def fn(x, y):
        return x[0] * y[0], x[1] * y[0] + y[1]

    return lax.associative_scan(fn, (a, b)), lax.associative_scan(fn, (a, b), reverse=True)


@case("associative_scan_short", lambda rng: [f32(rng, (2, 3)), f32(rng, (1, 3))])
def _(x, y):
    return lax.associative_scan(jnp.maximum, x), lax.associative_scan(jnp.multiply, y)


@case("top_k", lambda rng: [f32(rng, (3, 6))])
def _(x):
    return lax.top_k(x, 3)


@case("top_k_ties_nan", lambda rng: [with_edges(ties_f32(rng, (2, 6)), (np.nan, np.inf, -np.inf))])
def _(x):
    return lax.top_k(x, 4)


@case("top_k_int_full", lambda rng: [i32(rng, (7,))])
def _(x):
    return lax.top_k(x, 7), lax.top_k(x, 0)


@case("sort_key_val", lambda rng: [ties_f32(rng, (3, 5)), f32(rng, (3, 5))])
def _(k, v):
    return lax.sort_key_val(k, v, dimension=1), lax.sort_key_val(k, v, dimension=0)


@case("empty_axis", lambda rng: [f32(rng, (2, 0))])
def _(z):
    return lax.top_k(z, 0), lax.cummax(z, axis=1), lax.cumprod(z, axis=1), lax.associative_scan(jnp.add, z, axis=1)
