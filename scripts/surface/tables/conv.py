"""`jax.lax` convolutions and windows, `jnp.convolve`/`correlate`. (the table `crates/oxla/tests/surface/conv.rs`)."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from registry import case, f32, f64, i32, ties_f32, with_edges


def _nchw(name, x, w, fn):
    case(name, lambda rng: [f32(rng, x), f32(rng, w)])(fn)


_nchw("conv_valid", (2, 3, 6, 6), (4, 3, 3, 3), lambda x, w: lax.conv(x, w, (1, 1), "VALID"))
_nchw("conv_same_strided", (2, 3, 7, 7), (4, 3, 3, 3), lambda x, w: lax.conv(x, w, (2, 2), "SAME"))
_nchw(
    "conv_same_lower",
    (1, 2, 7, 6),
    (3, 2, 2, 2),
    lambda x, w: lax.conv_general_dilated(x, w, (2, 3), "SAME_LOWER"),
)
_nchw(
    "conv_explicit_padding",
    (2, 2, 6, 5),
    (3, 2, 3, 2),
    lambda x, w: lax.conv_with_general_padding(x, w, (1, 2), ((1, 2), (0, 1)), None, None),
)
# Negative padding crops. XLA's CPU convolution reads out of bounds with it once batched
# (jax.vmap gives garbage), so JAX's side crops first: the same function, padding
# ((-1, 1), (0, -1)) on the Rust side.
_nchw(
    "conv_negative_padding",
    (1, 2, 6, 6),
    (2, 2, 3, 3),
    lambda x, w: lax.conv_with_general_padding(
        x[:, :, 1:, :-1], w, (1, 1), ((0, 1), (0, 0)), None, None
    ),
)
_nchw(
    "conv_lhs_dilation",
    (1, 2, 5, 4),
    (3, 2, 3, 3),
    lambda x, w: lax.conv_with_general_padding(x, w, (1, 1), ((2, 2), (1, 0)), (2, 3), None),
)
_nchw(
    "conv_rhs_dilation",
    (1, 2, 8, 7),
    (3, 2, 3, 2),
    lambda x, w: lax.conv_with_general_padding(x, w, (1, 2), "VALID", None, (2, 3)),
)
_nchw(
    "conv_all_dilations_strided",
    (2, 2, 6, 6),
    (2, 2, 2, 3),
    lambda x, w: lax.conv_general_dilated(x, w, (2, 1), ((1, 2), (2, 1)), (2, 1), (1, 2)),
)
_nchw(
    "conv_feature_groups",
    (2, 4, 5, 5),
    (6, 2, 3, 3),
    lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "SAME", feature_group_count=2),
)
_nchw(
    "conv_batch_groups",
    (4, 3, 5, 5),
    (4, 3, 3, 3),
    lambda x, w: lax.conv_general_dilated(x, w, (1, 1), "VALID", batch_group_count=2),
)
_nchw("conv_1d", (2, 3, 9), (4, 3, 3), lambda x, w: lax.conv(x, w, (2,), "SAME"))
_nchw("conv_3d", (1, 2, 4, 5, 4), (3, 2, 2, 3, 2), lambda x, w: lax.conv(x, w, (1, 2, 1), "VALID"))
_nchw(
    "conv_nhwc_hwio",
    (2, 6, 6, 3),
    (3, 3, 3, 4),
    lambda x, w: lax.conv_general_dilated(
        x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    ),
)
_nchw(
    "conv_depthwise_nhwc",
    (2, 5, 5, 3),
    (3, 3, 1, 6),
    lambda x, w: lax.conv_general_dilated(
        x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=3
    ),
)
_nchw(
    "conv_batch_groups_nhwc",
    (4, 5, 4, 2),
    (2, 2, 2, 6),
    lambda x, w: lax.conv_general_dilated(
        x, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC"), batch_group_count=2
    ),
)
_nchw(
    "conv_mixed_layouts",
    (5, 2, 6, 3),
    (3, 2, 3, 4),
    lambda x, w: lax.conv_general_dilated(
        x, w, (1, 2), ((1, 0), (0, 1)), dimension_numbers=("HNWC", "WHIO", "CNHW")
    ),
)
_nchw(
    "conv_transpose_same",
    (1, 4, 4, 2),
    (3, 3, 2, 3),
    lambda x, w: lax.conv_transpose(x, w, (2, 2), "SAME"),
)
_nchw(
    "conv_transpose_valid_kernel",
    (2, 3, 4, 2),
    (3, 2, 3, 2),
    lambda x, w: lax.conv_transpose(x, w, (2, 1), "VALID", transpose_kernel=True),
)
_nchw(
    "conv_transpose_explicit_nchw",
    (1, 2, 4, 5),
    (3, 2, 2, 3),
    lambda x, w: lax.conv_transpose(
        x, w, (1, 2), ((1, 1), (2, 0)), rhs_dilation=(2, 1), dimension_numbers=("NCHW", "OIHW", "NCHW")
    ),
)
_nchw("conv_transpose_1d", (2, 5, 3), (3, 3, 2), lambda x, w: lax.conv_transpose(x, w, (3,), "SAME"))


@case("conv_f64", lambda rng: [f64(rng, (2, 2, 5, 5)), f64(rng, (3, 2, 3, 3))], x64=True)
def _(x, w):
    return lax.conv_general_dilated(x, w, (2, 1), "SAME", rhs_dilation=(1, 2))


def _one_d(name, fn, n, m, mode):
    case(name, lambda rng: [f32(rng, (n,)), f32(rng, (m,))])(lambda a, v: fn(a, v, mode))


_one_d("convolve_full", jnp.convolve, 7, 3, "full")
_one_d("convolve_same", jnp.convolve, 7, 4, "same")
_one_d("convolve_valid", jnp.convolve, 6, 3, "valid")
_one_d("convolve_short_first", jnp.convolve, 3, 6, "same")
_one_d("correlate_valid", jnp.correlate, 7, 3, "valid")
_one_d("correlate_full", jnp.correlate, 5, 4, "full")
_one_d("correlate_same", jnp.correlate, 6, 3, "same")
_one_d("correlate_short_first", jnp.correlate, 3, 6, "full")


def _window(name, shape, init, comp, dims, strides, padding, base=None, wdil=None, inputs=f32, **kw):
    def fn(x):
        return lax.reduce_window(x, init, comp, dims, strides, padding, base, wdil)

    case(name, lambda rng: [inputs(rng, shape)], **kw)(fn)


_window("reduce_window_max_pool", (2, 6, 6, 3), -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
_window("reduce_window_max_same", (5, 7), -jnp.inf, lax.max, (3, 3), (2, 2), "SAME")
_window(
    "reduce_window_max_padded_dilated",
    (6, 5),
    -jnp.inf,
    lax.max,
    (2, 2),
    (1, 2),
    ((1, 0), (1, 1)),
    (2, 1),
)
_window("reduce_window_min_padding", (5, 6), jnp.inf, lax.min, (2, 3), (1, 2), ((1, 0), (2, 1)))
_window("reduce_window_min_same_1d", (9,), jnp.inf, lax.min, (3,), (2,), "SAME")
_window("reduce_window_sum_pool", (2, 3, 6, 6), 0.0, lax.add, (1, 1, 3, 3), (1, 1, 2, 2), "SAME")
_window(
    "reduce_window_sum_dilations",
    (4, 5),
    0.0,
    lax.add,
    (2, 2),
    (1, 1),
    ((1, 1), (0, 0)),
    (2, 1),
    (1, 2),
)
_window("reduce_window_sum_3d", (4, 3, 5), 0.0, lax.add, (2, 2, 3), (2, 1, 2), "VALID")
_window("reduce_window_sum_negative_padding", (6, 5), 0.0, lax.add, (2, 2), (2, 1), ((-1, 1), (0, -1)))
# Ties: the derivative goes to each window's first maximum (JAX's select_and_scatter_add);
# finite differences do not apply at a tie.
_window("reduce_window_max_ties", (6, 6), -jnp.inf, lax.max, (3, 3), (1, 1), "SAME", inputs=ties_f32)
_window("reduce_window_min_ties", (7,), jnp.inf, lax.min, (3,), (2,), "VALID", inputs=ties_f32)
_window(
    "reduce_window_max_int",
    (5, 5),
    np.iinfo(np.int32).min,
    lax.max,
    (2, 2),
    (1, 2),
    "SAME",
    inputs=i32,
    grad=False,
)
