#!/usr/bin/env python3
"""Generate JAX `vmap` conformance golden files for oxla.

Usage (from anywhere; needs a Python env with `jax` and `numpy`):

    /work/jaxenv/bin/python scripts/gen_golden_vmap.py

Writes (relative to the repo root) ONLY under tests/golden_vmap/ (tests/golden/ is
never touched; this script just imports the input helpers, the seed programs and
the shared driver pieces (case running, case directories, MANIFEST.md sections) from
scripts/gen_golden.py):

    tests/golden_vmap/<case>/in_<i>.npy    inputs (deterministic, np.random.default_rng(seed))
    tests/golden_vmap/<case>/out_<i>.npy   jax.tree_util.tree_leaves(fn(*inputs)), via np.asarray
    tests/golden_vmap/<case>/jaxpr.txt     str(jax.make_jaxpr(fn)(*inputs))
    tests/golden_vmap/MANIFEST.md          name, source, vmap in_axes/out_axes/axis_size,
                                           input/output shapes+dtypes, output pytree of every case

Every case is a plain function of (flat, positional) arrays whose body calls
`jax.vmap(f, in_axes=..., out_axes=...)(...)`; tuple arguments are assembled
inside the body.  So `jaxpr.txt` is exactly the jaxpr of the vmapped program.
The vmap parameters actually used are recorded automatically (jax.vmap is wrapped
while each case runs eagerly) and listed in the manifest, outermost vmap first.
x64 is disabled (JAX default): python floats are f32, ints i32.
Outputs are computed eagerly (no jax.jit) on the CPU backend.
"""

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=1")

import sys
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

# Importing gen_golden only defines its helpers/cases; its main() (which rewrites
# tests/golden/) runs only under `__main__`, so nothing is written by the import.
import gen_golden as gg
from gen_golden import (  # noqa: F401  (re-exported names used in case sources)
    f32, i32, nz_i32, boolean, small_ints_f32, nonzero_f32,
    N, dof, to_id_xyz, extract_3x3x3_grid, memory_test1, memory_test2, squared_error, seed004_f,
)

REPO = Path(__file__).resolve().parent.parent
OUTDIR = REPO / "tests" / "golden_vmap"
assert OUTDIR != gg.GOLDEN

# --------------------------------------------------------------------------
# case registry
# --------------------------------------------------------------------------

CASES = []


def case(name, inputs=lambda rng: [], helpers=(), prng=False, note=None):
    """Register fn as a vmap golden case.

    inputs: rng -> list of numpy arrays (rng = np.random.default_rng(seed),
            seed = zlib.crc32(name)).
    helpers: other functions (or source strings) needed to understand fn.
    """

    def deco(fn):
        CASES.append(dict(name=name, fn=fn, inputs=inputs, helpers=tuple(helpers), prng=prng, note=note))
        return fn

    return deco


# ==========================================================================
# elementwise
# ==========================================================================


@case("unary_chain_axis0", lambda rng: [f32(rng, (4, 3), -2.0, 2.0)])
def unary_chain_axis0(x):
    return jax.vmap(lambda v: jnp.sin(v) * jnp.exp(-v) + jnp.tanh(v) - jnp.abs(v))(x)


@case("unary_chain_axis1", lambda rng: [f32(rng, (3, 5), 0.1, 3.0)])
def unary_chain_axis1(x):
    return jax.vmap(lambda v: jnp.log(v) + jnp.sqrt(v) * jnp.floor(v * 2.0), in_axes=1)(x)


@case("binary_batched_vs_unbatched_lower_rank",
      lambda rng: [f32(rng, (5, 3, 4)), f32(rng, (4,))],
      note="x batched (per-example f32[3,4]), y unbatched f32[4] of lower rank.")
def binary_batched_vs_unbatched_lower_rank(x, y):
    return jax.vmap(lambda a, b: a * b - b + jnp.maximum(a, b), in_axes=(0, None))(x, y)


@case("binary_unbatched_higher_rank_vs_batched",
      lambda rng: [f32(rng, (3, 4)), f32(rng, (4, 6))],
      note="x unbatched f32[3,4] (higher rank), y batched along axis 1 (per-example f32[4]).")
def binary_unbatched_higher_rank_vs_batched(x, y):
    return jax.vmap(lambda a, b: a - b * 2.0, in_axes=(None, 1))(x, y)


@case("binary_with_scalar",
      lambda rng: [f32(rng, (5, 3)), np.array(1.5, np.float32)],
      note="python scalar literal and an unbatched 0-d array operand.")
def binary_with_scalar(x, s):
    return jax.vmap(lambda a, t: (a * t + 2.0) / 4.0 - 1, in_axes=(0, None))(x, s)


@case("binary_batched_scalar",
      lambda rng: [f32(rng, (3,)), f32(rng, (5,))],
      note="each example's s is a 0-d scalar (in_axes=0 on f32[5]); x unbatched f32[3].")
def binary_batched_scalar(x, s):
    return jax.vmap(lambda a, t: a * t + t, in_axes=(None, 0))(x, s)


@case("binary_axes_1_neg1",
      lambda rng: [f32(rng, (3, 5, 4)), nonzero_f32(rng, (3, 4, 5))])
def binary_axes_1_neg1(x, y):
    return jax.vmap(lambda a, b: jnp.minimum(a, b) + a / b, in_axes=(1, -1))(x, y)


@case("compare_where", lambda rng: [small_ints_f32(rng, (4, 5)), small_ints_f32(rng, (5,))],
      note="small integer floats so ties occur; outputs (where result, x <= y bool, x == y bool).")
def compare_where(x, y):
    def f(a, b):
        return jnp.where(a > b, a, b * 2.0), a <= b, a == b
    return jax.vmap(f, in_axes=(0, None))(x, y)


