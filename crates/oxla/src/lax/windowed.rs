//! `reduce_window`: a reduction over sliding windows, for the monoids `add`, `max` and
//! `min` (JAX's `reduce_window_sum`, `_max`, `_min`), built from `pad`, strided `slice`s
//! and elementwise combination, so batching, differentiation and compilation come from
//! those primitives.

use std::panic::Location;

use crate::array::{Array, DType};
use crate::core::Tensor;
use crate::numpy::scalar_tensor;
use crate::ops::{self as lax, padtype_to_pads, Padding};
use crate::prims::conv::dilate_dim;
use crate::prims::view::for_each_index;

/// The monoid a [`reduce_window`] folds each window with (JAX's `computation` argument).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WindowReducer {
    /// `lax.add`: window sums.
    Add,
    /// `lax.max`: window maxima. The derivative goes to the window's first maximal element
    /// (as JAX's `select_and_gather_add` and `select_and_scatter_add`), and a NaN is the
    /// maximum.
    Max,
    /// `lax.min`: window minima, the derivative to the first minimal element.
    Min,
}

impl WindowReducer {
    /// The monoid's identity.
    fn identity(self) -> f64 {
        match self {
            WindowReducer::Add => 0.0,
            WindowReducer::Max => f64::NEG_INFINITY,
            WindowReducer::Min => f64::INFINITY,
        }
    }

    /// `acc` combined with the next element `x`: for max and min, a selection that keeps
    /// the earlier element on ties (so the derivative flows to one element) and a NaN once
    /// one is seen.
    fn combine(self, acc: &Tensor, x: &Tensor) -> Tensor {
        let better = match self {
            WindowReducer::Add => return lax::add(acc, x),
            WindowReducer::Max => lax::gt(x, acc),
            WindowReducer::Min => lax::lt(x, acc),
        };
        let take = if x.dtype().is_float() {
            let first_nan = lax::and(&lax::ne(x, x), &lax::eq(acc, acc));
            lax::or(&better, &first_nan)
        } else {
            better
        };
        lax::select_n(&take, &[acc.clone(), x.clone()])
    }
}

/// JAX's `lax.reduce_window`: `operand` reduced with `computation` over windows of
/// `window_dimensions` (one per dimension) stepping by `window_strides`, after `padding`
/// (a [`Padding`]: `"SAME"`, `"VALID"`, or `(low, high)` pairs, which may be negative) with
/// `init_value` and the operand's `base_dilation`; `window_dilation` spaces a window's
/// elements. Each result is `init_value` combined with its window (padding counting as
/// `init_value`): with the monoid's identity (0, -inf, +inf) it is the window's sum,
/// maximum or minimum.
///
/// # Panics
/// When a parameter's length is not the operand's rank, a stride or dilation is 0, or the
/// operand is not numeric.
#[allow(clippy::too_many_arguments)]
#[track_caller]
pub fn reduce_window(
    operand: &Tensor,
    init_value: f64,
    computation: WindowReducer,
    window_dimensions: &[usize],
    window_strides: &[usize],
    padding: impl Into<Padding>,
    base_dilation: Option<&[usize]>,
    window_dilation: Option<&[usize]>,
) -> Tensor {
    let _line = crate::core::user_line();
    let at = Location::caller();
    let rank = operand.ndim();
    let ones = vec![1; rank];
    let base = base_dilation.unwrap_or(&ones);
    let wdil = window_dilation.unwrap_or(&ones);
    for (what, v) in [
        ("window_dimensions", window_dimensions),
        ("window_strides", window_strides),
        ("base_dilation", base),
        ("window_dilation", wdil),
    ] {
        if v.len() != rank || (what != "window_dimensions" && v.contains(&0)) {
            panic!(
                "reduce_window: {what} {v:?} must hold {rank} {} for an operand of shape \
                 {:?}\n  at {at}",
                if what == "window_dimensions" {
                    "sizes"
                } else {
                    "positive integers"
                },
                operand.shape()
            );
        }
    }
    if !operand.dtype().is_numeric() {
        panic!(
            "reduce_window: the operand must be numeric, got {}\n  at {at}",
            operand.aval()
        );
    }
    let window: Vec<usize> = window_dimensions
        .iter()
        .zip(wdil)
        .map(|(&w, &d)| dilate_dim(w, d))
        .collect();
    let pads = padtype_to_pads(operand.shape(), &window, window_strides, &padding.into());
    if pads.len() != rank {
        panic!(
            "reduce_window: padding {pads:?} must hold {rank} pairs for an operand of shape \
             {:?}\n  at {at}",
            operand.shape()
        );
    }
    let dtype = operand.dtype();
    let init = scalar_tensor(init_value, dtype);
    let config: Vec<(i64, i64, i64)> = pads
        .iter()
        .zip(base)
        .map(|(&(lo, hi), &b)| (lo, hi, b as i64 - 1))
        .collect();
    let padded = lax::pad(operand, &init, &config);
    let out: Vec<usize> = (0..rank)
        .map(|d| {
            let p = padded.shape()[d];
            if p < window[d] {
                0
            } else {
                (p - window[d]) / window_strides[d] + 1
            }
        })
        .collect();
    if out.contains(&0) || window_dimensions.contains(&0) {
        return lax::broadcast_in_dim(&init, &out, &[]);
    }
    let mut acc: Option<Tensor> = None;
    for_each_index(window_dimensions, |k| {
        let start: Vec<usize> = (0..rank).map(|d| k[d] * wdil[d]).collect();
        let limit: Vec<usize> = (0..rank)
            .map(|d| start[d] + (out[d] - 1) * window_strides[d] + 1)
            .collect();
        let part = lax::slice(&padded, &start, &limit, Some(window_strides));
        acc = Some(match acc.take() {
            None => part,
            Some(a) => computation.combine(&a, &part),
        });
    });
    let acc = acc.expect("a window has elements");
    if is_identity(init_value, computation.identity(), dtype) {
        acc
    } else {
        computation.combine(&lax::broadcast_in_dim(&init, &out, &[]), &acc)
    }
}

/// Whether `v` is `identity` in `dtype` (so combining with it changes nothing).
fn is_identity(v: f64, identity: f64, dtype: DType) -> bool {
    Array::scalar_from_f64(v, dtype).to_f64_vec()
        == Array::scalar_from_f64(identity, dtype).to_f64_vec()
}
