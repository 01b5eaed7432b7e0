#!/usr/bin/env python3
"""Generate JAX automatic-differentiation conformance golden files for oxla.

Usage (from anywhere; needs a Python env with `jax` and `numpy`):

    /work/jaxenv/bin/python scripts/gen_golden_ad.py

Writes (relative to the repo root) ONLY under tests/golden_ad/ (tests/golden/ and
tests/golden_vmap/ are never touched; this script just imports the input helpers, the
seed-002 program and the shared driver pieces (case running, case directories, MANIFEST.md
sections) from scripts/gen_golden.py):

    tests/golden_ad/<case>/in_<i>.npy    inputs (deterministic, np.random.default_rng(seed);
                                         the MLP case draws its inputs with jax.random exactly
                                         like /work/shared/jax-reference/pegrad.py)
    tests/golden_ad/<case>/out_<i>.npy   jax.tree_util.tree_leaves(fn(*inputs))[i], via np.asarray
    tests/golden_ad/<case>/jaxpr.txt     str(jax.make_jaxpr(fn)(*inputs)) (the AD transformations are
                                         traced away, so this is the differentiated program), unless
                                         the case names another jaxpr (listed in the manifest)
    tests/golden_ad/MANIFEST.md          name, one-line description, source, transformation,
                                         input/output shapes+dtypes, output pytree of every case

Every case is a plain function of (flat, positional) arrays whose body applies jax.grad /
jax.value_and_grad / jax.jvp / jax.vjp / jax.jacfwd / jax.jacrev / jax.hessian (possibly
composed with jax.vmap) to a function; tuple/dict arguments are assembled inside the body.
Cases marked x64 are traced and run inside `with jax.enable_x64(True):` (this jax has no
`jax.experimental.enable_x64`; `jax.enable_x64` is its replacement); every other case runs
with x64 disabled (JAX default), so default dtypes there are float32/int32.
Outputs are computed eagerly (no jax.jit, except where the seed program itself jits) on CPU.
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
from gen_golden import f32, f64, i32, nonzero_f32, squared_error  # noqa: F401

REPO = Path(__file__).resolve().parent.parent
OUTDIR = REPO / "tests" / "golden_ad"
assert OUTDIR not in (gg.GOLDEN, REPO / "tests" / "golden_vmap")

# --------------------------------------------------------------------------
# case registry
# --------------------------------------------------------------------------

CASES = []


def case(name, desc, inputs=lambda rng: [], x64=False, helpers=(), prng=False, note=None,
         out_labels=None, jaxpr=None, jaxpr_desc=None):
    """Register fn as an AD golden case.

    desc: one-line description (manifest index).
    inputs: rng -> list of numpy arrays (rng = np.random.default_rng(seed), seed = zlib.crc32(name)).
    helpers: other functions (or source strings) needed to understand fn.
    out_labels: optional names of out_0, out_1, ... (in tree_leaves order).
    jaxpr: optional (*jax_inputs) -> ClosedJaxpr used for jaxpr.txt instead of make_jaxpr(fn);
           jaxpr_desc documents it.
    """

    def deco(fn):
        CASES.append(dict(name=name, desc=desc, fn=fn, inputs=inputs, x64=x64, helpers=tuple(helpers),
                          prng=prng, note=note, out_labels=out_labels, jaxpr=jaxpr, jaxpr_desc=jaxpr_desc))
        return fn

    return deco


def distinct_f32(rng, shape, lo=-3.0, hi=3.0):
    """f32 whose entries are pairwise distinct (no ties for sort / argmax-style cases)."""
    n = int(np.prod(shape))
    vals = np.linspace(lo, hi, n) + rng.uniform(-0.1, 0.1, n) * (hi - lo) / max(n, 1)
    return rng.permutation(vals).reshape(shape).astype(np.float32)


# ==========================================================================
# 1. grad of scalar functions, one primitive family per case
# ==========================================================================

ANY34 = lambda rng: [f32(rng, (3, 4), -2.0, 2.0)]
POS34 = lambda rng: [f32(rng, (3, 4), 0.2, 3.0)]


@case("grad_exp", "grad of sum(exp(x))", ANY34)
def grad_exp(x):
    return jax.grad(lambda x: jnp.sum(jnp.exp(x)))(x)


@case("grad_log", "grad of sum(log(x)), x > 0", POS34)
def grad_log(x):
    return jax.grad(lambda x: jnp.sum(jnp.log(x)))(x)


@case("grad_log1p", "grad of sum(log1p(x)), x in (-0.9, 3)", lambda rng: [f32(rng, (3, 4), -0.9, 3.0)])
def grad_log1p(x):
    return jax.grad(lambda x: jnp.sum(jnp.log1p(x)))(x)


@case("grad_sin_cos", "grads of sum(sin(x)) and sum(cos(x)) (separately)", ANY34)
def grad_sin_cos(x):
    return jax.grad(lambda x: jnp.sum(jnp.sin(x)))(x), jax.grad(lambda x: jnp.sum(jnp.cos(x)))(x)


@case("grad_tanh", "grad of sum(tanh(x) * w)", lambda rng: [f32(rng, (3, 4), -3.0, 3.0), f32(rng, (3, 4))])
def grad_tanh(x, w):
    return jax.grad(lambda x: jnp.sum(jnp.tanh(x) * w))(x)


@case("grad_cbrt", "grad of sum(cbrt(x) * w) (cbrt primitive)",
      lambda rng: [f32(rng, (3, 4), -3.0, 3.0), f32(rng, (3, 4))])
def grad_cbrt(x, w):
    return jax.grad(lambda x: jnp.sum(jnp.cbrt(x) * w))(x)


@case("grad_logistic", "grad of sum(jax.nn.sigmoid(x)) (logistic primitive)",
      lambda rng: [f32(rng, (3, 4), -6.0, 6.0)])
def grad_logistic(x):
    return jax.grad(lambda x: jnp.sum(jax.nn.sigmoid(x)))(x)


@case("grad_sqrt_rsqrt", "grads of sum(sqrt(x)) and sum(lax.rsqrt(x)), x > 0", POS34)
def grad_sqrt_rsqrt(x):
    return jax.grad(lambda x: jnp.sum(jnp.sqrt(x)))(x), jax.grad(lambda x: jnp.sum(lax.rsqrt(x)))(x)


@case("grad_abs_zero", "grad of sum(abs(x) * w) where x contains exact 0.0 entries (grad there is 0)",
      lambda rng: [np.array([-1.5, 0.0, 2.0, -0.25, 0.0, 0.75, 0.0, -3.0], np.float32), f32(rng, (8,), 0.5, 2.0)],
      note="JAX: d|x|/dx = sign(x), so the gradient at exactly 0.0 is 0.0.")
def grad_abs_zero(x, w):
    return jax.grad(lambda x: jnp.sum(jnp.abs(x) * w))(x)


@case("grad_integer_pow", "grads of sum(x**2), sum(x**3), sum(x**-2) (integer_pow), x nonzero",
      lambda rng: [nonzero_f32(rng, (3, 4))])
def grad_integer_pow(x):
    return (jax.grad(lambda x: jnp.sum(x ** 2))(x),
            jax.grad(lambda x: jnp.sum(x ** 3))(x),
            jax.grad(lambda x: jnp.sum(x ** -2))(x))


@case("grad_pow", "grad of sum(x ** y) w.r.t. x and y (pow primitive), x > 0",
      lambda rng: [f32(rng, (3, 4), 0.2, 3.0), f32(rng, (3, 4), -2.0, 2.0)])
def grad_pow(x, y):
    return jax.grad(lambda x, y: jnp.sum(x ** y), argnums=(0, 1))(x, y)


@case("grad_pow_zero",
      "grads of sum(x ** y) at x = 0 with float y (w.r.t. x and y) and integer y (w.r.t. x)",
      lambda rng: [np.array([0, 0, 0, 0, 0, 1.5, 2.0, 0.5], np.float32),
                   np.array([0, 1, 2, 0.5, -1, 2, -1, 0.5], np.float32),
                   np.array([0, 0, 0, 0, 1.5, -2.0, 0.5], np.float32),
                   np.array([0, 1, 2, -1, 3, 2, -1], np.int32)],
      note="an integer exponent stays i32 (`pow a b` with b:i32): d/dx is 0 where y = 0 and "
           "y * x**(y-1) elsewhere (1 at 0**1, -inf at 0**-1); a float exponent gives "
           "y * x**(y-1) everywhere: NaN at 0**0, inf at 0**0.5; d/dy at x = 0 is "
           "log(1) * x**y: 0, or NaN where x**y is inf.")
def grad_pow_zero(x, y, xi, yi):
    g_float = jax.grad(lambda x, y: jnp.sum(x ** y), argnums=(0, 1))(x, y)
    g_int = jax.grad(lambda x: jnp.sum(x ** yi))(xi)
    return g_float, g_int


@case("grad_div", "grad of sum(x / y) w.r.t. x and y",
      lambda rng: [f32(rng, (3, 4)), nonzero_f32(rng, (3, 4))])
def grad_div(x, y):
    return jax.grad(lambda x, y: jnp.sum(x / y), argnums=(0, 1))(x, y)


@case("grad_maximum_minimum_ties",
      "grads of sum(maximum(x, y) * w) and sum(minimum(x, y) * w) w.r.t. (x, y), with exact ties x == y",
      lambda rng: [np.array([1.0, -2.0, 0.5, 3.0, -1.0, 0.0, 2.5, -0.5], np.float32),
                   np.array([1.0, -1.0, 0.5, 2.0, -1.0, 0.0, 3.0, -0.75], np.float32),
                   f32(rng, (8,), 0.5, 2.0)],
      note="ties at indices 0, 2, 4, 5: JAX gives each side half of the cotangent (0.5 * w).")
def grad_maximum_minimum_ties(x, y, w):
    gmax = jax.grad(lambda x, y: jnp.sum(jnp.maximum(x, y) * w), argnums=(0, 1))(x, y)
    gmin = jax.grad(lambda x, y: jnp.sum(jnp.minimum(x, y) * w), argnums=(0, 1))(x, y)
    return gmax, gmin


@case("grad_reduce_max_min_ties",
      "grads of jnp.max(x), jnp.min(x), sum(jnp.max(x, axis=1) * w) with repeated maxima/minima",
      lambda rng: [np.array([[3.0, 1.0, 3.0, -2.0],
                             [0.5, 0.5, 0.5, 0.5],
                             [-1.0, 2.0, -4.0, -4.0]], np.float32),
                   np.array([1.0, 2.0, -3.0], np.float32)],
      note="JAX splits the cotangent evenly among all positions equal to the max (resp. min): "
           "the global max 3.0 occurs twice (0.5 each), row 1 has 4 equal maxima (0.25 * w[1] each), "
           "the global min -4.0 occurs twice.")
def grad_reduce_max_min_ties(x, w):
    return (jax.grad(lambda x: jnp.max(x))(x),
            jax.grad(lambda x: jnp.min(x))(x),
            jax.grad(lambda x: jnp.sum(jnp.max(x, axis=1) * w))(x))


@case("grad_where", "grad of sum(where(x > 0, x**2, sin(x)) * w) w.r.t. x, and of where(c, x, y) w.r.t. (x, y)",
      lambda rng: [f32(rng, (3, 4), -2.0, 2.0), f32(rng, (3, 4)), gg.boolean(rng, (3, 4)), f32(rng, (3, 4))])
def grad_where(x, w, c, y):
    g1 = jax.grad(lambda x: jnp.sum(jnp.where(x > 0, x ** 2, jnp.sin(x)) * w))(x)
    g2 = jax.grad(lambda x, y: jnp.sum(jnp.where(c, x, y) * w), argnums=(0, 1))(x, y)
    return g1, g2


@case("grad_masked_bitwise", "grad of sum(where((x > -1) & ~(x >= 1) | (x == 0), x**3, 2*x) * w), a mask of comparisons, & | ~",
      lambda rng: [f32(rng, (3, 4), -2.0, 2.0), f32(rng, (3, 4))])
def grad_masked_bitwise(x, w):
    return jax.grad(lambda x: jnp.sum(jnp.where((x > -1) & ~(x >= 1) | (x == 0), x ** 3, 2 * x) * w))(x)


@case("grad_rem", "grads of sum(lax.rem(x, y) * w) and sum((x % y) * w) w.r.t. (x, y)",
      lambda rng: [f32(rng, (10,), -5.0, 5.0), nonzero_f32(rng, (10,), 0.7, 2.3), f32(rng, (10,), 0.5, 2.0)],
      note="d rem(x,y)/dy = -sign(x/y) * floor(|x/y|) (round toward zero); `%` is floor-mod built on rem + select.")
def grad_rem(x, y, w):
    g_rem = jax.grad(lambda x, y: jnp.sum(lax.rem(x, y) * w), argnums=(0, 1))(x, y)
    g_mod = jax.grad(lambda x, y: jnp.sum((x % y) * w), argnums=(0, 1))(x, y)
    return g_rem, g_mod


# ==========================================================================
# 2. structural ops
# ==========================================================================


@case("grad_broadcast_reshape_transpose",
      "grad through broadcast_to, reshape, transpose (x: f32[3,1] -> [2,3,4] -> [6,4] -> [4,6])",
      lambda rng: [f32(rng, (3, 1)), f32(rng, (4, 6))])
def grad_broadcast_reshape_transpose(x, w):
    def f(x):
        b = jnp.broadcast_to(x, (2, 3, 4))
        r = b.reshape(6, 4)
        return jnp.sum(jnp.sin(r.T) * w)
    return jax.grad(f)(x)


@case("grad_broadcast_scalar_rank", "grad w.r.t. a scalar and a row vector broadcast against a matrix",
      lambda rng: [f32(rng, ()), f32(rng, (4,)), f32(rng, (3, 4))])
def grad_broadcast_scalar_rank(s, v, m):
    return jax.grad(lambda s, v: jnp.sum(jnp.tanh(s * m + v)), argnums=(0, 1))(s, v)


@case("grad_slice_steps", "grad of sum(sin(x[1:6:2, ::3])) + sum(x[-1, 4:0:-2] * 2) (strided / reversed slices)",
      lambda rng: [f32(rng, (7, 8))])
def grad_slice_steps(x):
    return jax.grad(lambda x: jnp.sum(jnp.sin(x[1:6:2, ::3])) + jnp.sum(x[-1, 4:0:-2] * 2.0))(x)


@case("grad_pad", "grad through jnp.pad (constant) and lax.pad with interior and negative padding",
      lambda rng: [f32(rng, (3, 4)), f32(rng, (6, 7)), f32(rng, (6, 8))],
      note="jnp.pad: f32[3,4] -> f32[6,7]. lax.pad config ((1, 0, 1), (-1, 2, 1)) = (low, high, interior): "
           "dim0 1+3+2(interior)+0 = 6, dim1 -1+4+3(interior)+2 = 8 (the negative low pad drops the first "
           "column, so x[:, 0] gets zero gradient).")
def grad_pad(x, w1, w2):
    g1 = jax.grad(lambda x: jnp.sum(jnp.cos(jnp.pad(x, ((1, 2), (0, 3)))) * w1))(x)
    g2 = jax.grad(lambda x: jnp.sum(jnp.sin(lax.pad(x, 0.5, ((1, 0, 1), (-1, 2, 1)))) * w2))(x)
    return g1, g2


@case("grad_concatenate", "grad of sum(sin(concatenate([x, y, x], axis=1)) * w) w.r.t. (x, y)",
      lambda rng: [f32(rng, (3, 2)), f32(rng, (3, 4)), f32(rng, (3, 8))])
def grad_concatenate(x, y, w):
    return jax.grad(lambda x, y: jnp.sum(jnp.sin(jnp.concatenate([x, y, x], axis=1)) * w), argnums=(0, 1))(x, y)


@case("grad_reductions", "grads through sum(axis=0), mean(axis=1), max(axis=0) (distinct values) and full mean",
      lambda rng: [distinct_f32(rng, (3, 4)), f32(rng, (4,)), f32(rng, (3,))])
def grad_reductions(x, a, b):
    g_sum = jax.grad(lambda x: jnp.sum(jnp.sin(jnp.sum(x, axis=0)) * a))(x)
    g_mean = jax.grad(lambda x: jnp.sum(jnp.mean(x ** 2, axis=1) * b))(x)
    g_max = jax.grad(lambda x: jnp.sum(jnp.max(x, axis=0) * a))(x)
    g_mean_all = jax.grad(lambda x: jnp.mean(jnp.exp(x)))(x)
    return g_sum, g_mean, g_max, g_mean_all


@case("grad_cumsum", "grads of sum(cumsum(x, axis=1) * w) and sum(sin(cumsum(x[::-1]))) ",
      lambda rng: [f32(rng, (3, 5)), f32(rng, (3, 5)), f32(rng, (6,))])
def grad_cumsum(x, w, v):
    return (jax.grad(lambda x: jnp.sum(jnp.cumsum(x, axis=1) * w))(x),
            jax.grad(lambda v: jnp.sum(jnp.sin(jnp.cumsum(v[::-1]))))(v))


@case("grad_sort", "grads of sum(sort(v) * wv) and sum(sort(x, axis=0) * wx) (distinct values)",
      lambda rng: [distinct_f32(rng, (7,)), np.arange(1, 8, dtype=np.float32),
                   distinct_f32(rng, (4, 3)), f32(rng, (4, 3))],
      note="the gradient is the weight vector permuted back by the sorting permutation.")
def grad_sort(v, wv, x, wx):
    return (jax.grad(lambda v: jnp.sum(jnp.sort(v) * wv))(v),
            jax.grad(lambda x: jnp.sum(jnp.sort(x, axis=0) * wx))(x))


@case("grad_matmul", "grad of sum(tanh(a @ b)) w.r.t. (a, b), plus matrix-vector sum(sin(a @ v))",
      lambda rng: [f32(rng, (3, 4)), f32(rng, (4, 5)), f32(rng, (4,))])
def grad_matmul(a, b, v):
    g_ab = jax.grad(lambda a, b: jnp.sum(jnp.tanh(a @ b)), argnums=(0, 1))(a, b)
    g_av = jax.grad(lambda a, v: jnp.sum(jnp.sin(a @ v)), argnums=(0, 1))(a, v)
    return g_ab, g_av


@case("grad_dot_general_batched",
      "grad of batched matmul einsum('bij,bjk->bik') and lax.dot_general contracting (2,) batch (0,)",
      lambda rng: [f32(rng, (2, 3, 4)), f32(rng, (2, 4, 5)), f32(rng, (2, 3, 4)), f32(rng, (2, 5, 4))])
def grad_dot_general_batched(a, b, c, d):
    g1 = jax.grad(lambda a, b: jnp.sum(jnp.sin(jnp.einsum("bij,bjk->bik", a, b))), argnums=(0, 1))(a, b)
    g2 = jax.grad(
        lambda c, d: jnp.sum(jnp.cos(lax.dot_general(c, d, (((2,), (2,)), ((0,), (0,)))))),
        argnums=(0, 1))(c, d)
    return g1, g2


@case("grad_gather", "grads of sum(sin(x[idx]) * w) (duplicate + negative indices) and of x[jnp.ix_(r, c)]",
      lambda rng: [f32(rng, (5, 3)), np.array([0, 3, 3, -1, 1, 3], np.int32), f32(rng, (6, 3)),
                   np.array([2, 0, 2], np.int32), np.array([1, 1, 0, 2], np.int32), f32(rng, (3, 4))],
      note="duplicate indices accumulate in the gradient (scatter-add transpose).")
def grad_gather(x, idx, w, r, c, w2):
    g1 = jax.grad(lambda x: jnp.sum(jnp.sin(x[idx]) * w))(x)
    g2 = jax.grad(lambda x: jnp.sum(jnp.cos(x[jnp.ix_(r, c)]) * w2))(x)
    return g1, g2


@case("grad_dynamic_slice", "grad of lax.dynamic_slice(x, (i, j), (2, 3)) incl. a clamped start index",
      lambda rng: [f32(rng, (4, 5)), np.array(1, np.int32), np.array(4, np.int32), f32(rng, (2, 3))],
      note="j = 4 with slice width 3 on a dim of 5 is clamped to start 2 (XLA semantics).")
def grad_dynamic_slice(x, i, j, w):
    return jax.grad(lambda x: jnp.sum(jnp.sin(lax.dynamic_slice(x, (i, j), (2, 3))) * w))(x)


@case("grad_dynamic_update_slice", "grad of lax.dynamic_update_slice(x, u, (i, j)) w.r.t. (x, u)",
      lambda rng: [f32(rng, (4, 5)), f32(rng, (2, 2)), np.array(2, np.int32), np.array(1, np.int32), f32(rng, (4, 5))])
def grad_dynamic_update_slice(x, u, i, j, w):
    return jax.grad(lambda x, u: jnp.sum(jnp.sin(lax.dynamic_update_slice(x, u, (i, j))) * w),
                    argnums=(0, 1))(x, u)


@case("grad_scatter_add", "grad of sum(sin(x.at[idx].add(v)) * w) w.r.t. (x, v) with duplicate idx (1-D and rows of 2-D)",
      lambda rng: [f32(rng, (6,)), np.array([1, 4, 1, 1, 0], np.int32), f32(rng, (5,)), f32(rng, (6,)),
                   f32(rng, (4, 3)), np.array([3, 0, 3], np.int32), f32(rng, (3, 3)), f32(rng, (4, 3))])
def grad_scatter_add(x, idx, v, w, x2, idx2, v2, w2):
    g1 = jax.grad(lambda x, v: jnp.sum(jnp.sin(x.at[idx].add(v)) * w), argnums=(0, 1))(x, v)
    g2 = jax.grad(lambda x, v: jnp.sum(jnp.sin(x.at[idx2].add(v)) * w2), argnums=(0, 1))(x2, v2)
    return g1, g2


AT_I = np.array([1, 4, 1, -1, 7, 4], np.int32)


@case("grad_at_set", "grads of sum(sin(x.at[i].set(v)) * w) w.r.t. (x, v): repeated and out-of-bounds i",
      lambda rng: [f32(rng, (6,)), AT_I, f32(rng, (6,)), f32(rng, (6,)), f32(rng, (4, 5)),
                   f32(rng, (2, 3)), f32(rng, (4, 5))],
      note="x's cotangent is zero where an update lands; with repeated indices only the update "
           "that was written (the last, on CPU) gets a cotangent; index 7 is dropped.")
def grad_at_set(x, i, v, w, x2, v2, w2):
    g1 = jax.grad(lambda x, v: jnp.sum(jnp.sin(x.at[i].set(v)) * w), argnums=(0, 1))(x, v)
    g2 = jax.grad(lambda x, v: jnp.sum(jnp.sin(x.at[1::2, 1:4].set(v)) * w2), argnums=(0, 1))(x2, v2)
    return g1, g2


@case("grad_at_min_max", "grads of sum(sin(x.at[i].min(v)) * w) and of .max w.r.t. (x, v), with ties",
      lambda rng: [np.array([0.5, -1.0, 2.0, 0.25, 1.5, -0.5], np.float32), AT_I,
                   np.array([0.5, 3.0, -2.0, 0.0, 1.0, 1.5], np.float32), f32(rng, (6,))],
      note="x[1] = 0.5 ties update 0 (both share the tangent); x[4] = 1.5 ties update 5.")
def grad_at_min_max(x, i, v, w):
    gmin = jax.grad(lambda x, v: jnp.sum(jnp.sin(x.at[i].min(v)) * w), argnums=(0, 1))(x, v)
    gmax = jax.grad(lambda x, v: jnp.sum(jnp.sin(x.at[i].max(v)) * w), argnums=(0, 1))(x, v)
    return gmin, gmax


@case("grad_at_mul_add", "grads of sum(sin(x.at[i].mul(v)) * w) w.r.t. x, and of .add w.r.t. (x, v)",
      lambda rng: [f32(rng, (6,)), AT_I, f32(rng, (6,)), f32(rng, (6,))],
      note="JAX differentiates scatter-mul w.r.t. the updates only with unique_indices=True.")
def grad_at_mul_add(x, i, v, w):
    gmul = jax.grad(lambda x: jnp.sum(jnp.sin(x.at[i].mul(v)) * w))(x)
    gadd = jax.grad(lambda x, v: jnp.sum(jnp.sin(x.at[i].add(v)) * w), argnums=(0, 1))(x, v)
    return gmul, gadd


@case("grad_log_softmax", "grads of sum(y * log_softmax(x, axis=-1)) and of sum(logsumexp(x, axis=1))",
      lambda rng: [f32(rng, (3, 5), -3.0, 3.0), f32(rng, (3, 5), 0.0, 1.0)])
def grad_log_softmax(x, y):
    return (jax.grad(lambda x: jnp.sum(y * jax.nn.log_softmax(x, axis=-1)))(x),
            jax.grad(lambda x: jnp.sum(jax.scipy.special.logsumexp(x, axis=1)))(x))


@case("grad_linalg_norm", "grads of jnp.linalg.norm: vector 2-norm, matrix Frobenius, and per-row norms (axis=1)",
      lambda rng: [f32(rng, (5,)), f32(rng, (3, 4)), f32(rng, (3,))])
def grad_linalg_norm(v, m, w):
    return (jax.grad(lambda v: jnp.linalg.norm(v))(v),
            jax.grad(lambda m: jnp.linalg.norm(m))(m),
            jax.grad(lambda m: jnp.sum(jnp.linalg.norm(m, axis=1) * w))(m))


# ==========================================================================
# 3. float64 (tight-tolerance) cases
# ==========================================================================


@case("grad_transcendental_chain_x64",
      "x64: grad of sum(exp(sin(x)) * log1p(x*x) + tanh(x) * sigmoid(x) + sqrt(x*x + 1) + rsqrt(x*x + 2))",
      lambda rng: [f64(rng, (3, 4), -2.0, 2.0)], x64=True)
def grad_transcendental_chain_x64(x):
    def f(x):
        return jnp.sum(jnp.exp(jnp.sin(x)) * jnp.log1p(x * x) + jnp.tanh(x) * jax.nn.sigmoid(x)
                       + jnp.sqrt(x * x + 1.0) + lax.rsqrt(x * x + 2.0) + jnp.cos(x) / (2.0 + x))
    return jax.grad(f)(x)


@case("grad_pow_div_x64", "x64: grad of sum(x ** y / (1 + y**2) + x**3) w.r.t. (x, y)",
      lambda rng: [f64(rng, (3, 4), 0.2, 3.0), f64(rng, (3, 4), -2.0, 2.0)], x64=True)
def grad_pow_div_x64(x, y):
    return jax.grad(lambda x, y: jnp.sum(x ** y / (1.0 + y ** 2) + x ** 3), argnums=(0, 1))(x, y)


@case("grad_log_softmax_matmul_x64", "x64: grad of cross-entropy sum(y * log_softmax(x @ w)) w.r.t. (x, w)",
      lambda rng: [f64(rng, (4, 3)), f64(rng, (3, 5)), f64(rng, (4, 5), 0.0, 1.0)], x64=True)
def grad_log_softmax_matmul_x64(x, w, y):
    return jax.grad(lambda x, w: -jnp.sum(y * jax.nn.log_softmax(x @ w)), argnums=(0, 1))(x, w)


# ==========================================================================
# 4. jvp / vjp
# ==========================================================================


@case("jvp_polar_multi_output", "jax.jvp of f(r, t) = (r*cos t, r*sin t, sum(r**2)) -> (primals_out, tangents_out)",
      lambda rng: [f32(rng, (4,), 0.5, 2.0), f32(rng, (4,), -3.0, 3.0), f32(rng, (4,)), f32(rng, (4,))],
      note="output pytree ((p0, p1, p2), (t0, t1, t2)).")
def jvp_polar_multi_output(r, t, dr, dt):
    def f(r, t):
        return r * jnp.cos(t), r * jnp.sin(t), jnp.sum(r ** 2)
    return jax.jvp(f, (r, t), (dr, dt))


@case("jvp_matmul_tanh_multi_output", "jax.jvp of f(W, x) = (tanh(W @ x), W.T @ W, max(x)) with tangents (dW, dx)",
      lambda rng: [f32(rng, (3, 4)), distinct_f32(rng, (4,)), f32(rng, (3, 4)), f32(rng, (4,))])
def jvp_matmul_tanh_multi_output(w, x, dw, dx):
    def f(w, x):
        return jnp.tanh(w @ x), w.T @ w, jnp.max(x)
    return jax.jvp(f, (w, x), (dw, dx))


@case("jvp_x64", "x64: jax.jvp of f(x) = (exp(x) * sin(x), cumsum(x**2)) -> (primals_out, tangents_out)",
      lambda rng: [f64(rng, (5,)), f64(rng, (5,))], x64=True)
def jvp_x64(x, dx):
    return jax.jvp(lambda x: (jnp.exp(x) * jnp.sin(x), jnp.cumsum(x ** 2)), (x,), (dx,))


@case("vjp_multi_output", "jax.vjp of f(W, x) = (tanh(W @ x), sum(x**2)) with cotangent (ct0, ct1) -> (out, (dW, dx))",
      lambda rng: [f32(rng, (3, 4)), f32(rng, (4,)), f32(rng, (3,)), f32(rng, ())],
      note="output pytree ((out0, out1), (dW, dx)).")
def vjp_multi_output(w, x, ct0, ct1):
    def f(w, x):
        return jnp.tanh(w @ x), jnp.sum(x ** 2)
    out, pullback = jax.vjp(f, w, x)
    return out, pullback((ct0, ct1))


@case("vjp_gather_softmax", "jax.vjp of f(x) = softmax(x[idx]) (duplicate idx) with a given cotangent",
      lambda rng: [f32(rng, (5,), -2.0, 2.0), np.array([4, 0, 4, 2], np.int32), f32(rng, (4,))],
      note="output pytree (out, (dx,)).")
def vjp_gather_softmax(x, idx, ct):
    out, pullback = jax.vjp(lambda x: jax.nn.softmax(x[idx]), x)
    return out, pullback(ct)


# ==========================================================================
# 5. grad options
# ==========================================================================


@case("grad_argnums_0_2", "jax.grad(f, argnums=(0, 2)) of f(x, y, z) = sum(sin(x) * y + z**2 * x)",
      lambda rng: [f32(rng, (4,)), f32(rng, (4,)), f32(rng, (4,))])
def grad_argnums_0_2(x, y, z):
    return jax.grad(lambda x, y, z: jnp.sum(jnp.sin(x) * y + z ** 2 * x), argnums=(0, 2))(x, y, z)


@case("grad_has_aux", "jax.grad(f, has_aux=True) where aux = {'pred': ..., 'sq': ...} -> (grad, aux)",
      lambda rng: [f32(rng, (3,)), f32(rng, (5, 3)), f32(rng, (5,))],
      note="output pytree (g_w, {'pred': f32[5], 'sq': f32[]}); dict leaves are in sorted key order.")
def grad_has_aux(w, x, y):
    def loss(w):
        pred = jnp.tanh(x @ w)
        sq = jnp.sum((pred - y) ** 2)
        return sq / 5.0, {"sq": sq, "pred": pred}
    return jax.grad(loss, has_aux=True)(w)


@case("value_and_grad_tuple_params",
      "jax.value_and_grad of a loss of params=(W, b) (pytree argument) -> (value, (dW, db))",
      lambda rng: [f32(rng, (3, 2)), f32(rng, (2,)), f32(rng, (4, 3)), f32(rng, (4, 2))])
def value_and_grad_tuple_params(w, b, x, y):
    def loss(params):
        w, b = params
        return jnp.mean((jnp.tanh(x @ w + b) - y) ** 2)
    return jax.value_and_grad(loss)((w, b))


@case("value_and_grad_argnums_has_aux",
      "jax.value_and_grad(f, argnums=(0, 1), has_aux=True) -> ((value, aux), (dx, dy))",
      lambda rng: [f32(rng, (4,)), f32(rng, (4,))])
def value_and_grad_argnums_has_aux(x, y):
    def f(x, y):
        z = jnp.exp(x) * y
        return jnp.sum(z ** 2), jnp.max(z)
    return jax.value_and_grad(f, argnums=(0, 1), has_aux=True)(x, y)


# ==========================================================================
# 6. higher order
# ==========================================================================


def rosenbrock(x):
    return jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


@case("grad_grad_scalar", "jax.grad(jax.grad(f)) of scalar f(x) = sin(x) * x**3 + exp(-x**2)",
      lambda rng: [f32(rng, ())])
def grad_grad_scalar(x):
    f = lambda x: jnp.sin(x) * x ** 3 + jnp.exp(-x ** 2)
    return jax.grad(f)(x), jax.grad(jax.grad(f))(x)


@case("grad_grad_grad_scalar_x64", "x64: first, second and third derivatives of f(x) = tanh(x) * log1p(x**2)",
      lambda rng: [f64(rng, ())], x64=True)
def grad_grad_grad_scalar_x64(x):
    f = lambda x: jnp.tanh(x) * jnp.log1p(x ** 2)
    return jax.grad(f)(x), jax.grad(jax.grad(f))(x), jax.grad(jax.grad(jax.grad(f)))(x)


@case("hessian_rosenbrock", "jax.hessian(rosenbrock) at a 4-vector (f32[4] -> f32[4,4])",
      lambda rng: [f32(rng, (4,), -1.5, 1.5)], helpers=(rosenbrock,))
def hessian_rosenbrock(x):
    return jax.hessian(rosenbrock)(x)


@case("hessian_rosenbrock_x64", "x64: jax.hessian(rosenbrock) at a 4-vector, plus its gradient",
      lambda rng: [f64(rng, (4,), -1.5, 1.5)], x64=True, helpers=(rosenbrock,))
def hessian_rosenbrock_x64(x):
    return jax.grad(rosenbrock)(x), jax.hessian(rosenbrock)(x)


def vecfun(x):
    """R^3 -> R^5."""
    return jnp.stack([
        x[0] * x[1],
        jnp.sin(x[2]) * x[0],
        jnp.exp(x[1] - x[2]),
        x[0] ** 2 + jnp.tanh(x[1]),
        jnp.sum(x ** 3) / (1.0 + x[2] ** 2),
    ])


@case("jacrev_r3_r5", "jax.jacrev of vecfun: R^3 -> R^5 (f32[5,3])", lambda rng: [f32(rng, (3,))], helpers=(vecfun,))
def jacrev_r3_r5(x):
    return jax.jacrev(vecfun)(x)


@case("jacfwd_r3_r5", "jax.jacfwd of vecfun: R^3 -> R^5 (f32[5,3]; must equal jacrev_r3_r5 on the same input)",
      lambda rng: [f32(rng, (3,))], helpers=(vecfun,),
      note="the input differs from jacrev_r3_r5's (seed is per case name); compare with the stored in_0.")
def jacfwd_r3_r5(x):
    return jax.jacfwd(vecfun)(x)


@case("jacfwd_jacrev_x64", "x64: jax.jacrev and jax.jacfwd(jax.jacrev(vecfun)) (f64[5,3] and f64[5,3,3])",
      lambda rng: [f64(rng, (3,))], x64=True, helpers=(vecfun,))
def jacfwd_jacrev_x64(x):
    return jax.jacrev(vecfun)(x), jax.jacfwd(jax.jacrev(vecfun))(x)


@case("jacfwd_jacrev_scalar", "jax.jacfwd(jax.jacrev(f)) of a scalar f: R^3 -> R (Hessian f32[3,3])",
      lambda rng: [f32(rng, (3,))])
def jacfwd_jacrev_scalar(x):
    f = lambda x: jnp.sum(jnp.sin(x) * jnp.roll(x, 1)) + jnp.prod(x)
    return jax.jacfwd(jax.jacrev(f))(x)


@case("jacrev_pytree", "jax.jacrev w.r.t. a tuple argument (W, b) of f(W, b) = tanh(W @ x + b): outputs dout/dW, dout/db",
      lambda rng: [f32(rng, (2, 3)), f32(rng, (2,)), f32(rng, (3,))])
def jacrev_pytree(w, b, x):
    return jax.jacrev(lambda p: jnp.tanh(p[0] @ x + p[1]))((w, b))


def two_outputs(x, y):
    """(R^3, R^2) -> (R^2, R): a tuple of outputs of a tuple of arguments."""
    return jnp.tanh(x[:2] * y), jnp.sum(jnp.sin(x)) * y[0]


@case("jacfwd_argnums_tuple", "jax.jacfwd(f, argnums=(0, 1)) of f(x, y) -> (a, b): ((da/dx, da/dy), (db/dx, db/dy))",
      lambda rng: [f32(rng, (3,)), f32(rng, (2,))], helpers=(two_outputs,))
def jacfwd_argnums_tuple(x, y):
    return jax.jacfwd(two_outputs, argnums=(0, 1))(x, y)


@case("jacrev_argnums_tuple", "jax.jacrev(f, argnums=(0, 1)) of f(x, y) -> (a, b): ((da/dx, da/dy), (db/dx, db/dy))",
      lambda rng: [f32(rng, (3,)), f32(rng, (2,))], helpers=(two_outputs,))
def jacrev_argnums_tuple(x, y):
    return jax.jacrev(two_outputs, argnums=(0, 1))(x, y)


@case("jacrev_argnums_1", "jax.jacrev(f, argnums=1) of f(x, y) -> (a, b): (da/dy, db/dy)",
      lambda rng: [f32(rng, (3,)), f32(rng, (2,))], helpers=(two_outputs,))
def jacrev_argnums_1(x, y):
    return jax.jacrev(two_outputs, argnums=1)(x, y)


def two_args_scalar(x, y):
    """(R^3, R^2) -> R."""
    return jnp.sum(jnp.sin(x) * y[0]) + jnp.sum(y ** 3) * x[1]


@case("hessian_argnums_tuple", "jax.hessian(f, argnums=(0, 1)) of a scalar f(x, y): ((f_xx, f_xy), (f_yx, f_yy))",
      lambda rng: [f32(rng, (3,)), f32(rng, (2,))], helpers=(two_args_scalar,))
def hessian_argnums_tuple(x, y):
    return jax.hessian(two_args_scalar, argnums=(0, 1))(x, y)


@case("hessian_argnums_1", "jax.hessian(f, argnums=1) of a scalar f(x, y): f_yy",
      lambda rng: [f32(rng, (3,)), f32(rng, (2,))], helpers=(two_args_scalar,))
def hessian_argnums_1(x, y):
    return jax.hessian(two_args_scalar, argnums=1)(x, y)


@case("jacfwd_first_tuple_arg", "jax.jacfwd(f) of f(x, y) -> (a, b): (da/dx, db/dx)",
      lambda rng: [f32(rng, (3,)), f32(rng, (2,))], helpers=(two_outputs,))
def jacfwd_first_tuple_arg(x, y):
    return jax.jacfwd(two_outputs)(x, y)


# ==========================================================================
# 7. composition with vmap
# ==========================================================================


def lin_loss(p, x, y):
    w, b = p
    return (jnp.tanh(jnp.dot(w, x) + b) - y) ** 2


@case("vmap_grad_in_axes_none_0_0",
      "jax.vmap(jax.grad(lin_loss), in_axes=(None, 0, 0)) per-example grads of params (w f32[3], b f32[])",
      lambda rng: [f32(rng, (3,)), f32(rng, ()), f32(rng, (6, 3)), f32(rng, (6,))], helpers=(lin_loss,),
      note="output pytree (dw f32[6,3], db f32[6]).")
def vmap_grad_in_axes_none_0_0(w, b, xs, ys):
    return jax.vmap(jax.grad(lin_loss), in_axes=(None, 0, 0))((w, b), xs, ys)


@case("grad_mean_vmap", "jax.grad(lambda p: jnp.mean(jax.vmap(lin_loss, in_axes=(None, 0, 0))(p, xs, ys)))",
      lambda rng: [f32(rng, (3,)), f32(rng, ()), f32(rng, (6, 3)), f32(rng, (6,))], helpers=(lin_loss,))
def grad_mean_vmap(w, b, xs, ys):
    return jax.grad(lambda p: jnp.mean(jax.vmap(lin_loss, in_axes=(None, 0, 0))(p, xs, ys)))((w, b))


@case("vmap_jacrev", "jax.vmap(jax.jacrev(vecfun)) over a batch of 4 points (f32[4,5,3])",
      lambda rng: [f32(rng, (4, 3))], helpers=(vecfun,))
def vmap_jacrev(xs):
    return jax.vmap(jax.jacrev(vecfun))(xs)


@case("jacrev_vmap", "jax.jacrev(jax.vmap(vecfun)) of f32[4,3] -> f32[4,5] (block-diagonal f32[4,5,4,3])",
      lambda rng: [f32(rng, (4, 3))], helpers=(vecfun,))
def jacrev_vmap(xs):
    return jax.jacrev(jax.vmap(vecfun))(xs)


@case("vmap_hessian", "jax.vmap(jax.hessian(rosenbrock)) over 3 points in R^4 (f32[3,4,4])",
      lambda rng: [f32(rng, (3, 4), -1.5, 1.5)], helpers=(rosenbrock,))
def vmap_hessian(xs):
    return jax.vmap(jax.hessian(rosenbrock))(xs)


# ==========================================================================
# 8. seed 002 (/work/shared/seeds/002_*.txt), entirely
# ==========================================================================


def predict(params, x):
    # A simple linear model: w*x + b
    w, b = params
    return w * x + b


def mean_squared_error(params, batch_x, batch_y_true):
    # vmap *inside* the loss for the predictions
    batched_predict = jax.vmap(predict, in_axes=(None, 0))
    batch_y_pred = batched_predict(params, batch_x)
    loss = jnp.mean((batch_y_pred - batch_y_true) ** 2)
    return loss


def seed002_inputs(rng):
    """params = (jnp.array(2.0), jnp.array(1.0)); batch_x = jnp.linspace(0, 1, 5);
    batch_y_true = 2.5 * batch_x + 0.5 (all computed with jax.numpy, f32)."""
    batch_x = jnp.linspace(0, 1, 5)
    batch_y_true = 2.5 * batch_x + 0.5
    return [np.asarray(jnp.array(2.0)), np.asarray(jnp.array(1.0)), np.asarray(batch_x), np.asarray(batch_y_true)]


def seed002_vmap_grad_jaxpr():
    params = (jnp.array(2.0), jnp.array(1.0))
    batch_x = jnp.linspace(0, 1, 5)
    batch_y_true = 2.5 * batch_x + 0.5
    return jax.make_jaxpr(jax.vmap(jax.grad(squared_error), in_axes=(None, 0, 0)))(params, batch_x, batch_y_true)


SEED002_NOTE = ("params=(w, b) is passed flat as in_0=w, in_1=b; in_2 = batch_x = jnp.linspace(0, 1, 5), "
                "in_3 = batch_y_true = 2.5 * batch_x + 0.5.")


@case("seed002_per_example_grads",
      "seed 002: jax.vmap(jax.grad(squared_error), in_axes=(None, 0, 0)) -> (dw f32[5], db f32[5])",
      seed002_inputs, helpers=(squared_error, seed002_inputs), note=SEED002_NOTE,
      out_labels=["dw (per-example, = batch_gradients[0])", "db (per-example, = batch_gradients[1])"],
      jaxpr=lambda *_: seed002_vmap_grad_jaxpr(),
      jaxpr_desc="`jax.make_jaxpr(jax.vmap(jax.grad(squared_error), in_axes=(None, 0, 0)))(params, batch_x, batch_y_true)` "
                 "traced with the seed's own objects: params = (jnp.array(2.0), jnp.array(1.0)) (weak-typed f32, hence the "
                 "`convert_element_type` eqns), batch_x = jnp.linspace(0, 1, 5), batch_y_true = 2.5 * batch_x + 0.5 "
                 "(identical to tests/golden/jaxpr/vmap_grad_squared_error.txt). The stored in_0/in_1 hold the same values "
                 "as plain (non-weak) f32[] arrays; outputs are identical either way.")
def seed002_per_example_grads(w, b, batch_x, batch_y_true):
    params = (w, b)
    grad_loss_single = jax.grad(squared_error, argnums=0)
    grad_loss_batch = jax.vmap(grad_loss_single, in_axes=(None, 0, 0))
    batch_gradients = grad_loss_batch(params, batch_x, batch_y_true)
    return batch_gradients


@case("seed002_mean_grad",
      "seed 002: jax.grad(mean_squared_error, argnums=0) (vmap(predict) inside the loss) -> (dw f32[], db f32[])",
      seed002_inputs, helpers=(predict, mean_squared_error, seed002_inputs), note=SEED002_NOTE,
      out_labels=["mean_batch_gradient[0] (dw)", "mean_batch_gradient[1] (db)"])
def seed002_mean_grad(w, b, batch_x, batch_y_true):
    params = (w, b)
    grad_mean_loss = jax.grad(mean_squared_error, argnums=0)
    mean_batch_gradient = grad_mean_loss(params, batch_x, batch_y_true)
    return mean_batch_gradient


@case("seed002_allclose",
      "seed 002: means of the per-example grads and the allclose booleans (mean grad vs mean of per-example grads, dw and db)",
      seed002_inputs, helpers=(squared_error, predict, mean_squared_error, seed002_inputs), note=SEED002_NOTE
      + " The seed program prints only the dw comparison (`平均梯度匹配`); the db comparison is the same check for b.",
      out_labels=["jnp.mean(batch_gradients[0])", "jnp.mean(batch_gradients[1])",
                  "jnp.allclose(mean_batch_gradient[0], jnp.mean(batch_gradients[0]))",
                  "jnp.allclose(mean_batch_gradient[1], jnp.mean(batch_gradients[1]))"])
def seed002_allclose(w, b, batch_x, batch_y_true):
    params = (w, b)
    batch_gradients = jax.vmap(jax.grad(squared_error, argnums=0), in_axes=(None, 0, 0))(params, batch_x, batch_y_true)
    mean_batch_gradient = jax.grad(mean_squared_error, argnums=0)(params, batch_x, batch_y_true)
    return (jnp.mean(batch_gradients[0]), jnp.mean(batch_gradients[1]),
            jnp.allclose(mean_batch_gradient[0], jnp.mean(batch_gradients[0])),
            jnp.allclose(mean_batch_gradient[1], jnp.mean(batch_gradients[1])))


@case("seed002_vmap_jit_predict",
      "seed 002 part 1: vmap(predict, in_axes=(None, 0)) vs jit(vmap(...)) on jnp.arange(10000.0) and their allclose",
      lambda rng: [np.asarray(jnp.array(2.0)), np.asarray(jnp.array(1.0))], helpers=(predict,),
      note="params=(w, b) passed flat; batch_x = jnp.arange(10000.0) is built inside the function. "
           "Only result_vmap is stored (result_jit_vmap is identical) plus the allclose boolean.",
      out_labels=["result_vmap f32[10000]", "jnp.allclose(result_vmap, result_jit_vmap)"])
def seed002_vmap_jit_predict(w, b):
    params = (w, b)
    batch_x = jnp.arange(10000.0)
    batched_predict_vmap = jax.vmap(predict, in_axes=(None, 0))
    jitted_batched_predict = jax.jit(batched_predict_vmap)
    result_vmap = batched_predict_vmap(params, batch_x)
    result_jit_vmap = jitted_batched_predict(params, batch_x)
    return result_vmap, jnp.allclose(result_vmap, result_jit_vmap)


@case("seed002_jit_vmap_grad_large",
      "seed 002 part 3: jit(vmap(grad(squared_error))) on the 100000-example PRNGKey(42) batch; stores reductions only",
      lambda rng: [np.asarray(jnp.array(2.0)), np.asarray(jnp.array(1.0))], helpers=(squared_error,), prng=True,
      note="params=(w, b) passed flat; the batch is drawn inside the function exactly as in the seed "
           "(the same key for uniform and normal). Stored: first 8 per-example dw/db, sums over all 100000 "
           "(f32 sums: compare with rtol ~1e-4, summation order differs), and the shapes are (100000,).",
      out_labels=["per_example_grads[0][:8] (dw)", "per_example_grads[1][:8] (db)",
                  "jnp.sum(per_example_grads[0])", "jnp.sum(per_example_grads[1])",
                  "large_batch_x[:8]", "large_batch_y_true[:8]"])
def seed002_jit_vmap_grad_large(w, b):
    params = (w, b)
    key = jax.random.PRNGKey(42)
    large_batch_size = 100000
    large_batch_x = jax.random.uniform(key, (large_batch_size,))
    large_batch_y_true = 2.5 * large_batch_x + 0.5 + 0.1 * jax.random.normal(key, (large_batch_size,))
    jit_vmap_grad_loss = jax.jit(jax.vmap(jax.grad(squared_error, argnums=0), in_axes=(None, 0, 0)))
    per_example_grads = jit_vmap_grad_loss(params, large_batch_x, large_batch_y_true)
    return (per_example_grads[0][:8], per_example_grads[1][:8],
            jnp.sum(per_example_grads[0]), jnp.sum(per_example_grads[1]),
            large_batch_x[:8], large_batch_y_true[:8])


# ==========================================================================
# 9. pegrad.py MLP (784-256-10 tanh, log_softmax cross-entropy), B = 8
# ==========================================================================

MLP_B = 8


def pegrad_mlp_inputs(rng=None, B=MLP_B):
    """Exactly /work/shared/jax-reference/pegrad.py's `mlp` branch, with B = 8.
    Returns [w1 f32[784,256], b1 f32[256], w2 f32[256,10], b2 f32[10], x f32[B,784], y f32[B,10]]."""
    key = jax.random.PRNGKey(42)
    k1, k2, k3 = jax.random.split(key, 3)
    params = (jax.random.normal(k1, (784, 256)) * 0.05, jnp.zeros(256), jax.random.normal(k2, (256, 10)) * 0.05, jnp.zeros(10))
    x = jax.random.normal(k3, (B, 784)); y = jax.nn.one_hot(jnp.arange(B) % 10, 10)
    return [np.asarray(a) for a in (*params, x, y)]


def mlp_loss(p, x, y):
    w1, b1, w2, b2 = p
    h = jnp.tanh(x @ w1 + b1)
    logits = h @ w2 + b2
    return -jnp.sum(y * jax.nn.log_softmax(logits))


MLP_LABELS = [
    "per-example dw1 summed over the batch axis: jnp.sum(pe[0], axis=0), f32[784,256]",
    "per-example dw1 sum of squares per example: jnp.sum(pe[0] ** 2, axis=(1, 2)), f32[8]",
    "per-example dw1 plain sum per example: jnp.sum(pe[0], axis=(1, 2)), f32[8]",
    "per-example dw1 corner slice: pe[0][:, :8, :8], f32[8,8,8]",
    "per-example db1 (full): pe[1], f32[8,256]",
    "per-example dw2 (full): pe[2], f32[8,256,10]",
    "per-example db2 (full): pe[3], f32[8,10]",
    "mean gradient dw1 (full): mg[0], f32[784,256]",
    "mean gradient db1 (full): mg[1], f32[256]",
    "mean gradient dw2 (full): mg[2], f32[256,10]",
    "mean gradient db2 (full): mg[3], f32[10]",
    "per-example loss: jax.vmap(mlp_loss, in_axes=(None, 0, 0))(p, x, y), f32[8]",
]


@case("pegrad_mlp_b8",
      "pegrad.py MLP (784-256-10 tanh, log_softmax CE), B=8: per-example grads (w1 reduced) and mean gradient",
      pegrad_mlp_inputs, helpers=(pegrad_mlp_inputs, mlp_loss), prng=True, out_labels=MLP_LABELS,
      note="Inputs are drawn with jax.random exactly as pegrad.py (PRNGKey(42), split into 3, normal * 0.05, "
           "zero biases, x = normal(k3, (8, 784)), y = one_hot(arange(8) % 10, 10)) and stored as in_0..in_5 = "
           "(w1, b1, w2, b2, x, y), so a test can use them without the PRNG. "
           "pe = jax.vmap(jax.grad(mlp_loss), in_axes=(None, 0, 0))(p, x, y) (the full per-example dw1 f32[8,784,256] "
           "is 6.4 MB and is NOT stored; only the reductions out_0..out_3 are); "
           "mg = jax.grad(lambda p, x, y: jnp.mean(jax.vmap(mlp_loss, in_axes=(None, 0, 0))(p, x, y)))(p, x, y). "
           "Mathematically out_0 == 8 * out_7. pegrad.py jits both; here they run eagerly.")
def pegrad_mlp_b8(w1, b1, w2, b2, x, y):
    p = (w1, b1, w2, b2)
    pe = jax.vmap(jax.grad(mlp_loss), in_axes=(None, 0, 0))(p, x, y)
    mg = jax.grad(lambda p, x, y: jnp.mean(jax.vmap(mlp_loss, in_axes=(None, 0, 0))(p, x, y)))(p, x, y)
    per_loss = jax.vmap(mlp_loss, in_axes=(None, 0, 0))(p, x, y)
    return (jnp.sum(pe[0], axis=0), jnp.sum(pe[0] ** 2, axis=(1, 2)), jnp.sum(pe[0], axis=(1, 2)), pe[0][:, :8, :8],
            pe[1], pe[2], pe[3],
            mg[0], mg[1], mg[2], mg[3],
            per_loss)


# ==========================================================================
# driver
# ==========================================================================


def _check_input(c, a):
    if not c["x64"]:
        assert a.dtype not in (np.float64, np.int64), (c["name"], a.dtype)


def run_case(c):
    r = gg.eval_case(c, _check_input, trace=c["jaxpr"])
    if c["out_labels"] is not None:
        assert len(c["out_labels"]) == len(r["outputs"]), (c["name"], len(c["out_labels"]), len(r["outputs"]))
    d = OUTDIR / c["name"]
    gg.write_case_dir(d, r)
    r["size"] = sum(p.stat().st_size for p in d.iterdir())
    return r


def write_manifest(results, partitionable):
    header = [
        "# oxla AD (automatic differentiation) golden conformance cases",
        "",
        "Generated by `scripts/gen_golden_ad.py` (do not edit by hand; rerun the script).",
        "",
        f"- jax {jax.__version__}, jaxlib {gg._jaxlib_version()}, numpy {np.__version__}, backend CPU",
        f"- `jax.config.jax_threefry_partitionable` = **{partitionable}**; `jax.config.jax_default_prng_impl` = "
        f"`{jax.config.jax_default_prng_impl}` (matters only for the cases marked prng)",
        "- x64: cases marked **x64** are traced and run inside `with jax.enable_x64(True):` (float64 inputs, tight",
        "  comparison possible, e.g. rtol=1e-12); all other cases run with x64 disabled (default): python floats are",
        "  f32, ints are i32.",
        "- Layout (same as tests/golden/): `<case>/in_<i>.npy` inputs (positional args of the case function, in",
        "  order), `<case>/out_<i>.npy` = `jax.tree_util.tree_leaves(fn(*inputs))[i]`, `<case>/jaxpr.txt` =",
        "  `str(jax.make_jaxpr(fn)(*inputs))`, i.e. the jaxpr of the *differentiated* program (grad/jvp/vjp/jac*/vmap",
        "  are traced away; tuple/dict arguments are assembled inside `fn`, so the jaxpr's invars are the flat",
        "  inputs) unless the case lists another jaxpr. 0-d arrays are stored with shape `()`.",
        "- Inputs: `rng = np.random.default_rng(seed)` with `seed = zlib.crc32(name)`; helpers from",
        "  scripts/gen_golden.py (`f32(rng, shape, lo=-1, hi=1)` / `f64` = uniform cast, `i32`, `boolean`) plus",
        "  `nonzero_f32(rng, shape, lo=0.5, hi=2)` = |x| in [lo, hi) with random sign and `distinct_f32` = pairwise",
        "  distinct values (no ties). Integer inputs (indices) are int32. The .npy files are authoritative.",
        "- Outputs computed eagerly (no `jax.jit` unless the source jits) on CPU. Compare floats with a small tolerance",
        "  (e.g. rtol=1e-5/atol=1e-6 for f32 elementwise; rtol~1e-4 for large f32 reductions/matmuls; ~1e-12 for x64);",
        "  bools exactly. Tie-breaking conventions (abs at 0, max/min ties, reduce-max ties) are exact values.",
        "- In the source, `jnp` = `jax.numpy`, `lax` = `jax.lax`, `np` = numpy.",
    ]

    def index_row(c, r, ins, outs):
        return [c["desc"].replace("|", "\\|"), ins, outs, "x64" if c["x64"] else "", "yes" if c["prng"] else ""]

    def details(c, r):
        return [f"- jaxpr.txt: {c['jaxpr_desc']}"] if c["jaxpr_desc"] else []

    def out_suffix(c, i, a):
        lab = f" — {c['out_labels'][i]}" if c["out_labels"] else ""
        return lab + gg.small_value(a)

    gg.write_manifest_file(OUTDIR / "MANIFEST.md", header, results,
                           ["description", "inputs", "outputs", "x64", "prng"], index_row, partitionable,
                           intro=lambda c: [c["desc"], ""], details=details, out_suffix=out_suffix)


def main():
    total = gg.generate(OUTDIR, CASES, run_case, write_manifest, what="AD cases")
    assert total < 3_000_000, f"golden_ad too large: {total} bytes"


if __name__ == "__main__":
    main()
