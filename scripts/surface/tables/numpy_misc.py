"""`jax.numpy`: polynomials, windows, sampled calculus and array equality (the table
`crates/oxla/tests/surface/numpy_misc.rs`)."""

import jax.numpy as jnp
import numpy as np

from registry import case, f32, i32, ties_f32, with_edges


@case("polyval_vec", lambda rng: [f32(rng, (4,)), f32(rng, (3, 5), -2, 2)])
def _(p, x):
    return jnp.polyval(p, x)


@case("polyval_int", lambda rng: [i32(rng, (3,)), i32(rng, (5,))])
def _(p, x):
    return jnp.polyval(p, x)


@case("polyadd_sub", lambda rng: [f32(rng, (4,)), f32(rng, (2,))])
def _(a, b):
    return jnp.polyadd(a, b), jnp.polyadd(b, a), jnp.polysub(a, b), jnp.polysub(b, a)


@case("polymul", lambda rng: [f32(rng, (3,)), f32(rng, (4,))])
def _(a, b):
    return jnp.polymul(a, b)


@case("polyder", lambda rng: [f32(rng, (5,))])
def _(p):
    return jnp.polyder(p), jnp.polyder(p, 2), jnp.polyder(p, 0), jnp.polyder(p, 5)


@case("polyint", lambda rng: [f32(rng, (4,))])
def _(p):
    return jnp.polyint(p), jnp.polyint(p, 2), jnp.polyint(p, 2, k=jnp.array([1.5, -2.0])), jnp.polyint(p, 1, k=3.0)


@case("poly_roots", lambda rng: [f32(rng, (4,), -2, 2)])
def _(z):
    return jnp.poly(z)


@case("vander", lambda rng: [f32(rng, (4,))])
def _(x):
    return jnp.vander(x), jnp.vander(x, 2), jnp.vander(x, 5, increasing=True)


@case("windows", lambda rng: [], vmap=False)
def _():
    return tuple(f(m) for f in (jnp.bartlett, jnp.blackman, jnp.hamming, jnp.hanning) for m in (0, 1, 2, 7))


@case("trapezoid_dx", lambda rng: [f32(rng, (3, 5))])
def _(y):
    return jnp.trapezoid(y), jnp.trapezoid(y, dx=0.5, axis=0)


@case("trapezoid_x", lambda rng: [f32(rng, (3, 5)), np.sort(f32(rng, (5,), 0, 4))])
def _(y, x):
    return jnp.trapezoid(y, x), jnp.trapezoid(y.T, x, axis=0)


@case("gradient", lambda rng: [f32(rng, (4, 5))])
def _(f):
    g0, g1 = jnp.gradient(f)
    return g0, g1, jnp.gradient(f, 0.5, axis=1), *jnp.gradient(f, 2.0, 0.25)


@case("unwrap", lambda rng: [np.cumsum(f32(rng, (3, 8), -3, 3), axis=1)])
def _(p):
    return jnp.unwrap(p), jnp.unwrap(p, axis=0), jnp.unwrap(p, discont=4.0), jnp.unwrap(p, period=4.0)


@case("array_equal", lambda rng: [ties_f32(rng, (3,), 0, 2), ties_f32(rng, (3,), 0, 2)], grad=False)
def _(a, b):
    n = jnp.array([np.nan, 1.0])
    return (jnp.array_equal(a, b), jnp.array_equal(a, a), jnp.array_equal(a, b[:2]),
            jnp.array_equal(n, n), jnp.array_equal(n, n, equal_nan=True),
            jnp.array_equiv(a, b), jnp.array_equiv(a, a[:1]))
