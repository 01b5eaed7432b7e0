"""`lax.betainc` and `jax.scipy.special.betainc` (the table
`crates/oxla/tests/surface/special_extra.rs`). JAX differentiates them in `x` only, so `a`
and `b` are made inside from integer inputs (`ai / 4 + 0.1`, at least 1.1, where the
derivative in `x` is finite at `x = 0` and `x = 1` too)."""

import jax
import jax.numpy as jnp
import numpy as np

from registry import case, f32, f64, i32


def params(ai, bi, dtype):
    return ai.astype(dtype) / 4 + 0.1, bi.astype(dtype) / 4 + 0.1


@case("betainc_f32", lambda rng: [i32(rng, (2, 4), 4, 24), i32(rng, (2, 4), 4, 24), f32(rng, (2, 4), 0.05, 0.95)])
def _(ai, bi, x):
    a, b = params(ai, bi, jnp.float32)
    return jax.lax.betainc(a, b, x), jax.scipy.special.betainc(a, b, x)


@case("betainc_f64", lambda rng: [i32(rng, (2, 4), 4, 24), i32(rng, (2, 4), 4, 24), f64(rng, (2, 4), 0.05, 0.95)], x64=True)
def _(ai, bi, x):
    a, b = params(ai, bi, jnp.float64)
    return jax.lax.betainc(a, b, x), jax.scipy.special.betainc(a, b, x)


@case("betainc_edges", lambda rng: [i32(rng, (6,), 4, 24), i32(rng, (6,), 4, 24), np.array([0.0, 1.0, 0.0, 1.0, 0.5, 1e-3], np.float32)])
def _(ai, bi, x):
    a, b = params(ai, bi, jnp.float32)
    return (jax.scipy.special.betainc(a, b, x), jax.scipy.special.betainc(a, b, 0.25),
            jax.scipy.special.betainc(2, 3, x))


@case("betainc_edges_f64", lambda rng: [i32(rng, (6,), 4, 24), i32(rng, (6,), 4, 24), np.array([0.0, 1.0, 0.0, 1.0, 0.5, 1e-3], np.float64)], x64=True)
def _(ai, bi, x):
    a, b = params(ai, bi, jnp.float64)
    return jax.scipy.special.betainc(a, b, x)
