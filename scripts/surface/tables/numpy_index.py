"""`jax.numpy`: interpolation, histograms and selection (`interp`, `histogram*`,
`compress`, `extract`, `diag_indices*`, `ravel_multi_index`, `resize`) — the table
`crates/oxla/tests/surface/numpy_index.rs`."""

import jax.numpy as jnp
import numpy as np

from registry import case, f32, i32, with_edges


def _xp(rng):
    return np.sort(f32(rng, (5,), -2, 2))


@case("interp_default", lambda rng: [f32(rng, (3, 4), -3, 3), _xp(rng), f32(rng, (5,))])
def _(x, xp, fp):
    return jnp.interp(x, xp, fp)


@case("interp_left_right", lambda rng: [f32(rng, (6,), -3, 3), _xp(rng), f32(rng, (5,))])
def _(x, xp, fp):
    return (jnp.interp(x, xp, fp, left=-9.0, right=9.0),
            jnp.interp(x, xp, fp, left="extrapolate", right="extrapolate"))


@case("interp_period", lambda rng: [f32(rng, (6,), -7, 7), f32(rng, (5,), -4, 4), f32(rng, (5,))])
def _(x, xp, fp):
    return jnp.interp(x, xp, fp, period=2 * np.pi), jnp.interp(x, xp, fp, period=-3.0)


@case("interp_edges", lambda rng: [np.array([np.nan, -np.inf, np.inf, -1.0, 0.5, 1.0, 2.0], np.float32),
                                   np.array([-1.0, 0.0, 0.0, 1.0], np.float32), f32(rng, (4,))], grad=True)
def _(x, xp, fp):
    return jnp.interp(x, xp, fp)


@case("histogram_count", lambda rng: [f32(rng, (3, 7))])
def _(a):
    c, e = jnp.histogram(a, bins=4)
    c2, e2 = jnp.histogram(a, bins=3, range=(-0.5, 0.5))
    return c, e, c2, e2, jnp.histogram_bin_edges(a, 5)


@case("histogram_weights_density", lambda rng: [f32(rng, (9,)), f32(rng, (9,), 0, 2)])
def _(a, w):
    c, e = jnp.histogram(a, bins=4, weights=w)
    d, _ = jnp.histogram(a, bins=4, weights=w, density=True)
    d2, _ = jnp.histogram(a, bins=3, range=(-1.0, 1.0), density=True)
    return c, e, d, d2


@case("histogram_edges", lambda rng: [with_edges(f32(rng, (10,), -2, 2), (np.nan, 1.0, -1.0, 0.25))])
def _(a):
    bins = jnp.array([-1.0, -0.5, 0.25, 1.0])
    c, e = jnp.histogram(a, bins=bins)
    return c, e, jnp.histogram_bin_edges(a, bins)


@case("histogram_flat", lambda rng: [np.full((4,), 2.0, np.float32)])
def _(a):
    c, e = jnp.histogram(a, bins=2)
    return c, e


@case("histogram_int", lambda rng: [i32(rng, (8,))], grad=False)
def _(a):
    c, e = jnp.histogram(a, bins=3)
    return c, e


@case("compress_axis", lambda rng: [np.array([1, 0, 1, 1], np.int32), f32(rng, (4, 3))])
def _(c, a):
    return (jnp.compress(c, a, axis=0, size=3), jnp.compress(c, a, axis=0, size=4, fill_value=7.0),
            jnp.compress(c[:3], a, axis=-1, size=2))


@case("compress_flat", lambda rng: [np.array([True, False, True, False, False, True]), f32(rng, (2, 3))])
def _(c, a):
    return jnp.compress(c, a, size=2), jnp.compress(c, a, size=5, fill_value=-1.0), jnp.compress(c[:2], a, size=1)


@case("extract", lambda rng: [i32(rng, (3, 4), -1, 2), f32(rng, (3, 4))])
def _(c, a):
    return jnp.extract(c, a, size=5), jnp.extract(c, a, size=12, fill_value=np.nan)


@case("diag_indices", lambda rng: [f32(rng, (3, 3, 3))], grad=False)
def _(a):
    return (*jnp.diag_indices(4), *jnp.diag_indices(2, 3), *jnp.diag_indices_from(a), *jnp.diag_indices(0))


@case("ravel_multi_index", lambda rng: [i32(rng, (5,), -3, 5), i32(rng, (2, 5), -2, 6)], grad=False)
def _(i, j):
    return (jnp.ravel_multi_index((i, j), (4, 5), mode="clip"),
            jnp.ravel_multi_index((i, j), (4, 5), mode="wrap"),
            jnp.ravel_multi_index((jnp.abs(i) % 4,), (4,), mode="ignore"))


@case("resize", lambda rng: [f32(rng, (2, 3))])
def _(a):
    return jnp.resize(a, (4, 2)), jnp.resize(a, (2,)), jnp.resize(a, (0, 3)), jnp.resize(a, (3, 3, 1))
