#!/usr/bin/env python3
"""Generate JAX golden files for oxla's collectives (psum, pmean, pmax, pmin, all_gather,
psum_scatter, ppermute, all_to_all, axis_index) under `vmap(axis_name=...)`.

Usage (from anywhere; needs a Python env with `jax` and `numpy`):

    /work/jaxenv/bin/python scripts/gen_golden_collectives.py

JAX runs with 2 host CPU devices (`--xla_force_host_platform_device_count=2`). Writes only
under tests/golden_collectives/ (the input helpers and the case driver come from
scripts/gen_golden.py):

    <case>/in_<i>.npy, <case>/out_<i>.npy, <case>/jaxpr.txt   one `vmap` program a case,
        outputs computed eagerly, jaxpr = str(jax.make_jaxpr(fn)(*inputs))
    axis_env/<case>.txt   str(jax.make_jaxpr(fn, axis_env=...)(*inputs)) of a collective
        traced outside any map (no values)
    MANIFEST.md           every case with its source, inputs and outputs
"""

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"

import sys
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

import gen_golden as gg
from gen_golden import f32, i32, boolean, small_ints_f32  # noqa: F401  (used by case inputs)

REPO = Path(__file__).resolve().parent.parent
OUTDIR = REPO / "tests" / "golden_collectives"
assert OUTDIR != gg.GOLDEN

CASES = []


def case(name, inputs=lambda rng: [], note=None):
    def deco(fn):
        CASES.append(dict(name=name, fn=fn, inputs=inputs, helpers=(), prng=False, note=note))
        return fn

    return deco


def vm(f, **kw):
    return jax.vmap(f, axis_name="i", **kw)


X34 = lambda rng: [f32(rng, (3, 4))]
X332 = lambda rng: [f32(rng, (3, 3, 2))]

# ---- psum family
@case("psum_axis0", X34)
def psum_axis0(x):
    return vm(lambda v: lax.psum(v, "i"))(x)


@case("psum_axis1", lambda rng: [f32(rng, (4, 3))])
def psum_axis1(x):
    return vm(lambda v: v / lax.psum(v * v, "i"), in_axes=1, out_axes=1)(x)


@case("psum_unmapped", lambda rng: [f32(rng, (3, 4)), f32(rng, (4,))])
def psum_unmapped(x, c):
    return vm(lambda v, c: lax.psum(c, "i") * v, in_axes=(0, None))(x, c)


@case("psum_int", lambda rng: [i32(rng, (3, 4))])
def psum_int(x):
    return vm(lambda v: lax.psum(v, "i") - v)(x)


@case("psum_bool", lambda rng: [boolean(rng, (3, 4))])
def psum_bool(x):
    return vm(lambda v: lax.psum(v, "i"))(x)


@case("pmean_centre", X34)
def pmean_centre(x):
    return vm(lambda v: v - lax.pmean(v, "i"))(x)


@case("batch_norm", lambda rng: [f32(rng, (5, 3))])
def batch_norm(x):
    def f(v):
        m = lax.pmean(v, "i")
        var = lax.pmean((v - m) ** 2, "i")
        return (v - m) / jnp.sqrt(var + 1e-5)

    return vm(f)(x)


@case("pmax_ties", lambda rng: [small_ints_f32(rng, (3, 4))])
def pmax_ties(x):
    return vm(lambda v: lax.pmax(v, "i") - v)(x)


@case("pmin_axis1", lambda rng: [small_ints_f32(rng, (4, 3))])
def pmin_axis1(x):
    return vm(lambda v: lax.pmin(v, "i"), in_axes=1)(x)


@case("pmax_unmapped", lambda rng: [f32(rng, (3, 4)), f32(rng, (4,))])
def pmax_unmapped(x, c):
    return vm(lambda v, c: v + lax.pmax(c, "i"), in_axes=(0, None))(x, c)


@case("psum_two_names", lambda rng: [f32(rng, (2, 3, 4))])
def psum_two_names(x):
    return vm(jax.vmap(lambda v: lax.psum(v, ("i", "j")), axis_name="j"))(x)


@case("pmax_two_names_outer_only", lambda rng: [f32(rng, (2, 3, 4))])
def pmax_two_names_outer_only(x):
    return vm(jax.vmap(lambda v: lax.pmax(v, "i") + lax.psum(v, "j"), axis_name="j"))(x)


