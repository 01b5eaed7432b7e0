//! `jax.numpy`: statistics, sorting, searching, cumulative and NaN-aware reductions. One row a golden case of `scripts/surface/tables/numpy_stats.py`.
//!
//! `nofd` rows: finite differences do not apply where the function has a kink at the
//! inputs (ties between order statistics), or where an output is infinite or NaN (the
//! NaN-aware functions over all-NaN rows): JAX's cotangents are still compared.
//!
//! Deviations from JAX: `logaddexp` and `logaddexp2` are compositions, not JAX's custom-JVP
//! functions, so their derivatives agree with JAX's only where both operands are finite (no
//! row differentiates them at infinities).

use oxla::numpy as jnp;
use oxla::numpy::keepdims;
use oxla::Tensor;

fn q(v: &[f32]) -> Tensor {
    jnp::array(v, &[v.len()])
}

surface! {
    var_axis1: |a| vec![jnp::var(&a[0], 1, 0)];
    var_ddof1_keepdims: |a| vec![jnp::var(&a[0], keepdims(0), 1)];
    var_ddof_too_big: |a| vec![jnp::var(&a[0], 1, 2), jnp::var(&a[0], 1, 3)];
    var_int: |a| vec![jnp::var(&a[0], None, 0), jnp::std(&a[0], 0, 0)];
    std_neg_axis_ddof1: |a| vec![jnp::std(&a[0], -1, 1)];
    std_axes: |a| vec![jnp::std(&a[0], (0, 2), 0), jnp::var(&a[0], keepdims((2, 0)), 0)];
    ptp_axis0: |a| vec![jnp::ptp(&a[0], 0), jnp::ptp(&a[0], keepdims(-1)), jnp::ptp(&a[0], None)];
    ptp_int: |a| vec![jnp::ptp(&a[0], 1)];
    average_weights_axis: |a| vec![
        jnp::average(&a[0], 1, Some(&a[1])),
        jnp::average(&a[0], keepdims(-1), Some(&a[1])),
    ];
    average_weights_full: |a| vec![
        jnp::average(&a[0], None, Some(&a[1])),
        jnp::average(&a[0], 0, Some(&a[1])),
    ];
    average_plain: |a| vec![jnp::average(&a[0], 0, None), jnp::average(&a[0], None, None)];
    count_nonzero: |a| vec![
        jnp::count_nonzero(&a[0], None),
        jnp::count_nonzero(&a[0], 1),
        jnp::count_nonzero(&a[0], keepdims(0)),
    ];
    count_nonzero_int: |a| vec![jnp::count_nonzero(&a[0], -1)];
    cov_rows: |a| vec![jnp::cov(&a[0], None, true, false, None)];
    cov_y_columns_bias: |a| vec![jnp::cov(&a[0], Some(&a[1]), false, true, None)];
    cov_one_var_ddof: |a| vec![
        jnp::cov(&a[0], None, true, false, None),
        jnp::cov(&a[0], None, true, false, Some(2)),
    ];
    corrcoef_rows: |a| vec![jnp::corrcoef(&a[0], None, true)];
    corrcoef_xy: |a| vec![jnp::corrcoef(&a[0], Some(&a[1]), true)];
    quantile_linear: |a| vec![jnp::quantile(&a[0], 0.3, 1, "linear")];
    quantile_vector_q_keepdims: |a| vec![
        jnp::quantile(&a[0], q(&[0.1, 0.5, 0.9, 1.0]), keepdims(0), "linear"),
    ];
    quantile_methods: |a| ["linear", "lower", "higher", "nearest", "midpoint"]
        .iter()
        .map(|m| jnp::quantile(&a[0], 0.4, -1, m))
        .collect();
    quantile_nan [nofd]: |a| vec![jnp::quantile(&a[0], 0.5, 1, "linear"), jnp::quantile(&a[0], 0.2, None, "linear")];
    quantile_axes: |a| vec![
        jnp::quantile(&a[0], 0.25, (0, 2), "linear"),
        jnp::quantile(&a[0], 0.75, keepdims((2, 0)), "linear"),
    ];
    quantile_none_keepdims: |a| vec![jnp::quantile(&a[0], 0.6, keepdims(None), "linear")];
    percentile_vector_q: |a| vec![jnp::percentile(&a[0], q(&[10.0, 50.0, 90.0]), 1, "linear")];
    median_axis: |a| vec![jnp::median(&a[0], 1), jnp::median(&a[0], 0), jnp::median(&a[0], None)];
    median_ties [nofd]: |a| vec![jnp::median(&a[0], keepdims(-1))];
    median_int: |a| vec![jnp::median(&a[0], 1)];
    nanmedian [nofd]: |a| vec![jnp::nanmedian(&a[0], 1), jnp::nanmedian(&a[0], keepdims(0))];
    nanquantile [nofd]: |a| vec![
        jnp::nanquantile(&a[0], q(&[0.0, 0.3, 1.0]), 1, "linear"),
        jnp::nanquantile(&a[0], 0.5, None, "nearest"),
    ];
    nanpercentile [nofd]: |a| vec![jnp::nanpercentile(&a[0], 40.0, -1, "lower")];
    nansum_nanprod [nofd]: |a| vec![
        jnp::nansum(&a[0], 1),
        jnp::nanprod(&a[0], 1),
        jnp::nansum(&a[0], None),
        jnp::nanprod(&a[0], keepdims(0)),
    ];
    nanmax_nanmin [nofd]: |a| vec![
        jnp::nanmax(&a[0], 1),
        jnp::nanmin(&a[0], 1),
        jnp::nanmax(&a[0], None),
        jnp::nanmin(&a[0], keepdims(0)),
    ];
    nanmax_edges [nofd]: |a| vec![jnp::nanmax(&a[0], 1), jnp::nanmin(&a[0], -1)];
    nanmean_nanvar [nofd]: |a| vec![
        jnp::nanmean(&a[0], 1),
        jnp::nanvar(&a[0], 1, 0),
        jnp::nanstd(&a[0], 0, 1),
        jnp::nanmean(&a[0], None),
    ];
    nanvar_ddof_keepdims [nofd]: |a| vec![jnp::nanvar(&a[0], keepdims(1), 2), jnp::nanstd(&a[0], -1, 3)];
    nan_reductions_int: |a| vec![
        jnp::nansum(&a[0], 1),
        jnp::nanmax(&a[0], 0),
        jnp::nanmean(&a[0], None),
        jnp::nanargmin(&a[0], 1),
    ];
    nanargmax_nanargmin: |a| vec![
        jnp::nanargmax(&a[0], 1),
        jnp::nanargmin(&a[0], -1),
        jnp::nanargmax(&a[0], None),
        jnp::nanargmin(&a[0], keepdims(0)),
    ];
    nancumsum_nancumprod [nofd]: |a| vec![
        jnp::nancumsum(&a[0], 1),
        jnp::nancumprod(&a[0], 0),
        jnp::nancumsum(&a[0], None),
    ];
    cumprod_axes: |a| vec![jnp::cumprod(&a[0], 0), jnp::cumprod(&a[0], -1), jnp::cumprod(&a[0], None)];
    cumprod_zeros: |a| vec![jnp::cumprod(&a[0], None)];
    cumprod_int_bool: |a| vec![jnp::cumprod(&a[0], 1), jnp::cumprod(&a[1], None)];
    cumulative_sum: |a| vec![
        jnp::cumulative_sum(&a[0], 1, false),
        jnp::cumulative_sum(&a[0], 0, true),
        jnp::cumulative_sum(&a[1], None, false),
        jnp::cumulative_sum(&a[1], None, true),
    ];
    cumulative_prod: |a| vec![
        jnp::cumulative_prod(&a[0], -1, true),
        jnp::cumulative_prod(&a[0], 0, false),
        jnp::cumulative_prod(&a[1], None, false),
    ];
    logaddexp: |a| vec![
        jnp::logaddexp(&a[0], &a[1]),
        jnp::logaddexp2(&a[0], &a[1]),
        jnp::logaddexp(&a[0], 1.0),
    ];
    logaddexp_int: |a| vec![jnp::logaddexp(&a[0], &a[1]), jnp::logaddexp2(&a[0], &a[1])];
    argsort_edges: |a| vec![
        jnp::argsort(&a[0], -1, false),
        jnp::argsort(&a[0], 0, true),
        jnp::argsort(&a[0], None, false),
    ];
    argsort_int_descending: |a| vec![jnp::argsort(&a[0], -1, true), jnp::argsort(&a[0], 0, false)];
    lexsort: |a| vec![
        jnp::lexsort(&a[..2], -1),
        jnp::lexsort(&a[..2], 0),
        jnp::lexsort(&a[..1], -1),
    ];
    partition: |a| vec![
        jnp::partition(&a[0], 2, -1),
        jnp::partition(&a[0], -1, 0),
        jnp::partition(&a[0], 0, 1),
    ];
    partition_unsigned: |a| vec![jnp::partition(&a[0], 1, -1), jnp::argpartition(&a[0], 3, -1)];
    argpartition: |a| vec![jnp::argpartition(&a[0], 2, -1), jnp::argpartition(&a[0], -2, 0)];
    searchsorted_edges: |a| vec![
        jnp::searchsorted(&a[0], &a[1], "left"),
        jnp::searchsorted(&a[0], &a[1], "right"),
    ];
    searchsorted_int: |a| vec![
        jnp::searchsorted(&a[0], &a[1], "left"),
        jnp::searchsorted(&a[0], &a[1], "right"),
        jnp::searchsorted(&a[0], 2, "left"),
    ];
    digitize: |a| {
        let up = q(&[-2.0, -0.5, 0.0, 1.0, 2.5]);
        let down = q(&[2.5, 1.0, 0.0, -0.5, -2.0]);
        vec![
            jnp::digitize(&a[0], &up, false),
            jnp::digitize(&a[0], &up, true),
            jnp::digitize(&a[0], &down, false),
            jnp::digitize(jnp::floor(&a[0]), &down, true),
        ]
    };
    bincount: |a| vec![
        jnp::bincount(&a[0], None, 5),
        jnp::bincount(&a[0], Some(&a[1]), 6),
        jnp::bincount(&a[0], None, 0),
    ];
    nonzero: |a| {
        let mut out = jnp::nonzero(&a[0], 5, None);
        out.extend(jnp::nonzero(&a[0], 12, Some(-1)));
        out.push(jnp::flatnonzero(&a[0], 4, None));
        out.push(jnp::argwhere(&a[0], 6, Some(7)));
        out.push(jnp::argwhere(a[0].index((0, 0)), 2, None));
        out
    };
    isin: |a| vec![
        jnp::isin(&a[0], &a[1], false),
        jnp::isin(&a[0], &a[1], true),
        jnp::isin(&a[0], 2.0, false),
    ];
    isin_nan: |a| vec![jnp::isin(&a[0], &a[1], false)];
    empty_axis [nofd]: |a| vec![
        jnp::var(&a[0], 1, 0),
        jnp::nanvar(&a[0], -1, 1),
        jnp::nanmean(&a[0], 1),
        jnp::average(&a[0], 1, None),
        jnp::cov(&a[0], None, true, false, None),
        jnp::argsort(&a[0], -1, false),
        jnp::searchsorted(a[0].index(0), &a[1], "left"),
        jnp::nansum(&a[0], 1),
    ];
}
