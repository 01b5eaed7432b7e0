"""`jax.numpy` set functions with a static `size`: `unique_values`, `unique_counts`,
`unique_inverse`, `union1d`, `intersect1d`, `setdiff1d`, `setxor1d` — the table
`crates/oxla/tests/surface/numpy_sets.rs`."""

import jax.numpy as jnp
import numpy as np

from registry import case, f32, i32


def _ties(rng, shape):
    return rng.integers(-3, 4, size=shape).astype(np.float32) + 0.25


@case("unique_values", lambda rng: [_ties(rng, (3, 4))])
def _(x):
    return jnp.unique_values(x, size=3), jnp.unique_values(x, size=12), jnp.unique_values(x, size=12, fill_value=-9.0)


@case("unique_values_nan", lambda rng: [np.array([1.0, np.nan, 0.0, -0.0, np.nan, 1.0, -np.inf], np.float32)])
def _(x):
    return jnp.unique_values(x, size=7, fill_value=5.0), jnp.unique_counts(x, size=6, fill_value=5.0)


@case("unique_counts", lambda rng: [i32(rng, (10,), -2, 3)])
def _(x):
    v, c = jnp.unique_counts(x, size=3)
    v2, c2 = jnp.unique_counts(x, size=8, fill_value=0)
    return v, c, v2, c2


@case("unique_inverse", lambda rng: [_ties(rng, (2, 5))])
def _(x):
    v, i = jnp.unique_inverse(x, size=10, fill_value=0.0)
    v2, i2 = jnp.unique_inverse(x, size=2)
    return v, i, v2, i2


@case("union1d", lambda rng: [_ties(rng, (5,)), _ties(rng, (2, 3))])
def _(a, b):
    return jnp.union1d(a, b, size=4), jnp.union1d(a, b, size=12, fill_value=7.0)


@case("union1d_int_empty", lambda rng: [i32(rng, (4,)), np.zeros((0,), np.int32)], grad=False)
def _(a, b):
    return jnp.union1d(a, b, size=5, fill_value=-1), jnp.union1d(b, b, size=2, fill_value=3)


@case("intersect1d", lambda rng: [i32(rng, (8,), -3, 4), i32(rng, (6,), -3, 4)], grad=False)
def _(a, b):
    return (jnp.intersect1d(a, b, size=3), jnp.intersect1d(a, b, size=8),
            jnp.intersect1d(a, b, size=8, fill_value=-5), jnp.intersect1d(a[:0], b, size=2))


@case("setdiff1d", lambda rng: [i32(rng, (8,), -3, 4), i32(rng, (4,), -3, 4)], grad=False)
def _(a, b):
    return (jnp.setdiff1d(a, b, size=2), jnp.setdiff1d(a, b, size=8),
            jnp.setdiff1d(a, b, size=8, fill_value=9), jnp.setdiff1d(a[:0], b, size=3))


@case("setxor1d", lambda rng: [i32(rng, (6,), -3, 4), i32(rng, (5,), -3, 4)], grad=False)
def _(a, b):
    return jnp.setxor1d(a, b, size=3), jnp.setxor1d(a, b, size=11, fill_value=-7)


@case("sets_float", lambda rng: [_ties(rng, (6,)), _ties(rng, (4,))])
def _(a, b):
    return (jnp.intersect1d(a, b, size=4), jnp.setdiff1d(a, b, size=6),
            jnp.setxor1d(a, b, size=10, fill_value=0.5))
