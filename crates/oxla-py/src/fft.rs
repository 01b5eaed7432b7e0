//! `oxla.numpy.fft`: the transforms of one, two and n axes, the sample frequencies and the
//! shifts, in the `_oxla.fft` submodule.

use oxla::numpy::fft as f;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::array::Array;
use crate::convert::{dtype_arg, Arg};
use crate::errors::guard;
use crate::linalg::only_defaults;

macro_rules! one_axis {
    ($($name:ident: $doc:literal),* $(,)?) => {$(
        #[doc = concat!("`jnp.fft.", stringify!($name), "(a, n=None, axis=-1, norm=None)`: ", $doc)]
        #[pyfunction]
        #[pyo3(signature = (a, n=None, axis=-1, norm=None))]
        fn $name(a: Arg, n: Option<usize>, axis: isize, norm: Option<&str>) -> PyResult<Array> {
            guard(|| Ok(Array(f::$name(a.operand(), n, axis, norm))))
        }
    )*};
}

one_axis! {
    fft: "the complex DFT along `axis`, padded or truncated to `n` points.",
    ifft: "the inverse of `fft`.",
    rfft: "the DFT of real `a`, the non-negative frequencies.",
    irfft: "the inverse of `rfft`: `n` (default `2 (m - 1)`) real points.",
    hfft: "the DFT of a Hermitian-symmetric signal given by its first half: real.",
    ihfft: "the inverse of `hfft`.",
}

macro_rules! n_axes {
    ($($name:ident: $doc:literal),* $(,)?) => {$(
        #[doc = concat!("`jnp.fft.", stringify!($name), "(a, s=None, axes=None, norm=None)`: ", $doc)]
        #[pyfunction]
        #[pyo3(signature = (a, s=None, axes=None, norm=None))]
        fn $name(
            a: Arg,
            s: Option<Vec<usize>>,
            axes: Option<Vec<isize>>,
            norm: Option<&str>,
        ) -> PyResult<Array> {
            guard(|| Ok(Array(f::$name(a.operand(), s.as_deref(), axes.as_deref(), norm))))
        }
    )*};
}

n_axes! {
    fftn: "the DFT over `axes` (default all, or the last `len(s)`), each of size `s`.",
    ifftn: "the inverse of `fftn`.",
    rfftn: "the DFT of real `a`: real over the last of `axes`, complex over the others.",
    irfftn: "the inverse of `rfftn`.",
}

/// The two axes of a two-dimensional transform.
fn two_axes(axes: &[isize]) -> PyResult<[isize; 2]> {
    <[isize; 2]>::try_from(axes).map_err(|_| {
        PyValueError::new_err(format!(
            "jnp.fft's 2-D transforms take two axes, got {}",
            axes.len()
        ))
    })
}

macro_rules! two_axes {
    ($($name:ident: $doc:literal),* $(,)?) => {$(
        #[doc = concat!("`jnp.fft.", stringify!($name), "(a, s=None, axes=(-2, -1), norm=None)`: ", $doc)]
        #[pyfunction]
        #[pyo3(signature = (a, s=None, axes=vec![-2, -1], norm=None))]
        fn $name(
            a: Arg,
            s: Option<Vec<usize>>,
            axes: Vec<isize>,
            norm: Option<&str>,
        ) -> PyResult<Array> {
            let axes = two_axes(&axes)?;
            guard(|| Ok(Array(f::$name(a.operand(), s.as_deref(), axes, norm))))
        }
    )*};
}

two_axes! {
    fft2: "`fftn` over two axes.",
    ifft2: "`ifftn` over two axes.",
    rfft2: "`rfftn` over two axes.",
    irfft2: "`irfftn` over two axes.",
}

macro_rules! frequencies {
    ($($name:ident: $doc:literal),* $(,)?) => {$(
        #[doc = concat!("`jnp.fft.", stringify!($name), "(n, d=1.0, *, dtype=None, device=None)`: ", $doc)]
        #[pyfunction]
        #[pyo3(signature = (n, d=1.0, *, dtype=None, device=None))]
        fn $name(
            py: Python<'_>,
            n: usize,
            d: f64,
            dtype: Option<&Bound<'_, PyAny>>,
            device: Option<&Bound<'_, PyAny>>,
        ) -> PyResult<Array> {
            only_defaults(concat!("fft.", stringify!($name)), &[("device", device)])?;
            let dtype = dtype_arg(py, dtype)?;
            guard(|| {
                let k = f::$name(n, d);
                Ok(Array(dtype.map_or(k.clone(), |t| k.astype(t))))
            })
        }
    )*};
}

frequencies! {
    fftfreq: "the sample frequencies of `fft` for `n` points spaced `d` apart.",
    rfftfreq: "the sample frequencies of `rfft`: the non-negative ones.",
}

/// An `axes` argument: `None`, an int, or a sequence of ints.
fn axes_of(axes: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<isize>>> {
    match axes.filter(|a| !a.is_none()) {
        None => Ok(None),
        Some(a) => match a.extract::<isize>() {
            Ok(i) => Ok(Some(vec![i])),
            Err(_) => Ok(Some(a.extract()?)),
        },
    }
}

/// `jnp.fft.fftshift(x, axes=None)`: the zero frequency moved to the center of `axes`
/// (default all).
#[pyfunction]
#[pyo3(signature = (x, axes=None))]
fn fftshift(x: Arg, axes: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
    let axes = axes_of(axes)?;
    guard(|| Ok(Array(f::fftshift(x.operand(), axes.as_deref()))))
}

/// `jnp.fft.ifftshift(x, axes=None)`: the inverse of `fftshift`.
#[pyfunction]
#[pyo3(signature = (x, axes=None))]
fn ifftshift(x: Arg, axes: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
    let axes = axes_of(axes)?;
    guard(|| Ok(Array(f::ifftshift(x.operand(), axes.as_deref()))))
}

/// Adds `_oxla.fft` to the extension module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let sub = PyModule::new(m.py(), "fft")?;
    for f in [
        wrap_pyfunction!(fft, &sub)?,
        wrap_pyfunction!(ifft, &sub)?,
        wrap_pyfunction!(rfft, &sub)?,
        wrap_pyfunction!(irfft, &sub)?,
        wrap_pyfunction!(hfft, &sub)?,
        wrap_pyfunction!(ihfft, &sub)?,
        wrap_pyfunction!(fftn, &sub)?,
        wrap_pyfunction!(ifftn, &sub)?,
        wrap_pyfunction!(rfftn, &sub)?,
        wrap_pyfunction!(irfftn, &sub)?,
        wrap_pyfunction!(fft2, &sub)?,
        wrap_pyfunction!(ifft2, &sub)?,
        wrap_pyfunction!(rfft2, &sub)?,
        wrap_pyfunction!(irfft2, &sub)?,
        wrap_pyfunction!(fftfreq, &sub)?,
        wrap_pyfunction!(rfftfreq, &sub)?,
        wrap_pyfunction!(fftshift, &sub)?,
        wrap_pyfunction!(ifftshift, &sub)?,
    ] {
        sub.add_function(f)?;
    }
    m.add_submodule(&sub)
}
