//! `jnp.fft`: discrete Fourier transforms of one, two and n axes (complex, real-input and
//! real-output, and Hermitian), their sample frequencies, and the shifts that center them.
//!
//! Each transform is a product with the transform's matrix along each axis (a constant of
//! the input's complex or real dtype), so `vmap`, `grad` and `jit` come from `dot_general`'s
//! rules; the cost is `O(n^2)` per axis of length `n` rather than an FFT's `O(n log n)`,
//! and the jaxpr shows `dot_general`s where JAX's shows one `fft`.
//!
//! `norm` is JAX's: `None` or `"backward"` (the inverse scaled by `1/n`), `"ortho"`
//! (both by `1/sqrt(n)`) or `"forward"` (the forward by `1/n`).
//!
//! ```
//! use oxla::numpy::{self as jnp, fft};
//! let x = jnp::array(&[1.0f32, 2.0, 3.0, 4.0], &[4]);
//! let spectrum = fft::rfft(&x, None, -1, None);
//! assert_eq!(jnp::real(&spectrum).to_vec::<f32>(), vec![10.0, -2.0, -2.0]);
//! let back = fft::irfft(&spectrum, Some(4), -1, None);
//! assert_eq!(back.to_vec::<f32>(), vec![1.0, 2.0, 3.0, 4.0]);
//! ```

mod dft;
mod freq;

use dft::{complex_of, float_of, Norm};
pub use freq::{fftfreq, fftshift, ifftshift, rfftfreq};

use super::shape::axis as resolve;
use super::Operand;
use crate::core::Tensor;
use crate::ops as lax;

/// The length `n` (or the axis's own) of a transform, checked positive.
#[track_caller]
fn length(x: &Tensor, axis: usize, n: Option<usize>, what: &str) -> usize {
    let n = n.unwrap_or(x.shape()[axis]);
    if n < 1 {
        panic!(
            "jnp.fft.{what}: invalid number of data points ({n}) specified for axis {axis} of \
             shape {:?}\n  at {}",
            x.shape(),
            std::panic::Location::caller()
        );
    }
    n
}

/// The complex DFT of `a` along `axis`, zero-padded or truncated to `n` points
/// (`jnp.fft.fft`).
#[track_caller]
pub fn fft(a: impl Into<Operand>, n: Option<usize>, axis: isize, norm: Option<&str>) -> Tensor {
    let _line = crate::core::user_line();
    let x = complex_of(&a.into().into_tensor());
    let ax = resolve(axis, x.ndim(), "jnp.fft.fft");
    let n = length(&x, ax, n, "fft");
    dft::fft(&x, ax, n, false, Norm::parse(norm, "fft"))
}

/// The inverse of [`fft`] (`jnp.fft.ifft`).
#[track_caller]
pub fn ifft(a: impl Into<Operand>, n: Option<usize>, axis: isize, norm: Option<&str>) -> Tensor {
    let _line = crate::core::user_line();
    let x = complex_of(&a.into().into_tensor());
    let ax = resolve(axis, x.ndim(), "jnp.fft.ifft");
    let n = length(&x, ax, n, "ifft");
    dft::fft(&x, ax, n, true, Norm::parse(norm, "ifft"))
}

/// The DFT of real `a` along `axis` (`n` points): its `n / 2 + 1` non-negative frequencies
/// (`jnp.fft.rfft`).
#[track_caller]
pub fn rfft(a: impl Into<Operand>, n: Option<usize>, axis: isize, norm: Option<&str>) -> Tensor {
    let _line = crate::core::user_line();
    let x = float_of(&a.into().into_tensor(), "rfft");
    let ax = resolve(axis, x.ndim(), "jnp.fft.rfft");
    let n = length(&x, ax, n, "rfft");
    dft::rfft(&x, ax, n, Norm::parse(norm, "rfft"))
}

