"""`jax.numpy`: statistics, sorting, searching, cumulative and NaN-aware reductions. (the table `crates/oxla/tests/surface/numpy_stats.rs`)."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from registry import case, f32, i32, ties_f32, with_edges


def nan_rows(rng, shape=(3, 4)):
    """f32 with a few NaNs, and its last row all NaN."""
    a = f32(rng, shape)
    a[0, 1] = np.nan
    a[1, 0] = np.nan
    a[1, -1] = np.nan
    a[-1, :] = np.nan
    return a


# Statistics.


@case("var_axis1", lambda rng: [f32(rng, (3, 4))])
def _(x):
    return jnp.var(x, axis=1)


@case("var_ddof1_keepdims", lambda rng: [f32(rng, (3, 4))])
def _(x):
    return jnp.var(x, axis=0, ddof=1, keepdims=True)


@case("var_ddof_too_big", lambda rng: [f32(rng, (3, 2))])
def _(x):
    return jnp.var(x, axis=1, ddof=2), jnp.var(x, axis=1, ddof=3)


@case("var_int", lambda rng: [i32(rng, (3, 4))])
def _(x):
    return jnp.var(x), jnp.std(x, axis=0)


@case("std_neg_axis_ddof1", lambda rng: [f32(rng, (3, 4))])
def _(x):
    return jnp.std(x, axis=-1, ddof=1)


@case("std_axes", lambda rng: [f32(rng, (2, 3, 4))])
def _(x):
    return jnp.std(x, axis=(0, 2)), jnp.var(x, axis=(2, 0), keepdims=True)


@case("ptp_axis0", lambda rng: [f32(rng, (3, 4))])
def _(x):
    return jnp.ptp(x, axis=0), jnp.ptp(x, axis=-1, keepdims=True), jnp.ptp(x)


@case("ptp_int", lambda rng: [i32(rng, (3, 4))])
def _(x):
    return jnp.ptp(x, axis=1)


@case("average_weights_axis", lambda rng: [f32(rng, (3, 4)), f32(rng, (4,), 0.5, 2.0)])
def _(x, w):
    return jnp.average(x, axis=1, weights=w), jnp.average(x, axis=-1, weights=w, keepdims=True)


@case("average_weights_full", lambda rng: [f32(rng, (3, 4)), f32(rng, (3, 4), 0.5, 2.0)])
def _(x, w):
    return jnp.average(x, weights=w), jnp.average(x, axis=0, weights=w)


@case("average_plain", lambda rng: [f32(rng, (3, 4))])
def _(x):
    return jnp.average(x, axis=0), jnp.average(x)


@case("count_nonzero", lambda rng: [ties_f32(rng, (3, 5), -1, 2)])
def _(x):
    return jnp.count_nonzero(x), jnp.count_nonzero(x, axis=1), jnp.count_nonzero(x, axis=0, keepdims=True)


@case("count_nonzero_int", lambda rng: [i32(rng, (4, 3), -1, 2)])
def _(x):
    return jnp.count_nonzero(x, axis=-1)


@case("cov_rows", lambda rng: [f32(rng, (3, 5))])
def _(x):
    return jnp.cov(x)


@case("cov_y_columns_bias", lambda rng: [f32(rng, (5, 2)), f32(rng, (5, 1))])
def _(x, y):
    return jnp.cov(x, y, rowvar=False, bias=True)


@case("cov_one_var_ddof", lambda rng: [f32(rng, (6,))])
def _(x):
    return jnp.cov(x), jnp.cov(x, ddof=2)


@case("corrcoef_rows", lambda rng: [f32(rng, (3, 6))])
def _(x):
    return jnp.corrcoef(x)


@case("corrcoef_xy", lambda rng: [f32(rng, (6,)), f32(rng, (6,))])
def _(x, y):
    return jnp.corrcoef(x, y)


# Quantiles.


@case("quantile_linear", lambda rng: [f32(rng, (3, 5))])
def _(x):
    return jnp.quantile(x, 0.3, axis=1)


@case("quantile_vector_q_keepdims", lambda rng: [f32(rng, (4, 5))])
def _(x):
    return jnp.quantile(x, jnp.array([0.1, 0.5, 0.9, 1.0]), axis=0, keepdims=True)


@case("quantile_methods", lambda rng: [f32(rng, (2, 7))])
def _(x):
    return tuple(
        jnp.quantile(x, 0.4, axis=-1, method=m)
        for m in ("linear", "lower", "higher", "nearest", "midpoint")
    )


@case("quantile_nan", lambda rng: [with_edges(f32(rng, (2, 5)), (np.nan,))])
def _(x):
    return jnp.quantile(x, 0.5, axis=1), jnp.quantile(x, 0.2)


@case("quantile_axes", lambda rng: [f32(rng, (2, 3, 4))])
def _(x):
    return jnp.quantile(x, 0.25, axis=(0, 2)), jnp.quantile(x, 0.75, axis=(2, 0), keepdims=True)


@case("quantile_none_keepdims", lambda rng: [f32(rng, (3, 4))])
def _(x):
    return jnp.quantile(x, 0.6, keepdims=True)


@case("percentile_vector_q", lambda rng: [f32(rng, (3, 4))])
def _(x):
    return jnp.percentile(x, jnp.array([10.0, 50.0, 90.0]), axis=1)


@case("median_axis", lambda rng: [f32(rng, (3, 5))])
def _(x):
    return jnp.median(x, axis=1), jnp.median(x, axis=0), jnp.median(x)


@case("median_ties", lambda rng: [ties_f32(rng, (3, 4))])
def _(x):
    return jnp.median(x, axis=-1, keepdims=True)


@case("median_int", lambda rng: [i32(rng, (3, 4))])
def _(x):
    return jnp.median(x, axis=1)


@case("nanmedian", lambda rng: [nan_rows(rng, (3, 5))])
def _(x):
    return jnp.nanmedian(x, axis=1), jnp.nanmedian(x, axis=0, keepdims=True)


@case("nanquantile", lambda rng: [nan_rows(rng, (3, 5))])
def _(x):
    return jnp.nanquantile(x, jnp.array([0.0, 0.3, 1.0]), axis=1), jnp.nanquantile(x, 0.5, method="nearest")


@case("nanpercentile", lambda rng: [nan_rows(rng, (3, 5))])
def _(x):
    return jnp.nanpercentile(x, 40.0, axis=-1, method="lower")


# NaN-aware reductions.


@case("nansum_nanprod", lambda rng: [nan_rows(rng)])
def _(x):
    return jnp.nansum(x, axis=1), jnp.nanprod(x, axis=1), jnp.nansum(x), jnp.nanprod(x, axis=0, keepdims=True)


@case("nanmax_nanmin", lambda rng: [nan_rows(rng)])
def _(x):
    return jnp.nanmax(x, axis=1), jnp.nanmin(x, axis=1), jnp.nanmax(x), jnp.nanmin(x, axis=0, keepdims=True)


@case("nanmax_edges", lambda rng: [with_edges(f32(rng, (2, 4)), (np.inf, -np.inf, np.nan, 0.0))])
def _(x):
    return jnp.nanmax(x, axis=1), jnp.nanmin(x, axis=-1)


@case("nanmean_nanvar", lambda rng: [nan_rows(rng)])
def _(x):
    return jnp.nanmean(x, axis=1), jnp.nanvar(x, axis=1), jnp.nanstd(x, axis=0, ddof=1), jnp.nanmean(x)


@case("nanvar_ddof_keepdims", lambda rng: [nan_rows(rng, (3, 4))])
def _(x):
    return jnp.nanvar(x, axis=1, ddof=2, keepdims=True), jnp.nanstd(x, axis=-1, ddof=3)


@case("nan_reductions_int", lambda rng: [i32(rng, (3, 4))])
def _(x):
    return jnp.nansum(x, axis=1), jnp.nanmax(x, axis=0), jnp.nanmean(x), jnp.nanargmin(x, axis=1)


@case("nanargmax_nanargmin", lambda rng: [nan_rows(rng)])
def _(x):
    return jnp.nanargmax(x, axis=1), jnp.nanargmin(x, axis=-1), jnp.nanargmax(x), jnp.nanargmin(x, axis=0, keepdims=True)


@case("nancumsum_nancumprod", lambda rng: [nan_rows(rng)])
def _(x):
    return jnp.nancumsum(x, axis=1), jnp.nancumprod(x, axis=0), jnp.nancumsum(x)


# Cumulative functions and logaddexp.


@case("cumprod_axes", lambda rng: [f32(rng, (3, 4), 0.5, 1.5)])
def _(x):
    return jnp.cumprod(x, axis=0), jnp.cumprod(x, axis=-1), jnp.cumprod(x)


@case("cumprod_zeros", lambda rng: [with_edges(f32(rng, (5,)), (0.0,))])
def _(x):
    return jnp.cumprod(x)


@case("cumprod_int_bool", lambda rng: [i32(rng, (3, 4), -2, 3), (i32(rng, (5,), 0, 2) > 0)])
def _(x, b):
    return jnp.cumprod(x, axis=1), jnp.cumprod(b)


@case("cumulative_sum", lambda rng: [f32(rng, (3, 4)), i32(rng, (5,)).astype(np.int8)])
def _(x, k):
    return (
        jnp.cumulative_sum(x, axis=1),
        jnp.cumulative_sum(x, axis=0, include_initial=True),
        jnp.cumulative_sum(k),
        jnp.cumulative_sum(k, include_initial=True),
    )


@case("cumulative_prod", lambda rng: [f32(rng, (3, 4), 0.5, 1.5), i32(rng, (5,)).astype(np.int8)])
def _(x, k):
    return (
        jnp.cumulative_prod(x, axis=-1, include_initial=True),
        jnp.cumulative_prod(x, axis=0),
        jnp.cumulative_prod(k),
    )


@case("logaddexp", lambda rng: [f32(rng, (3, 4), -5, 5), f32(rng, (4,), -5, 5)])
def _(x, y):
    return jnp.logaddexp(x, y), jnp.logaddexp2(x, y), jnp.logaddexp(x, 1.0)


@case("logaddexp_int", lambda rng: [i32(rng, (4,)), i32(rng, (4,))])
def _(x, y):
    return jnp.logaddexp(x, y), jnp.logaddexp2(x, y)


# Sorting and searching.


def sorted_edges(rng):
    return np.array([-np.inf, -1.0, -0.0, 0.0, 2.0, 2.0, np.inf, np.nan], np.float32)


@case("argsort_edges", lambda rng: [with_edges(ties_f32(rng, (3, 5)), (np.nan, -0.0, 0.0, np.nan, np.inf))])
def _(x):
    return jnp.argsort(x), jnp.argsort(x, axis=0, descending=True), jnp.argsort(x, axis=None)


@case("argsort_int_descending", lambda rng: [i32(rng, (2, 7), -2, 3)])
def _(x):
    return jnp.argsort(x, axis=-1, descending=True), jnp.argsort(x, axis=0)


@case("lexsort", lambda rng: [i32(rng, (3, 6), 0, 3), i32(rng, (3, 6), 0, 2)])
def _(a, b):
    return jnp.lexsort((a, b)), jnp.lexsort((a, b), axis=0), jnp.lexsort([a])


@case("partition", lambda rng: [f32(rng, (3, 6))])
def _(x):
    return jnp.partition(x, 2), jnp.partition(x, -1, axis=0), jnp.partition(x, 0, axis=1)


@case("partition_unsigned", lambda rng: [i32(rng, (2, 5), 0, 4).astype(np.uint32)])
def _(x):
    return jnp.partition(x, 1), jnp.argpartition(x, 3)


@case("argpartition", lambda rng: [f32(rng, (3, 6))])
def _(x):
    return jnp.argpartition(x, 2), jnp.argpartition(x, -2, axis=0)


@case("searchsorted_edges", lambda rng: [sorted_edges(rng), with_edges(ties_f32(rng, (2, 4)), (np.nan, 0.0, -0.0, np.inf, -np.inf))])
def _(a, v):
    return jnp.searchsorted(a, v), jnp.searchsorted(a, v, side="right")


@case("searchsorted_int", lambda rng: [np.sort(i32(rng, (6,))), f32(rng, (5,), -6, 6)])
def _(a, v):
    return jnp.searchsorted(a, v), jnp.searchsorted(a, v, side="right"), jnp.searchsorted(a, 2)


@case("digitize", lambda rng: [f32(rng, (2, 5), -3, 3)])
def _(x):
    up = jnp.array([-2.0, -0.5, 0.0, 1.0, 2.5])
    down = up[::-1]
    return (
        jnp.digitize(x, up),
        jnp.digitize(x, up, right=True),
        jnp.digitize(x, down),
        jnp.digitize(jnp.floor(x), down, right=True),
    )


@case("bincount", lambda rng: [i32(rng, (8,), -1, 7), f32(rng, (8,))])
def _(x, w):
    return jnp.bincount(x, length=5), jnp.bincount(x, weights=w, length=6), jnp.bincount(x, length=0)


@case("nonzero", lambda rng: [ties_f32(rng, (3, 4), -1, 2)])
def _(x):
    return (
        jnp.nonzero(x, size=5),
        jnp.nonzero(x, size=12, fill_value=-1),
        jnp.flatnonzero(x, size=4),
        jnp.argwhere(x, size=6, fill_value=7),
        jnp.argwhere(x[0, 0], size=2),
    )


@case("isin", lambda rng: [i32(rng, (3, 4)), i32(rng, (5,))])
def _(e, t):
    return jnp.isin(e, t), jnp.isin(e, t, invert=True), jnp.isin(e, 2.0)


@case("isin_nan", lambda rng: [with_edges(ties_f32(rng, (2, 3)), (np.nan, np.inf, -0.0)), with_edges(ties_f32(rng, (4,)), (np.nan, 0.0, np.inf))])
def _(e, t):
    return jnp.isin(e, t)


@case("empty_axis", lambda rng: [f32(rng, (2, 0)), f32(rng, (3,))])
def _(z, v):
    return (
        jnp.var(z, axis=1),
        jnp.nanvar(z, axis=-1, ddof=1),
        jnp.nanmean(z, axis=1),
        jnp.average(z, axis=1),
        jnp.cov(z),
        jnp.argsort(z),
        jnp.searchsorted(z[0], v),
        jnp.nansum(z, axis=1),
    )
