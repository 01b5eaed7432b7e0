"""`jax.numpy`: other names of existing functions, float decomposition, `i0`/`kaiser`,
`geomspace`/`logspace`, `fromfunction`, `cross`, `block` and the dtype queries (the table
`crates/oxla/tests/surface/numpy_extra.rs`)."""

import jax.numpy as jnp
import numpy as np

from registry import case, f32, i32, with_edges

EDGES = (np.nan, np.inf, -np.inf, 0.0, -0.0)


@case("absolute_fabs", lambda rng: [with_edges(f32(rng, (3, 4)), (0.0, -0.0)), i32(rng, (5,))])
def _(x, i):
    return jnp.absolute(x), jnp.fabs(x), jnp.absolute(i), jnp.fabs(i)


@case("amax_amin", lambda rng: [f32(rng, (3, 4))])
def _(x):
    return jnp.amax(x, 1), jnp.amin(x, 0), jnp.amax(x), jnp.amin(x, keepdims=True)


@case("mod_pow_true_divide", lambda rng: [f32(rng, (3, 4), -3, 3), f32(rng, (3, 4), 0.5, 2)])
def _(x, y):
    return jnp.mod(x, y), jnp.mod(x, -y), jnp.pow(y, x), jnp.true_divide(x, y)


@case("mod_pow_int", lambda rng: [i32(rng, (6,), -9, 10), i32(rng, (6,), 1, 4)])
def _(x, y):
    return jnp.mod(x, y), jnp.mod(x, -y), jnp.pow(x, y), jnp.true_divide(x, y)


@case("divmod_float", lambda rng: [f32(rng, (2, 5), -6, 6), with_edges(f32(rng, (2, 5), 0.5, 3) * np.array([1, -1, 1, -1, 1], np.float32), (0.0,))])
def _(x, y):
    return jnp.divmod(x, y)


@case("divmod_int", lambda rng: [i32(rng, (8,), -9, 10), i32(rng, (8,), 1, 4) * np.array([1, -1] * 4, np.int32)])
def _(x, y):
    return jnp.divmod(x, y)


@case("modf", lambda rng: [with_edges(f32(rng, (3, 4), -5, 5), EDGES + (2.5, -2.5))])
def _(x):
    return jnp.modf(x)


@case("frexp", lambda rng: [with_edges(f32(rng, (3, 4), -100, 100), EDGES + (1.0, 0.75, -3.5))])
def _(x):
    return jnp.frexp(x)


@case("ldexp", lambda rng: [f32(rng, (3, 4), -4, 4), i32(rng, (3, 4), -6, 7)])
def _(x, e):
    return jnp.ldexp(x, e), jnp.ldexp(x, 3)


@case("ldexp_edges", lambda rng: [np.array([1e-30, 3.0, 0.5, 0.0, -0.0, np.inf, -np.inf, 2e-38], np.float32), np.array([100, 200, -160, 5, 5, 3, 3, 20], np.int32)])
def _(x, e):
    return jnp.ldexp(x, e)


@case("spacing", lambda rng: [with_edges(f32(rng, (3, 4), -100, 100), EDGES + (1.0, -1.0, 1e-40))], grad=False)
def _(x):
    return jnp.spacing(x)


@case("i0", lambda rng: [with_edges(f32(rng, (3, 4), -4, 4), (0.0, -0.0))])
def _(x):
    return jnp.i0(x)


@case("kaiser", vmap=False)
def _():
    return jnp.kaiser(0, 8.6), jnp.kaiser(1, 8.6), jnp.kaiser(7, 8.6), jnp.kaiser(6, 0.0)


@case("kaiser_beta", lambda rng: [f32(rng, (), 1, 5)])
def _(beta):
    return jnp.kaiser(5, beta)


@case("bitwise_aliases", lambda rng: [i32(rng, (6,), -50, 50), i32(rng, (6,), 0, 5)])
def _(x, s):
    return jnp.bitwise_invert(x), jnp.bitwise_left_shift(x, s), jnp.bitwise_right_shift(x, s)