/// The real signal of `n` points (default `2 (m - 1)` for `m` frequencies) whose
/// non-negative frequencies along `axis` are `a` (`jnp.fft.irfft`).
#[track_caller]
pub fn irfft(a: impl Into<Operand>, n: Option<usize>, axis: isize, norm: Option<&str>) -> Tensor {
    let _line = crate::core::user_line();
    let x = complex_of(&a.into().into_tensor());
    let ax = resolve(axis, x.ndim(), "jnp.fft.irfft");
    let n = n.unwrap_or(2 * x.shape()[ax].saturating_sub(1));
    let n = length(&x, ax, Some(n), "irfft");
    dft::irfft(&x, ax, n, Norm::parse(norm, "irfft"))
}

/// The DFT of a signal with Hermitian symmetry, given by its non-negative frequencies `a`:
/// a real result of `n` points (`jnp.fft.hfft`).
#[track_caller]
pub fn hfft(a: impl Into<Operand>, n: Option<usize>, axis: isize, norm: Option<&str>) -> Tensor {
    let _line = crate::core::user_line();
    let x = complex_of(&a.into().into_tensor());
    let ax = resolve(axis, x.ndim(), "jnp.fft.hfft");
    let n = n.unwrap_or(2 * x.shape()[ax].saturating_sub(1));
    let n = length(&x, ax, Some(n), "hfft");
    dft::irfft(&lax::conj(&x), ax, n, Norm::parse(norm, "hfft").swap())
}

/// The inverse of [`hfft`]: the non-negative frequencies of real `a`'s Hermitian inverse
/// DFT (`jnp.fft.ihfft`).
#[track_caller]
pub fn ihfft(a: impl Into<Operand>, n: Option<usize>, axis: isize, norm: Option<&str>) -> Tensor {
    let _line = crate::core::user_line();
    let x = float_of(&a.into().into_tensor(), "ihfft");
    let ax = resolve(axis, x.ndim(), "jnp.fft.ihfft");
    let n = length(&x, ax, n, "ihfft");
    lax::conj(&dft::rfft(&x, ax, n, Norm::parse(norm, "ihfft").swap()))
}

/// The axes and lengths of an n-dimensional transform: `axes` (default the last
/// `s.len()` axes, or all), each of length `s[i]` (default the axis's own).
#[track_caller]
fn axes_and_lengths(
    x: &Tensor,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    what: &str,
) -> Vec<(usize, Option<usize>)> {
    let at = std::panic::Location::caller();
    let nd = x.ndim() as isize;
    let axes: Vec<isize> = match (axes, s) {
        (Some(a), _) => a.to_vec(),
        (None, Some(s)) => (nd - s.len() as isize..nd).collect(),
        (None, None) => (0..nd).collect(),
    };
    if let Some(s) = s.filter(|s| s.len() != axes.len()) {
        panic!(
            "jnp.fft.{what}: shape s {s:?} and axes {axes:?} must have the same length\n  at {at}"
        );
    }
    let resolved: Vec<usize> = axes
        .iter()
        .map(|&a| resolve(a, x.ndim(), &format!("jnp.fft.{what}")))
        .collect();
    for (i, a) in resolved.iter().enumerate() {
        if resolved[..i].contains(a) {
            panic!("jnp.fft.{what}: axes {axes:?} repeat an axis\n  at {at}");
        }
    }
    resolved
        .into_iter()
        .enumerate()
        .map(|(i, a)| (a, s.map(|s| s[i])))
        .collect()
}

/// The complex DFT (or its inverse) over several axes, the last axis first, as JAX does.
#[track_caller]
fn complex_nd(
    a: Operand,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    norm: Option<&str>,
    inverse: bool,
    what: &str,
) -> Tensor {
    let mut x = complex_of(&a.into_tensor());
    let norm = Norm::parse(norm, what);
    for (ax, n) in axes_and_lengths(&x, s, axes, what).into_iter().rev() {
        let n = length(&x, ax, n, what);
        x = dft::fft(&x, ax, n, inverse, norm);
    }
    x
}

/// The n-dimensional DFT over `axes` (default all, or the last `s.len()`), each padded or
/// truncated to `s` (`jnp.fft.fftn`).
#[track_caller]
pub fn fftn(
    a: impl Into<Operand>,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    norm: Option<&str>,
) -> Tensor {
    let _line = crate::core::user_line();
    complex_nd(a.into(), s, axes, norm, false, "fftn")
}

