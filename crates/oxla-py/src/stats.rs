//! numpy's statistics (`var`, `quantile`, `cov`, ...), bound for Python in the `_oxla.stats`
//! submodule; its other reductions over an axis are in `stats_reduce.rs`, its sorting and
//! searching functions in `stats_sort.rs`, `take` in `stats_take.rs`, its set functions in
//! `stats_sets.rs`, its histograms and index helpers in `stats_index.rs`.

use oxla::numpy::{self as jnp, Axis, Operand};
use oxla::Tensor;
use pyo3::exceptions::{PyNotImplementedError, PyValueError};
use pyo3::prelude::*;

use crate::array::Array;
use crate::convert::{axis_of, dtype_arg, Arg};
use crate::errors::guard;

/// A `NotImplementedError` for an argument of JAX's `name` that oxla cannot honour yet.
pub(crate) fn unsupported(name: &str, what: &str) -> PyErr {
    PyNotImplementedError::new_err(format!("oxla's jnp.{name} does not take {what} yet"))
}

/// Refuses those of `args` that are given (not `None`): oxla's `name` cannot honour them.
pub(crate) fn refuse(name: &str, args: &[(&str, Option<&Bound<'_, PyAny>>)]) -> PyResult<()> {
    match args.iter().find(|(_, v)| v.is_some_and(|v| !v.is_none())) {
        Some((arg, _)) => Err(unsupported(name, &format!("{arg}="))),
        None => Ok(()),
    }
}

/// Checks a `method=` that only chooses JAX's algorithm (every choice gives the same result).
pub(crate) fn check_method(name: &str, method: &str, known: &[&str]) -> PyResult<()> {
    if known.contains(&method) {
        Ok(())
    } else {
        Err(PyValueError::new_err(format!(
            "jnp.{name}: method must be one of {known:?}, got {method:?}"
        )))
    }
}

/// `a` as an operand, converted to `dtype` when one is given.
pub(crate) fn with_dtype(
    py: Python<'_>,
    a: &Arg,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Operand> {
    Ok(match dtype_arg(py, dtype)? {
        Some(d) => Operand::from(guard(|| Ok(a.operand().into_tensor().astype(d)))?),
        None => a.operand(),
    })
}

/// The tensor of an optional array argument.
pub(crate) fn opt_tensor(a: Option<Arg>) -> Option<Tensor> {
    a.map(|a| a.operand().into_tensor())
}

/// `var`, `std`, `nanvar`, `nanstd`: a moment over `axis` normalised by `n - ddof`.
#[pyclass(frozen, module = "oxla.numpy")]
struct Moment {
    #[pyo3(get)]
    __name__: &'static str,
    f: fn(Operand, Axis, usize) -> Tensor,
}

#[pymethods]
impl Moment {
    /// JAX's `var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
    /// mean=None, correction=None)` (`correction` is `ddof`'s array-API name).
    #[pyo3(signature = (a, axis=None, dtype=None, out=None, ddof=0, keepdims=false, *,
                        r#where=None, mean=None, correction=None))]
    #[allow(clippy::too_many_arguments)]
    fn __call__(
        &self,
        py: Python<'_>,
        a: Arg,
        axis: Option<&Bound<'_, PyAny>>,
        dtype: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        ddof: usize,
        keepdims: bool,
        r#where: Option<&Bound<'_, PyAny>>,
        mean: Option<&Bound<'_, PyAny>>,
        correction: Option<usize>,
    ) -> PyResult<Array> {
        refuse(
            self.__name__,
            &[("out", out), ("where", r#where), ("mean", mean)],
        )?;
        if correction.is_some() && ddof != 0 {
            return Err(PyValueError::new_err(
                "ddof and correction can't both be specified",
            ));
        }
        let axis = axis_of(axis, keepdims)?;
        let a = with_dtype(py, &a, dtype)?;
        guard(|| Ok(Array((self.f)(a, axis, correction.unwrap_or(ddof)))))
    }

    /// `repr()`: the function's name, as JAX's.
    fn __repr__(&self) -> String {
        format!("<function oxla.numpy.{}>", self.__name__)
    }
}

/// `quantile`, `percentile`, `nanquantile`, `nanpercentile`: order statistics over `axis`.
#[pyclass(frozen, module = "oxla.numpy")]
struct Quantile {
    #[pyo3(get)]
    __name__: &'static str,
    f: fn(Operand, Operand, Axis, &str) -> Tensor,
}

#[pymethods]
impl Quantile {
    /// JAX's `quantile(a, q, axis=None, out=None, overwrite_input=False, method='linear',
    /// keepdims=False, *, weights=None)`.
    #[pyo3(signature = (a, q, axis=None, out=None, overwrite_input=false, method="linear",
                        keepdims=false, *, weights=None))]
    #[allow(clippy::too_many_arguments)]
    fn __call__(
        &self,
        a: Arg,
        q: Arg,
        axis: Option<&Bound<'_, PyAny>>,
        out: Option<&Bound<'_, PyAny>>,
        overwrite_input: bool,
        method: &str,
        keepdims: bool,
        weights: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Array> {
        if overwrite_input || out.is_some_and(|o| !o.is_none()) {
            return Err(PyValueError::new_err(format!(
                "jnp.{} does not support overwrite_input=True or out != None",
                self.__name__
            )));
        }
        refuse(self.__name__, &[("weights", weights)])?;
        let axis = axis_of(axis, keepdims)?;
        guard(|| Ok(Array((self.f)(a.operand(), q.operand(), axis, method))))
    }

    /// `repr()`: the function's name, as JAX's.
    fn __repr__(&self) -> String {
        format!("<function oxla.numpy.{}>", self.__name__)
    }
}

/// `jnp.average(a, axis=None, weights=None, returned=False, keepdims=False)`: the mean
/// weighted by `weights` (of `a`'s shape or of its reduced axes); `returned` adds the sum
/// of the weights, broadcast to the mean's shape.
#[pyfunction]
#[pyo3(signature = (a, axis=None, weights=None, returned=false, keepdims=false))]
fn average(
    py: Python<'_>,
    a: Arg,
    axis: Option<&Bound<'_, PyAny>>,
    weights: Option<Arg>,
    returned: bool,
    keepdims: bool,
) -> PyResult<PyObject> {
    let axis = axis_of(axis, keepdims)?;
    let a = a.operand().into_tensor();
    let w = opt_tensor(weights);
    let (avg, total) = guard(|| {
        let avg = jnp::average(&a, axis.clone(), w.as_ref());
        if !returned {
            return Ok((avg, None));
        }
        let total = match &w {
            None => jnp::sum(jnp::ones_like(&a), axis),
            Some(w) if w.shape() == a.shape() => jnp::sum(w, axis),
            // Weights along the reduced axes: the same total everywhere.
            Some(w) => jnp::broadcast_to(jnp::sum(w, None), avg.shape()),
        };
        let total = total.astype(avg.dtype());
        Ok((avg, Some(total)))
    })?;
    match total {
        None => Ok(Array(avg).into_pyobject(py)?.into_any().unbind()),
        Some(t) => Ok((Array(avg), Array(t))
            .into_pyobject(py)?
            .into_any()
            .unbind()),
    }
}

/// `jnp.cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
/// dtype=None)`: the covariance matrix of the variables in `m`'s rows (and `y`'s).
#[pyfunction]
#[pyo3(signature = (m, y=None, rowvar=true, bias=false, ddof=None, fweights=None,
                    aweights=None, dtype=None))]
