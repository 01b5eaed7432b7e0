//! Polynomials (`polyval` ... `vander`), windows (`hamming`, `kaiser`, ...), sampled
//! calculus (`trapezoid`, `gradient`, `unwrap`), array equality and the spaced sequences
//! (`geomspace`, `logspace`, `fromfunction`), for the `shape` submodule.

use oxla::numpy as jnp;
use oxla::Tensor;
use pyo3::exceptions::PyNotImplementedError;
use pyo3::prelude::*;
use pyo3::IntoPyObjectExt;

use crate::array::Array;
use crate::convert::{default_float, dtype_arg, Arg};
use crate::errors::{guard, raise};

/// `t` in `dtype` (canonicalised: 32-bit unless x64 is on) when one is given.
fn in_dtype(py: Python<'_>, t: Tensor, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<Tensor> {
    Ok(crate::shape_diag::in_dtype(
        t,
        dtype_arg(py, dtype)?.map(|d| d.canonical()),
    ))
}

/// `jnp.polyval(p, x, *, unroll=16)`: the polynomial `p` (highest power first) at `x`.
#[pyfunction]
#[pyo3(signature = (p, x, *, unroll=16))]
fn polyval(p: Arg, x: Arg, unroll: usize) -> PyResult<Array> {
    let _ = unroll;
    guard(|| Ok(Array(jnp::polyval(p.operand(), x.operand()))))
}

/// `jnp.polyadd(a1, a2)`: the sum of two polynomials.
#[pyfunction]
fn polyadd(a1: Arg, a2: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::polyadd(a1.operand(), a2.operand()))))
}

/// `jnp.polysub(a1, a2)`: the difference of two polynomials.
#[pyfunction]
fn polysub(a1: Arg, a2: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::polysub(a1.operand(), a2.operand()))))
}

/// `jnp.polymul(a1, a2, *, trim_leading_zeros=False)`: the product of two polynomials.
#[pyfunction]
#[pyo3(signature = (a1, a2, *, trim_leading_zeros=false))]
fn polymul(a1: Arg, a2: Arg, trim_leading_zeros: bool) -> PyResult<Array> {
    if trim_leading_zeros {
        return Err(PyNotImplementedError::new_err(
            "oxla's polymul takes trim_leading_zeros=False for now",
        ));
    }
    guard(|| Ok(Array(jnp::polymul(a1.operand(), a2.operand()))))
}

/// `jnp.polyder(p, m=1)`: the `m`-th derivative of a polynomial.
#[pyfunction]
#[pyo3(signature = (p, m=1))]
fn polyder(p: Arg, m: usize) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::polyder(p.operand(), m))))
}

/// `jnp.polyint(p, m=1, k=None)`: the `m`-th antiderivative, with integration constants `k`
/// (concrete: one for all, or `m` of them).
#[pyfunction]
#[pyo3(signature = (p, m=1, k=None))]
fn polyint(py: Python<'_>, p: Arg, m: usize, k: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
    let k: Option<Vec<f64>> = match k {
        Some(k) if !k.is_none() => Some(
            py.import("numpy")?
                .call_method1("asarray", (k, "float64"))?
                .call_method0("ravel")?
                .call_method0("tolist")?
                .extract()?,
        ),
        _ => None,
    };
    guard(|| Ok(Array(jnp::polyint(p.operand(), m, k.as_deref()))))
}

/// `jnp.poly(seq_of_zeros)`: the monic polynomial with these roots.
#[pyfunction]
fn poly(seq_of_zeros: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::poly(seq_of_zeros.operand()))))
}

/// `jnp.vander(x, N=None, increasing=False)`: the Vandermonde matrix of the powers of `x`.
#[pyfunction]
#[pyo3(signature = (x, N=None, increasing=false))]
#[allow(non_snake_case)]
fn vander(x: Arg, N: Option<usize>, increasing: bool) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::vander(x.operand(), N, increasing))))
}