# ---- all_gather
@case("all_gather_axis0", X34)
def all_gather_axis0(x):
    return vm(lambda v: lax.all_gather(v, "i") * 2.0)(x)


@case("all_gather_axis1", X34)
def all_gather_axis1(x):
    return vm(lambda v: lax.all_gather(v, "i", axis=1))(x)


@case("all_gather_tiled", lambda rng: [f32(rng, (3, 2, 4))])
def all_gather_tiled(x):
    return vm(lambda v: lax.all_gather(v, "i", axis=1, tiled=True))(x)


@case("all_gather_in_axes1", lambda rng: [f32(rng, (4, 3))])
def all_gather_in_axes1(x):
    return vm(lambda v: lax.all_gather(v, "i") @ v, in_axes=1)(x)


@case("all_gather_unmapped", lambda rng: [f32(rng, (3, 4)), f32(rng, (2,))])
def all_gather_unmapped(x, c):
    return vm(lambda v, c: (v, lax.all_gather(c, "i", axis=1), lax.all_gather(c, "i", tiled=True)),
              in_axes=(0, None))(x, c)


# ---- psum_scatter
@case("psum_scatter_untiled", X332)
def psum_scatter_untiled(x):
    return vm(lambda v: lax.psum_scatter(v, "i"))(x)


@case("psum_scatter_tiled", lambda rng: [f32(rng, (3, 6, 2))])
def psum_scatter_tiled(x):
    return vm(lambda v: lax.psum_scatter(v, "i", tiled=True))(x)


@case("psum_scatter_dim1_tiled", lambda rng: [f32(rng, (3, 2, 6))])
def psum_scatter_dim1_tiled(x):
    return vm(lambda v: lax.psum_scatter(v, "i", scatter_dimension=1, tiled=True))(x)


@case("psum_scatter_unmapped", lambda rng: [f32(rng, (3, 4)), f32(rng, (3, 2))])
def psum_scatter_unmapped(x, c):
    return vm(lambda v, c: (v, lax.psum_scatter(c, "i")), in_axes=(0, None))(x, c)


# ---- ppermute
@case("ppermute_cycle", X34)
def ppermute_cycle(x):
    return vm(lambda v: lax.ppermute(v, "i", [(0, 1), (1, 2), (2, 0)]))(x)


@case("ppermute_swap_axis1", lambda rng: [f32(rng, (4, 2))])
def ppermute_swap_axis1(x):
    return vm(lambda v: lax.ppermute(v, "i", [(0, 1), (1, 0)]) - v, in_axes=1)(x)


@case("ppermute_unmapped", lambda rng: [f32(rng, (3, 4)), f32(rng, (4,))])
def ppermute_unmapped(x, c):
    return vm(lambda v, c: v * lax.ppermute(c, "i", [(0, 2), (2, 1), (1, 0)]), in_axes=(0, None))(x, c)


@case("pshuffle_reverse", X34)
def pshuffle_reverse(x):
    # JAX 0.10 batches pshuffle with jnp.take of the Python list (a TypeError): the
    # equivalent ppermute, as pshuffle defines it.
    return vm(lambda v: lax.ppermute(v, "i", [(2, 0), (1, 1), (0, 2)]))(x)


# ---- all_to_all
@case("pswapaxes_axis1", lambda rng: [f32(rng, (3, 2, 3))])
def pswapaxes_axis1(x):
    return vm(lambda v: lax.pswapaxes(v, "i", 1))(x)


@case("all_to_all_split0_concat0", X332)
def all_to_all_split0_concat0(x):
    return vm(lambda v: lax.all_to_all(v, "i", 0, 0))(x)


@case("all_to_all_split0_concat1", X332)
def all_to_all_split0_concat1(x):
    return vm(lambda v: lax.all_to_all(v, "i", 0, 1))(x)


@case("all_to_all_split1_concat0", lambda rng: [f32(rng, (3, 2, 3))])
def all_to_all_split1_concat0(x):
    return vm(lambda v: lax.all_to_all(v, "i", 1, 0))(x)


@case("all_to_all_tiled", lambda rng: [f32(rng, (3, 6, 2))])
def all_to_all_tiled(x):
    return vm(lambda v: lax.all_to_all(v, "i", 0, 1, tiled=True))(x)


# ---- axis_index
@case("axis_index_scale", X34)
def axis_index_scale(x):
    return vm(lambda v: v * lax.axis_index("i"))(x)


