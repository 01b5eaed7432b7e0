#!/usr/bin/env python3
"""Generate JAX's dtype goldens for oxla: type promotion and a few ops per dtype.

Usage (from anywhere; needs a Python env with `jax` and `numpy`):

    /work/jaxenv/bin/python scripts/gen_golden_dtypes.py

Writes (relative to the repo root):

    tests/golden_dtypes/promotion.txt  one line per case:
        <x64> <lhs> <rhs> <result>
      where <x64> is `x32` or `x64` (jax_enable_x64 off / on), <lhs> is a dtype name,
      <rhs> a dtype name or `py_int`/`py_float`/`py_bool` for a Python scalar (weakly typed),
      and <result> is `jnp.promote_types(lhs, rhs)` for two dtypes, or the dtype of
      `jnp.ones(3, lhs) + scalar` for a Python scalar.
    tests/golden_dtypes/ops.txt  one line per case: `<name> <dtype> <values...>`, the
      results of a few ops per dtype (add, mul, sum, astype round trips, integer
      wraparound, uint8 image arithmetic), values printed exactly (floats as repr of
      float64, which holds every f16/bf16/f32 value exactly).
"""

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import warnings
from pathlib import Path

import numpy as np

import jax
import jax.numpy as jnp

warnings.simplefilter("ignore")

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tests" / "golden_dtypes"

DTYPES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64",
]
SCALARS = {"py_bool": True, "py_int": 2, "py_float": 2.5}


def promotion_lines():
    lines = []
    for x64 in (False, True):
        tag = "x64" if x64 else "x32"
        with jax.enable_x64(x64):
            for a in DTYPES:
                for b in DTYPES:
                    lines.append(f"{tag} {a} {b} {jnp.promote_types(a, b).name}")
            for a in DTYPES:
                for name, s in SCALARS.items():
                    got = (jnp.ones(3, a) + s).dtype
                    lines.append(f"{tag} {a} {name} {got.name}")
    return lines


def fmt(x):
    x = np.asarray(x)
    if x.dtype == np.bool_:
        vals = ["1" if v else "0" for v in x.ravel()]
    elif np.issubdtype(x.dtype, np.integer):
        vals = [str(int(v)) for v in x.ravel()]
    else:
        vals = [repr(float(v)) for v in x.astype(np.float64).ravel()]
    return " ".join(vals)


def op_lines():
    """Eager ops with x64 on, so that every dtype is what it says."""
    lines = []

    def emit(name, y):
        lines.append(f"{name} {y.dtype.name} {fmt(y)}")

    with jax.enable_x64(True):
        ints = np.array([-3, -1, 0, 1, 2, 5, 100, 127], np.int64)
        for d in ["int8", "int16", "int32", "int64"]:
            x = jnp.asarray(ints, d)
            emit(f"add_{d}", x + x)
            emit(f"mul_{d}", x * x)
            emit(f"sum_{d}", jnp.sum(x, dtype=d))
            emit(f"max_{d}", jnp.max(x))
            emit(f"lt_{d}", x < jnp.asarray(1, d))
            emit(f"div_{d}", lax.div(x, jnp.asarray(2, d)))
        # Wraparound at each width.
        emit("wrap_int8", jnp.asarray([127, -128, 100], "int8") + jnp.asarray([1, -1, 100], "int8"))
        emit("wrap_int16", jnp.asarray([32767, -32768], "int16") + jnp.asarray([1, -1], "int16"))
        emit("wrap_int64", jnp.asarray([2**63 - 1], "int64") + jnp.asarray([1], "int64"))
        emit("wrap_uint8", jnp.asarray([250, 0, 16], "uint8") + jnp.asarray([10, 0, 16], "uint8"))
        emit("wrap_uint8_sub", jnp.asarray([3], "uint8") - jnp.asarray([5], "uint8"))
        emit("wrap_uint8_mul", jnp.asarray([16, 200], "uint8") * jnp.asarray([16, 2], "uint8"))
        emit("wrap_uint16", jnp.asarray([65535], "uint16") + jnp.asarray([2], "uint16"))
        emit("wrap_uint64", jnp.asarray([0], "uint64") - jnp.asarray([1], "uint64"))
        # uint8 image-like arithmetic: brighten (wraps), average via float, clip.
        img = jnp.asarray([[0, 64, 128], [192, 250, 255]], "uint8")
        emit("img_brighten_u8", img + jnp.asarray(10, "uint8"))
        emit("img_mean_f32", (img.astype("float32") / 255.0).mean(axis=1))
        emit("img_clip_u8", jnp.clip(img.astype("int32") + 10, 0, 255).astype("uint8"))
        emit("img_sum_u8", jnp.sum(img, dtype="uint8"))
        emit("img_max_u8", jnp.max(img, axis=0))
        # Float rounding through half types.
        f = np.array([0.1, 1.0 / 3.0, 1000.7, 65504.0, 70000.0, 1e-8, -2.5, 3.14159265],
                     np.float32)
        for d in ["float16", "bfloat16"]:
            x = jnp.asarray(f).astype(d)
            emit(f"astype_f32_{d}", x)
            emit(f"astype_{d}_f32", x.astype("float32"))
            emit(f"add_{d}", x + x)
            emit(f"mul_{d}", x * jnp.asarray(1.1, d))
            emit(f"sum_{d}", jnp.sum(x[:4]))
            emit(f"exp_{d}", jnp.exp(jnp.asarray([0.5, -1.0, 2.0], d)))
            a = jnp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3) * 0.37, d)
            b = jnp.asarray(np.arange(12, dtype=np.float32).reshape(3, 4) * 0.21, d)
            emit(f"dot_{d}", a @ b)
        emit("astype_f64_f16", jnp.asarray([0.1, 65519.0, 65520.0, 1e-9], "float64").astype("float16"))
        emit("astype_f32_i8", jnp.asarray([1.7, -1.7, 127.0, -128.0], "float32").astype("int8"))
        emit("astype_i32_u8", jnp.asarray([-1, 256, 300, 255], "int32").astype("uint8"))
        emit("astype_i64_i32", jnp.asarray([2**40 + 5, -(2**33) - 1], "int64").astype("int32"))
        emit("astype_u8_f16", jnp.asarray([0, 255, 128], "uint8").astype("float16"))
        ai = jnp.asarray(np.arange(6).reshape(2, 3), "int8")
        bi = jnp.asarray(np.arange(12).reshape(3, 4) * 7, "int8")
        emit("dot_int8", ai @ bi)
        emit("dot_uint8", ai.astype("uint8") @ bi.astype("uint8"))
    return lines


from jax import lax  # noqa: E402


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "promotion.txt").write_text("\n".join(promotion_lines()) + "\n")
    (OUT / "ops.txt").write_text("\n".join(op_lines()) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