@case("bitwise_logical", lambda rng: [i32(rng, (4, 5)), i32(rng, (5,)), boolean(rng, (4, 5))],
      note="& | ^ ~ on int32 and bool, logical_and of ints, comparisons as methods.")
def bitwise_logical(x, y, c):
    def f(a, b, m):
        return a & b, a | 3, a ^ b, ~a, ~m, m & (a > b), jnp.logical_and(a, b)
    return jax.vmap(f, in_axes=(0, None, 0))(x, y, c)


@case("where_batched_cond_only", lambda rng: [boolean(rng, (4, 3)), f32(rng, (3,)), np.array(-7.0, np.float32)])
def where_batched_cond_only(c, x, s):
    return jax.vmap(lambda cc, a, t: jnp.where(cc, a, t), in_axes=(0, None, None))(c, x, s)


@case("where_scalar_cond_batched", lambda rng: [boolean(rng, (6,)), f32(rng, (6, 3)), f32(rng, (3,))],
      note="per-example condition is a 0-d bool selecting between a batched and an unbatched array.")
def where_scalar_cond_batched(c, x, y):
    return jax.vmap(lambda cc, a, b: jnp.where(cc, a, b), in_axes=(0, 0, None))(c, x, y)


@case("int_mod_floordiv_neg", lambda rng: [i32(rng, (4, 6), -9, 10), nz_i32(rng, (6,))],
      note="python semantics: % has the sign of the divisor, // floors.")
