"""`jax.lax` and `jax.numpy`: elementwise functions (trigonometric, hyperbolic, rounding, bits, special functions) and small lax helpers. (the table `crates/oxla/tests/surface/lax_elementwise.rs`)."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from registry import case, f32, i32, ties_f32, with_edges
from registry import f64

EDGES = (np.nan, np.inf, -np.inf, 0.0, -0.0)


def edged(lo, hi, shape=(2, 5), extra=()):
    """float32 inputs in [lo, hi) whose first elements are NaN, ±inf, 0, -0 and `extra`."""
    return lambda rng: [with_edges(f32(rng, shape, lo, hi), EDGES + tuple(extra))]


# --- error and gamma functions ---------------------------------------------------------


@case("erf_edges", edged(-3, 3))
def _(x):
    return lax.erf(x)


@case("erfc_edges", edged(-3, 6, extra=(-6.0, 10.0)))
def _(x):
    return lax.erfc(x)


@case("erf_f64", lambda rng: [f64(rng, (2, 4), -3, 3)], x64=True)
def _(x):
    return lax.erf(x), lax.erfc(x)


@case("lgamma_edges", edged(-4, 6, extra=(-1.0, 1.0, 2.0, -2.5, 1e-3)))
def _(x):
    return lax.lgamma(x)


@case("lgamma_f64", lambda rng: [f64(rng, (2, 4), -4, 30)], x64=True)
def _(x):
    return lax.lgamma(x)


@case("digamma", lambda rng: [f32(rng, (2, 5), 0.1, 8)])
def _(x):
    return lax.digamma(x)


@case(
    "digamma_edges",
    edged(-4, 6, extra=(-1.0, 1.0, -2.5, 1e-3, 1e8)),
    note="JAX's trigamma (its derivative) is not the true one for negative x: no finite differences",
)
def _(x):
    return lax.digamma(x)


@case("digamma_f64", lambda rng: [f64(rng, (2, 4), 0.05, 20)], x64=True)
def _(x):
    return lax.digamma(x)


@case("polygamma_orders", lambda rng: [f32(rng, (4, 3), 0.2, 6)])
def _(x):
    m = jnp.array([[0.0], [1.0], [2.0], [3.0]], jnp.float32)
    return lax.polygamma(jnp.broadcast_to(m, x.shape), x)


@case(
    "polygamma_edges",
    lambda rng: [
        np.array([0.0, 1.0, 2.5, -1.0, np.nan, 1.0, 1.0, 1.0, 2.0, 4.0], np.float32),
        with_edges(f32(rng, (10,), 0.5, 4), (2.0, 2.0, 2.0, 2.0, 2.0, np.inf, 0.0, -3.0, 1e-3)),
    ],
    grad=False,
    note="non-natural orders give NaN; x at the poles and infinities",
)
def _(m, x):
    return lax.polygamma(m, x)


@case("polygamma_f64", lambda rng: [f64(rng, (3, 4), 0.3, 9)], x64=True)
def _(x):
    return lax.polygamma(jnp.full_like(x, 2.0), x)


@case(
    "zeta",
    lambda rng: [
        np.array([2.0, 3.0, 1.5, 4.0, 1.0, 0.5, 2.0, 3.0, 2.0, 6.0], np.float32),
        np.array([1.0, 2.5, 0.7, 10.0, 2.0, 2.0, -2.0, -2.0, 0.0, 1e-2], np.float32),
    ],
    grad=False,
    note="JAX defines no derivative of zeta; poles and x < 1 included",
)
def _(x, q):
    return lax.zeta(x, q)


@case("zeta_f64", lambda rng: [f64(rng, (2, 4), 1.2, 6), f64(rng, (2, 4), 0.2, 5)], x64=True, grad=False)
def _(x, q):
    return lax.zeta(x, q)
