#!/usr/bin/env python3
"""Generate the goldens of how arrays print: numpy's `str(a)` and JAX's `repr(a)`.

Usage (needs a Python env with `jax` and `numpy`):

    /work/jaxenv/bin/python scripts/gen_golden_print.py

Writes crates/oxla/tests/golden_print.txt, one block per case:

    @@ case <name>
    @@ dtype <numpy dtype name>
    @@ shape <dims...>
    @@ values <python reprs...>          (or: @@ arange <scale> <offset>, element i = i * scale + offset)
    @@ options <precision> <threshold> <edgeitems> <linewidth>   (only where not numpy's defaults)
    @@ str
    <numpy's str(a), any number of lines>
    @@ repr
    <JAX's repr(jnp.asarray(a)), any number of lines>
    @@ end

JAX runs with x64 enabled so that float64 arrays keep their dtype.
"""

import pathlib

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent.parent / "crates/oxla/tests/golden_print.txt"

rng = np.random.default_rng(17)
F32, F64, I32, U32, B = np.float32, np.float64, np.int32, np.uint32, np.bool_

# (name, array, options or None); arrays built from `arange` are stored as a formula.
CASES = []


def case(name, values, dtype, shape=None, options=None):
    a = np.asarray(values, dtype=dtype)
    if shape is not None:
        a = a.reshape(shape)
    CASES.append((name, a, None, options))


def arange(name, n, scale, offset, dtype, shape, options=None):
    a = (np.arange(n, dtype=np.float64) * scale + offset).astype(dtype).reshape(shape)
    CASES.append((name, a, (scale, offset), options))


inf, nan = float("inf"), float("nan")
# Scalars.
case("f32_scalar", 1.5, F32)
case("f32_tenth", 0.1, F32)
case("f32_million", 1e6, F32)
case("f32_large_digits", 123456789.0, F32)
case("f32_small", 1e-4, F32)
case("f32_neg_zero", -0.0, F32)
case("f32_nan", nan, F32)
case("f32_neg_inf", -inf, F32)
case("f64_small", 1e-5, F64)
case("f64_large", 123456789.0, F64)
case("f64_1e16", 1e16, F64)
case("f64_third", 1 / 3, F64)
case("i32_scalar", -7, I32)
case("u32_scalar", 4000000000, U32)
case("bool_scalar", True, B)
# One axis.
case("f32_whole", [1, 2, 3], F32)
case("f32_mixed", [1.5, 2, -3.25], F32)
case("f32_tenths", [0.1, 0.2, 0.3], F32)
case("f64_tenths", [0.1, 0.2, 0.3], F64)
case("f64_thirds", [1 / 3, 2 / 3, 1.0], F64)
case("f32_thirds", [1 / 3, 2 / 3, 1.0], F32)
case("f64_wide_range", [1e-5, 1.0], F64)
case("f64_huge", [1e10, 2e10], F64)
case("f32_above_1e8", [1.5e8, 2.0], F32)
case("f64_tiny_and_zero", [0.0, 1e-9], F64)
case("f64_ratio_over_1000", [0.5, 600.0], F64)
case("f64_exp_three_digits", [1e-100, 1.0, 2.5e200], F64)
case("f64_tie_at_precision", [0.001953125, 1.0], F64)
case("f64_round_at_precision", [0.123456789123, 1.0], F64)
case("f32_nonfinite", [nan, inf, -inf, 1.5], F32)
case("f32_only_nonfinite", [nan, inf], F32)
case("f32_nan_neg_inf", [nan, -inf], F32)
case("f64_nan_sci", [nan, 1e-7, 1.0], F64)
case("f32_zeros", [0.0, 0.0], F32)
case("i32_signed", [-1, 10, 300], I32)
case("u32_values", [0, 4000000000, 7], U32)
case("bool_mixed", [True, False], B)
case("bool_all_true", [True, True, True], B)
case("f32_empty", [], F32, (0,))
case("f32_empty_2x0", [], F32, (2, 0))
case("f64_random_100", rng.standard_normal(100), F64)
case("f32_random_40", rng.standard_normal(40), F32)
# Two and three axes.
arange("f32_3x4", 12, 1.0, 0.0, F32, (3, 4))
arange("f32_neg_2x3", 6, -1.0, 0.0, F32, (2, 3))
arange("i32_3x4", 12, 7.0, -40.0, I32, (3, 4))
case("f32_random_4x5", rng.standard_normal((4, 5)), F32)
case("bool_2x2", [[True, False], [False, True]], B)
arange("f64_wrapping_2x15", 30, 1 / 7, 0.0, F64, (2, 15))
arange("i32_2x3x4", 24, 1.0, 0.0, I32, (2, 3, 4))
arange("f32_2x3x4", 24, 0.5, -3.0, F32, (2, 3, 4))
arange("f32_1x1x1x2", 2, 1.0, 1.0, F32, (1, 1, 1, 2))
# Summarised.
arange("f32_arange_2000", 2000, 1.0, 0.0, F32, (2000,))
arange("i32_arange_1001", 1001, 1.0, 0.0, I32, (1001,))
arange("f32_100x100", 10000, 1 / 3, 0.0, F32, (100, 100))
arange("i32_20x20x20", 8000, 1.0, -4000.0, I32, (20, 20, 20))
arange("f64_1000x3", 3000, 0.25, 0.0, F64, (1000, 3))
arange("u32_5x400", 2000, 3.0, 0.0, U32, (5, 400))
# Print options.
case("precision_3", [1 / 3, 2 / 3, 1.0], F64, options=(3, 1000, 3, 75))
arange("threshold_10", 12, 1.0, 0.0, F32, (12,), options=(8, 10, 2, 75))
arange("edgeitems_1", 2000, 1.0, 0.0, I32, (2000,), options=(8, 1000, 1, 75))
arange("linewidth_30", 20, 1.5, 0.0, F32, (20,), options=(8, 1000, 3, 30))
arange("linewidth_30_2d", 12, 1.0, 0.0, F64, (3, 4), options=(8, 1000, 3, 30))


def main():
    blocks = []
    for name, a, formula, options in CASES:
        opts = options or (8, 1000, 3, 75)
        with np.printoptions(precision=opts[0], threshold=opts[1], edgeitems=opts[2], linewidth=opts[3]):
            s = str(a)
            r = repr(jnp.asarray(a))
        lines = [f"@@ case {name}", f"@@ dtype {a.dtype.name}", "@@ shape " + " ".join(map(str, a.shape))]
        if formula is not None:
            lines.append(f"@@ arange {formula[0]!r} {formula[1]!r}")
        else:
            lines.append("@@ values " + " ".join(repr(v.item()) for v in a.reshape(-1)))
        if options is not None:
            lines.append("@@ options " + " ".join(map(str, options)))
        lines += ["@@ str", s, "@@ repr", r, "@@ end"]
        blocks.append("\n".join(lines))
    OUT.write_text("\n".join(blocks) + "\n")
    print(f"wrote {len(CASES)} cases to {OUT}")


if __name__ == "__main__":
    main()