macro_rules! windows {
    ($($name:ident),* $(,)?) => {
        $(
            #[doc = concat!("`jnp.", stringify!($name), "(M)`: the ", stringify!($name),
                            " window of `M` points.")]
            #[pyfunction]
            #[allow(non_snake_case)]
            fn $name(M: usize) -> PyResult<Array> {
                guard(|| Ok(Array(jnp::$name(M))))
            }
        )*
    };
}

windows![bartlett, blackman, hamming, hanning];

/// `jnp.kaiser(M, beta)`: the Kaiser window of `M` points with shape `beta`.
#[pyfunction]
#[allow(non_snake_case)]
fn kaiser(M: usize, beta: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::kaiser(M, beta.operand()))))
}

/// `jnp.trapezoid(y, x=None, dx=1.0, axis=-1)`: the integral of samples `y` by the
/// trapezoidal rule (at points `x`, else spaced `dx`).
#[pyfunction]
#[pyo3(signature = (y, x=None, dx=1.0, axis=-1))]
fn trapezoid(y: Arg, x: Option<Arg>, dx: f64, axis: isize) -> PyResult<Array> {
    guard(|| {
        let x = x.map(|x| x.operand().into_tensor());
        Ok(Array(jnp::trapezoid(y.operand(), x.as_ref(), dx, axis)))
    })
}

/// `jnp.gradient(f, *varargs, axis=None, edge_order=None)`: central differences along each
/// axis (scalar spacings `varargs`); one array for one axis, else a list.
#[pyfunction]
#[pyo3(signature = (f, *varargs, axis=None, edge_order=None))]
fn gradient(
    py: Python<'_>,
    f: Arg,
    varargs: Vec<f64>,
    axis: Option<&Bound<'_, PyAny>>,
    edge_order: Option<usize>,
) -> PyResult<PyObject> {
    if edge_order.is_some() {
        return Err(PyNotImplementedError::new_err(
            "The 'edge_order' argument to jnp.gradient is not supported.",
        ));
    }
    let axes: Option<Vec<isize>> = match axis {
        Some(a) if !a.is_none() => Some(match a.extract::<isize>() {
            Ok(i) => vec![i],
            Err(_) => a.extract()?,
        }),
        _ => None,
    };
    let mut out = guard(|| Ok(jnp::gradient(f.operand(), &varargs, axes.as_deref())))?;
    if out.len() == 1 {
        Array(out.remove(0)).into_py_any(py)
    } else {
        out.into_iter()
            .map(Array)
            .collect::<Vec<_>>()
            .into_py_any(py)
    }
}

/// `jnp.unwrap(p, discont=None, axis=-1, period=2*pi)`: `p` with jumps above `discont`
/// along `axis` taken back by multiples of `period`.
#[pyfunction]
#[pyo3(signature = (p, discont=None, axis=-1, period=std::f64::consts::TAU))]
fn unwrap(p: Arg, discont: Option<f64>, axis: isize, period: f64) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::unwrap(p.operand(), discont, axis, period))))
}

/// `jnp.array_equal(a1, a2, equal_nan=False)`: same shape and elements.
#[pyfunction]
#[pyo3(signature = (a1, a2, equal_nan=false))]
fn array_equal(a1: Arg, a2: Arg, equal_nan: bool) -> PyResult<Array> {
    guard(|| {
        Ok(Array(jnp::array_equal(
            a1.operand(),
            a2.operand(),
            equal_nan,
        )))
    })
}

/// `jnp.array_equiv(a1, a2)`: equal elements once broadcast together.
#[pyfunction]
fn array_equiv(a1: Arg, a2: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::array_equiv(a1.operand(), a2.operand()))))
}

/// `jnp.geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0)`: a geometric
/// progression from `start` to `stop`.
#[pyfunction]
#[pyo3(signature = (start, stop, num=50, endpoint=true, dtype=None, axis=0))]
fn geomspace(
    py: Python<'_>,
    start: Arg,
    stop: Arg,
    num: usize,
    endpoint: bool,
    dtype: Option<&Bound<'_, PyAny>>,
    axis: isize,
) -> PyResult<Array> {
    let t = guard(|| {
        Ok(jnp::geomspace(
            start.operand(),
            stop.operand(),
            num,
            endpoint,
            axis,
        ))
    })?;
    Ok(Array(in_dtype(py, t, dtype)?))
}

