//! The sample frequencies of a transform and the shifts that put the zero frequency at the
//! center.

use crate::array::Kind;
use crate::core::Tensor;
use crate::numpy::{astype, roll, shape::axis as resolve, Operand};

/// A constant vector of the default float dtype from its `f64` values.
fn floats(v: Vec<f64>) -> Tensor {
    let n = v.len();
    astype(Tensor::from_vec(v, &[n]), Kind::Float.default_dtype())
}

/// The sample frequencies of an `n`-point DFT with sample spacing `d`, in cycles per unit:
/// `[0, 1, ..., (n - 1) / 2, -(n / 2), ..., -1] / (d n)` (`jnp.fft.fftfreq`).
///
/// ```
/// use oxla::numpy::fft;
/// assert_eq!(fft::fftfreq(4, 0.5).to_vec::<f32>(), vec![0.0, 0.5, -1.0, -0.5]);
/// ```
#[track_caller]
pub fn fftfreq(n: usize, d: f64) -> Tensor {
    let _line = crate::core::user_line();
    let k = (0..n).map(|i| {
        if i < n.div_ceil(2) {
            i as f64
        } else {
            i as f64 - n as f64
        }
    });
    floats(k.map(|k| k / (d * n as f64)).collect())
}

/// The non-negative sample frequencies of an `n`-point real DFT with sample spacing `d`:
/// `[0, 1, ..., n / 2] / (d n)` (`jnp.fft.rfftfreq`).
#[track_caller]
pub fn rfftfreq(n: usize, d: f64) -> Tensor {
    let _line = crate::core::user_line();
    floats((0..=n / 2).map(|k| k as f64 / (d * n as f64)).collect())
}

/// `x` rolled by half of each of `axes` (default all), forward or back.
#[track_caller]
fn shift(x: Operand, axes: Option<&[isize]>, inverse: bool, what: &str) -> Tensor {
    let mut x = x.into_tensor();
    let all: Vec<isize> = (0..x.ndim() as isize).collect();
    for &a in axes.unwrap_or(&all) {
        let ax = resolve(a, x.ndim(), what);
        let n = x.shape()[ax] as isize;
        let by = if inverse { -(n / 2) } else { n / 2 };
        x = roll(&x, by, a);
    }
    x
}

/// `x` with the zero frequency moved to the center of each of `axes` (default all): rolled
/// by half their lengths (`jnp.fft.fftshift`).
#[track_caller]
pub fn fftshift(x: impl Into<Operand>, axes: Option<&[isize]>) -> Tensor {
    let _line = crate::core::user_line();
    shift(x.into(), axes, false, "jnp.fft.fftshift")
}

/// The inverse of [`fftshift`] (`jnp.fft.ifftshift`); they differ for odd lengths.
#[track_caller]
pub fn ifftshift(x: impl Into<Operand>, axes: Option<&[isize]>) -> Tensor {
    let _line = crate::core::user_line();
    shift(x.into(), axes, true, "jnp.fft.ifftshift")
}
