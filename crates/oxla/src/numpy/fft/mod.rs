//! `jnp.fft`: discrete Fourier transforms of one, two and n axes (complex, real-input and
//! real-output, and Hermitian), their sample frequencies, and the shifts that center them.
//!
//! Every transform is JAX's `_fft_core` over the `fft` primitive ([`lax::fft`]), computed
//! with `rustfft`/`realfft` in `O(n log n)`; `vmap`, `grad` and `jit` come from its rules.
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

mod core;
mod freq;

pub use freq::{fftfreq, fftshift, ifftshift, rfftfreq};

use self::core::fft_core;
use super::Operand;
use crate::core::Tensor;
use crate::ops as lax;
use crate::prims::FftType;

/// A transform of one axis (JAX's `_fft_core_1d`).
#[track_caller]
fn one_axis(
    a: Operand,
    t: FftType,
    n: Option<usize>,
    axis: isize,
    norm: Option<&str>,
    what: &str,
) -> Tensor {
    let s = n.map(|n| [n]);
    fft_core(
        &a.into_tensor(),
        t,
        s.as_ref().map(|s| &s[..]),
        Some(&[axis]),
        norm,
        what,
    )
}

/// The complex DFT of `a` along `axis`, zero-padded or truncated to `n` points
/// (`jnp.fft.fft`).
#[track_caller]
pub fn fft(a: impl Into<Operand>, n: Option<usize>, axis: isize, norm: Option<&str>) -> Tensor {
    let _line = crate::core::user_line();
    one_axis(a.into(), FftType::Fft, n, axis, norm, "fft")
}

/// The inverse of [`fft`] (`jnp.fft.ifft`).
#[track_caller]
pub fn ifft(a: impl Into<Operand>, n: Option<usize>, axis: isize, norm: Option<&str>) -> Tensor {
    let _line = crate::core::user_line();
    one_axis(a.into(), FftType::Ifft, n, axis, norm, "ifft")
}

/// The DFT of real `a` along `axis` (`n` points): its `n / 2 + 1` non-negative frequencies
/// (`jnp.fft.rfft`).
#[track_caller]
pub fn rfft(a: impl Into<Operand>, n: Option<usize>, axis: isize, norm: Option<&str>) -> Tensor {
    let _line = crate::core::user_line();
    one_axis(a.into(), FftType::Rfft, n, axis, norm, "rfft")
}

/// The real signal of `n` points (default `2 (m - 1)` for `m` frequencies) whose
/// non-negative frequencies along `axis` are `a` (`jnp.fft.irfft`).
#[track_caller]
pub fn irfft(a: impl Into<Operand>, n: Option<usize>, axis: isize, norm: Option<&str>) -> Tensor {
    let _line = crate::core::user_line();
    one_axis(a.into(), FftType::Irfft, n, axis, norm, "irfft")
}

/// The DFT of a signal with Hermitian symmetry, given by its non-negative frequencies `a`:
/// a real result of `n` points (`jnp.fft.hfft`).
#[track_caller]
pub fn hfft(a: impl Into<Operand>, n: Option<usize>, axis: isize, norm: Option<&str>) -> Tensor {
    let _line = crate::core::user_line();
    let x = a.into().into_tensor();
    let x = if x.dtype().is_complex() {
        lax::conj(&x)
    } else {
        x
    };
    let ax = super::shape::axis(axis, x.ndim(), "jnp.fft.hfft");
    let nn = n.unwrap_or(2 * x.shape()[ax].saturating_sub(1));
    let y = one_axis(x.into(), FftType::Irfft, n, axis, norm, "hfft");
    lax::mul(&y, &scalar(nn as f64, &y))
}

/// The inverse of [`hfft`]: the non-negative frequencies of real `a`'s Hermitian inverse
/// DFT (`jnp.fft.ihfft`).
#[track_caller]
pub fn ihfft(a: impl Into<Operand>, n: Option<usize>, axis: isize, norm: Option<&str>) -> Tensor {
    let _line = crate::core::user_line();
    let x = a.into().into_tensor();
    let ax = super::shape::axis(axis, x.ndim(), "jnp.fft.ihfft");
    let nn = n.unwrap_or(x.shape()[ax]);
    let y = lax::conj(&one_axis(x.into(), FftType::Rfft, n, axis, norm, "ihfft"));
    lax::mul(&y, &scalar(1.0 / nn as f64, &y))
}

/// `v` in `like`'s dtype, broadcast to its shape.
fn scalar(v: f64, like: &Tensor) -> Tensor {
    lax::broadcast_in_dim(&super::scalar_tensor(v, like.dtype()), like.shape(), &[])
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
    fft_core(&a.into().into_tensor(), FftType::Fft, s, axes, norm, "fftn")
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
    fft_core(
        &a.into().into_tensor(),
        FftType::Ifft,
        s,
        axes,
        norm,
        "ifftn",
    )
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
    fft_core(
        &a.into().into_tensor(),
        FftType::Rfft,
        s,
        axes,
        norm,
        "rfftn",
    )
}

/// The inverse of [`rfftn`]: the last of `axes` of length `s`'s last (default `2 (m - 1)`)
/// (`jnp.fft.irfftn`).
#[track_caller]
pub fn irfftn(
    a: impl Into<Operand>,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    norm: Option<&str>,
) -> Tensor {
    let _line = crate::core::user_line();
    fft_core(
        &a.into().into_tensor(),
        FftType::Irfft,
        s,
        axes,
        norm,
        "irfftn",
    )
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
    fft_core(
        &a.into().into_tensor(),
        FftType::Fft,
        s,
        Some(&axes),
        norm,
        "fft2",
    )
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
    fft_core(
        &a.into().into_tensor(),
        FftType::Ifft,
        s,
        Some(&axes),
        norm,
        "ifft2",
    )
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
    fft_core(
        &a.into().into_tensor(),
        FftType::Rfft,
        s,
        Some(&axes),
        norm,
        "rfft2",
    )
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
    fft_core(
        &a.into().into_tensor(),
        FftType::Irfft,
        s,
        Some(&axes),
        norm,
        "irfft2",
    )
}