@case("axis_index_two_names", lambda rng: [f32(rng, (2, 3))])
def axis_index_two_names(x):
    return vm(jax.vmap(lambda v: v + lax.axis_index(("i", "j")), axis_name="j"))(x)


@case("axis_index_unmapped", lambda rng: [f32(rng, (4,))])
def axis_index_unmapped(c):
    return jax.vmap(lambda c: c * lax.axis_index("i"), in_axes=None, axis_size=3, axis_name="i")(c)


# ---- derivatives (JAX has none for pmax/pmin)
@case("grad_psum", X34)
def grad_psum(x):
    return vm(jax.grad(lambda v: jnp.sum(jnp.sin(v) * lax.psum(v, "i"))))(x)


@case("grad_pmean_batch_norm", lambda rng: [f32(rng, (4, 3))])
def grad_pmean_batch_norm(x):
    def loss(v):
        m = lax.pmean(v, "i")
        return jnp.sum(((v - m) ** 2) * jnp.cos(v))

    return vm(jax.grad(loss))(x)


@case("grad_all_gather", X34)
def grad_all_gather(x):
    return vm(jax.grad(lambda v: jnp.sum(lax.all_gather(v, "i") ** 2 * jnp.arange(4.0))))(x)


@case("grad_psum_scatter", X332)
def grad_psum_scatter(x):
    return vm(jax.grad(lambda v: jnp.sum(jnp.tanh(lax.psum_scatter(v, "i", tiled=True)))))(x)


@case("grad_ppermute", X34)
def grad_ppermute(x):
    return vm(jax.grad(lambda v: jnp.sum(v * lax.ppermute(v, "i", [(0, 1), (1, 2), (2, 0)]))))(x)


@case("grad_all_to_all", X332)
def grad_all_to_all(x):
    # Tiled: JAX 0.10 transposes the untiled form with the wrong shape (Expected cotangent
    # type float32[3,2,1] but got float32[3,1,2]).
    return vm(jax.grad(lambda v: jnp.sum(jnp.sin(lax.all_to_all(v, "i", 0, 1, tiled=True)) * v[0, 0])))(x)


@case("grad_of_vmap_psum", X34)
def grad_of_vmap_psum(x):
    return jax.grad(lambda x: jnp.sum(vm(lambda v: jnp.exp(v) / lax.psum(jnp.exp(v), "i"))(x) ** 2))(x)


@case("jvp_all_gather", lambda rng: [f32(rng, (3, 4)), f32(rng, (3, 4))])
def jvp_all_gather(x, t):
    return vm(lambda v, t: jax.jvp(lambda v: lax.all_gather(v, "i") * v, (v,), (t,)))(x, t)


# ---- collectives inside loop bodies
@case("scan_psum", lambda rng: [f32(rng, (3, 5, 2))])
def scan_psum(x):
    def f(xs):
        def step(c, x):
            c = c + lax.psum(x * c, "i")
            return c, lax.pmax(c, "i")
        return lax.scan(step, jnp.ones(2), xs)
    return vm(f)(x)


@case("cond_psum", lambda rng: [f32(rng, (3, 4)), np.int32(1)])
def cond_psum(x, k):
    f = lambda v, k: lax.cond(k > 0, lambda v: v / lax.psum(v, "i"), lambda v: v - lax.pmean(v, "i"), v)
    return vm(f, in_axes=(0, None))(x, k)


@case("fori_all_gather", X34)
def fori_all_gather(x):
    def f(v):
        return lax.fori_loop(0, 3, lambda k, v: 0.5 * v + jnp.mean(lax.all_gather(v, "i"), axis=0), v)
    return vm(f)(x)


@case("while_pmax", lambda rng: [f32(rng, (3,))])
def while_pmax(x):
    def f(v):
        return lax.while_loop(lambda c: lax.pmax(c[0], "i") < 10.0, lambda c: (c[0] * 2.0 + 1.0, c[1] + 1), (v, 0))
    return vm(f)(x)


# ---- collectives traced under axis_env (jaxpr text only)
ENV = []


def env_case(name, axis_env, inputs):
    def deco(fn):
        ENV.append((name, fn, axis_env, inputs))
        return fn
    return deco