#[allow(clippy::too_many_arguments)]
fn cov(
    py: Python<'_>,
    m: Arg,
    y: Option<Arg>,
    rowvar: bool,
    bias: bool,
    ddof: Option<usize>,
    fweights: Option<&Bound<'_, PyAny>>,
    aweights: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    refuse("cov", &[("fweights", fweights), ("aweights", aweights)])?;
    let m = with_dtype(py, &m, dtype)?;
    let y = opt_tensor(y);
    guard(|| Ok(Array(jnp::cov(m, y.as_ref(), rowvar, bias, ddof))))
}

/// `jnp.corrcoef(x, y=None, rowvar=True, dtype=None)`: the correlation coefficients of the
/// variables in `x`'s rows (and `y`'s).
#[pyfunction]
#[pyo3(signature = (x, y=None, rowvar=true, dtype=None))]
fn corrcoef(
    py: Python<'_>,
    x: Arg,
    y: Option<Arg>,
    rowvar: bool,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let x = with_dtype(py, &x, dtype)?;
    let y = opt_tensor(y);
    guard(|| Ok(Array(jnp::corrcoef(x, y.as_ref(), rowvar))))
}

/// `cumulative_sum`, `cumulative_prod`: running sums or products along `axis` (`None`
/// for a vector), led by the identity on request.
#[pyclass(frozen, module = "oxla.numpy")]
struct Cumulative {
    #[pyo3(get)]
    __name__: &'static str,
    f: Running,
}

