#!/usr/bin/env python3
"""Generate JAX golden conformance files for oxla.

Usage (from anywhere; needs a Python env with `jax` and `numpy`):

    /work/jaxenv/bin/python scripts/gen_golden.py

Writes (relative to the repo root):

    tests/golden/<case>/in_<i>.npy    inputs (deterministic, np.random.default_rng(seed))
    tests/golden/<case>/out_<i>.npy   jax.tree_util.tree_leaves(fn(*inputs)), via np.asarray
    tests/golden/<case>/jaxpr.txt     str(jax.make_jaxpr(fn)(*inputs))
    tests/golden/MANIFEST.md          name, source, input/output shapes+dtypes of every case
    tests/golden/jaxpr/*.txt          reference jaxprs for the seed programs
                                      (plain, .source_info.txt, .full.txt)

Every case is a plain function of arrays.  Static things (axes, shapes, python
scalars) are hard-coded in the function body.  Cases marked x64 are traced and
run inside `with jax.enable_x64(True):`; every other case runs with x64
disabled (JAX default), so default dtypes there are float32/int32.
Outputs are computed eagerly (no jax.jit) on the CPU backend.
"""

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=1")

import inspect
import shutil
import sys
import textwrap
import zlib
from pathlib import Path

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

REPO = Path(__file__).resolve().parent.parent
GOLDEN = REPO / "tests" / "golden"

# --------------------------------------------------------------------------
# input helpers (numpy only; dtypes are explicit)
# --------------------------------------------------------------------------


