//! `jax.lax` convolutions and windows, `jnp.convolve`/`correlate`. One row a golden case of `scripts/surface/tables/conv.py`.
//!
//! - `conv_negative_padding`: XLA's CPU convolution reads out of bounds with negative
//!   padding once batched (JAX's `vmap` of it gives garbage), so the JAX side of the case
//!   crops the input first; the Rust side pads negatively. Same function, same goldens.
//! - `reduce_window` is built from `pad`, strided `slice`s and `add`/`select_n`, not from
//!   JAX's primitives `reduce_window_{sum,max,min}` and `select_and_{gather,scatter}_add`:
//!   the values and derivatives are JAX's (a max or min window's derivative goes to its
//!   first extremal element), the jaxpr is not. Unlike JAX it also differentiates a
//!   reduction whose `init_value` is not the monoid's identity, and windows with dilation.
//! - `nofd`: at a tie, max and min have no derivative for finite differences to find.

use oxla::lax::{self, ConvLayout, WindowReducer};
use oxla::numpy as jnp;

const NEG: f64 = f64::NEG_INFINITY;
const POS: f64 = f64::INFINITY;
const NHWC: (&str, &str, &str) = ("NHWC", "HWIO", "NHWC");

surface! {
    conv_valid: |a| vec![lax::conv(&a[0], &a[1], &[1, 1], "VALID")];
    conv_same_strided: |a| vec![lax::conv(&a[0], &a[1], &[2, 2], "SAME")];
    conv_same_lower: |a| vec![lax::conv_general_dilated(
        &a[0], &a[1], &[2, 3], "SAME_LOWER", None, None, ConvLayout::Default, 1, 1, None,
    )];
    conv_explicit_padding: |a| vec![lax::conv_with_general_padding(
        &a[0], &a[1], &[1, 2], [(1, 2), (0, 1)], None, None,
    )];
    conv_negative_padding: |a| vec![lax::conv_with_general_padding(
        &a[0], &a[1], &[1, 1], [(-1, 1), (0, -1)], None, None,
    )];
    conv_lhs_dilation: |a| vec![lax::conv_with_general_padding(
        &a[0], &a[1], &[1, 1], [(2, 2), (1, 0)], Some(&[2, 3]), None,
    )];
    conv_rhs_dilation: |a| vec![lax::conv_with_general_padding(
        &a[0], &a[1], &[1, 2], "VALID", None, Some(&[2, 3]),
    )];
    conv_all_dilations_strided: |a| vec![lax::conv_general_dilated(
        &a[0], &a[1], &[2, 1], [(1, 2), (2, 1)], Some(&[2, 1]), Some(&[1, 2]),
        ConvLayout::Default, 1, 1, None,
    )];
    conv_feature_groups: |a| vec![lax::conv_general_dilated(
        &a[0], &a[1], &[1, 1], "SAME", None, None, ConvLayout::Default, 2, 1, None,
    )];
    conv_batch_groups: |a| vec![lax::conv_general_dilated(
        &a[0], &a[1], &[1, 1], "VALID", None, None, ConvLayout::Default, 1, 2, None,
    )];
    conv_1d: |a| vec![lax::conv(&a[0], &a[1], &[2], "SAME")];
    conv_3d: |a| vec![lax::conv(&a[0], &a[1], &[1, 2, 1], "VALID")];
    conv_nhwc_hwio: |a| vec![lax::conv_general_dilated(
        &a[0], &a[1], &[1, 1], "SAME", None, None, NHWC, 1, 1, None,
    )];
    conv_depthwise_nhwc: |a| vec![lax::conv_general_dilated(
        &a[0], &a[1], &[2, 2], "SAME", None, None, NHWC, 3, 1, None,
    )];
    conv_batch_groups_nhwc: |a| vec![lax::conv_general_dilated(
        &a[0], &a[1], &[1, 1], "VALID", None, None, NHWC, 1, 2, None,
    )];
    conv_mixed_layouts: |a| vec![lax::conv_general_dilated(
        &a[0], &a[1], &[1, 2], [(1, 0), (0, 1)], None, None, ("HNWC", "WHIO", "CNHW"), 1, 1,
        None,
    )];
    conv_transpose_same: |a| vec![lax::conv_transpose(
        &a[0], &a[1], &[2, 2], "SAME", None, ConvLayout::Default, false,
    )];
    conv_transpose_valid_kernel: |a| vec![lax::conv_transpose(
        &a[0], &a[1], &[2, 1], "VALID", None, ConvLayout::Default, true,
    )];
    conv_transpose_explicit_nchw: |a| vec![lax::conv_transpose(
        &a[0], &a[1], &[1, 2], [(1, 1), (2, 0)], Some(&[2, 1]), ("NCHW", "OIHW", "NCHW"), false,
    )];
    conv_transpose_1d: |a| vec![lax::conv_transpose(
        &a[0], &a[1], &[3], "SAME", None, ConvLayout::Default, false,
    )];
    conv_f64: |a| vec![lax::conv_general_dilated(
        &a[0], &a[1], &[2, 1], "SAME", None, Some(&[1, 2]), ConvLayout::Default, 1, 1, None,
    )];
    convolve_full: |a| vec![jnp::convolve(&a[0], &a[1], "full")];
    convolve_same: |a| vec![jnp::convolve(&a[0], &a[1], "same")];
    convolve_valid: |a| vec![jnp::convolve(&a[0], &a[1], "valid")];
    convolve_short_first: |a| vec![jnp::convolve(&a[0], &a[1], "same")];
    correlate_valid: |a| vec![jnp::correlate(&a[0], &a[1], "valid")];
    correlate_full: |a| vec![jnp::correlate(&a[0], &a[1], "full")];
    correlate_same: |a| vec![jnp::correlate(&a[0], &a[1], "same")];
    correlate_short_first: |a| vec![jnp::correlate(&a[0], &a[1], "full")];
    reduce_window_max_pool: |a| vec![lax::reduce_window(
        &a[0], NEG, WindowReducer::Max, &[1, 2, 2, 1], &[1, 2, 2, 1], "VALID", None, None,
    )];
    reduce_window_max_same: |a| vec![lax::reduce_window(
        &a[0], NEG, WindowReducer::Max, &[3, 3], &[2, 2], "SAME", None, None,
    )];
    reduce_window_max_padded_dilated: |a| vec![lax::reduce_window(
        &a[0], NEG, WindowReducer::Max, &[2, 2], &[1, 2], [(1, 0), (1, 1)], Some(&[2, 1]), None,
    )];
    reduce_window_min_padding: |a| vec![lax::reduce_window(
        &a[0], POS, WindowReducer::Min, &[2, 3], &[1, 2], [(1, 0), (2, 1)], None, None,
    )];
    reduce_window_min_same_1d: |a| vec![lax::reduce_window(
        &a[0], POS, WindowReducer::Min, &[3], &[2], "SAME", None, None,
    )];
    reduce_window_sum_pool: |a| vec![lax::reduce_window(
        &a[0], 0.0, WindowReducer::Add, &[1, 1, 3, 3], &[1, 1, 2, 2], "SAME", None, None,
    )];
    reduce_window_sum_dilations: |a| vec![lax::reduce_window(
        &a[0], 0.0, WindowReducer::Add, &[2, 2], &[1, 1], [(1, 1), (0, 0)], Some(&[2, 1]),
        Some(&[1, 2]),
    )];
    reduce_window_sum_3d: |a| vec![lax::reduce_window(
        &a[0], 0.0, WindowReducer::Add, &[2, 2, 3], &[2, 1, 2], "VALID", None, None,
    )];
    reduce_window_sum_negative_padding: |a| vec![lax::reduce_window(
        &a[0], 0.0, WindowReducer::Add, &[2, 2], &[2, 1], [(-1, 1), (0, -1)], None, None,
    )];
    reduce_window_max_ties [nofd]: |a| vec![lax::reduce_window(
        &a[0], NEG, WindowReducer::Max, &[3, 3], &[1, 1], "SAME", None, None,
    )];
    reduce_window_min_ties [nofd]: |a| vec![lax::reduce_window(
        &a[0], POS, WindowReducer::Min, &[3], &[2], "VALID", None, None,
    )];
    reduce_window_max_int [nograd]: |a| vec![lax::reduce_window(
        &a[0], i32::MIN as f64, WindowReducer::Max, &[2, 2], &[1, 2], "SAME", None, None,
    )];
}