/// A running reduction: the operand, its axis, whether the identity leads.
type Running = fn(Operand, Option<isize>, bool) -> Tensor;

#[pymethods]
impl Cumulative {
    /// JAX's `cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False)`.
    #[pyo3(signature = (x, /, *, axis=None, dtype=None, include_initial=false))]
    fn __call__(
        &self,
        py: Python<'_>,
        x: Arg,
        axis: Option<isize>,
        dtype: Option<&Bound<'_, PyAny>>,
        include_initial: bool,
    ) -> PyResult<Array> {
        let x = with_dtype(py, &x, dtype)?;
        guard(|| Ok(Array((self.f)(x, axis, include_initial))))
    }

    /// `repr()`: the function's name, as JAX's.
    fn __repr__(&self) -> String {
        format!("<function oxla.numpy.{}>", self.__name__)
    }
}

/// `size=`, or (when `None`) how many elements of `x` are nonzero, from its concrete
/// values: the length of a data-dependent result.
pub(crate) fn size_or_count(x: &Tensor, size: Option<usize>) -> usize {
    size.unwrap_or_else(|| jnp::count_nonzero(x, None).item() as usize)
}

/// Adds the `stats` submodule: this family's functions by JAX's names.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let sub = PyModule::new(py, "stats")?;
    let moments = [
        Moment {
            __name__: "var",
            f: |x, a, d| jnp::var(x, a, d),
        },
        Moment {
            __name__: "std",
            f: |x, a, d| jnp::std(x, a, d),
        },
        Moment {
            __name__: "nanvar",
            f: |x, a, d| jnp::nanvar(x, a, d),
        },
        Moment {
            __name__: "nanstd",
            f: |x, a, d| jnp::nanstd(x, a, d),
        },
    ];
    for f in moments {
        sub.add(f.__name__, Bound::new(py, f)?)?;
    }
    let quantiles = [
        Quantile {
            __name__: "quantile",
            f: |x, q, a, m| jnp::quantile(x, q, a, m),
        },
        Quantile {
            __name__: "percentile",
            f: |x, q, a, m| jnp::percentile(x, q, a, m),
        },
        Quantile {
            __name__: "nanquantile",
            f: |x, q, a, m| jnp::nanquantile(x, q, a, m),
        },
        Quantile {
            __name__: "nanpercentile",
            f: |x, q, a, m| jnp::nanpercentile(x, q, a, m),
        },
    ];
    for f in quantiles {
        sub.add(f.__name__, Bound::new(py, f)?)?;
    }
    sub.add_function(wrap_pyfunction!(average, &sub)?)?;
    sub.add_function(wrap_pyfunction!(cov, &sub)?)?;
    sub.add_function(wrap_pyfunction!(corrcoef, &sub)?)?;
    let cumulative: [(&'static str, Running); 2] = [
        ("cumulative_sum", |x, a, i| jnp::cumulative_sum(x, a, i)),
        ("cumulative_prod", |x, a, i| jnp::cumulative_prod(x, a, i)),
    ];
    for (__name__, f) in cumulative {
        sub.add(__name__, Bound::new(py, Cumulative { __name__, f })?)?;
    }
    crate::stats_reduce::add(&sub)?;
    crate::stats_sort::add(&sub)?;
    crate::stats_take::add(&sub)?;
    crate::stats_sets::add(&sub)?;
    crate::stats_index::add(&sub)?;
    m.add_submodule(&sub)?;
    Ok(())
}
