//! Order statistics: `quantile`, `percentile`, `median` and their NaN-ignoring forms, as
//! `jax.numpy` computes them: a sort along the axis, then the two neighbouring order
//! statistics of `q * (n - 1)` gathered and combined by `method` (`"linear"`, `"lower"`,
//! `"higher"`, `"nearest"`, `"midpoint"`). Derivatives flow through the sort and the gather,
//! as JAX's.

use super::{astype, inexact, isnan, where_, Axis, Operand};
use crate::array::DType;
use crate::core::Tensor;
use crate::ops as lax;
use crate::prims::{GatherDims, GatherMode};

/// How a quantile between two order statistics is taken.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Method {
    Linear,
    Lower,
    Higher,
    Nearest,
    Midpoint,
}

#[track_caller]
fn method(name: &str, what: &str) -> Method {
    match name {
        "linear" => Method::Linear,
        "lower" => Method::Lower,
        "higher" => Method::Higher,
        "nearest" => Method::Nearest,
        "midpoint" => Method::Midpoint,
        _ => panic!(
            "{what}: method can only be 'linear', 'lower', 'higher', 'midpoint' or 'nearest', \
             got {name:?}\n  at {}",
            std::panic::Location::caller()
        ),
    }
}

/// `x[..., idx[...]]`: for every index of `idx` (`x`'s shape without its last axis), the
/// element of `x`'s last axis it names.
fn take_last(x: &Tensor, idx: &Tensor) -> Tensor {
    let r = x.ndim();
    let mut shape = idx.shape().to_vec();
    shape.push(1);
    let batch: Vec<usize> = (0..r - 1).collect();
    let dims = GatherDims {
        offset_dims: vec![],
        collapsed_slice_dims: vec![r - 1],
        start_index_map: vec![r - 1],
        operand_batching_dims: batch.clone(),
        start_indices_batching_dims: batch,
    };
    lax::gather(
        x,
        &lax::reshape(idx, &shape),
        dims,
        &vec![1; r],
        GatherMode::Clip,
    )
}

/// `t` (of shape `q_shape + rest` or `q_shape`) broadcast to `q_shape + rest`.
fn to_out(t: &Tensor, out: &[usize]) -> Tensor {
    if t.shape() == out {
        return t.clone();
    }
    lax::broadcast_in_dim(t, out, &(0..t.ndim()).collect::<Vec<_>>())
}

#[track_caller]
fn quantile_impl(
    a: Tensor,
    q: Operand,
    axis: Axis,
    method: Method,
    squash_nans: bool,
    what: &str,
) -> Tensor {
    let a = inexact(&a);
    let dtype = a.dtype();
    let q = q.to_tensor_in(what, dtype);
    if q.ndim() > 1 {
        panic!(
            "{what}: q must have rank 0 or 1, got {}\n  at {}",
            q.aval(),
            std::panic::Location::caller()
        );
    }
    let nd = a.ndim();
    let axes = axis.resolve(nd, what);
    let keep = axis.keeps_dims();
    // The reduced axes flattened to the last, the others in order before it.
    let kept: Vec<usize> = (0..nd).filter(|d| !axes.contains(d)).collect();
    let mut perm = kept.clone();
    perm.extend(&axes);
    let mut flat: Vec<usize> = kept.iter().map(|&d| a.shape()[d]).collect();
    let n: usize = axes.iter().map(|&d| a.shape()[d]).product();
    flat.push(n);
    if n == 0 {
        panic!(
            "{what}: the reduced axes {axes:?} of {} are empty\n  at {}",
            a.aval(),
            std::panic::Location::caller()
        );
    }
    let a = lax::reshape(&lax::transpose(&a, &perm), &flat);
    let last = flat.len() - 1;
    let rest = &flat[..last];
    let q_shape = q.shape().to_vec();
    let qn = q_shape.len();
    let mut out_shape = q_shape.clone();
    out_shape.extend_from_slice(rest);
    let c = |v: f64| super::scalar_tensor(v, dtype);
    let (a, counts) = if squash_nans {
        let a = lax::sort(&[where_(isnan(&a), f64::NAN, &a)], last, 1).remove(0);
        let counts = astype(super::sum(lax::not(&isnan(&a)), last as isize), dtype);
        let qd: Vec<usize> = (0..qn).collect();
        let cd: Vec<usize> = (qn..out_shape.len()).collect();
        let q = lax::broadcast_in_dim(&q, &out_shape, &qd);
        let counts = lax::broadcast_in_dim(&counts, &out_shape, &cd);
        (a, (q, counts))
    } else {
        let any_nan = super::any(isnan(&a), super::keepdims(last as isize));
        let a = where_(any_nan, f64::NAN, &a);
        let a = lax::sort(&[a], last, 1).remove(0);
        (a, (q, c(n as f64)))
    };
    let (q, counts) = counts;
    let hi_index = lax::sub(&counts, &c(1.0));
    let pos = lax::mul(&q, &hi_index);
    let low = lax::floor(&pos);
    let high = lax::ceil(&pos);
    let high_weight = lax::sub(&pos, &low);
    let low_weight = lax::sub(&c(1.0), &high_weight);
    let clamp = |t: &Tensor| lax::max(&c(0.0), &lax::min(t, &hi_index));
    let index = |t: &Tensor| astype(clamp(t), DType::I32);
    // `a` broadcast over q's axes, so that each output element gathers its own index.
    let mut wide_shape = out_shape.clone();
    wide_shape.push(n);
    let wide_dims: Vec<usize> = (qn..qn + flat.len()).collect();
    let wide = lax::broadcast_in_dim(&a, &wide_shape, &wide_dims);
    let gather = |t: &Tensor| take_last(&wide, &to_out(&index(t), &out_shape));
    let (low_value, high_value) = (gather(&low), gather(&high));
    let r = match method {
        Method::Linear => lax::add(
            &lax::mul(&low_value, &to_out(&low_weight, &out_shape)),
            &lax::mul(&high_value, &to_out(&high_weight, &out_shape)),
        ),
        Method::Lower => low_value,
        Method::Higher => high_value,
        Method::Nearest => {
            let pred = lax::le(&to_out(&high_weight, &out_shape), &c(0.5));
            lax::select_n(&pred, &[high_value, low_value])
        }
        Method::Midpoint => lax::mul(&lax::add(&low_value, &high_value), &c(0.5)),
    };
    if !keep {
        return r;
    }
    let mut shape = q_shape;
    shape.extend((0..nd).map(|d| {
        if axes.contains(&d) {
            1
        } else {
            a_dim(&flat, &kept, d)
        }
    }));
    lax::reshape(&r, &shape)
}