/// The inverse of [`fftn`] (`jnp.fft.ifftn`).
#[track_caller]
pub fn ifftn(
    a: impl Into<Operand>,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    norm: Option<&str>,
) -> Tensor {
    let _line = crate::core::user_line();
    complex_nd(a.into(), s, axes, norm, true, "ifftn")
}

/// The DFT over the last two axes, or the two `axes` given (`jnp.fft.fft2`).
#[track_caller]
pub fn fft2(
    a: impl Into<Operand>,
    s: Option<&[usize]>,
    axes: [isize; 2],
    norm: Option<&str>,
) -> Tensor {
    let _line = crate::core::user_line();
    complex_nd(a.into(), s, Some(&axes), norm, false, "fft2")
}

/// The inverse of [`fft2`] (`jnp.fft.ifft2`).
#[track_caller]
pub fn ifft2(
    a: impl Into<Operand>,
    s: Option<&[usize]>,
    axes: [isize; 2],
    norm: Option<&str>,
) -> Tensor {
    let _line = crate::core::user_line();
    complex_nd(a.into(), s, Some(&axes), norm, true, "ifft2")
}

/// The n-dimensional DFT of real `a`: a real DFT over the last of `axes`, then complex
/// DFTs over the others (`jnp.fft.rfftn`).
#[track_caller]
pub fn rfftn(
    a: impl Into<Operand>,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    norm: Option<&str>,
) -> Tensor {
    let _line = crate::core::user_line();
    real_nd(a.into(), s, axes, norm, "rfftn")
}

#[track_caller]
fn real_nd(
    a: Operand,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    norm: Option<&str>,
    what: &str,
) -> Tensor {
    let x = float_of(&a.into_tensor(), what);
    let norm = Norm::parse(norm, what);
    let mut plan = axes_and_lengths(&x, s, axes, what);
    let Some((last, n)) = plan.pop() else {
        return complex_of(&x);
    };
    let n = length(&x, last, n, what);
    let mut y = dft::rfft(&x, last, n, norm);
    for (ax, n) in plan.into_iter().rev() {
        let n = length(&y, ax, n, what);
        y = dft::fft(&y, ax, n, false, norm);
    }
    y
}

/// The inverse of [`rfftn`]: complex inverse DFTs over all but the last of `axes`, then a
/// real-output inverse over the last, of `s`'s last length (default `2 (m - 1)`)
/// (`jnp.fft.irfftn`).
#[track_caller]
pub fn irfftn(
    a: impl Into<Operand>,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    norm: Option<&str>,
) -> Tensor {
    let _line = crate::core::user_line();
    inverse_real_nd(a.into(), s, axes, norm, "irfftn")
}

#[track_caller]
fn inverse_real_nd(
    a: Operand,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    norm: Option<&str>,
    what: &str,
) -> Tensor {
    let mut x = complex_of(&a.into_tensor());
    let norm = Norm::parse(norm, what);
    let mut plan = axes_and_lengths(&x, s, axes, what);
    let Some((last, n_last)) = plan.pop() else {
        return x;
    };
    for (ax, n) in plan.into_iter().rev() {
        let n = length(&x, ax, n, what);
        x = dft::fft(&x, ax, n, true, norm);
    }
    let n = n_last.unwrap_or(2 * x.shape()[last].saturating_sub(1));
    let n = length(&x, last, Some(n), what);
    dft::irfft(&x, last, n, norm)
}

/// [`rfftn`] over the last two axes, or the two `axes` given (`jnp.fft.rfft2`).
#[track_caller]
pub fn rfft2(
    a: impl Into<Operand>,
    s: Option<&[usize]>,
    axes: [isize; 2],
    norm: Option<&str>,
) -> Tensor {
    let _line = crate::core::user_line();
    real_nd(a.into(), s, Some(&axes), norm, "rfft2")
}

/// [`irfftn`] over the last two axes, or the two `axes` given (`jnp.fft.irfft2`).
#[track_caller]
pub fn irfft2(
    a: impl Into<Operand>,
    s: Option<&[usize]>,
    axes: [isize; 2],
    norm: Option<&str>,
) -> Tensor {
    let _line = crate::core::user_line();
    inverse_real_nd(a.into(), s, Some(&axes), norm, "irfft2")
}
