"""`jax.numpy.linalg` and `jax.lax.linalg`: decompositions, solves and norms. (the table `crates/oxla/tests/surface/linalg.rs`)."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from registry import case, f32, i32, ties_f32, with_edges
from registry import spd, f64


def _tri(rng, n, lower=True):
    a = f32(rng, (n, n))
    a = np.tril(a) if lower else np.triu(a)
    return (a + 3 * np.eye(n, dtype=np.float32) * np.sign(np.diag(a) + 1e-3)).astype(np.float32)


def _well(rng, shape):
    """A well-conditioned square matrix (or batch): uniform plus 3 I."""
    n = shape[-1]
    return (f32(rng, shape) + 3 * np.eye(n, dtype=np.float32)).astype(np.float32)


def _col_signs(x):
    """Signs that make the first row of every column non-negative."""
    return jnp.where(x[..., :1, :] < 0, -1.0, 1.0).astype(x.dtype)


def _qr_norm(q, r):
    d = jnp.where(jnp.diagonal(r, axis1=-2, axis2=-1) < 0, -1.0, 1.0).astype(r.dtype)
    k = d.shape[-1]
    return q[..., :, :k] * d[..., None, :], r * d[..., :, None]


# Decompositions.
@case("cholesky", lambda rng: [spd(rng, 4)])
def _(a):
    return jnp.linalg.cholesky(a)


@case("cholesky_batch", lambda rng: [spd(rng, 3, (2,))])
def _(a):
    return jnp.linalg.cholesky(a)


@case("cholesky_x64", lambda rng: [spd(rng, 3, dtype=np.float64)], x64=True)
def _(a):
    return jnp.linalg.cholesky(a)


@case("lax_cholesky", lambda rng: [spd(rng, 3)])
def _(a):
    return lax.linalg.cholesky(a)


@case("triangular_solve_left_lower", lambda rng: [_tri(rng, 4), f32(rng, (4, 3))])
def _(a, b):
    return lax.linalg.triangular_solve(a, b, left_side=True, lower=True)


@case("triangular_solve_right_upper_t", lambda rng: [_tri(rng, 4, False), f32(rng, (2, 4))])
def _(a, b):
    return lax.linalg.triangular_solve(a, b, left_side=False, lower=False, transpose_a=True)


@case("triangular_solve_unit_t", lambda rng: [f32(rng, (3, 3)), f32(rng, (3, 2))])
def _(a, b):
    return lax.linalg.triangular_solve(a, b, left_side=True, lower=True, transpose_a=True,
                                       unit_diagonal=True)


@case("triangular_solve_batch", lambda rng: [np.stack([_tri(rng, 3), _tri(rng, 3)]), f32(rng, (2, 3, 2))])
def _(a, b):
    return lax.linalg.triangular_solve(a, b, left_side=True, lower=True)


@case("lu", lambda rng: [f32(rng, (4, 4))])
def _(a):
    return lax.linalg.lu(a)


@case("lu_wide", lambda rng: [f32(rng, (3, 5))])
def _(a):
    return lax.linalg.lu(a)


@case("lu_tall", lambda rng: [f32(rng, (5, 3))])
def _(a):
    return lax.linalg.lu(a)


@case("qr_reduced", lambda rng: [f32(rng, (5, 3))])
def _(a):
    return _qr_norm(*jnp.linalg.qr(a))


@case("qr_square_complete", lambda rng: [f32(rng, (2, 3, 3))])
def _(a):
    return _qr_norm(*jnp.linalg.qr(a, mode="complete"))


@case("qr_wide", lambda rng: [f32(rng, (3, 5))])
def _(a):
    return _qr_norm(*jnp.linalg.qr(a))


@case("qr_complete_tall", lambda rng: [f32(rng, (5, 3))])
def _(a):
    q, r = jnp.linalg.qr(a, mode="complete")
    rest = q[:, 3:]
    return _qr_norm(q, r[:3]) + (rest @ rest.T,)


@case("lax_qr", lambda rng: [f32(rng, (4, 3))])
def _(a):
    q, r = lax.linalg.qr(a, full_matrices=False)
    return _qr_norm(q, r)


@case("eigvalsh", lambda rng: [spd(rng, 4)])
def _(a):
    return jnp.linalg.eigvalsh(a)


@case("eigh", lambda rng: [f32(rng, (4, 4))])
def _(a):
    w, v = jnp.linalg.eigh(a)
    return w, v * _col_signs(v), (v * w[None, :]) @ v.T


@case("eigh_batch", lambda rng: [spd(rng, 3, (2,))])
def _(a):
    w, v = jnp.linalg.eigh(a)
    return w, v * _col_signs(v)


@case("lax_eigh", lambda rng: [spd(rng, 3)])
def _(a):
    v, w = lax.linalg.eigh(a)
    return w, v * _col_signs(v)


@case("svd_thin", lambda rng: [f32(rng, (4, 3))])
def _(a):
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    d = _col_signs(u)
    return s, u * d, vh * jnp.swapaxes(d, -1, -2), (u * s[None, :]) @ vh


@case("svd_wide", lambda rng: [f32(rng, (2, 3, 5))])
def _(a):
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    d = _col_signs(u)
    return s, u * d, vh * jnp.swapaxes(d, -1, -2)


@case("svd_full_square", lambda rng: [f32(rng, (3, 3))])
def _(a):
    u, s, vh = jnp.linalg.svd(a)
    d = _col_signs(u)
    return s, u * d, vh * jnp.swapaxes(d, -1, -2)


@case("svd_full_tall_values", lambda rng: [f32(rng, (4, 2))], grad=False)
def _(a):
    u, s, vh = jnp.linalg.svd(a)
    rest = u[:, 2:]
    return s, jnp.abs(vh), rest @ rest.T


@case("svdvals", lambda rng: [f32(rng, (4, 3))])
def _(a):
    return jnp.linalg.svdvals(a)


@case("lax_svd_values", lambda rng: [f32(rng, (3, 4))])
def _(a):
    return lax.linalg.svd(a, compute_uv=False)


# Solves and inverses.
@case("solve_vector", lambda rng: [_well(rng, (4, 4)), f32(rng, (4,))])
def _(a, b):
    return jnp.linalg.solve(a, b)


@case("solve_batch", lambda rng: [_well(rng, (2, 3, 3)), f32(rng, (2, 3, 2))])
def _(a, b):
    return jnp.linalg.solve(a, b)


@case("solve_x64", lambda rng: [f64(rng, (3, 3)) + 3 * np.eye(3), f64(rng, (3, 2))], x64=True)
def _(a, b):
    return jnp.linalg.solve(a, b)


@case("inv", lambda rng: [_well(rng, (3, 3))])
def _(a):
    return jnp.linalg.inv(a)


@case("det", lambda rng: [f32(rng, (4, 4))])
def _(a):
    return jnp.linalg.det(a)


@case("slogdet", lambda rng: [f32(rng, (2, 4, 4))])
def _(a):
    return tuple(jnp.linalg.slogdet(a))


@case("lstsq", lambda rng: [f32(rng, (5, 3)), f32(rng, (5, 2))])
def _(a, b):
    return tuple(jnp.linalg.lstsq(a, b))


@case("pinv", lambda rng: [f32(rng, (4, 3))])
def _(a):
    return jnp.linalg.pinv(a)


@case("matrix_rank", lambda rng: [f32(rng, (4, 2)) @ f32(rng, (2, 4))], grad=False)
def _(a):
    return jnp.linalg.matrix_rank(a)


@case("matrix_power", lambda rng: [_well(rng, (3, 3)) / 3])
def _(a):
    return jnp.linalg.matrix_power(a, 3), jnp.linalg.matrix_power(a, -2), jnp.linalg.matrix_power(a, 0)


@case("cond", lambda rng: [_well(rng, (3, 3))])
def _(a):
    return jnp.linalg.cond(a), jnp.linalg.cond(a, 1), jnp.linalg.cond(a, -2)


# Norms and helpers.
@case("matrix_norm", lambda rng: [f32(rng, (2, 3, 4))])
def _(x):
    return tuple(jnp.linalg.matrix_norm(x, ord=o) for o in ("fro", "nuc", np.inf, -np.inf, 1, -1, 2, -2))


@case("vector_norm", lambda rng: [f32(rng, (3, 4))])
def _(x):
    return tuple(jnp.linalg.vector_norm(x, ord=o, axis=-1) for o in (1, 2, np.inf, -np.inf, 0, 3))


@case("norm_axis", lambda rng: [f32(rng, (3, 4))])
def _(x):
    return jnp.linalg.norm(x, axis=0), jnp.linalg.norm(x)


@case("trace_diagonal", lambda rng: [f32(rng, (2, 3, 4))])
def _(x):
    return (jnp.linalg.trace(x, offset=1), jnp.linalg.diagonal(x, offset=-1),
            jnp.linalg.matrix_transpose(x))


@case("outer_vecdot", lambda rng: [f32(rng, (3,)), f32(rng, (4,)), f32(rng, (2, 4))])
def _(a, b, c):
    return jnp.linalg.outer(a, b), jnp.linalg.vecdot(c, b)


@case("multi_dot", lambda rng: [f32(rng, (3,)), f32(rng, (3, 4)), f32(rng, (4, 2))])
def _(a, b, c):
    return jnp.linalg.multi_dot([a, b, c])


@case("cross", lambda rng: [f32(rng, (2, 3)), f32(rng, (2, 3))])
def _(a, b):
    return jnp.linalg.cross(a, b)
