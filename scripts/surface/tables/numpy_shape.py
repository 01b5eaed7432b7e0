"""`jax.numpy`: building, reshaping, joining, splitting and indexing arrays. (the table `crates/oxla/tests/surface/numpy_shape.rs`)."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from registry import case, f32, i32, ties_f32, with_edges


def const(*arrays):
    """Inputs that do not depend on the draw (index arrays)."""
    return lambda rng: [np.asarray(a) for a in arrays]


# ---- einsum and products -------------------------------------------------------------

@case("einsum_matmul", lambda rng: [f32(rng, (3, 4)), f32(rng, (4, 5))])
def _(a, b):
    return jnp.einsum("ij,jk->ik", a, b)


@case("einsum_implicit", lambda rng: [f32(rng, (3, 4)), f32(rng, (4, 2))])
def _(a, b):
    return jnp.einsum("ba,ac", a, b)


@case("einsum_batch", lambda rng: [f32(rng, (2, 3, 4)), f32(rng, (2, 4, 5))])
def _(a, b):
    return jnp.einsum("bij,bjk->bik", a, b)


@case("einsum_ellipsis", lambda rng: [f32(rng, (2, 3, 4)), f32(rng, (4, 5))])
def _(a, b):
    return jnp.einsum("...ij,...jk->...ik", a, b)


@case("einsum_ellipsis_broadcast", lambda rng: [f32(rng, (2, 3)), f32(rng, (1, 3))])
def _(a, b):
    return jnp.einsum("...i,...i", a, b), jnp.einsum("...i,...i->i", a, b)


@case("einsum_trace", lambda rng: [f32(rng, (4, 4))])
def _(a):
    return jnp.einsum("ii", a), jnp.einsum("ii->i", a)


@case("einsum_repeated_contract", lambda rng: [f32(rng, (2, 3, 3)), f32(rng, (3, 4))])
def _(a, b):
    return jnp.einsum("ijj,jk->ik", a, b)


@case("einsum_three", lambda rng: [f32(rng, (2, 3)), f32(rng, (3, 4)), f32(rng, (4, 5))])
def _(a, b, c):
    return jnp.einsum("ij,jk,kl->il", a, b, c)


@case("einsum_outer_sum_transpose", lambda rng: [f32(rng, (3,)), f32(rng, (2,)), f32(rng, (2, 3, 4))])
def _(a, b, c):
    return jnp.einsum("i,j->ij", a, b), jnp.einsum("ijk->kj", c), jnp.einsum("i,i->i", a, a)


@case("einsum_int", lambda rng: [i32(rng, (3, 4)), i32(rng, (4,))])
def _(a, b):
    return jnp.einsum("ij,j->i", a, b)


@case("einsum_empty", lambda rng: [f32(rng, (2, 0)), f32(rng, (0, 3))])
def _(a, b):
    return jnp.einsum("ij,jk->ik", a, b)


@case("tensordot_int", lambda rng: [f32(rng, (2, 3, 4)), f32(rng, (3, 4, 5))])
def _(a, b):
    return jnp.tensordot(a, b), jnp.tensordot(a[0], b[0], axes=1)


@case("tensordot_pairs", lambda rng: [f32(rng, (2, 3, 4)), f32(rng, (3, 5, 2))])
def _(a, b):
    return jnp.tensordot(a, b, axes=((1, 0), (0, 2))), jnp.tensordot(a, b, axes=(-2, 0))


@case("tensordot_zero", lambda rng: [f32(rng, (2,)), f32(rng, (3, 2))])
def _(a, b):
    return jnp.tensordot(a, b, axes=0)


@case("outer_inner_vdot", lambda rng: [f32(rng, (2, 3)), f32(rng, (4, 3)), f32(rng, (6,))])
def _(a, b, c):
    return jnp.outer(a, c), jnp.inner(a, b), jnp.vdot(a, c), jnp.inner(a, 2.0)


@case("vecdot", lambda rng: [f32(rng, (2, 3)), f32(rng, (3,)), f32(rng, (3, 2))])
def _(a, b, c):
    return jnp.vecdot(a, b), jnp.vecdot(c, c, axis=0)


@case("matvec_vecmat", lambda rng: [f32(rng, (5, 2, 3)), f32(rng, (3,)), f32(rng, (5, 3, 2))])
def _(a, v, b):
    return jnp.matvec(a, v), jnp.vecmat(v, b)


@case("kron", lambda rng: [f32(rng, (2, 3)), f32(rng, (4,)), f32(rng, (2, 2))])
def _(a, b, c):
    return jnp.kron(a, b), jnp.kron(a, c)


# ---- take ----------------------------------------------------------------------------

@case("take_axis", lambda rng: [f32(rng, (3, 4)), np.array([[0, 2], [3, -1]], np.int32)])
def _(a, i):
    return jnp.take(a, i, axis=1), jnp.take(a, i[0], axis=-2)


@case("take_flat_fill", lambda rng: [f32(rng, (2, 3)), np.array([7, -1, -7, 0, 5], np.int32)])
def _(a, i):
    return jnp.take(a, i), jnp.take(a, i, fill_value=2.5)


@case("take_int_fill", lambda rng: [i32(rng, (5,)), np.array([7, -1, -7, 0], np.int32)])
def _(a, i):
    return jnp.take(a, i, axis=0)


@case("take_clip_wrap", lambda rng: [f32(rng, (5,)), np.array([7, -1, -7, 2], np.int32)])
def _(a, i):
    return jnp.take(a, i, mode="clip"), jnp.take(a, i, mode="wrap")


@case("take_empty", lambda rng: [f32(rng, (3, 4)), np.zeros((0,), np.int32)])
def _(a, i):
    return jnp.take(a, i, axis=1)


@case("take_along_axis", lambda rng: [f32(rng, (3, 4)), np.array([[0, 3], [1, 1], [-1, 2]], np.int32)])
def _(a, i):
    return jnp.take_along_axis(a, i, axis=1), jnp.take_along_axis(a, i[:, :1], axis=0)


@case("take_along_axis_broadcast", lambda rng: [f32(rng, (3, 4)), np.array([[2, 0]], np.int32)])
def _(a, i):
    return jnp.take_along_axis(a, i, axis=-1), jnp.take_along_axis(a, i.T, axis=0)


@case("take_along_axis_modes", lambda rng: [f32(rng, (2, 3)), np.array([[5, -1], [-4, 0]], np.int32)])
def _(a, i):
    return (jnp.take_along_axis(a, i, axis=1), jnp.take_along_axis(a, i, axis=1, mode="clip"),
            jnp.take_along_axis(a, i, axis=1, fill_value=-3.0), jnp.take_along_axis(a, i.ravel(), axis=None))


# ---- rearranging ---------------------------------------------------------------------

@case("flip", lambda rng: [f32(rng, (2, 3, 4))])
def _(a):
    return jnp.flip(a), jnp.flip(a, (0, 2)), jnp.flip(a, -1), jnp.fliplr(a), jnp.flipud(a)


@case("rot90", lambda rng: [f32(rng, (2, 3, 4))])
def _(a):
    return (jnp.rot90(a), jnp.rot90(a, 2), jnp.rot90(a, 3, axes=(1, 2)), jnp.rot90(a, -1, axes=(2, 0)),
            jnp.rot90(a, 4))


@case("tile", lambda rng: [f32(rng, (2, 3))])
def _(a):
    return jnp.tile(a, (2, 1, 2)), jnp.tile(a, 3), jnp.tile(a, (0, 1))


@case("repeat", lambda rng: [f32(rng, (2, 3))])
def _(a):
    return (jnp.repeat(a, 2), jnp.repeat(a, 3, axis=1), jnp.repeat(a, np.array([1, 0, 2]), axis=-1),
            jnp.repeat(a, np.array([2]), axis=0), jnp.repeat(a, 0, axis=0))


@case("moveaxis_swapaxes", lambda rng: [f32(rng, (2, 3, 4))])
def _(a):
    return (jnp.moveaxis(a, 0, -1), jnp.moveaxis(a, (0, 1), (2, 0)), jnp.swapaxes(a, 0, -1))


@case("atleast", lambda rng: [f32(rng, ()), f32(rng, (3,)), f32(rng, (2, 3))])
def _(s, v, m):
    return (jnp.atleast_1d(s), jnp.atleast_2d(s), jnp.atleast_3d(s), jnp.atleast_2d(v),
            jnp.atleast_3d(v), jnp.atleast_3d(m), jnp.atleast_1d(m))


# ---- joining and splitting -----------------------------------------------------------

@case("split", lambda rng: [f32(rng, (2, 6)), f32(rng, (6,))])
def _(a, v):
    return jnp.split(a, 3, axis=1), jnp.split(v, [1, 4]), jnp.split(v, [0, 6]), jnp.split(a, 2, axis=-2)


@case("array_split", lambda rng: [f32(rng, (7, 2)), f32(rng, (2,))])
def _(a, v):
    return jnp.array_split(a, 3), jnp.array_split(v, 3)


@case("hsplit_vsplit_dsplit", lambda rng: [f32(rng, (2, 4, 2)), f32(rng, (4,))])
def _(a, v):
    return jnp.hsplit(a, 2), jnp.hsplit(v, [3]), jnp.vsplit(a, 2), jnp.dsplit(a, [1])


@case("stacks", lambda rng: [f32(rng, (3,)), f32(rng, (2, 3)), i32(rng, (3,))])
def _(v, m, w):
    return (jnp.vstack([v, m, w]), jnp.hstack([v, w]), jnp.hstack([m, m]), jnp.dstack([v, w]),
            jnp.dstack([m, m]), jnp.column_stack([v, m.T, w]))


@case("append", lambda rng: [f32(rng, (2, 3)), f32(rng, (1, 3)), i32(rng, (2,))])
def _(a, b, w):
    return jnp.append(a, b), jnp.append(a, b, axis=0), jnp.append(w, 2.5), jnp.append(w, w)


@case("meshgrid", lambda rng: [f32(rng, (2,)), f32(rng, (3,)), f32(rng, (4,))])
def _(x, y, z):
    return (jnp.meshgrid(x, y), jnp.meshgrid(x, y, z, indexing="ij"), jnp.meshgrid(x, y, sparse=True),
            jnp.meshgrid(x, y, z, sparse=True, indexing="xy"))


@case("diff", lambda rng: [f32(rng, (3, 5))])
def _(a):
    return (jnp.diff(a), jnp.diff(a, n=2, axis=0), jnp.diff(a, prepend=0.0, append=a[:, :2]),
            jnp.diff(a, n=7), jnp.diff(a, n=0))


@case("diff_int_bool", lambda rng: [i32(rng, (6,)), np.array([True, False, False, True])])
def _(a, b):
    return jnp.diff(a), jnp.diff(a, prepend=1.5), jnp.diff(b), jnp.diff(b, n=2)


# ---- diagonals and triangles ---------------------------------------------------------

@case("diagonal", lambda rng: [f32(rng, (2, 3, 4))])
def _(a):
    return (jnp.diagonal(a), jnp.diagonal(a, 1, 0, 2), jnp.diagonal(a, -1, -1, 1),
            jnp.diagonal(a, 5, 1, 2))


@case("trace", lambda rng: [f32(rng, (3, 4)), np.arange(9, dtype=np.int8).reshape(3, 3)])
def _(a, b):
    return jnp.trace(a), jnp.trace(a, 1), jnp.trace(a, -2), jnp.trace(b)


@case("diag", lambda rng: [f32(rng, (3,)), f32(rng, (3, 4)), f32(rng, (2, 2))])
def _(v, m, n):
    return jnp.diag(v), jnp.diag(v, -1), jnp.diag(v, 2), jnp.diag(m, 1), jnp.diagflat(n, -1)


@case("fill_diagonal", lambda rng: [f32(rng, (3, 4)), f32(rng, (3,)), f32(rng, (2, 2, 2))])
def _(a, v, c):
    return (jnp.fill_diagonal(a, v, inplace=False), jnp.fill_diagonal(a.T, 0.5, inplace=False),
            jnp.fill_diagonal(c, v[:2], inplace=False))


@case("tri_tril_triu", lambda rng: [f32(rng, (2, 3, 4))])
def _(a):
    return (jnp.tril(a), jnp.tril(a, -1), jnp.triu(a), jnp.triu(a, 2), jnp.tri(3),
            jnp.tri(2, 4, 1), jnp.tri(3, 2, -1))


@case("tri_indices", grad=False)
def _():
    return (jnp.tril_indices(3), jnp.tril_indices(3, 1, 4), jnp.triu_indices(3, -1),
            jnp.triu_indices(2, 0, 3), jnp.tril_indices_from(jnp.zeros((2, 3)), -1),
            jnp.triu_indices_from(jnp.zeros((3, 2)), 1))