/// The size of kept axis `d` in the flattened layout.
fn a_dim(flat: &[usize], kept: &[usize], d: usize) -> usize {
    flat[kept.iter().position(|&k| k == d).expect("a kept axis")]
}

/// The `q`-th quantile (`q` in `[0, 1]`, a scalar or a vector whose axis comes first) over
/// `axis` (`None`: all; several axes flatten together; `keepdims` as a reduction), as
/// `jnp.quantile`: NaN wherever a NaN is reduced. `method` is numpy's name: `"linear"`
/// (JAX's default), `"lower"`, `"higher"`, `"nearest"` or `"midpoint"`.
///
/// ```
/// use oxla::numpy as jnp;
/// let x = jnp::array(&[3.0f32, 1.0, 4.0, 2.0], &[4]);
/// assert_eq!(jnp::quantile(&x, 0.5, None, "linear").item(), 2.5);
/// assert_eq!(jnp::median(&x, None).item(), 2.5);
/// assert_eq!(jnp::percentile(&x, 25.0, None, "lower").item(), 1.0);
/// ```
#[track_caller]
pub fn quantile(
    x: impl Into<Operand>,
    q: impl Into<Operand>,
    axis: impl Into<Axis>,
    method_name: &str,
) -> Tensor {
    let _line = crate::core::user_line();
    let m = method(method_name, "quantile");
    quantile_impl(
        x.into().into_tensor(),
        q.into(),
        axis.into(),
        m,
        false,
        "quantile",
    )
}

/// The quantile ignoring NaNs (NaN where all are NaN), as `jnp.nanquantile`.
#[track_caller]
pub fn nanquantile(
    x: impl Into<Operand>,
    q: impl Into<Operand>,
    axis: impl Into<Axis>,
    method_name: &str,
) -> Tensor {
    let _line = crate::core::user_line();
    let m = method(method_name, "nanquantile");
    quantile_impl(
        x.into().into_tensor(),
        q.into(),
        axis.into(),
        m,
        true,
        "nanquantile",
    )
}

/// `q` in percent as a quantile of `x`'s float dtype: `q / 100`.
#[track_caller]
fn percent(x: &Tensor, q: Operand, what: &str) -> Operand {
    let dtype = inexact(x).dtype();
    let q = q.to_tensor_in(what, dtype);
    Operand::Tensor(lax::div(&q, &super::scalar_tensor(100.0, dtype)))
}

/// The `q`-th percentile (`q` in `[0, 100]`), `quantile(x, q / 100)`, as `jnp.percentile`.
#[track_caller]
pub fn percentile(
    x: impl Into<Operand>,
    q: impl Into<Operand>,
    axis: impl Into<Axis>,
    method_name: &str,
) -> Tensor {
    let _line = crate::core::user_line();
    let m = method(method_name, "percentile");
    let x = x.into().into_tensor();
    let q = percent(&x, q.into(), "percentile");
    quantile_impl(x, q, axis.into(), m, false, "percentile")
}

/// The percentile ignoring NaNs, as `jnp.nanpercentile`.
#[track_caller]
pub fn nanpercentile(
    x: impl Into<Operand>,
    q: impl Into<Operand>,
    axis: impl Into<Axis>,
    method_name: &str,
) -> Tensor {
    let _line = crate::core::user_line();
    let m = method(method_name, "nanpercentile");
    let x = x.into().into_tensor();
    let q = percent(&x, q.into(), "nanpercentile");
    quantile_impl(x, q, axis.into(), m, true, "nanpercentile")
}

/// The median over `axis`, as `jnp.median`: the `"midpoint"` quantile at 0.5 (NaN wherever
/// a NaN is reduced).
#[track_caller]
pub fn median(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    quantile_impl(
        x,
        0.5.into(),
        axis.into(),
        Method::Midpoint,
        false,
        "median",
    )
}

/// The median ignoring NaNs (NaN where all are NaN), as `jnp.nanmedian`.
#[track_caller]
pub fn nanmedian(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    quantile_impl(
        x,
        0.5.into(),
        axis.into(),
        Method::Midpoint,
        true,
        "nanmedian",
    )
}
