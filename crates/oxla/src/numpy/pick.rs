//! Selecting and re-indexing: `compress`, `extract` (with JAX's static `size`),
//! `diag_indices`, `diag_indices_from`, `ravel_multi_index`, `resize`.

use super::{argsort, moveaxis, ravel, scalar_tensor, Operand};
use crate::array::{DType, Kind};
use crate::core::Tensor;
use crate::ops as lax;

/// The slices of `a` along `axis` (`None`: the flattened `a`) where the vector `condition`
/// is nonzero, as `jnp.compress` with its static `size`: the first `size` selected slices,
/// then slices of `fill_value`. `size` at most the axis length, as JAX requires.
///
/// ```
/// use oxla::numpy as jnp;
/// let a = jnp::arange(4.0);
/// let c = jnp::array(&[true, false, true, false], &[4]);
/// assert_eq!(jnp::compress(&c, &a, None, 3, 9.0).to_vec::<f32>(), vec![0.0, 2.0, 9.0]);
/// ```
#[track_caller]
pub fn compress(
    condition: impl Into<Operand>,
    a: impl Into<Operand>,
    axis: Option<isize>,
    size: usize,
    fill_value: f64,
) -> Tensor {
    let _line = crate::core::user_line();
    let c = condition.into().into_tensor();
    let a = a.into().into_tensor();
    if c.ndim() != 1 {
        panic!(
            "compress: condition must be a vector, got {}\n  at {}",
            c.aval(),
            std::panic::Location::caller()
        );
    }
    let (arr, ax) = match axis {
        None => (ravel(&a), 0usize),
        Some(ax) => {
            let d = a.ndim() as isize;
            if ax < -d || ax >= d {
                panic!(
                    "compress: axis {ax} is out of bounds for {}\n  at {}",
                    a.aval(),
                    std::panic::Location::caller()
                );
            }
            let ax = ax.rem_euclid(d.max(1)) as usize;
            (moveaxis(&a, ax as isize, 0), ax)
        }
    };
    let len = arr.shape()[0];
    if size > len {
        panic!(
            "compress: size {size} must not exceed the axis length {len} of {}\n  at {}",
            a.aval(),
            std::panic::Location::caller()
        );
    }
    let c = super::astype(&c, DType::Bool);
    let m = c.shape()[0].min(len);
    let c = lax::slice(&c, &[0], &[m], None);
    let mut lim = arr.shape().to_vec();
    lim[0] = m;
    let arr = lax::slice(&arr, &vec![0; arr.ndim()], &lim, None);
    let dims: Vec<usize> = vec![0];
    let mask = lax::broadcast_in_dim(&c, arr.shape(), &dims);
    let arr = super::where_(&mask, &arr, scalar_tensor(fill_value, arr.dtype()));
    let order = argsort(super::astype(&c, Kind::Int.default_dtype()), -1, true);
    let order = lax::slice(&order, &[0], &[size.min(m)], None);
    let out = super::take(&arr, &order, 0, super::TakeMode::Clip);
    moveaxis(&out, 0, ax as isize)
}

/// The elements of `arr` where `condition` is nonzero, both flattened, as `jnp.extract`
/// with its static `size` (padded with `fill_value`).
#[track_caller]
pub fn extract(
    condition: impl Into<Operand>,
    arr: impl Into<Operand>,
    size: usize,
    fill_value: f64,
) -> Tensor {
    let _line = crate::core::user_line();
    let c = ravel(condition.into().into_tensor());
    compress(c, ravel(arr.into().into_tensor()), None, size, fill_value)
}

/// The indices of the main diagonal of an `n`-wide array of rank `ndim`: `ndim` copies of
/// `arange(n)` (the default integer), as `jnp.diag_indices`.
#[track_caller]
pub fn diag_indices(n: usize, ndim: usize) -> Vec<Tensor> {
    let _line = crate::core::user_line();
    (0..ndim)
        .map(|_| lax::iota(Kind::Int.default_dtype(), &[n], 0))
        .collect()
}

/// [`diag_indices`] of `a`, whose axes must all have one length (rank 2 or more), as
/// `jnp.diag_indices_from`.
#[track_caller]
pub fn diag_indices_from(a: impl Into<Operand>) -> Vec<Tensor> {
    let _line = crate::core::user_line();
    let a = a.into().into_tensor();
    let s = a.shape();
    if s.len() < 2 || s.iter().any(|&d| d != s[0]) {
        panic!(
            "diag_indices_from: needs at least 2 axes of one length, got {}\n  at {}",
            a.aval(),
            std::panic::Location::caller()
        );
    }
    diag_indices(s[0], s.len())
}

/// The flat (row-major) indices of the coordinates `multi_index` (one integer tensor per
/// axis of `dims`, broadcast together), as `jnp.ravel_multi_index` with `order="C"`;
/// `mode` `"clip"` clips each coordinate into range, `"wrap"` wraps it around, `"ignore"`
/// leaves it.
#[track_caller]
pub fn ravel_multi_index(multi_index: &[Tensor], dims: &[usize], mode: &str) -> Tensor {
    let _line = crate::core::user_line();
    if multi_index.len() != dims.len() {
        panic!(
            "ravel_multi_index: {} coordinate arrays for {} dims\n  at {}",
            multi_index.len(),
            dims.len(),
            std::panic::Location::caller()
        );
    }
    let wrap = match mode {
        "clip" => Some(false),
        "wrap" => Some(true),
        "ignore" => None,
        _ => panic!(
            "ravel_multi_index: mode must be 'clip', 'wrap' or 'ignore' ('raise' needs concrete values), got {mode:?}\n  at {}",
            std::panic::Location::caller()
        ),
    };
    let ts = super::promote_shapes("ravel_multi_index", multi_index.to_vec());
    let int = Kind::Int.default_dtype();
    let mut out: Option<Tensor> = None;
    let mut stride = dims.iter().product::<usize>();
    for (t, &d) in ts.iter().zip(dims) {
        stride /= d.max(1);
        let t = super::astype(t, int);
        let t = match wrap {
            Some(true) => super::remainder(&t, d as i32),
            Some(false) => super::clip(&t, 0, d.saturating_sub(1) as i32),
            None => t,
        };
        let term = lax::mul(&t, &scalar_tensor(stride as f64, int));
        out = Some(match out {
            None => term,
            Some(o) => lax::add(&o, &term),
        });
    }
    out.unwrap_or_else(|| scalar_tensor(0.0, int))
}

/// `a` flattened and repeated (or cut) to fill `new_shape`, as `jnp.resize` (zeros when `a`
/// is empty).
#[track_caller]
pub fn resize(a: impl Into<Operand>, new_shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    let a = ravel(a.into().into_tensor());
    let new_size: usize = new_shape.iter().product();
    if a.size() == 0 || new_size == 0 {
        return lax::broadcast_in_dim(&scalar_tensor(0.0, a.dtype()), new_shape, &[]);
    }
    let reps = new_size.div_ceil(a.size());
    let t = super::tile(&a, &[reps]);
    lax::reshape(&lax::slice(&t, &[0], &[new_size], None), new_shape)
}