/// `jnp.logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0)`:
/// `base` to the powers `linspace(start, stop)`.
#[pyfunction]
#[pyo3(signature = (start, stop, num=50, endpoint=true, base=10.0, dtype=None, axis=0))]
#[allow(clippy::too_many_arguments)]
fn logspace(
    py: Python<'_>,
    start: Arg,
    stop: Arg,
    num: usize,
    endpoint: bool,
    base: f64,
    dtype: Option<&Bound<'_, PyAny>>,
    axis: isize,
) -> PyResult<Array> {
    let t = guard(|| {
        Ok(jnp::logspace(
            start.operand(),
            stop.operand(),
            num,
            endpoint,
            base,
            axis,
        ))
    })?;
    Ok(Array(in_dtype(py, t, dtype)?))
}

/// `jnp.fromfunction(function, shape, dtype)`: `function` of the index grids of `shape`
/// (in `dtype`, canonicalised), called once on the whole grids.
#[pyfunction]
fn fromfunction(
    py: Python<'_>,
    function: &Bound<'_, PyAny>,
    shape: Vec<usize>,
    dtype: &Bound<'_, PyAny>,
) -> PyResult<Array> {
    let d = dtype_arg(py, Some(dtype))?.map_or_else(default_float, |d| d.canonical());
    guard(|| {
        let call = |grids: &[Tensor]| -> Tensor {
            let args: Vec<Array> = grids.iter().cloned().map(Array).collect();
            let out = pyo3::types::PyTuple::new(py, args)
                .and_then(|t| function.call1(t))
                .and_then(|r| r.extract::<Arg>());
            match out {
                Ok(a) => a.operand().into_tensor(),
                Err(e) => raise(e),
            }
        };
        Ok(Array(jnp::fromfunction(call, &shape, d)))
    })
}

/// Adds this file's functions to the `shape` submodule.
pub(crate) fn register(sub: &Bound<'_, PyModule>) -> PyResult<()> {
    sub.add_function(wrap_pyfunction!(polyval, sub)?)?;
    sub.add_function(wrap_pyfunction!(polyadd, sub)?)?;
    sub.add_function(wrap_pyfunction!(polysub, sub)?)?;
    sub.add_function(wrap_pyfunction!(polymul, sub)?)?;
    sub.add_function(wrap_pyfunction!(polyder, sub)?)?;
    sub.add_function(wrap_pyfunction!(polyint, sub)?)?;
    sub.add_function(wrap_pyfunction!(poly, sub)?)?;
    sub.add_function(wrap_pyfunction!(vander, sub)?)?;
    sub.add_function(wrap_pyfunction!(bartlett, sub)?)?;
    sub.add_function(wrap_pyfunction!(blackman, sub)?)?;
    sub.add_function(wrap_pyfunction!(hamming, sub)?)?;
    sub.add_function(wrap_pyfunction!(hanning, sub)?)?;
    sub.add_function(wrap_pyfunction!(kaiser, sub)?)?;
    sub.add_function(wrap_pyfunction!(trapezoid, sub)?)?;
    sub.add_function(wrap_pyfunction!(gradient, sub)?)?;
    sub.add_function(wrap_pyfunction!(unwrap, sub)?)?;
    sub.add_function(wrap_pyfunction!(array_equal, sub)?)?;
    sub.add_function(wrap_pyfunction!(array_equiv, sub)?)?;
    sub.add_function(wrap_pyfunction!(geomspace, sub)?)?;
    sub.add_function(wrap_pyfunction!(logspace, sub)?)?;
    sub.add_function(wrap_pyfunction!(fromfunction, sub)?)?;
    Ok(())
}
