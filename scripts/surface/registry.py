"""The registry of surface cases: `case(...)` registers a JAX function of arrays, and the
input helpers build its inputs from a seeded numpy generator.

A table (`scripts/surface/<table>.py`) imports `case` and the helpers, and registers its
cases with `@case(name, inputs)`. `scripts/gen_golden_surface.py` runs them.
"""

import zlib

import numpy as np

CASES = {}
_TABLE = [None]


def begin_table(name):
    """Cases registered from now on belong to table `name` (called by the generator)."""
    _TABLE[0] = name
    CASES.setdefault(name, [])


def case(name, inputs=lambda rng: [], x64=False, grad=True, vmap=True, prng=False, note=None):
    """Register fn as the surface case `name` of the current table.

    inputs: rng -> list of numpy arrays (rng = np.random.default_rng(seed_of(name))); the
            batch for vmap draws them again from three more seeds and stacks them.
    x64:    run inside `jax.enable_x64(True)` (f64/i64 inputs allowed).
    grad:   False when JAX does not differentiate the function (the Rust side then checks
            oxla does not either: no float input reaches a float output).
    vmap:   False when a batch of the inputs makes no sense (say so in `note`).
    prng:   outputs compared bit for bit (samplers).
    """

    def deco(fn):
        CASES[_TABLE[0]].append(
            dict(name=name, fn=fn, inputs=inputs, x64=x64, grad=grad, vmap=vmap, prng=prng, note=note)
        )
        return fn

    return deco


def seed_of(name, k=0):
    return (zlib.crc32(name.encode()) + k) & 0xFFFFFFFF


def f32(rng, shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def f64(rng, shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float64)


def i32(rng, shape, lo=-5, hi=6):
    """Integers uniformly in [lo, hi)."""
    return rng.integers(lo, hi, size=shape).astype(np.int32)


def u32(rng, shape):
    return rng.integers(0, 2**32, size=shape, dtype=np.uint64).astype(np.uint32)


def boolean(rng, shape):
    return rng.integers(0, 2, size=shape).astype(np.bool_)


def ties_f32(rng, shape, lo=-2, hi=3):
    """float32 holding small integers, so ties occur."""
    return rng.integers(lo, hi, size=shape).astype(np.float32)


def spd(rng, n, batch=(), dtype=np.float32):
    """Symmetric positive-definite matrices: a a^T + n I."""
    a = rng.uniform(-1, 1, size=(*batch, n, n))
    m = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
    return m.astype(dtype)


def key(rng):
    """Raw threefry key data, u32[2] (wrap with jax.random.wrap_key_data)."""
    return u32(rng, (2,))


def with_edges(a, edges=(np.nan, np.inf, -np.inf, 0.0, -0.0)):
    """`a` (float) with its first elements replaced by the edge values."""
    a = np.array(a)
    flat = a.reshape(-1)
    n = min(len(edges), flat.size)
    flat[:n] = np.array(edges[:n], dtype=a.dtype)
    return flat.reshape(a.shape)