Z34 = [np.zeros((3, 4), np.float32)]
env_case("psum", [("i", 4)], Z34)(lambda v: lax.psum(v, "i"))
env_case("pmean", [("i", 2)], Z34)(lambda v: lax.pmean(v, "i"))
env_case("pmax_two", [("i", 2), ("j", 3)], Z34)(lambda v: lax.pmax(v, ("i", "j")))
env_case("pmin", [("i", 2)], Z34)(lambda v: lax.pmin(v, "i"))
env_case("psum_int", [("i", 2)], [np.zeros(3, np.int32)])(lambda v: lax.psum(v, "i"))
env_case("psum_bool", [("i", 2)], [np.zeros(3, bool)])(lambda v: lax.psum(v, "i"))
env_case("psum_const", [("i", 2)], Z34)(lambda v: lax.psum(2.0, "i") * v)
env_case("all_gather", [("i", 4)], Z34)(lambda v: lax.all_gather(v, "i"))
env_case("all_gather_tiled", [("i", 2)], Z34)(lambda v: lax.all_gather(v, "i", axis=1, tiled=True))
env_case("psum_scatter", [("i", 3)], [np.zeros((3, 2), np.float32)])(lambda v: lax.psum_scatter(v, "i"))
env_case("psum_scatter_tiled", [("i", 4)], [np.zeros(8, np.float32)])(lambda v: lax.psum_scatter(v, "i", tiled=True))
env_case("ppermute", [("i", 2)], Z34)(lambda v: lax.ppermute(v, "i", [(0, 1), (1, 0)]))
env_case("all_to_all", [("i", 2)], [np.zeros((2, 3), np.float32)])(lambda v: lax.all_to_all(v, "i", 0, 1))
env_case("all_to_all_split1", [("i", 2)], [np.zeros((3, 2), np.float32)])(lambda v: lax.all_to_all(v, "i", 1, 0))
env_case("all_to_all_tiled", [("i", 2)], [np.zeros((4, 3), np.float32)])(lambda v: lax.all_to_all(v, "i", 0, 1, tiled=True))
env_case("axis_index", [("i", 2)], [])(lambda: lax.axis_index("i"))
env_case("axis_index_two", [("i", 2), ("j", 3)], [])(lambda: lax.axis_index(("i", "j")))
env_case("axis_size", [("i", 2)], Z34)(lambda v: v * lax.axis_size("i"))


def _check_input(c, a):
    assert a.dtype != np.float64 and a.dtype != np.int64, (c["name"], a.dtype)


def run_case(c):
    r = gg.eval_case(c, _check_input)
    gg.write_case_dir(OUTDIR / c["name"], r)
    return r


def write_env():
    d = OUTDIR / "axis_env"
    d.mkdir()
    for name, fn, env, inputs in ENV:
        text = str(jax.make_jaxpr(fn, axis_env=env)(*[jnp.asarray(a) for a in inputs]))
        (d / f"{name}.txt").write_text(f"# axis_env={env} inputs={[gg.aval(a) for a in inputs]}\n{text}\n")


def write_manifest(results, partitionable):
    header = [
        "# oxla collective golden cases",
        "",
        "Generated by `scripts/gen_golden_collectives.py` (do not edit by hand; rerun the script).",
        "",
        f"- jax {jax.__version__}, jaxlib {gg._jaxlib_version()}, numpy {np.__version__}, backend CPU with "
        f"{jax.device_count()} host devices, x64 disabled",
        "- `<case>/in_<i>.npy` inputs, `<case>/out_<i>.npy` = `jax.tree_util.tree_leaves(fn(*inputs))[i]` computed",
        "  eagerly, `<case>/jaxpr.txt` = `str(jax.make_jaxpr(fn)(*inputs))`. Every case maps with",
        "  `jax.vmap(..., axis_name='i')` (`vm` in the source).",
        "- `axis_env/<name>.txt`: `jax.make_jaxpr(fn, axis_env=...)` of a collective outside any map; its",
        "  first line gives the axis environment and the input avals (zeros).",
        "- Inputs: helpers of scripts/gen_golden.py with `rng = np.random.default_rng(zlib.crc32(name))`.",
    ]
    gg.write_manifest_file(OUTDIR / "MANIFEST.md", header, results, ["inputs", "outputs"],
                           lambda c, r, ins, outs: [ins, outs], partitionable)


def main():
    gg.generate(OUTDIR, CASES, run_case, write_manifest, what="collective cases", after=write_env)


if __name__ == "__main__":
    main()