@case("empty_asarray_copy", lambda rng: [f32(rng, (2, 3))])
def _(x):
    return (jnp.empty((2, 3)), jnp.empty((1, 2), jnp.int32), jnp.empty_like(x),
            jnp.empty_like(x, jnp.int32), jnp.asarray(x), jnp.asarray(x, jnp.int32), jnp.copy(x))


@case("concat_permute", lambda rng: [f32(rng, (2, 3)), f32(rng, (2, 2)), f32(rng, (2, 3, 4))])
def _(x, y, z):
    return (jnp.concat([x, y], axis=1), jnp.concat([x, y], axis=None), jnp.concat([x, x]),
            jnp.permute_dims(z, (2, 0, 1)), jnp.matrix_transpose(z), jnp.matrix_transpose(x))


@case("geomspace_logspace", vmap=False)
def _():
    return (jnp.geomspace(1.0, 1000.0, 4), jnp.geomspace(-1.0, -16.0, 5, endpoint=False),
            jnp.geomspace(2.0, 32.0, 1), jnp.geomspace(2.0, 32.0, 0), jnp.logspace(0.0, 3.0, 4),
            jnp.logspace(0.0, 1.0, 5, endpoint=False, base=2.0))


@case("geomspace_arrays", lambda rng: [f32(rng, (3,), 1, 2), f32(rng, (3,), 3, 5)])
def _(a, b):
    return (jnp.geomspace(a, b, 4, axis=1), jnp.geomspace(a, b, 3, axis=0),
            jnp.logspace(a, b, 5, endpoint=False, base=2.0, axis=-1))


@case("fromfunction", lambda rng: [f32(rng, ())])
def _(s):
    return jnp.fromfunction(lambda i, j: i * s + j, (2, 3)), jnp.fromfunction(lambda i, j: i == j, (3, 3), dtype=int)


@case("cross3", lambda rng: [f32(rng, (4, 3)), f32(rng, (4, 3))])
def _(a, b):
    return jnp.cross(a, b), jnp.cross(a, b[0]), jnp.cross(a.T, b, axisa=0), jnp.cross(a.T, b.T, axis=0)


@case("cross2", lambda rng: [f32(rng, (4, 2)), f32(rng, (4, 2)), f32(rng, (4, 3))])
def _(a, b, c):
    return jnp.cross(a, b), jnp.cross(a, c), jnp.cross(c, b, axisc=0)


@case("block", lambda rng: [f32(rng, (2, 2)), f32(rng, (2, 1)), f32(rng, (1, 3)), f32(rng, (3,))])
def _(a, b, c, v):
    return jnp.block([[a, b], [c]]), jnp.block([a, a]), jnp.block([[v], [c]]), jnp.block(v)


PAIRS = [("int64", "int32"), ("uint64", "int64"), ("float64", "int8"),
         ("bool", "uint64"), ("bfloat16", "float16"), ("uint8", "int8"), ("float32", "float64")]
CASTS = [("int32", "float32", "safe"), ("int32", "float64", "safe"), ("int64", "float64", "safe"),
         ("uint8", "int16", "safe"), ("uint8", "int8", "safe"), ("int8", "uint64", "safe"),
         ("bfloat16", "float16", "safe"), ("float16", "float32", "safe"), ("bool", "int8", "safe"),
         ("int8", "bool", "safe"), ("float64", "float32", "same_kind"), ("uint8", "int8", "same_kind"),
         ("int8", "uint8", "same_kind"), ("float32", "int32", "same_kind"), ("float32", "int32", "unsafe"),
         ("int32", "int32", "no"), ("int32", "int64", "equiv")]


@case("dtype_queries", x64=True, vmap=False)
def _():
    zs = tuple(jnp.zeros((), jnp.promote_types(a, b)) for a, b in PAIRS)
    return zs + (jnp.array([jnp.can_cast(a, b, c) for a, b, c in CASTS]),)
