"""`jax.lax`: dot, batch_matmul, broadcast, broadcast_to_rank, select, split, the scatter
variants by name and optimization_barrier (the table
`crates/oxla/tests/surface/lax_structural.rs`)."""

import numpy as np
from jax import lax

from registry import boolean, case, f32, i32


@case("dot_shapes", lambda rng: [f32(rng, (3,)), f32(rng, (3, 4)), f32(rng, (2, 3))])
def _(v, m, w):
    return lax.dot(v, v), lax.dot(v, m), lax.dot(w, m), lax.dot(w, v)


@case("batch_matmul", lambda rng: [f32(rng, (2, 3, 4)), f32(rng, (2, 4, 5))])
def _(a, b):
    return lax.batch_matmul(a, b)


@case("broadcast", lambda rng: [f32(rng, (2, 3))])
def _(x):
    return lax.broadcast(x, (4,)), lax.broadcast(x, ()), lax.broadcast_to_rank(x, 4), lax.broadcast_to_rank(x, 1)


@case("select", lambda rng: [boolean(rng, (3, 4)), f32(rng, (3, 4)), f32(rng, (3, 4))])
def _(p, a, b):
    return lax.select(p, a, b)


@case("split", lambda rng: [f32(rng, (3, 7))])
def _(x):
    return tuple(lax.split(x, (2, 0, 5), axis=1)) + tuple(lax.split(x, (1, 2), axis=0))


DNUMS = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                    scatter_dims_to_operand_dims=(0,))


@case("scatter_mul_min_max", lambda rng: [f32(rng, (5, 3), 0.5, 2), np.array([[1], [4], [1]], np.int32),
                                          f32(rng, (3, 3), 0.5, 2)],
      grad=False, note="JAX differentiates scatter_mul only with unique_indices=True")
def _(x, i, u):
    return (lax.scatter_mul(x, i, u, DNUMS), lax.scatter_min(x, i, u, DNUMS),
            lax.scatter_max(x, i, u, DNUMS))


@case("optimization_barrier", lambda rng: [f32(rng, (3,)), f32(rng, (2,))])
def _(x, y):
    return lax.optimization_barrier((x * 2.0, y))