def int_mod_floordiv_neg(x, y):
    return jax.vmap(lambda a, b: (a % b, a // b), in_axes=(0, None))(x, y)


@case("int_mod_floordiv_axis1", lambda rng: [i32(rng, (3,), -9, 10), nz_i32(rng, (3, 4))],
      note="x unbatched, divisor batched along axis 1; scalar literals too.")
def int_mod_floordiv_axis1(x, y):
    return jax.vmap(lambda a, b: (a % b, a // b, b % 3, -7 // b), in_axes=(None, 1))(x, y)


@case("astype_variants", lambda rng: [f32(rng, (4, 5), -3.0, 3.0), i32(rng, (5, 4))])
def astype_variants(x, k):
    def f(a, b):
        return a.astype(jnp.int32), (a > 0).astype(jnp.float32), b.astype(jnp.float32) * a, (b != 0)
    return jax.vmap(f, in_axes=(0, 1))(x, k)


@case("integer_pow", lambda rng: [nonzero_f32(rng, (4, 3))])
def integer_pow(x):
    return jax.vmap(lambda a: (a ** 2, a ** 3, lax.integer_pow(a, -2)), in_axes=1)(x)


@case("select_mixed", lambda rng: [boolean(rng, (3, 5)), f32(rng, (3,)), f32(rng, (5, 3))],
      note="lax.select with pred batched on axis 1, on_true unbatched, on_false batched on axis 0.")
def select_mixed(p, x, y):
    return jax.vmap(lambda pp, a, b: lax.select(pp, a, b), in_axes=(1, None, 0))(p, x, y)


@case("select_n_int_index", lambda rng: [i32(rng, (4, 3), 0, 3), f32(rng, (3,)), f32(rng, (4, 3)), f32(rng, (3,))])
def select_n_int_index(i, a, b, c):
    return jax.vmap(lambda ii, x, y, z: lax.select_n(ii, x, y, z), in_axes=(0, None, 0, None))(i, a, b, c)


# ==========================================================================
# shape ops
# ==========================================================================


@case("broadcast_in_dim_variants", lambda rng: [f32(rng, (4, 5))],
      note="per-example x is f32[4] (in_axes=1).")
def broadcast_in_dim_variants(x):
    def f(v):
        return v[:, None] * v[None, :], jnp.broadcast_to(v, (2, 4)), v[None, :, None] + jnp.zeros((3, 1, 2))
    return jax.vmap(f, in_axes=1)(x)


@case("reshape_axis1", lambda rng: [f32(rng, (2, 5, 6))],
      note="per-example x is f32[2,6]; reshape of a non-leading batch axis.")
def reshape_axis1(x):
    return jax.vmap(lambda v: (v.reshape(3, 4), v.reshape(-1), v.reshape(4, 1, 3)), in_axes=1)(x)


@case("transpose_variants", lambda rng: [f32(rng, (2, 3, 5, 4))],
      note="per-example f32[2,3,4] (in_axes=2); outputs mapped to axis 1.")
def transpose_variants(x):
    def f(v):
        return jnp.transpose(v, (1, 2, 0)), v.T, jnp.swapaxes(v, 0, 1)
    return jax.vmap(f, in_axes=2, out_axes=1)(x)


@case("squeeze_expand_dims", lambda rng: [f32(rng, (3, 1, 4, 5))],
      note="per-example f32[3,1,4] (in_axes=-1).")
def squeeze_expand_dims(x):
    def f(v):
        return jnp.squeeze(v, axis=1), jnp.expand_dims(v, (0, 2)), jnp.squeeze(v)[..., None]
    return jax.vmap(f, in_axes=-1)(x)


@case("slice_steps_rev", lambda rng: [f32(rng, (4, 7))])
def slice_steps_rev(x):
    def f(v):
        return v[1:6:2], v[::-1], v[::-2], v[5:0:-2], v[-3:], jnp.flip(v)
    return jax.vmap(f)(x)


@case("slice_2d_axis1", lambda rng: [f32(rng, (5, 3, 6))],
      note="per-example f32[5,6] (in_axes=1).")
def slice_2d_axis1(x):
    def f(v):
        return v[1:4, ::2], v[::-1, 1::3], v[:, ::-1][2], lax.rev(v, (0, 1))
    return jax.vmap(f, in_axes=1)(x)


@case("pad_variants", lambda rng: [f32(rng, (3, 2, 4))])
def pad_variants(x):
    def f(v):
        return (jnp.pad(v, ((1, 2), (0, 1))),
                jnp.pad(v, ((0, 0), (2, 1)), constant_values=-1.0),
                lax.pad(v, jnp.float32(0.5), [(1, -1, 1), (-1, 0, 2)]))
    return jax.vmap(f)(x)


@case("pad_batched_value", lambda rng: [f32(rng, (2, 3)), f32(rng, (4,))],
      note="lax.pad where only the padding value is batched (operand unbatched).")
def pad_batched_value(x, v):
    return jax.vmap(lambda a, pv: lax.pad(a, pv, [(1, 0, 1), (0, 2, 0)]), in_axes=(None, 0))(x, v)


@case("concatenate_batched_unbatched", lambda rng: [f32(rng, (4, 2, 3)), f32(rng, (1, 3))])
def concatenate_batched_unbatched(x, y):
    def f(a, b):
        return jnp.concatenate([a, b], axis=0), jnp.concatenate([b.T, a.T, b.T], axis=1)
    return jax.vmap(f, in_axes=(0, None))(x, y)


@case("concatenate_axis1_in_axes_1", lambda rng: [f32(rng, (3,)), f32(rng, (2, 4))],
      note="1-d concat: x unbatched, y batched along axis 1 (per-example f32[2]); out_axes=1.")
def concatenate_axis1_in_axes_1(x, y):
    return jax.vmap(lambda a, b: jnp.concatenate([a, b, a]), in_axes=(None, 1), out_axes=1)(x, y)


@case("stack_mixed", lambda rng: [f32(rng, (4, 3)), f32(rng, (3,))])
def stack_mixed(x, y):
    def f(a, b):
        return jnp.stack([a, b, a * 2.0], axis=1), jnp.stack([b, a]), jnp.stack([a, b], axis=-1)
    return jax.vmap(f, in_axes=(0, None))(x, y)


# ==========================================================================
# reductions, cumsum, sort
# ==========================================================================


@case("reductions_axis1", lambda rng: [f32(rng, (3, 4, 5))],
      note="per-example f32[3,5] (in_axes=1).")
def reductions_axis1(x):
    def f(v):
        return (v.sum(axis=0), v.max(axis=1, keepdims=True), v.min(), jnp.mean(v, axis=(0, 1)),
                v.sum(axis=-1, keepdims=True), jnp.min(v, axis=0), jnp.mean(v, axis=1))
    return jax.vmap(f, in_axes=1)(x)


@case("reductions_int_bool", lambda rng: [i32(rng, (4, 3, 2)), boolean(rng, (4, 5))])
def reductions_int_bool(k, b):
    return jax.vmap(lambda kk, bb: (kk.sum(axis=1), kk.max(), bb.sum(), jnp.any(bb), jnp.all(bb)))(k, b)


@case("argmax_argmin", lambda rng: [small_ints_f32(rng, (3, 4, 5))],
      note="ties present (small integer floats); first index wins. per-example f32[3,4] (in_axes=-1).")
def argmax_argmin(x):
    def f(v):
        return jnp.argmax(v, axis=0), jnp.argmax(v, axis=1), jnp.argmin(v), jnp.argmax(v, axis=1, keepdims=True)
    return jax.vmap(f, in_axes=-1)(x)


@case("cumsum_variants", lambda rng: [f32(rng, (3, 4, 2)), i32(rng, (2, 5))])
def cumsum_variants(x, k):
    def f(v, kk):
        return jnp.cumsum(v, axis=0), jnp.cumsum(v, axis=1), jnp.cumsum(v), jnp.cumsum(kk), lax.cummax(kk, axis=0)
    return jax.vmap(f, in_axes=(2, 0))(x, k)


@case("sort_variants", lambda rng: [small_ints_f32(rng, (4, 5, 3))],
      note="per-example f32[4,3] (in_axes=1); argsort is stable.")
def sort_variants(x):
    def f(v):
        return jnp.sort(v, axis=0), jnp.sort(v), jnp.argsort(v, axis=0), jnp.sort(v.ravel())
    return jax.vmap(f, in_axes=1)(x)


# ==========================================================================
# dot_general
# ==========================================================================


@case("matmul_lhs_batched", lambda rng: [f32(rng, (5, 3, 4)), f32(rng, (4, 2))])
def matmul_lhs_batched(a, b):
    return jax.vmap(lambda x, y: x @ y, in_axes=(0, None))(a, b)


@case("matmul_rhs_batched", lambda rng: [f32(rng, (3, 4)), f32(rng, (5, 4, 2))])
def matmul_rhs_batched(a, b):
    return jax.vmap(lambda x, y: x @ y, in_axes=(None, 0))(a, b)


@case("matmul_rhs_batched_axis2", lambda rng: [f32(rng, (3, 4)), f32(rng, (4, 2, 5))])
def matmul_rhs_batched_axis2(a, b):
    return jax.vmap(jnp.matmul, in_axes=(None, 2))(a, b)


@case("matmul_both_batched", lambda rng: [f32(rng, (5, 3, 4)), f32(rng, (4, 5, 2))])
def matmul_both_batched(a, b):
    return jax.vmap(lambda x, y: x @ y, in_axes=(0, 1))(a, b)


@case("vecmat_matvec", lambda rng: [f32(rng, (5, 4)), f32(rng, (4, 3)), f32(rng, (3, 4))])
def vecmat_matvec(v, m, n):
    return jax.vmap(lambda x, a, b: (x @ a, b @ x, jnp.dot(x, x)), in_axes=(0, None, None))(v, m, n)


@case("dot_vec_both_batched", lambda rng: [f32(rng, (5, 4)), f32(rng, (4, 5))])
def dot_vec_both_batched(x, y):
    return jax.vmap(jnp.dot, in_axes=(0, 1))(x, y)


@case("batched_3d_matmul", lambda rng: [f32(rng, (3, 2, 3, 4)), f32(rng, (3, 2, 4, 5))],
      note="per-example jnp.matmul of f32[2,3,4] @ f32[2,4,5] (already batched), plus einsum.")
def batched_3d_matmul(a, b):
    def f(x, y):
        return jnp.matmul(x, y), jnp.einsum("bij,bjk->bki", x, y)
    return jax.vmap(f)(a, b)


@case("batched_3d_matmul_unbatched_rhs", lambda rng: [f32(rng, (2, 3, 4, 3)), f32(rng, (2, 4, 5))],
      note="lhs per-example f32[2,3,4] (in_axes=-1), rhs unbatched f32[2,4,5].")
def batched_3d_matmul_unbatched_rhs(a, b):
    return jax.vmap(jnp.matmul, in_axes=(-1, None))(a, b)


# ==========================================================================
# gather / dynamic_slice / dynamic_update_slice / scatter
# ==========================================================================

IDX_NEG = lambda rng: np.array([0, 3, -1, 2, -4, 3], np.int32)


@case("gather_x_batched", lambda rng: [f32(rng, (4, 5)), IDX_NEG(rng)],
      note="idx unbatched, includes negative indices and repeats.")
def gather_x_batched(x, idx):
    return jax.vmap(lambda a, i: a[i], in_axes=(0, None))(x, idx)


@case("gather_idx_batched", lambda rng: [f32(rng, (5, 2)), i32(rng, (4, 3), -5, 5)],
      note="x unbatched f32[5,2] (row gather), idx batched with negatives.")
def gather_idx_batched(x, idx):
    return jax.vmap(lambda a, i: a[i], in_axes=(None, 0))(x, idx)


@case("gather_both_batched", lambda rng: [f32(rng, (4, 6, 2)), i32(rng, (3, 4), 0, 6)],
      note="x batched axis 0 (per-example f32[6,2]), idx batched axis 1 (per-example i32[3]).")
def gather_both_batched(x, idx):
    return jax.vmap(lambda a, i: (a[i], a[:, 1][i], a[i, 0]), in_axes=(0, 1))(x, idx)


@case("gather_scalar_index_batched", lambda rng: [f32(rng, (5, 4)), np.array([0, 4, -1, 2, -5, 3], np.int32),
                                                  np.array([1, 0, 3, -2, 2, -4], np.int32)],
      note="x unbatched; scalar indices i, j batched (negatives wrap).")
def gather_scalar_index_batched(x, i, j):
    return jax.vmap(lambda a, ii, jj: (a[ii], a[ii, jj], a[:, jj], a[ii, 1:3]), in_axes=(None, 0, 0))(x, i, j)


@case("ix_indexing", lambda rng: [f32(rng, (3, 5, 6)), i32(rng, (3, 2), 0, 5), np.array([5, 0, 2], np.int32)],
      note="x batched, row indices batched, column indices unbatched; x[jnp.ix_(r, c)].")
def ix_indexing(x, r, c):
    return jax.vmap(lambda a, rr, cc: a[jnp.ix_(rr, cc)], in_axes=(0, 0, None))(x, r, c)


@case("dynamic_slice_batched_start", lambda rng: [f32(rng, (5, 6)), np.array([0, 2, 3, 4, -1], np.int32)],
      note="x unbatched; start batched. lax.dynamic_slice first wraps negative starts (-1 -> -1 + 5 = 4), "
           "then clamps to [0, 5 - 2]: starts 4 and -1 both become 3.")
def dynamic_slice_batched_start(x, i):
    return jax.vmap(lambda a, s: lax.dynamic_slice(a, (s, 1), (2, 3)), in_axes=(None, 0))(x, i)


@case("dynamic_slice_both_batched", lambda rng: [f32(rng, (4, 7)), np.array([0, 5, 2, 6], np.int32),
                                                 f32(rng, (7, 4))],
      note="x batched (axis 0) and start batched; second call with x batched on axis 1 and unbatched start.")
def dynamic_slice_both_batched(x, i, y):
    return (jax.vmap(lambda a, s: lax.dynamic_slice(a, (s,), (3,)))(x, i),
            jax.vmap(lambda a, s: lax.dynamic_slice_in_dim(a, s, 2), in_axes=(1, None))(y, jnp.int32(3)))


@case("dynamic_update_slice_operand_batched", lambda rng: [f32(rng, (3, 4, 5)), f32(rng, (2, 2)), np.array(1, np.int32)])
def dynamic_update_slice_operand_batched(x, u, i):
    return jax.vmap(lambda a, b, s: lax.dynamic_update_slice(a, b, (s, 2)), in_axes=(0, None, None))(x, u, i)


@case("dynamic_update_slice_update_batched", lambda rng: [f32(rng, (4, 5)), f32(rng, (2, 3, 2)), np.array(3, np.int32)],
      note="only the update is batched (axis 1); start 3 of dim 4 with size 2 is clamped to 2.")
def dynamic_update_slice_update_batched(x, u, i):
    return jax.vmap(lambda a, b, s: lax.dynamic_update_slice(a, b, (s, 0)), in_axes=(None, 1, None))(x, u, i)


@case("dynamic_update_slice_index_batched", lambda rng: [f32(rng, (6,)), f32(rng, (2,)), np.array([0, 3, 5, -2], np.int32)],
      note="only the start index is batched; negative starts wrap first (-2 -> 4), then clamp to [0, 4]: 5 -> 4.")
def dynamic_update_slice_index_batched(x, u, i):
    return jax.vmap(lambda a, b, s: lax.dynamic_update_slice(a, b, (s,)), in_axes=(None, None, 0))(x, u, i)


@case("dynamic_update_slice_all_batched", lambda rng: [f32(rng, (5, 3, 4)), f32(rng, (2, 2, 3)), np.array([[0, -1, 1], [3, 0, 9]], np.int32)],
      note="operand batched axis 1 (per-example f32[5,4]), update batched axis -1 (f32[2,2]), "
           "start rows batched axis 1 of i32[2,3] (per-example (row, col)); row -1 wraps to 4 then clamps to 3, col 9 clamps to 2.")
def dynamic_update_slice_all_batched(x, u, ij):
    return jax.vmap(lambda a, b, s: lax.dynamic_update_slice(a, b, (s[0], s[1])), in_axes=(1, -1, 1))(x, u, ij)


@case("scatter_add_x_batched", lambda rng: [f32(rng, (3, 5)), np.array([0, 2, 2, -1], np.int32), f32(rng, (4,))],
      note="duplicate index 2 accumulates; -1 wraps to 4.")
def scatter_add_x_batched(x, idx, v):
    return jax.vmap(lambda a, i, b: a.at[i].add(b), in_axes=(0, None, None))(x, idx, v)


@case("scatter_add_v_batched", lambda rng: [f32(rng, (5, 2)), np.array([1, 3, 1], np.int32), f32(rng, (3, 2, 4))],
      note="x unbatched f32[5,2] (row scatter), updates batched along axis -1.")
def scatter_add_v_batched(x, idx, v):
    return jax.vmap(lambda a, i, b: a.at[i].add(b), in_axes=(None, None, -1))(x, idx, v)


@case("scatter_add_idx_batched", lambda rng: [f32(rng, (6,)), i32(rng, (4, 3), 0, 6), np.array(1.0, np.float32)],
      note="only the indices are batched (duplicates possible); scalar update.")
def scatter_add_idx_batched(x, idx, v):
    return jax.vmap(lambda a, i, b: a.at[i].add(b), in_axes=(None, 0, None))(x, idx, v)


@case("scatter_add_all_batched", lambda rng: [f32(rng, (4, 5)), i32(rng, (3, 4), -5, 5), f32(rng, (4, 3))])
def scatter_add_all_batched(x, idx, v):
    return jax.vmap(lambda a, i, b: (a.at[i].add(b), jnp.zeros(3).at[i % 3].add(b)), in_axes=(0, 1, 0))(x, idx, v)


@case("scatter_set_mul_batched", lambda rng: [f32(rng, (3, 6)), np.array([[0, 4], [5, 1], [2, 3]], np.int32), f32(rng, (3, 2))],
      note="no duplicate indices within an example (so .set is deterministic).")
def scatter_set_mul_batched(x, idx, v):
    return jax.vmap(lambda a, i, b: (a.at[i].set(b), a.at[i].mul(b), a.at[i].max(b)))(x, idx, v)


# ==========================================================================
# in_axes / out_axes / axis_size forms
# ==========================================================================


@case("in_axes_tuple_prefix", lambda rng: [f32(rng, (4, 3)), f32(rng, (3,)), f32(rng, (4,))],
      note="first argument is the tuple (a, b); in_axes=((0, None), 0).")
def in_axes_tuple_prefix(a, b, c):
    def f(ab, z):
        x, y = ab
        return x * y + z
    return jax.vmap(f, in_axes=((0, None), 0))((a, b), c)


@case("in_axes_none_for_tuple_arg", lambda rng: [f32(rng, (3,)), f32(rng, (3,)), f32(rng, (5, 3))],
      note="first argument is the tuple (w, b), unbatched as a whole via in_axes=(None, 0).")
def in_axes_none_for_tuple_arg(w, b, x):
    def f(params, v):
        ww, bb = params
        return ww * v + bb
    return jax.vmap(f, in_axes=(None, 0))((w, b), x)


@case("in_axes_dict_prefix", lambda rng: [f32(rng, (2, 4)), f32(rng, (2,)), f32(rng, (3, 4))],
      note="dict argument {'w': w, 'b': b} with in_axes=({'w': None, 'b': None}, 0); tuple output.")
def in_axes_dict_prefix(w, b, x):
    def f(p, v):
        return p["w"] @ v + p["b"], v.sum()
    return jax.vmap(f, in_axes=({"w": None, "b": None}, 0))({"w": w, "b": b}, x)


@case("in_axes_int_for_all", lambda rng: [f32(rng, (3, 4)), f32(rng, (3, 4))],
      note="in_axes=1 (a bare int applies to every argument).")
def in_axes_int_for_all(x, y):
    return jax.vmap(lambda a, b: a * b + a, in_axes=1)(x, y)


@case("out_axes_1", lambda rng: [f32(rng, (4, 2, 3))])
def out_axes_1(x):
    return jax.vmap(lambda v: jnp.sin(v) @ v.T, out_axes=1)(x)


@case("out_axes_neg1", lambda rng: [f32(rng, (3, 4)), f32(rng, (5,))],
      note="x unbatched, s batched; out_axes=-1 puts the batch axis last.")
def out_axes_neg1(x, s):
    return jax.vmap(lambda a, t: a * t, in_axes=(None, 0), out_axes=-1)(x, s)


@case("out_axes_tuple", lambda rng: [f32(rng, (3, 2, 4)), f32(rng, (2,))],
      note="out_axes=(0, 1, -1, None); the last output is unbatched (depends only on y).")
def out_axes_tuple(x, y):
    def f(a, b):
        return a.sum(axis=0), a * 2.0, a[:, :, None] + 1.0, b * 3.0
    return jax.vmap(f, in_axes=(-1, None), out_axes=(0, 1, -1, None))(x, y)


@case("out_unbatched_broadcast", lambda rng: [f32(rng, (4, 3)), f32(rng, (2,))],
      note="outputs that do not depend on the batched input are broadcast along the batch axis.")
def out_unbatched_broadcast(x, y):
    return jax.vmap(lambda a, b: (b * 2.0, jnp.float32(1.5), jnp.arange(3), a[0]), in_axes=(0, None))(x, y)


@case("axis_size_all_none", lambda rng: [f32(rng, (2, 3))],
      note="in_axes=None with axis_size=3: every output is the unbatched result repeated 3x.")
def axis_size_all_none(x):
    return jax.vmap(lambda v: (v * 2.0, v.sum()), in_axes=None, axis_size=3)(x)


@case("axis_size_no_args", note="zero-argument function, axis_size=4, out_axes=1.")
def axis_size_no_args():
    return jax.vmap(lambda: jnp.arange(3.0) * 2.0, axis_size=4, out_axes=1)()


# ==========================================================================
# nesting / closures
# ==========================================================================


@case("nested_2_outer_product", lambda rng: [f32(rng, (4, 3)), f32(rng, (5, 3))],
      note="inner vmap maps x (in_axes=(0, None)), outer vmap maps y (in_axes=(None, 0)); result [5, 4].")
def nested_2_outer_product(x, y):
    inner = jax.vmap(lambda a, b: jnp.dot(a, b), in_axes=(0, None))
    return jax.vmap(inner, in_axes=(None, 0))(x, y)


@case("nested_2_axes_mix", lambda rng: [f32(rng, (3, 4, 2)), f32(rng, (2, 3))],
      note="outer in_axes=(2, 0), inner in_axes=(1, None) with out_axes=1 at the outer level.")
def nested_2_axes_mix(x, y):
    inner = jax.vmap(lambda a, b: a * b.sum() + a.max(), in_axes=(1, None))
    return jax.vmap(inner, in_axes=(2, 0), out_axes=1)(x, y)


@case("nested_3_levels", lambda rng: [f32(rng, (2, 3, 4, 5)), f32(rng, (4, 5)), f32(rng, (2,))],
      note="level 0 maps x axis 0 and s; level 1 maps (original) x axis 1, y and s unbatched; "
           "level 2 maps x axis -1 of its f32[4,5] and y axis -1; result f32[2,5,3] (level-1 out_axes=1).")
def nested_3_levels(x, y, s):
    def f(a, b, c):
        return (a * b).sum() + c
    l3 = jax.vmap(f, in_axes=(-1, -1, None))
    l2 = jax.vmap(l3, in_axes=(0, None, None), out_axes=1)
    return jax.vmap(l2, in_axes=(0, None, 0))(x, y, s)


@case("nested_3_matmul", lambda rng: [f32(rng, (2, 3, 4, 5)), f32(rng, (5, 2))],
      note="triple-vmapped vector-matrix product; innermost in_axes=(0, None), out_axes=-1 in the middle.")
def nested_3_matmul(x, m):
    v1 = jax.vmap(lambda a, b: a @ b, in_axes=(0, None))
    v2 = jax.vmap(v1, in_axes=(1, None), out_axes=-1)
    return jax.vmap(v2, in_axes=(0, None))(x, m)


@case("closure_captures_outer_tracer", lambda rng: [f32(rng, (4,)), f32(rng, (3,))],
      note="inner function closes over x, a tracer of the outer vmap.")
def closure_captures_outer_tracer(xs, ys):
    return jax.vmap(lambda x: jax.vmap(lambda y: x * y)(ys))(xs)


@case("closure_captures_outer_tracer_array", lambda rng: [f32(rng, (4, 3)), f32(rng, (5, 3))],
      note="inner closes over outer row x (f32[3]) and outer-level intermediate; inner maps ys axis 0.")
def closure_captures_outer_tracer_array(xs, ys):
    def outer(x):
        nx = jnp.sqrt((x * x).sum())
        return jax.vmap(lambda y: jnp.dot(x, y) / nx + y[0])(ys)
    return jax.vmap(outer, out_axes=1)(xs)


# ==========================================================================
# seed programs
# ==========================================================================

LATTICE_HELPERS = ("N = 6\ndof = 19\n", to_id_xyz, extract_3x3x3_grid)


@case("seed004_f_vmap", lambda rng: [f32(rng, (10, 100))], helpers=(seed004_f,))
def seed004_f_vmap(x):
    return jax.vmap(seed004_f)(x)


@case("seed004_memory_test1_vmap_random",
      lambda rng: [np.arange(N * N * N, dtype=np.int32), f32(rng, (N, N, N, dof))],
      helpers=LATTICE_HELPERS + (memory_test1,))
def seed004_memory_test1_vmap_random(lattice_ids, value_tensor):
    return jax.vmap(memory_test1, in_axes=(0, None))(lattice_ids, value_tensor)


@case("seed004_memory_test1_vmap_ones",
      lambda rng: [np.arange(N * N * N, dtype=np.int32), np.ones((N, N, N, dof), np.float32)],
      helpers=LATTICE_HELPERS + (memory_test1,), note="expect 513.0 (= 27 * 19) everywhere.")
def seed004_memory_test1_vmap_ones(lattice_ids, value_tensor):
    return jax.vmap(memory_test1, in_axes=(0, None))(lattice_ids, value_tensor)


@case("seed004_memory_test2_vmap_random",
      lambda rng: [np.arange(N * N * N, dtype=np.int32), f32(rng, (N, N, N, dof))],
      helpers=LATTICE_HELPERS + (memory_test2,))
def seed004_memory_test2_vmap_random(lattice_ids, value_tensor):
    return jax.vmap(memory_test2, in_axes=(0, None))(lattice_ids, value_tensor)


@case("seed004_memory_test2_vmap_ones",
      lambda rng: [np.arange(N * N * N, dtype=np.int32), np.ones((N, N, N, dof), np.float32)],
      helpers=LATTICE_HELPERS + (memory_test2,), note="expect 1026.0 (= 27 * 19 * 2) everywhere.")
def seed004_memory_test2_vmap_ones(lattice_ids, value_tensor):
    return jax.vmap(memory_test2, in_axes=(0, None))(lattice_ids, value_tensor)


@case("seed004_extract_grid_vmap",
      lambda rng: [np.array([0, 37, 215, 100], np.int32), f32(rng, (N, N, N, dof))],
      helpers=LATTICE_HELPERS, note="the batched jnp.ix_ gather on its own (corner ids wrap).")
def seed004_extract_grid_vmap(lattice_ids, value_tensor):
    return jax.vmap(extract_3x3x3_grid, in_axes=(0, None))(lattice_ids, value_tensor)


@case("seed002_squared_error_vmap",
      lambda rng: [np.array(2.0, np.float32), np.array(1.0, np.float32),
                   np.linspace(0, 1, 5).astype(np.float32), (2.5 * np.linspace(0, 1, 5) + 0.5).astype(np.float32)],
      helpers=(squared_error,),
      note="seed 002 data: params=(2.0, 1.0) passed as in_0=w, in_1=b; batch_x = linspace(0,1,5), "
           "batch_y_true = 2.5*batch_x + 0.5. Value only (no grad).")
def seed002_squared_error_vmap(w, b, x, y_true):
    return jax.vmap(squared_error, in_axes=(None, 0, 0))((w, b), x, y_true)


@case("seed002_squared_error_vmap_random",
      lambda rng: [f32(rng, ()), f32(rng, ()), f32(rng, (7,)), f32(rng, (7,))],
      helpers=(squared_error,), note="random params and data, in_axes=(None, 0, 0).")
def seed002_squared_error_vmap_random(w, b, x, y_true):
    return jax.vmap(squared_error, in_axes=(None, 0, 0))((w, b), x, y_true)


@case("seed000_neg_l1_affinity", lambda rng: [f32(rng, (5, 4, 4)), f32(rng, (7, 4, 4))],
      note="seed 000 block_vs_all_affinity: 5 block images vs 7 images of 4x4 -> f32[5, 7].")
def seed000_neg_l1_affinity(block, all_imgs):
    return jax.vmap(lambda x: jax.vmap(lambda y: -jnp.sum(jnp.abs(x - y)))(all_imgs))(block)


@case("seed000_neg_l1_affinity_self", lambda rng: [f32(rng, (6, 4, 4))],
      note="all-vs-all on the same images: diagonal must be exactly -0.0/0.0, matrix symmetric.")
def seed000_neg_l1_affinity_self(imgs):
    return jax.vmap(lambda x: jax.vmap(lambda y: -jnp.sum(jnp.abs(x - y)))(imgs))(imgs)


# ==========================================================================
# PRNG (threefry; see MANIFEST for jax_threefry_partitionable)
# ==========================================================================


def split_keys(seed, n):
    return lambda rng: [np.asarray(jax.random.split(jax.random.PRNGKey(seed), n))]


@case("random_normal_split_keys", prng=True, note="no inputs; keys = split(PRNGKey(0), 4).")
def random_normal_split_keys():
    return jax.vmap(lambda k: jax.random.normal(k, (3,)))(jax.random.split(jax.random.PRNGKey(0), 4))


@case("random_uniform_keys_input", split_keys(1, 5), prng=True,
      note="in_0 = np.asarray(jax.random.split(jax.random.PRNGKey(1), 5)) (raw uint32[5,2] keys).")
def random_uniform_keys_input(keys):
    return jax.vmap(lambda k: (jax.random.uniform(k, (2, 3)),
                               jax.random.uniform(k, (4,), minval=-2.0, maxval=3.0)))(keys)


@case("random_randint_keys_input", split_keys(2, 4), prng=True,
      note="in_0 = np.asarray(jax.random.split(jax.random.PRNGKey(2), 4)).")
def random_randint_keys_input(keys):
    return jax.vmap(lambda k: (jax.random.randint(k, (5,), 0, 10), jax.random.randint(k, (2, 2), -3, 4)))(keys)


@case("random_keys_axis1_out_axes1", lambda rng: [np.asarray(jax.random.split(jax.random.PRNGKey(3), 3)).T],
      prng=True, note="in_0 = split(PRNGKey(3), 3).T as uint32[2,3]: keys along axis 1 (in_axes=1); out_axes=1.")
def random_keys_axis1_out_axes1(keys_t):
    return jax.vmap(lambda k: jax.random.normal(k, (2,)), in_axes=1, out_axes=1)(keys_t)


@case("random_fold_in_data", lambda rng: [np.array([0, 1, 2, 7, 123456, 2**31 - 1], np.int32)], prng=True,
      note="key PRNGKey(0) unbatched, data batched; output raw uint32 keys.")
def random_fold_in_data(d):
    return jax.vmap(lambda x: jax.random.fold_in(jax.random.PRNGKey(0), x))(d)


@case("random_fold_in_keys_and_data",
      lambda rng: [np.asarray(jax.random.split(jax.random.PRNGKey(5), 3)), np.array([4, 0, 9], np.int32)],
      prng=True, note="both key and data batched; also split each folded key into 2 (uint32[3,2,2]).")
def random_fold_in_keys_and_data(keys, d):
    def f(k, x):
        k2 = jax.random.fold_in(k, x)
        return k2, jax.random.split(k2)
    return jax.vmap(f)(keys, d)


@case("random_split_then_normal_nested", prng=True,
      note="nested: outer over 2 keys, each split into 3 subkeys, inner normal((2,)).")
def random_split_then_normal_nested():
    def per_key(k):
        return jax.vmap(lambda s: jax.random.normal(s, (2,)))(jax.random.split(k, 3))
    return jax.vmap(per_key)(jax.random.split(jax.random.PRNGKey(42), 2))


# ==========================================================================
# driver
# ==========================================================================


def _fmt_axes(v):
    return repr(v)


class VmapRecorder:
    """Wraps jax.vmap so each case's vmap parameters can be listed in the manifest.

    A vmapped function is recorded when it is *called* (not when it is built),
    together with its nesting level (0 = outermost), so nested vmaps are listed
    outermost first."""

    def __init__(self):
        self.calls = None
        self.depth = 0
        self._orig = jax.vmap

    def __enter__(self):
        self.calls = []
        self.depth = 0
        orig = self._orig

        def rec(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, **kw):
            entry = f"in_axes={_fmt_axes(in_axes)}, out_axes={_fmt_axes(out_axes)}"
            if axis_size is not None:
                entry += f", axis_size={axis_size}"
            if axis_name is not None:
                entry += f", axis_name={axis_name!r}"
            if kw:
                entry += "".join(f", {k}={v!r}" for k, v in kw.items())
            vf = orig(fun, in_axes=in_axes, out_axes=out_axes, axis_name=axis_name,
                      axis_size=axis_size, **kw)

            def called(*args, **kwargs):
                self.calls.append((self.depth, entry))
                self.depth += 1
                try:
                    return vf(*args, **kwargs)
                finally:
                    self.depth -= 1

            return called

        jax.vmap = rec
        return self

    def __exit__(self, *exc):
        jax.vmap = self._orig
        return False


def fmt_vmaps(calls):
    """[(depth, entry)] -> strings like 'level 1: in_axes=...'; plain entry when there is no nesting."""
    if all(d == 0 for d, _ in calls):
        return [e for _, e in calls]
    return [f"level {d}: {e}" for d, e in calls]


def _check_input(c, a):
    assert a.dtype != np.float64 and a.dtype != np.int64, (c["name"], a.dtype)


def run_case(c):
    recd = VmapRecorder()

    def call(*jin):
        with recd:
            out = c["fn"](*jin)
        assert recd.calls, f"{c['name']}: no jax.vmap call"
        return out

    r = gg.eval_case(c, _check_input, call=call)
    gg.write_case_dir(OUTDIR / c["name"], r)
    r["vmaps"] = fmt_vmaps(recd.calls)
    return r


def write_manifest(results, partitionable):
    header = [
        "# oxla vmap golden conformance cases",
        "",
        "Generated by `scripts/gen_golden_vmap.py` (do not edit by hand; rerun the script).",
        "",
        f"- jax {jax.__version__}, jaxlib {gg._jaxlib_version()}, numpy {np.__version__}, backend CPU, x64 disabled",
        f"- `jax.config.jax_threefry_partitionable` = **{partitionable}** (applies to every `random_*` case);",
        f"  `jax.config.jax_default_prng_impl` = `{jax.config.jax_default_prng_impl}`; keys are raw `uint32[..., 2]`.",
        "- Layout (same as tests/golden/): `<case>/in_<i>.npy` inputs (positional args of the case function, in",
        "  order), `<case>/out_<i>.npy` = `jax.tree_util.tree_leaves(fn(*inputs))[i]`, `<case>/jaxpr.txt` =",
        "  `str(jax.make_jaxpr(fn)(*inputs))`, i.e. the jaxpr of the vmapped program (vmap is traced away;",
        "  tuple/dict arguments are assembled inside `fn`, so the jaxpr's invars are the flat inputs).",
        "  0-d arrays are stored with shape `()`.",
        "- `vmap calls`: the arguments of every `jax.vmap(...)` function called while running the case, in call",
        "  order; for nested vmaps each entry is prefixed `level k:` (0 = outermost; an inner vmap is called once",
        "  per trace of the enclosing one). Defaults in_axes=0/out_axes=0 are shown explicitly.",
        "- Inputs: `rng = np.random.default_rng(seed)` with `seed = zlib.crc32(name)`; helpers from",
        "  scripts/gen_golden.py (`f32(rng, shape, lo=-1, hi=1)`, `i32(rng, shape, lo=-5, hi=6)` in [lo, hi),",
        "  `nz_i32` nonzero ints from {-4,-3,-2,-1,1,2,3,5}, `boolean`, `small_ints_f32` = ints in [-2, 2] as f32)",
        "  plus `nonzero_f32(rng, shape, lo=0.5, hi=2)` = |x| in [lo, hi) with random sign. The .npy files are",
        "  authoritative.",
        "- Outputs computed eagerly (no `jax.jit`) on CPU. Compare floats with a small tolerance",
        "  (e.g. rtol=1e-5/atol=1e-6 for f32); ints, bools and PRNG bit outputs should match exactly.",
        "- In the source, `jnp` = `jax.numpy`, `lax` = `jax.lax`, `np` = numpy.",
    ]

    def index_row(c, r, ins, outs):
        return ["; ".join(f"`{v}`" for v in r["vmaps"]).replace("|", "\\|"), ins, outs]

    def details(c, r):
        return ["- vmap calls (call order; level 0 = outermost):", *(f"  - `jax.vmap(..., {v})`" for v in r["vmaps"])]

    gg.write_manifest_file(OUTDIR / "MANIFEST.md", header, results, ["vmap calls", "inputs", "outputs"], index_row,
                           partitionable, details=details)


def main():
    gg.generate(OUTDIR, CASES, run_case, write_manifest, what="vmap cases")


if __name__ == "__main__":
    main()