def f32(rng, shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def f64(rng, shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float64)


def i32(rng, shape, lo=-5, hi=6):
    """Integers uniformly in [lo, hi)."""
    return rng.integers(lo, hi, size=shape).astype(np.int32)


def nz_i32(rng, shape):
    """Non-zero int32 divisors, both signs."""
    return rng.choice(np.array([-4, -3, -2, -1, 1, 2, 3, 5], np.int32), size=shape).astype(np.int32)


def boolean(rng, shape):
    return rng.integers(0, 2, size=shape).astype(np.bool_)


def small_ints_f32(rng, shape):
    """float32 holding small integers (so equal/tie cases actually occur)."""
    return rng.integers(-2, 3, size=shape).astype(np.float32)


# --------------------------------------------------------------------------
# case registry
# --------------------------------------------------------------------------

CASES = []


def case(name, inputs=lambda rng: [], x64=False, helpers=(), prng=False, note=None):
    """Register fn as a golden case.

    inputs: rng -> list of numpy arrays (rng = np.random.default_rng(seed),
            seed = zlib.crc32(name)).
    helpers: other functions whose source is needed to understand fn.
    """

    def deco(fn):
        CASES.append(
            dict(name=name, fn=fn, inputs=inputs, x64=x64, helpers=tuple(helpers), prng=prng, note=note)
        )
        return fn

    return deco


def seed_of(name):
    return zlib.crc32(name.encode()) & 0xFFFFFFFF


# ==========================================================================
# elementwise
# ==========================================================================

A34 = lambda rng: [f32(rng, (3, 4)), f32(rng, (3, 4))]
POS34 = lambda rng: [f32(rng, (3, 4), 0.1, 3.0)]
ANY34 = lambda rng: [f32(rng, (3, 4), -3.0, 3.0)]


@case("add_f32", A34)
def add_f32(x, y):
    return x + y


@case("sub_f32", A34)
def sub_f32(x, y):
    return x - y


@case("mul_f32", A34)
def mul_f32(x, y):
    return x * y


@case("div_f32", lambda rng: [f32(rng, (3, 4)), f32(rng, (3, 4), 0.5, 2.0) * np.where(rng.random((3, 4)) < 0.5, -1, 1).astype(np.float32)])
def div_f32(x, y):
    return x / y


@case("neg_f32", ANY34)
def neg_f32(x):
    return -x


@case("maximum_f32", A34)
def maximum_f32(x, y):
    return jnp.maximum(x, y)


@case("minimum_f32", A34)
def minimum_f32(x, y):
    return jnp.minimum(x, y)


@case("power_f32_f32", lambda rng: [f32(rng, (3, 4), 0.1, 3.0), f32(rng, (3, 4), -2.0, 2.0)])
def power_f32_f32(x, y):
    return x ** y


@case("integer_pow_2", ANY34)
def integer_pow_2(x):
    return x ** 2


@case("integer_pow_3", ANY34)
def integer_pow_3(x):
    return x ** 3


@case("exp_f32", ANY34)
def exp_f32(x):
    return jnp.exp(x)


@case("log_f32", POS34)
def log_f32(x):
    return jnp.log(x)


@case("log1p_f32", lambda rng: [f32(rng, (3, 4), -0.9, 3.0)])
def log1p_f32(x):
    return jnp.log1p(x)


@case("sin_f32", ANY34)
def sin_f32(x):
    return jnp.sin(x)


@case("cos_f32", ANY34)
def cos_f32(x):
    return jnp.cos(x)


@case("tanh_f32", ANY34)
def tanh_f32(x):
    return jnp.tanh(x)


@case("cbrt_f32", ANY34)
def cbrt_f32(x):
    return jnp.cbrt(x)


@case("sigmoid_f32", lambda rng: [f32(rng, (3, 4), -6.0, 6.0)])
def sigmoid_f32(x):
    return jax.nn.sigmoid(x)


@case("sqrt_f32", POS34)
def sqrt_f32(x):
    return jnp.sqrt(x)


@case("rsqrt_f32", POS34)
def rsqrt_f32(x):
    return lax.rsqrt(x)


@case("abs_f32", ANY34)
def abs_f32(x):
    return jnp.abs(x)


@case("sign_f32", lambda rng: [np.concatenate([f32(rng, (9,), -3.0, 3.0), np.zeros(3, np.float32)]).reshape(3, 4)])
def sign_f32(x):
    return jnp.sign(x)


@case("floor_f32", ANY34)
def floor_f32(x):
    return jnp.floor(x)


@case("abs_neg_i32", lambda rng: [i32(rng, (8,), -10, 10)])
def abs_neg_i32(x):
    return jnp.abs(x), -x, jnp.sign(x)


@case("int_mod_neg", lambda rng: [i32(rng, (12,), -9, 10), nz_i32(rng, (12,))],
      note="int32 `%` follows numpy/Python semantics: result has the sign of the divisor.")
def int_mod_neg(x, y):
    return x % y


@case("int_floordiv_neg", lambda rng: [i32(rng, (12,), -9, 10), nz_i32(rng, (12,))],
      note="int32 `//` rounds toward -inf (numpy/Python semantics).")
def int_floordiv_neg(x, y):
    return x // y


@case("int_mod_floordiv_scalar", lambda rng: [i32(rng, (10,), -12, 12)])
def int_mod_floordiv_scalar(x):
    return x % 5, x // 5, x % -3, x // -3


@case("float_mod_neg", lambda rng: [f32(rng, (12,), -5.0, 5.0), f32(rng, (12,), 0.5, 2.5) * np.where(rng.random(12) < 0.5, -1, 1).astype(np.float32)],
      note="float `%` follows numpy semantics: result has the sign of the divisor.")
def float_mod_neg(x, y):
    return x % y


CMP = lambda rng: [small_ints_f32(rng, (3, 4)), small_ints_f32(rng, (3, 4))]


@case("eq_f32", CMP)
def eq_f32(x, y):
    return x == y


@case("ne_f32", CMP)
def ne_f32(x, y):
    return x != y


@case("lt_f32", CMP)
def lt_f32(x, y):
    return x < y


@case("le_f32", CMP)
def le_f32(x, y):
    return x <= y


@case("gt_f32", CMP)
def gt_f32(x, y):
    return x > y


@case("ge_f32", CMP)
def ge_f32(x, y):
    return x >= y


@case("compare_i32_scalar", lambda rng: [i32(rng, (8,), -3, 4)])
def compare_i32_scalar(x):
    return x == 0, x < 1, x >= -1


@case("logical_and_or_not", lambda rng: [boolean(rng, (8,)), boolean(rng, (8,))])
def logical_and_or_not(a, b):
    return jnp.logical_and(a, b), jnp.logical_or(a, b), jnp.logical_not(a)


@case("bool_operators", lambda rng: [boolean(rng, (8,)), boolean(rng, (8,))])
def bool_operators(a, b):
    return a & b, a | b, ~a, a ^ b


@case("bitwise_i32", lambda rng: [i32(rng, (8,)), i32(rng, (8,))])
def bitwise_i32(a, b):
    return a & b, a | b, a ^ b, ~a, a & 3, 5 | a, a ^ -1, jnp.bitwise_not(b)


@case("bitwise_u32", lambda rng: [rng.integers(0, 2**32, size=(8,), dtype=np.uint32),
                                  rng.integers(0, 2**32, size=(8,), dtype=np.uint32)])
def bitwise_u32(a, b):
    return a & b, a | b, a ^ b, ~a, a & 255, jnp.invert(b)


@case("bitwise_bool_scalar", lambda rng: [boolean(rng, (8,))])
def bitwise_bool_scalar(a):
    return a & True, False | a, a ^ True, ~a, jnp.bitwise_xor(a, a)


@case("logical_int_float", lambda rng: [i32(rng, (8,), -2, 3), small_ints_f32(rng, (8,))])
def logical_int_float(a, b):
    return (jnp.logical_and(a, b), jnp.logical_or(a, 0), jnp.logical_xor(a, b),
            jnp.logical_not(a), jnp.logical_not(b))


@case("compare_methods", lambda rng: [small_ints_f32(rng, (3, 4)), small_ints_f32(rng, (4,))])
def compare_methods(x, y):
    return x > y, x >= 0.0, x < 1, x <= y, x == y, x != 0


@case("axis_forms", lambda rng: [f32(rng, (3, 4)), f32(rng, (5,))])
def axis_forms(x, y):
    return (jnp.expand_dims(x, (0, 2)), jnp.expand_dims(x, (-1, 0)),
            jnp.concatenate([x, y], axis=None), jnp.sum(x, axis=None, keepdims=True),
            jnp.argmax(x, axis=None, keepdims=True), jnp.linalg.norm(x, axis=(0, 1), keepdims=True),
            jnp.squeeze(jnp.expand_dims(x, (0, 2)), (0, 2)))


@case("where_f32", lambda rng: [boolean(rng, (3, 4)), f32(rng, (3, 4)), f32(rng, (3, 4))])
def where_f32(c, x, y):
    return jnp.where(c, x, y)


@case("where_scalar_branch", lambda rng: [f32(rng, (3, 4))])
def where_scalar_branch(x):
    return jnp.where(x > 0, x, 0.0)


@case("where_broadcast", lambda rng: [f32(rng, (4,)), f32(rng, (3, 1))])
def where_broadcast(x, y):
    return jnp.where(x > y, x, y)


@case("astype_f32_i32", lambda rng: [np.array([-2.7, -1.5, -0.5, -0.0, 0.4, 1.5, 2.9, 7.99], np.float32)],
      note="f32 -> i32 conversion truncates toward zero.")
def astype_f32_i32(x):
    return x.astype(jnp.int32)


@case("astype_i32_f32", lambda rng: [i32(rng, (6,), -100, 100)])
def astype_i32_f32(x):
    return x.astype(jnp.float32)


@case("astype_bool_f32", lambda rng: [boolean(rng, (6,))])
def astype_bool_f32(x):
    return x.astype(jnp.float32)


@case("astype_f32_bool", lambda rng: [np.array([0.0, -0.0, 1.0, -2.5, 0.1, 0.0], np.float32)])
def astype_f32_bool(x):
    return x.astype(jnp.bool_)


@case("astype_f32_f64_x64", lambda rng: [f32(rng, (5,))], x64=True)
def astype_f32_f64_x64(x):
    return x.astype(jnp.float64)


# ==========================================================================
# broadcasting & python scalars
# ==========================================================================


@case("broadcast_add_rank", lambda rng: [f32(rng, (3, 4)), f32(rng, (4,))])
def broadcast_add_rank(x, y):
    return x + y


@case("broadcast_mul_3d", lambda rng: [f32(rng, (2, 3, 1)), f32(rng, (4,))])
def broadcast_mul_3d(x, y):
    return x * y


@case("broadcast_outer_sub", lambda rng: [f32(rng, (3, 1)), f32(rng, (1, 4))])
def broadcast_outer_sub(x, y):
    return x - y


@case("broadcast_scalar_array", lambda rng: [f32(rng, ()), f32(rng, (2, 3))])
def broadcast_scalar_array(s, x):
    return s * x + s


@case("scalar_mul_float", lambda rng: [f32(rng, (3, 4))])
def scalar_mul_float(x):
    return x * 2.0


@case("scalar_rsub_float", lambda rng: [f32(rng, (3, 4))])
def scalar_rsub_float(x):
    return 1.0 - x


@case("scalar_rdiv_float", lambda rng: [f32(rng, (3, 4), 0.5, 2.0)])
def scalar_rdiv_float(x):
    return 1.0 / x, x / 4


@case("scalar_int_add", lambda rng: [i32(rng, (5,))])
def scalar_int_add(x):
    return x + 1


@case("scalar_int_mul_float", lambda rng: [i32(rng, (5,))],
      note="int32 array * python float -> float32 (weak-typed scalar promotion).")
def scalar_int_mul_float(x):
    return x * 0.5


@case("int_true_divide", lambda rng: [i32(rng, (6,), -7, 8), nz_i32(rng, (6,))],
      note="int32 / int32 -> float32.")
def int_true_divide(x, y):
    return x / y


@case("mixed_int_float_add", lambda rng: [i32(rng, (4,)), f32(rng, (4,))])
def mixed_int_float_add(x, y):
    return x + y


# ==========================================================================
# shape ops
# ==========================================================================


@case("reshape_neg1", lambda rng: [f32(rng, (2, 3, 4))])
def reshape_neg1(x):
    return x.reshape(-1, 4), jnp.reshape(x, (6, -1)), x.reshape(-1)


@case("transpose_perm", lambda rng: [f32(rng, (2, 3, 4))])
def transpose_perm(x):
    return jnp.transpose(x, (2, 0, 1))


@case("transpose_T", lambda rng: [f32(rng, (3, 5))])
def transpose_T(x):
    return x.T


@case("transpose_default_3d", lambda rng: [f32(rng, (2, 3, 4))])
def transpose_default_3d(x):
    return jnp.transpose(x)


@case("squeeze", lambda rng: [f32(rng, (1, 3, 1, 2))])
def squeeze(x):
    return jnp.squeeze(x), jnp.squeeze(x, axis=2)


@case("expand_dims", lambda rng: [f32(rng, (3, 4))])
def expand_dims(x):
    return jnp.expand_dims(x, 1), jnp.expand_dims(x, -1), jnp.expand_dims(x, 0)


@case("broadcast_to", lambda rng: [f32(rng, (4,)), f32(rng, (3, 1))])
def broadcast_to(x, y):
    return jnp.broadcast_to(x, (3, 4)), jnp.broadcast_to(y, (2, 3, 4))


@case("pad_constant", lambda rng: [f32(rng, (2, 3))])
def pad_constant(x):
    return jnp.pad(x, ((1, 2), (0, 3)))


@case("pad_constant_value", lambda rng: [f32(rng, (2, 3))])
def pad_constant_value(x):
    return jnp.pad(x, ((0, 1), (2, 1)), constant_values=1.5)


@case("pad_1d", lambda rng: [i32(rng, (4,))])
def pad_1d(x):
    return jnp.pad(x, (2, 1)), jnp.pad(x, 3)


@case("concatenate_axis0", lambda rng: [f32(rng, (2, 3)), f32(rng, (1, 3))])
def concatenate_axis0(x, y):
    return jnp.concatenate([x, y, x], axis=0)


@case("concatenate_axis1", lambda rng: [f32(rng, (2, 3)), f32(rng, (2, 2))])
def concatenate_axis1(x, y):
    return jnp.concatenate([x, y], axis=1)


@case("stack_axis0", lambda rng: [f32(rng, (3,)), f32(rng, (3,))])
def stack_axis0(x, y):
    return jnp.stack([x, y])


@case("stack_axis_neg1", lambda rng: [f32(rng, (2, 3)), f32(rng, (2, 3)), f32(rng, (2, 3))])
def stack_axis_neg1(x, y, z):
    return jnp.stack([x, y, z], axis=-1)


# ==========================================================================
# reductions
# ==========================================================================

R234 = lambda rng: [f32(rng, (2, 3, 4))]


@case("sum_all", R234)
def sum_all(x):
    return jnp.sum(x)


@case("sum_axis1", R234)
def sum_axis1(x):
    return x.sum(axis=1)


@case("sum_axes_tuple_keepdims", R234)
def sum_axes_tuple_keepdims(x):
    return jnp.sum(x, axis=(0, 2), keepdims=True), jnp.sum(x, axis=(0, 2))


@case("sum_i32", lambda rng: [i32(rng, (3, 4))])
def sum_i32(x):
    return jnp.sum(x), jnp.sum(x, axis=0)


@case("sum_bool", lambda rng: [boolean(rng, (3, 4))],
      note="sum of bool promotes to int32.")
def sum_bool(x):
    return jnp.sum(x), jnp.sum(x, axis=1)


@case("mean_variants", R234)
def mean_variants(x):
    return jnp.mean(x), jnp.mean(x, axis=0), jnp.mean(x, axis=-1, keepdims=True), x.mean(axis=(1, 2))


@case("max_variants", R234)
def max_variants(x):
    return jnp.max(x), jnp.max(x, axis=1), jnp.max(x, axis=(0, 2), keepdims=True)


@case("min_variants", R234)
def min_variants(x):
    return jnp.min(x), x.min(axis=0, keepdims=True), jnp.min(x, axis=-1)


@case("argmax_variants", R234)
def argmax_variants(x):
    return jnp.argmax(x), jnp.argmax(x, axis=1), jnp.argmax(x, axis=-1, keepdims=True)


@case("argmax_ties", lambda rng: [np.array([[1, 3, 3, 0], [2, 2, 2, 2], [0, 5, 1, 5]], np.float32)],
      note="ties: the first (lowest) index wins.")
def argmax_ties(x):
    return jnp.argmax(x, axis=1), jnp.argmin(x, axis=1), jnp.argmax(x, axis=0)


@case("argmin_all", lambda rng: [f32(rng, (3, 4))])
def argmin_all(x):
    return jnp.argmin(x), jnp.argmin(x, axis=0)


@case("norm_vector", lambda rng: [f32(rng, (5,))])
def norm_vector(x):
    return jnp.linalg.norm(x)


@case("norm_axis1_keepdims", lambda rng: [f32(rng, (3, 4))])
def norm_axis1_keepdims(x):
    return jnp.linalg.norm(x, axis=1, keepdims=True)


@case("normalize_rows", lambda rng: [f32(rng, (3, 4))])
def normalize_rows(x):
    return x / jnp.linalg.norm(x, axis=1, keepdims=True)


@case("cumsum_1d", lambda rng: [f32(rng, (7,))])
def cumsum_1d(x):
    return jnp.cumsum(x)


@case("cumsum_axis1", lambda rng: [i32(rng, (3, 4))])
def cumsum_axis1(x):
    return jnp.cumsum(x, axis=1)


@case("sort_1d", lambda rng: [f32(rng, (9,))])
def sort_1d(x):
    return jnp.sort(x)


@case("sort_2d", lambda rng: [small_ints_f32(rng, (3, 4))],
      note="jnp.sort default axis=-1.")
def sort_2d(x):
    return jnp.sort(x), jnp.sort(x, axis=0)


# ==========================================================================
# matmul / dot
# ==========================================================================


@case("dot_vv", lambda rng: [f32(rng, (5,)), f32(rng, (5,))])
def dot_vv(x, y):
    return x @ y


@case("matvec", lambda rng: [f32(rng, (3, 4)), f32(rng, (4,))])
def matvec(a, x):
    return a @ x


@case("vecmat", lambda rng: [f32(rng, (3,)), f32(rng, (3, 4))])
def vecmat(x, a):
    return x @ a


@case("matmul", lambda rng: [f32(rng, (3, 4)), f32(rng, (4, 2))])
def matmul(a, b):
    return a @ b


@case("matmul_batched", lambda rng: [f32(rng, (2, 3, 4)), f32(rng, (2, 4, 5))])
def matmul_batched(a, b):
    return jnp.matmul(a, b)


@case("matmul_batch_broadcast", lambda rng: [f32(rng, (2, 3, 4)), f32(rng, (4, 2))])
def matmul_batch_broadcast(a, b):
    return a @ b


@case("jnp_dot", lambda rng: [f32(rng, (3, 4)), f32(rng, (4, 2)), f32(rng, (4,))])
def jnp_dot(a, b, v):
    return jnp.dot(a, b), jnp.dot(v, v), jnp.dot(a, v)


@case("matmul_i32", lambda rng: [i32(rng, (2, 3)), i32(rng, (3, 2))])
def matmul_i32(a, b):
    return a @ b


# ==========================================================================
# indexing
# ==========================================================================


@case("slice_steps", lambda rng: [f32(rng, (10,))])
def slice_steps(x):
    return x[1:7:2], x[::3], x[::-1], x[8:2:-2], x[-3:]


@case("slice_2d", lambda rng: [f32(rng, (4, 5))])
def slice_2d(x):
    return x[1:, ::2], x[:2, 1:4], x[::-1, -2:]


@case("negative_int_index", lambda rng: [f32(rng, (4, 5))])
def negative_int_index(x):
    return x[-1], x[:, -2], x[-2, -1]


@case("newaxis_index", lambda rng: [f32(rng, (4,))])
def newaxis_index(x):
    return x[:, None], x[None], x[None, :, None]


@case("ellipsis_index", lambda rng: [f32(rng, (2, 3, 4))])
def ellipsis_index(x):
    return x[..., 0], x[..., 1:3], x[0, ...]


@case("int_array_index", lambda rng: [f32(rng, (6,)), np.array([0, 5, 2, 2, 4], np.int32)])
def int_array_index(x, idx):
    return x[idx]


@case("int_array_index_negative", lambda rng: [f32(rng, (6,)), np.array([-1, 0, -6, 3, -2], np.int32)],
      note="negative entries of an index array wrap (numpy semantics).")
def int_array_index_negative(x, idx):
    return x[idx]


@case("int_array_index_2d_rows", lambda rng: [f32(rng, (4, 3)), np.array([[3, 0], [1, -1]], np.int32)])
def int_array_index_2d_rows(x, idx):
    return x[idx]


@case("int_array_index_pairs", lambda rng: [f32(rng, (4, 5)), np.array([0, 3, 1, -1], np.int32), np.array([4, 0, -2, 2], np.int32)])
def int_array_index_pairs(x, rows, cols):
    return x[rows, cols]


@case("ix_index", lambda rng: [f32(rng, (4, 5)), np.array([3, 0], np.int32), np.array([1, 4, -1], np.int32)])
def ix_index(x, rows, cols):
    return x[jnp.ix_(rows, cols)]


@case("ix_index_3d", lambda rng: [f32(rng, (4, 4, 3)), np.array([1, 2], np.int32), np.array([0, 3, 3], np.int32), np.array([2, 0], np.int32)])
def ix_index_3d(x, a, b, c):
    return x[jnp.ix_(a, b, c)]


@case("mixed_slice_int_array", lambda rng: [f32(rng, (4, 5)), np.array([4, 0, 2], np.int32)])
def mixed_slice_int_array(x, idx):
    return x[1:3, idx], x[idx[:2], 1:], x[:, idx]


@case("scalar_int_index_traced", lambda rng: [f32(rng, (5, 3)), np.array(3, np.int32)])
def scalar_int_index_traced(x, i):
    return x[i], x[i - 5]


@case("index_with_const_array", lambda rng: [f32(rng, (6,))])
def index_with_const_array(x):
    return x[jnp.array([5, 1, -1])]


# ==========================================================================
# creation inside functions
# ==========================================================================


@case("add_arange", lambda rng: [f32(rng, (5,))])
def add_arange(x):
    return x + jnp.arange(5)


@case("arange_variants", lambda rng: [i32(rng, (3,))])
def arange_variants(x):
    return x + jnp.arange(2, 11, 3), jnp.arange(3.0) * x, jnp.arange(4)


@case("zeros_ones_full", lambda rng: [f32(rng, (2, 3))])
def zeros_ones_full(x):
    return x + jnp.zeros((2, 3)), x * jnp.ones((3,)), jnp.full((2, 3), 7.0) - x, jnp.full((2,), 3) + 1


@case("linspace_add", lambda rng: [f32(rng, (5,))])
def linspace_add(x):
    return x + jnp.linspace(0.0, 1.0, 5), jnp.linspace(-1.0, 2.0, 4)


@case("eye_ops", lambda rng: [f32(rng, (3, 3))])
def eye_ops(x):
    return x + jnp.eye(3), x @ jnp.eye(3, 4), jnp.eye(2, dtype=jnp.int32)


@case("zeros_like_ones_like", lambda rng: [i32(rng, (2, 2))])
def zeros_like_ones_like(x):
    return jnp.zeros_like(x), jnp.ones_like(x, dtype=jnp.float32) + x


# ==========================================================================
# nn / misc
# ==========================================================================


@case("one_hot", lambda rng: [np.array([0, 3, 1, 4, 2, 7, -1], np.int32)],
      note="out-of-range labels (7, -1) give all-zero rows.")
def one_hot(labels):
    return jax.nn.one_hot(labels, 5)


@case("log_softmax", lambda rng: [f32(rng, (3, 4), -3.0, 3.0)])
def log_softmax(x):
    return jax.nn.log_softmax(x, axis=-1)


@case("softmax", lambda rng: [f32(rng, (3, 4), -3.0, 3.0)])
def softmax(x):
    return jax.nn.softmax(x, axis=-1)


@case("relu", lambda rng: [f32(rng, (3, 4))])
def relu(x):
    return jax.nn.relu(x)


@case("allclose_true", lambda rng: [f32(rng, (4,))])
def allclose_true(x):
    return jnp.allclose(x, x + 1e-9)


@case("allclose_false", lambda rng: [f32(rng, (4,)), f32(rng, (4,))])
def allclose_false(x, y):
    return jnp.allclose(x, y)


@case("clip", lambda rng: [f32(rng, (8,), -2.0, 2.0)])
def clip(x):
    return jnp.clip(x, -0.5, 1.0)


# ==========================================================================
# seed programs
# ==========================================================================


# seed 004 (jakevdp's example)
@case("seed004_f", lambda rng: [f32(rng, (100,))])
def seed004_f(x):
    return (x[:, None] * x[None, :]).sum()


# seed 004 (tianjuxue's lattice Boltzmann example), `np` -> `jnp`, N=6, dof=19.
N = 6
dof = 19


def to_id_xyz(lattice_id):
    # E.g., lattice_id = N**2 + 2N + 3 will be converted to (1, 2, 3)
    id_z = lattice_id % N
    lattice_id = lattice_id // N
    id_y = lattice_id % N
    id_x = lattice_id // N
    return id_x, id_y, id_z


def extract_3x3x3_grid(lattice_id, value_tensor):
    id_x, id_y, id_z = to_id_xyz(lattice_id)
    grid_index = jnp.ix_(jnp.array([(id_x - 1) % N, id_x, (id_x + 1) % N]),
                         jnp.array([(id_y - 1) % N, id_y, (id_y + 1) % N]),
                         jnp.array([(id_z - 1) % N, id_z, (id_z + 1) % N]))
    grid_values = value_tensor[grid_index]
    return grid_values


def memory_test1(lattice_id, value_tensor):
    value_tensor_local = extract_3x3x3_grid(lattice_id, value_tensor)  # (3, 3, 3, dof)
    vel = jnp.ones((3, 3, 3, dof, 1))
    u_local = value_tensor_local[:, :, :, :, None] * vel  # (3, 3, 3, dof, 1)
    return jnp.sum(u_local)


def memory_test2(lattice_id, value_tensor):
    value_tensor_local = extract_3x3x3_grid(lattice_id, value_tensor)  # (3, 3, 3, dof)
    vel = jnp.ones((3, 3, 3, dof, 2))
    u_local = value_tensor_local[:, :, :, :, None] * vel  # (3, 3, 3, dof, 2)
    return jnp.sum(u_local)


LATTICE_INPUTS = lambda rng: [np.array(37, np.int32), f32(rng, (N, N, N, dof))]
LATTICE_HELPERS = ("N = 6\ndof = 19\n", to_id_xyz, extract_3x3x3_grid)


@case("seed004_memory_test1", LATTICE_INPUTS, helpers=LATTICE_HELPERS + (memory_test1,))
def seed004_memory_test1(lattice_id, value_tensor):
    return memory_test1(lattice_id, value_tensor)


@case("seed004_memory_test2", LATTICE_INPUTS, helpers=LATTICE_HELPERS + (memory_test2,))
def seed004_memory_test2(lattice_id, value_tensor):
    return memory_test2(lattice_id, value_tensor)


@case("seed004_memory_test1_corner", lambda rng: [np.array(0, np.int32), f32(rng, (N, N, N, dof))],
      helpers=LATTICE_HELPERS + (memory_test1,),
      note="lattice_id 0: every (id-1) % N wraps to N-1.")
def seed004_memory_test1_corner(lattice_id, value_tensor):
    return memory_test1(lattice_id, value_tensor)


@case("seed004_extract_grid", LATTICE_INPUTS, helpers=LATTICE_HELPERS)
def seed004_extract_grid(lattice_id, value_tensor):
    return extract_3x3x3_grid(lattice_id, value_tensor)


# seed 002
def squared_error(params, x, y_true):
    w, b = params
    y_pred = w * x + b
    loss = (y_pred - y_true) ** 2
    return loss


@case("seed002_squared_error",
      lambda rng: [np.array(2.0, np.float32), np.array(1.0, np.float32), f32(rng, ()), f32(rng, ())],
      helpers=(squared_error,),
      note="params=(w, b) is passed as in_0=w, in_1=b.")
def seed002_squared_error(w, b, x, y_true):
    return squared_error((w, b), x, y_true)


@case("seed002_squared_error_batch",
      lambda rng: [np.array(2.0, np.float32), np.array(1.0, np.float32), f32(rng, (5,)), f32(rng, (5,))],
      helpers=(squared_error,),
      note="same function, x and y_true are f32[5] (plain broadcasting, no vmap).")
def seed002_squared_error_batch(w, b, x, y_true):
    return squared_error((w, b), x, y_true)


# x.at[idx]: functional updates, repeated and out-of-bounds indices
AT_IDX = np.array([1, 4, 1, -1, 7, -8, 4], np.int32)


@case("at_updates_1d", lambda rng: [f32(rng, (6,)), AT_IDX, f32(rng, (7,))],
      note="index 1 and 4 repeat (set: the last update wins on CPU), -1 is 5, 7 and -8 are out "
           "of bounds (dropped by default, clamped with mode='clip').")
def at_updates_1d(x, i, v):
    return (x.at[i].set(v), x.at[i].add(v), x.at[i].mul(v), x.at[i].min(v), x.at[i].max(v),
            x.at[i].set(v, mode="clip"), x.at[i].add(v, mode="clip"), x.at[i].add(v, mode="drop"),
            x.at[i].set(v, mode="promise_in_bounds"), x.at[2].set(9.0), x.at[-9].add(1.0))


@case("at_get_modes", lambda rng: [f32(rng, (6,)), AT_IDX],
      note="get's default is promise_in_bounds (clamps on CPU); fill gives NaN or fill_value.")
def at_get_modes(x, i):
    return (x.at[i].get(), x.at[i].get(mode="clip"), x.at[i].get(mode="fill"),
            x.at[i].get(mode="fill", fill_value=-1.0), x.at[i].get(mode="drop"))


@case("at_updates_2d",
      lambda rng: [f32(rng, (4, 5)), np.array([3, 0, 3, -1], np.int32), f32(rng, (4, 3)),
                   np.array([2, 5, 0], np.int32), f32(rng, (3, 3))],
      note="arrays with slices, strided slices, ellipsis and new axes, broadcast arrays; "
           "rows 3 repeat, column 5 is out of bounds.")
def at_updates_2d(x, r, v, c, w):
    return (x.at[r, 1:4].set(v), x.at[:, ::2].add(1.0), x.at[..., None, 2].mul(3.0),
            x.at[1].max(0.0), x.at[r[:3, None], c].min(w), x.at[::-2, 3].set(-1.0),
            x.at[r[:3, None], c].get(mode="fill", fill_value=0.0))


@case("at_updates_i32",
      lambda rng: [np.array([5, -3, 0, 7, 2], np.int32), np.array([0, 3, 3, 9, -2], np.int32),
                   np.array([4, -8, 11, 1, 6], np.int32)])
def at_updates_i32(x, i, v):
    return x.at[i].set(v), x.at[i].add(v), x.at[i].mul(v), x.at[i].min(v), x.at[i].max(v)


# control flow
@case("scan_no_xs", lambda rng: [f32(rng, (3,)), f32(rng, (3,))],
      note="lax.scan with xs=None and length=5: each step's x is None; ys stacks c*c.")
def scan_no_xs(c, w):
    return lax.scan(lambda c, _: (jnp.sin(c) * w + 0.5 * c, c * c), c, None, length=5)


@case("scan_no_xs_reverse_unroll", lambda rng: [f32(rng, (2, 3))],
      note="lax.scan(f, c, None, length=4, reverse=True, unroll=2): the steps in reverse, "
           "ys in step order; unroll is a parameter only.")
def scan_no_xs_reverse_unroll(c):
    return lax.scan(lambda c, _: (jnp.cos(c) + 1.0, jnp.sum(c, axis=1)), c, None, length=4,
                    reverse=True, unroll=2)


# transformations (extra goldens; values for vmap / grad compositions)
@case("transform_vmap_seed004_f", lambda rng: [f32(rng, (10, 100))], helpers=(seed004_f,))
def transform_vmap_seed004_f(x):
    return jax.vmap(seed004_f)(x)


@case("transform_vmap_memory_test1",
      lambda rng: [np.arange(N * N * N, dtype=np.int32), f32(rng, (N, N, N, dof))],
      helpers=LATTICE_HELPERS + (memory_test1,))
def transform_vmap_memory_test1(lattice_ids, value_tensor):
    return jax.vmap(memory_test1, in_axes=(0, None))(lattice_ids, value_tensor)


@case("transform_grad_squared_error",
      lambda rng: [np.array(2.0, np.float32), np.array(1.0, np.float32), f32(rng, ()), f32(rng, ())],
      helpers=(squared_error,),
      note="output pytree is (dw, db).")
def transform_grad_squared_error(w, b, x, y_true):
    return jax.grad(squared_error)((w, b), x, y_true)


@case("transform_vmap_grad_squared_error",
      lambda rng: [np.array(2.0, np.float32), np.array(1.0, np.float32),
                   np.linspace(0, 1, 5).astype(np.float32), (2.5 * np.linspace(0, 1, 5) + 0.5).astype(np.float32)],
      helpers=(squared_error,),
      note="seed 002: batch_x = linspace(0,1,5), batch_y_true = 2.5*batch_x + 0.5; output (dw[5], db[5]).")
def transform_vmap_grad_squared_error(w, b, x, y_true):
    return jax.vmap(jax.grad(squared_error), in_axes=(None, 0, 0))((w, b), x, y_true)


@case("transform_grad_sin_sum", lambda rng: [f32(rng, (5,))])
def transform_grad_sin_sum(x):
    return jax.grad(lambda x: jnp.sum(jnp.sin(x) * x))(x)


@case("transform_jit_matches_eager", lambda rng: [f32(rng, (3, 4))])
def transform_jit_matches_eager(x):
    return jax.jit(lambda x: jnp.tanh(x) @ x.T)(x)


# ==========================================================================
# float64 (x64 enabled)
# ==========================================================================


@case("x64_exp", lambda rng: [f64(rng, (3, 4), -3.0, 3.0)], x64=True)
def x64_exp(x):
    return jnp.exp(x)


@case("x64_matmul", lambda rng: [f64(rng, (3, 4)), f64(rng, (4, 2))], x64=True)
def x64_matmul(a, b):
    return a @ b


@case("x64_sum", lambda rng: [f64(rng, (2, 3, 4))], x64=True)
def x64_sum(x):
    return jnp.sum(x), jnp.sum(x, axis=1)


@case("x64_default_dtypes", lambda rng: [f64(rng, (3,))], x64=True,
      note="under x64: python floats/arange/ones default to float64/int64.")
def x64_default_dtypes(x):
    return x * 2.0, jnp.arange(3), jnp.ones(3) + x


# ==========================================================================
# PRNG (threefry; see MANIFEST for jax_threefry_partitionable)
# ==========================================================================


@case("random_normal_key0_3", prng=True)
def random_normal_key0_3():
    return jax.random.normal(jax.random.PRNGKey(0), (3,))


@case("random_normal_key42_2x3", prng=True)
def random_normal_key42_2x3():
    return jax.random.normal(jax.random.PRNGKey(42), (2, 3))


@case("random_normal_key0_1000", prng=True)
def random_normal_key0_1000():
    return jax.random.normal(jax.random.PRNGKey(0), (1000,))


@case("random_normal_key_input", lambda rng: [np.asarray(jax.random.PRNGKey(0))], prng=True,
      note="in_0 is the raw uint32[2] legacy key PRNGKey(0) = [0, 0].")
def random_normal_key_input(key):
    return jax.random.normal(key, (3,))


@case("random_uniform_key0_5", prng=True)
def random_uniform_key0_5():
    return jax.random.uniform(jax.random.PRNGKey(0), (5,))


@case("random_uniform_minmax", prng=True)
def random_uniform_minmax():
    return jax.random.uniform(jax.random.PRNGKey(0), (5,), minval=-2.0, maxval=3.0)


@case("random_uniform_scalar", prng=True)
def random_uniform_scalar():
    return jax.random.uniform(jax.random.PRNGKey(7))


@case("random_split_key0", prng=True)
def random_split_key0():
    return jax.random.split(jax.random.PRNGKey(0))


@case("random_split_key0_3", prng=True)
def random_split_key0_3():
    return jax.random.split(jax.random.PRNGKey(0), 3)


@case("random_split_then_normal", prng=True)
def random_split_then_normal():
    k1, k2 = jax.random.split(jax.random.PRNGKey(0))
    return jax.random.normal(k1, (3,)), jax.random.uniform(k2, (2,))


@case("random_fold_in_key0_7", prng=True)
def random_fold_in_key0_7():
    return jax.random.fold_in(jax.random.PRNGKey(0), 7)


@case("random_bernoulli_key1", prng=True)
def random_bernoulli_key1():
    return jax.random.bernoulli(jax.random.PRNGKey(1), 0.3, (8,))


@case("random_bernoulli_key1_p05_16", prng=True)
def random_bernoulli_key1_p05_16():
    return jax.random.bernoulli(jax.random.PRNGKey(1), 0.5, (16,))


@case("random_randint_key2", prng=True)
def random_randint_key2():
    return jax.random.randint(jax.random.PRNGKey(2), (6,), 0, 10)


@case("random_randint_negative", prng=True)
def random_randint_negative():
    return jax.random.randint(jax.random.PRNGKey(2), (6,), -5, 5)


@case("random_typed_key_data", prng=True,
      note="jax.random.key(0) is a typed key; key_data gives its raw uint32[2].")
def random_typed_key_data():
    return jax.random.key_data(jax.random.key(0))


@case("random_typed_key_split", prng=True)
def random_typed_key_split():
    return jax.random.key_data(jax.random.split(jax.random.key(0), 3))


@case("random_typed_key_fold_in", prng=True)
def random_typed_key_fold_in():
    return jax.random.key_data(jax.random.fold_in(jax.random.key(0), 7))


@case("random_typed_key_normal", prng=True, note="must equal random_normal_key0_3.")
def random_typed_key_normal():
    return jax.random.normal(jax.random.key(0), (3,))


@case("random_bits_key0", prng=True)
def random_bits_key0():
    return jax.random.bits(jax.random.PRNGKey(0), (4,))


@case("random_uniform_f64_x64", prng=True, x64=True)
def random_uniform_f64_x64():
    return jax.random.uniform(jax.random.PRNGKey(0), (5,), dtype=jnp.float64)


@case("random_normal_f64_x64", prng=True, x64=True)
def random_normal_f64_x64():
    return jax.random.normal(jax.random.PRNGKey(0), (3,), dtype=jnp.float64)


# ==========================================================================
# driver
# ==========================================================================


def dtype_name(dt):
    dt = np.dtype(dt)
    return {
        "float32": "f32", "float64": "f64", "float16": "f16", "int32": "i32", "int64": "i64",
        "uint32": "u32", "uint64": "u64", "bool": "bool", "int8": "i8", "uint8": "u8",
    }.get(dt.name, dt.name)


def aval(a):
    a = np.asarray(a)
    return f"{dtype_name(a.dtype)}[{','.join(str(d) for d in a.shape)}]"


def source_of(obj):
    if isinstance(obj, str):
        return obj.rstrip("\n") + "\n"
    return textwrap.dedent(inspect.getsource(obj))


# --------------------------------------------------------------------------
# shared driver pieces (also used by gen_golden_vmap.py and gen_golden_ad.py)
# --------------------------------------------------------------------------


def nonzero_f32(rng, shape, lo=0.5, hi=2.0):
    """f32 with |x| in [lo, hi), random sign (safe divisors / negative powers)."""
    mag = rng.uniform(lo, hi, size=shape)
    sign = np.where(rng.random(shape) < 0.5, -1.0, 1.0)
    return (mag * sign).astype(np.float32)


def eval_case(c, check_input, call=None, trace=None):
    """Draw c's inputs, run it eagerly and trace its jaxpr (x64 as c says, default off).

    check_input(c, a) vets each numpy input; call(*jin) runs the case (default c["fn"]);
    trace(*jin) gives the ClosedJaxpr for jaxpr.txt (default jax.make_jaxpr(c["fn"]))."""
    name = c["name"]
    seed = seed_of(name)
    rng = np.random.default_rng(seed)
    with jax.enable_x64(bool(c.get("x64", False))):
        inputs = [np.asarray(a) for a in c["inputs"](rng)]
        for a in inputs:
            check_input(c, a)
        jin = [jnp.asarray(a) for a in inputs]
        for a, j in zip(inputs, jin):
            assert np.dtype(j.dtype) == a.dtype, (name, a.dtype, j.dtype)
        out = (call or c["fn"])(*jin)
        leaves = [np.asarray(l) for l in jax.tree_util.tree_leaves(out)]
        jaxpr = str((trace or jax.make_jaxpr(c["fn"]))(*jin))
    return dict(seed=seed, inputs=inputs, outputs=leaves, jaxpr=jaxpr, treedef=str(jax.tree_util.tree_structure(out)))


def write_case_dir(d, r):
    """<d>/in_<i>.npy, <d>/out_<i>.npy and <d>/jaxpr.txt from an eval_case result."""
    d.mkdir(parents=True)
    for i, a in enumerate(r["inputs"]):
        np.save(d / f"in_{i}.npy", a, allow_pickle=False)
    for i, a in enumerate(r["outputs"]):
        np.save(d / f"out_{i}.npy", a, allow_pickle=False)
    (d / "jaxpr.txt").write_text(r["jaxpr"] + "\n")


def _check_input(c, a):
    if a.dtype == np.float64 and not c["x64"]:
        raise ValueError(f"{c['name']}: float64 input in non-x64 case")


def run_case(c):
    r = eval_case(c, _check_input)
    write_case_dir(GOLDEN / c["name"], r)
    return r


def _jaxlib_version():
    try:
        import jaxlib

        return jaxlib.__version__
    except Exception:  # pragma: no cover
        return "?"


def small_value(a):
    """` = `[...]`` for arrays of at most 8 elements (on one line), else ""."""
    return f" = `{np.array2string(a, separator=', ').replace(chr(10), ' ')}`" if a.size <= 8 else ""


def write_manifest_file(path, header, results, columns, index_row, partitionable,
                        intro=lambda c: [], details=lambda c, r: [], out_suffix=lambda c, i, a: ""):
    """Write a MANIFEST.md: the header lines, the case count, an index table (columns after
    the first `case` one, index_row(c, r, ins, outs) -> their cells) and one section a case
    (see case_section for intro/details/out_suffix)."""
    lines = list(header)
    w = lines.append
    w("")
    w(f"{len(results)} cases.")
    w("")
    w("## Index")
    w("")
    w("| " + " | ".join(["case", *columns]) + " |")
    w("|" + "---|" * (1 + len(columns)))
    for c, r in results:
        ins = ", ".join(aval(a) for a in r["inputs"]) or "—"
        outs = ", ".join(aval(a) for a in r["outputs"])
        w("| " + " | ".join([f"[`{c['name']}`](#{c['name']})", *index_row(c, r, ins, outs)]) + " |")
    w("")
    w("## Cases")
    for c, r in results:
        case_section(w, c, r, partitionable, intro(c), details(c, r), lambda i, a: out_suffix(c, i, a))
    path.write_text("\n".join(lines) + "\n")


def case_section(w, c, r, partitionable, intro, details, out_suffix):
    """A case's manifest section: heading, intro lines, flags (x64, prng, seed), note, details
    lines, inputs, output pytree, outputs (each followed by out_suffix(i, a)), source."""
    w("")
    w(f"### {c['name']}")
    w("")
    for line in intro:
        w(line)
    flags = []
    if c.get("x64"):
        flags.append("**x64** (`jax.enable_x64(True)`)")
    if c["prng"]:
        flags.append(f"PRNG, `jax_threefry_partitionable={partitionable}`")
    flags.append(f"seed `{r['seed']}`")
    w("- " + "; ".join(flags))
    if c["note"]:
        w(f"- Note: {c['note']}")
    for line in details:
        w(line)
    if r["inputs"]:
        for i, a in enumerate(r["inputs"]):
            w(f"- in_{i}: `{aval(a)}`{small_value(a)}")
    else:
        w("- inputs: none")
    w(f"- output pytree: `{r['treedef']}`")
    for i, a in enumerate(r["outputs"]):
        w(f"- out_{i}: `{aval(a)}`{out_suffix(i, a)}")
    w("")
    w("```python")
    for h in c["helpers"]:
        w(source_of(h).rstrip("\n"))
        w("")
    w(source_of(c["fn"]).rstrip("\n"))
    w("```")


def write_manifest(results, partitionable):
    header = [
        "# oxla golden conformance cases",
        "",
        "Generated by `scripts/gen_golden.py` (do not edit by hand; rerun the script).",
        "",
        f"- jax {jax.__version__}, jaxlib {_jaxlib_version()}, numpy {np.__version__}, backend CPU",
        f"- `jax.config.jax_threefry_partitionable` = **{partitionable}** (applies to every `random_*` case)",
        f"- `jax.config.jax_default_prng_impl` = `{jax.config.jax_default_prng_impl}`",
        "- x64: cases marked **x64** are traced and run inside `with jax.enable_x64(True):`;",
        "  all other cases run with x64 disabled (default): python floats are f32, ints are i32.",
        "- Layout: `<case>/in_<i>.npy` inputs (positional args in order), `<case>/out_<i>.npy` =",
        "  `jax.tree_util.tree_leaves(fn(*inputs))[i]` (a tuple output gives out_0, out_1, ...),",
        "  `<case>/jaxpr.txt` = `str(jax.make_jaxpr(fn)(*inputs))`. 0-d arrays are stored with shape `()`.",
        "- Inputs: `rng = np.random.default_rng(seed)` with `seed = zlib.crc32(name)`; the generator is the",
        "  `inputs=` lambda in the `@case(...)` line (helpers `f32(rng, shape, lo=-1, hi=1)` = uniform cast to f32,",
        "  `i32(rng, shape, lo=-5, hi=6)` = integers in [lo, hi), `nz_i32` = nonzero ints from {-4,-3,-2,-1,1,2,3,5},",
        "  `boolean`, `small_ints_f32` = ints in [-2, 2] as f32, `f64` like f32). The .npy files are authoritative.",
        "- Outputs computed eagerly (no `jax.jit`) on CPU. Compare floats with a small tolerance",
        "  (e.g. rtol=1e-5/atol=1e-6 for f32; XLA's transcendental / reduction order may differ in the last ulp);",
        "  ints, bools and PRNG bit outputs (uint32 keys, randint, bernoulli) should match exactly.",
        "- In the source, `jnp` = `jax.numpy`, `lax` = `jax.lax`, `np` = numpy.",
    ]
    write_manifest_file(GOLDEN / "MANIFEST.md", header, results, ["inputs", "outputs", "x64", "prng"],
                        lambda c, r, ins, outs: [ins, outs, "x64" if c["x64"] else "", "yes" if c["prng"] else ""],
                        partitionable)


def write_jaxpr(name, jaxpr_fn, desc, lines):
    closed = jaxpr_fn()
    d = GOLDEN / "jaxpr"
    (d / f"{name}.txt").write_text(str(closed) + "\n")
    (d / f"{name}.source_info.txt").write_text(closed.pretty_print(source_info=True) + "\n")
    (d / f"{name}.full.txt").write_text(closed.pretty_print(custom_pp_eqn_rules=False) + "\n")
    lines.append(f"- `{name}`: {desc}")


def write_seed_jaxprs():
    (GOLDEN / "jaxpr").mkdir(parents=True)
    rng = np.random.default_rng(4)
    lines = [
        "# Reference jaxprs for the seed programs",
        "",
        f"jax {jax.__version__}, x64 disabled. For each name there are three files:",
        "",
        "- `<name>.txt`: `str(jax.make_jaxpr(f)(*args))` (default pretty printer)",
        "- `<name>.source_info.txt`: `closed_jaxpr.pretty_print(source_info=True)` (each eqn annotated with",
        "  `# file:line:col (function)`; paths are those of scripts/gen_golden.py on the generating machine)",
        "- `<name>.full.txt`: `closed_jaxpr.pretty_print(custom_pp_eqn_rules=False)`: every param printed,",
        "  including ones the default printer hides (e.g. broadcast_in_dim `shape`/`sharding`, `out_dtype`)",
        "",
    ]
    x100 = jnp.asarray(f32(rng, (100,)))
    x10 = jnp.asarray(f32(rng, (10, 100)))
    vt = jnp.asarray(f32(rng, (N, N, N, dof)))
    lid = jnp.asarray(np.array(37, np.int32))
    ids = jnp.arange(N * N * N)
    params = (jnp.array(2.0), jnp.array(1.0))
    xs, ys = jnp.float32(0.5), jnp.float32(2.0)
    bx = jnp.linspace(0, 1, 5)
    by = 2.5 * bx + 0.5
    write_jaxpr("seed004_f", lambda: jax.make_jaxpr(seed004_f)(x100),
                "seed 004 `f(x) = (x[:, None] * x[None, :]).sum()`, x: f32[100]", lines)
    write_jaxpr("seed004_f_vmap", lambda: jax.make_jaxpr(jax.vmap(seed004_f))(x10),
                "`jax.vmap(f)`, x: f32[10,100]", lines)
    write_jaxpr("memory_test1", lambda: jax.make_jaxpr(memory_test1)(lid, vt),
                "`memory_test1(lattice_id, value_tensor)`, N=6, dof=19, lattice_id: i32[] (37), value_tensor: f32[6,6,6,19]", lines)
    write_jaxpr("memory_test1_vmap", lambda: jax.make_jaxpr(jax.vmap(memory_test1, in_axes=(0, None)))(ids, vt),
                "`jax.vmap(memory_test1, in_axes=(0, None))`, N=6, lattice ids `jnp.arange(216)`: i32[216], value_tensor f32[6,6,6,19]", lines)
    write_jaxpr("squared_error", lambda: jax.make_jaxpr(squared_error)(params, xs, ys),
                "seed 002 `squared_error(params, x, y_true)`, params=(jnp.array(2.0), jnp.array(1.0)) f32[] each, x f32[], y_true f32[]", lines)
    write_jaxpr("vmap_grad_squared_error",
                lambda: jax.make_jaxpr(jax.vmap(jax.grad(squared_error), in_axes=(None, 0, 0)))(params, bx, by),
                "`jax.vmap(jax.grad(squared_error), in_axes=(None, 0, 0))`, params as above, x = linspace(0,1,5) f32[5], y_true = 2.5*x+0.5 f32[5]", lines)
    (GOLDEN / "jaxpr" / "README.md").write_text("\n".join(lines) + "\n")


def generate(outdir, cases, run_case, write_manifest, what="cases", after=None):
    """The common main(): (re)create outdir, run every case (x64 off outside them), write the
    manifest (then after(), if given) and report the size; returns the total bytes written."""
    assert not jax.config.jax_enable_x64, "run with x64 disabled (the default)"
    assert jax.default_backend() == "cpu", jax.default_backend()
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    if outdir.exists():
        shutil.rmtree(outdir)
    outdir.mkdir(parents=True)
    partitionable = bool(jax.config.jax_threefry_partitionable)
    results = []
    for c in cases:
        results.append((c, run_case(c)))
        assert not jax.config.jax_enable_x64
    write_manifest(results, partitionable)
    if after is not None:
        after()
    total = sum(p.stat().st_size for p in outdir.rglob("*") if p.is_file())
    print(f"jax {jax.__version__}: wrote {len(results)} {what} to {outdir} ({total} bytes); "
          f"jax_threefry_partitionable={partitionable}", file=sys.stderr)
    return total


def main():
    generate(GOLDEN, CASES, run_case, write_manifest, after=write_seed_jaxprs)


if __name__ == "__main__":
    main()
