//! NaN-aware reductions (`nansum`, `nanprod`, `nanmax`, `nanmin`, `nanmean`, `nanvar`,
//! `nanstd`, `nanargmax`, `nanargmin`, `nancumsum`, `nancumprod`), as `jax.numpy` composes
//! them: NaNs replaced by the reduction's identity through `where` (so their cotangent is
//! zero), and the all-NaN cases as JAX's. Integers and bools reduce as the plain function.

use super::statistics::var_dtypes;
use super::{astype, isnan, keepdims, scalar_tensor, where_, Axis, Operand};
use crate::core::Tensor;
use crate::ops as lax;

/// `x` with its NaNs replaced by `v`.
fn fill_nan(x: &Tensor, v: f64) -> Tensor {
    where_(isnan(x), v, x)
}

/// Sum over `axis` treating NaNs as zero, as `jnp.nansum`.
#[track_caller]
pub fn nansum(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    if !x.dtype().is_float() {
        return super::sum(x, axis);
    }
    super::sum(fill_nan(x, 0.0), axis)
}

/// Product over `axis` treating NaNs as one, as `jnp.nanprod`.
#[track_caller]
pub fn nanprod(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    if !x.dtype().is_float() {
        return super::prod(x, axis);
    }
    super::prod(fill_nan(x, 1.0), axis)
}

/// Maximum over `axis` ignoring NaNs (NaN where all are NaN), as `jnp.nanmax`.
#[track_caller]
pub fn nanmax(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let axis = axis.into();
    if !x.dtype().is_float() {
        return super::max(x, axis);
    }
    let out = super::max(fill_nan(x, f64::NEG_INFINITY), axis.clone());
    where_(super::all(isnan(x), axis), f64::NAN, out)
}

/// Minimum over `axis` ignoring NaNs (NaN where all are NaN), as `jnp.nanmin`.
#[track_caller]
pub fn nanmin(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let axis = axis.into();
    if !x.dtype().is_float() {
        return super::min(x, axis);
    }
    let out = super::min(fill_nan(x, f64::INFINITY), axis.clone());
    where_(super::all(isnan(x), axis), f64::NAN, out)
}

/// Mean over `axis` of the non-NaN elements (NaN where all are NaN), as `jnp.nanmean`.
#[track_caller]
pub fn nanmean(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let axis = axis.into();
    if !x.dtype().is_float() {
        return super::mean(x, axis);
    }
    let count = astype(super::sum(lax::not(&isnan(x)), axis.clone()), x.dtype());
    lax::div(&nansum(x, axis), &count)
}

#[track_caller]
fn nan_variance(x: &Tensor, axis: Axis, ddof: usize) -> Tensor {
    let (out, comp) = var_dtypes(x.dtype());
    let a = astype(x, comp);
    let nan = isnan(&a);
    let mean = nanmean(&a, keepdims(axis.clone()));
    let centered = where_(&nan, 0.0, lax::sub(&a, &mean));
    let centered = lax::integer_pow(&centered, 2);
    let count = super::sum(lax::not(&nan), axis.clone());
    let count = lax::sub(&count, &scalar_tensor(ddof as f64, count.dtype()));
    let empty = lax::le(&count, &scalar_tensor(0.0, count.dtype()));
    let total = where_(&empty, f64::NAN, super::sum(&centered, axis));
    let divisor = astype(where_(&empty, 1, &count), comp);
    astype(lax::div(&total, &divisor), out)
}

/// Variance over `axis` of the non-NaN elements with `ddof` delta degrees of freedom (NaN
/// where fewer than `ddof + 1` remain), as `jnp.nanvar`.
#[track_caller]
pub fn nanvar(x: impl Into<Operand>, axis: impl Into<Axis>, ddof: usize) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    nan_variance(x, axis.into(), ddof)
}

/// Standard deviation over `axis` of the non-NaN elements, `sqrt(nanvar)`, as `jnp.nanstd`.
#[track_caller]
pub fn nanstd(x: impl Into<Operand>, axis: impl Into<Axis>, ddof: usize) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    lax::sqrt(&nan_variance(x, axis.into(), ddof))
}

/// Index of the first maximum over `axis` ignoring NaNs (`None`: of the flattened array;
/// -1 where all are NaN), as `jnp.nanargmax`.
#[track_caller]
pub fn nanargmax(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let axis = axis.into();
    if !x.dtype().is_float() {
        return super::argmax(x, axis);
    }
    let r = super::argmax(fill_nan(x, f64::NEG_INFINITY), axis.clone());
    where_(super::all(isnan(x), axis), -1, r)
}

/// Index of the first minimum over `axis` ignoring NaNs (`None`: of the flattened array;
/// -1 where all are NaN), as `jnp.nanargmin`.
#[track_caller]
pub fn nanargmin(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let axis = axis.into();
    if !x.dtype().is_float() {
        return super::argmin(x, axis);
    }
    let r = super::argmin(fill_nan(x, f64::INFINITY), axis.clone());
    where_(super::all(isnan(x), axis), -1, r)
}

/// Cumulative sum along `axis` treating NaNs as zero (`None`: of the flattened array), as
/// `jnp.nancumsum`.
#[track_caller]
pub fn nancumsum(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    if !x.dtype().is_float() {
        return super::cumsum(x, axis);
    }
    super::cumsum(fill_nan(x, 0.0), axis)
}

/// Cumulative product along `axis` treating NaNs as one (`None`: of the flattened array),
/// as `jnp.nancumprod`.
#[track_caller]
pub fn nancumprod(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    if !x.dtype().is_float() {
        return super::cumprod(x, axis);
    }
    super::cumprod(fill_nan(x, 1.0), axis)
}
