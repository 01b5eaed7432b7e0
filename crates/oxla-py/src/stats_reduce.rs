//! numpy's reductions and scans over an axis with JAX's own further parameters (`ptp`,
//! `nanprod`, `nanargmax`, `nancumsum`, ...), in the `_oxla.stats` submodule.

use oxla::numpy::{self as jnp, Axis, Operand};
use oxla::Tensor;
use pyo3::exceptions::{PyNotImplementedError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::array::Array;
use crate::convert::{axis_of, Arg};
use crate::errors::guard;
use crate::stats::{refuse, with_dtype};

/// A function of one array over `axis`, taking JAX's parameters after `(a, axis)`:
/// `dtype` (the input converted first), `out` (refused, as in JAX), `keepdims`,
/// `overwrite_input` (`True` refused, as in JAX), `initial` and `where` (not supported yet).
#[pyclass(frozen, module = "oxla.numpy")]
struct Reduce {
    #[pyo3(get)]
    __name__: &'static str,
    f: fn(Operand, Axis) -> Tensor,
    params: &'static [&'static str],
}

impl Reduce {
    /// The values of `self.params` given positionally (`args`) or by keyword.
    fn bind<'py>(
        &self,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Vec<Option<Bound<'py, PyAny>>>> {
        let name = self.__name__;
        if args.len() > self.params.len() {
            return Err(PyTypeError::new_err(format!(
                "{name}() takes at most {} positional arguments ({} given)",
                self.params.len() + 2,
                args.len() + 2
            )));
        }
        let mut got: Vec<Option<Bound<'py, PyAny>>> = vec![None; self.params.len()];
        for (slot, v) in got.iter_mut().zip(args.iter()) {
            *slot = Some(v);
        }
        for (k, v) in kwargs.into_iter().flatten() {
            let k: String = k.extract()?;
            let Some(i) = self.params.iter().position(|p| *p == k) else {
                return Err(PyTypeError::new_err(format!(
                    "{name}() got an unexpected keyword argument '{k}'"
                )));
            };
            if got[i].is_some() {
                return Err(PyTypeError::new_err(format!(
                    "{name}() got multiple values for argument '{k}'"
                )));
            }
            got[i] = Some(v);
        }
        Ok(got)
    }
}

#[pymethods]
impl Reduce {
    /// `f(a, axis, ...)` with the row's further parameters.
    #[pyo3(signature = (a, axis=None, *args, **kwargs))]
    fn __call__(
        &self,
        py: Python<'_>,
        a: Arg,
        axis: Option<&Bound<'_, PyAny>>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Array> {
        let name = self.__name__;
        let got = self.bind(args, kwargs)?;
        let arg = |p: &str| {
            self.params
                .iter()
                .position(|q| *q == p)
                .and_then(|i| got[i].clone())
                .filter(|v| !v.is_none())
        };
        if arg("out").is_some() {
            return Err(PyNotImplementedError::new_err(format!(
                "The 'out' argument to jnp.{name} is not supported."
            )));
        }
        if arg("overwrite_input").map_or(Ok(false), |v| v.is_truthy())? {
            return Err(PyValueError::new_err(format!(
                "jnp.{name} does not support overwrite_input=True"
            )));
        }
        refuse(
            name,
            &[
                ("initial", arg("initial").as_ref()),
                ("where", arg("where").as_ref()),
            ],
        )?;
        let keepdims = arg("keepdims").map_or(Ok(false), |v| v.is_truthy())?;
        let axis = axis_of(axis, keepdims)?;
        let a = with_dtype(py, &a, arg("dtype").as_ref())?;
        guard(|| Ok(Array((self.f)(a, axis))))
    }

    /// `repr()`: the function's name, as JAX's.
    fn __repr__(&self) -> String {
        format!("<function oxla.numpy.{}>", self.__name__)
    }
}

/// The rows: JAX's name, then its parameters after `(a, axis)`.
macro_rules! reduce {
    ($($name:ident: [$($param:literal),*]),* $(,)?) => {
        [$(Reduce {
            __name__: stringify!($name),
            f: |x, a| jnp::$name(x, a),
            params: &[$($param),*],
        }),*]
    };
}

/// Adds this file's functions to the `stats` submodule.
pub(crate) fn add(sub: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = sub.py();
    for f in reduce![
        ptp: ["out", "keepdims"],
        count_nonzero: ["keepdims"],
        nanprod: ["dtype", "out", "keepdims", "initial", "where"],
        nanmedian: ["out", "overwrite_input", "keepdims"],
        nanargmax: ["out", "keepdims"],
        nanargmin: ["out", "keepdims"],
        nancumsum: ["dtype", "out"],
        nancumprod: ["dtype", "out"],
    ] {
        sub.add(f.__name__, Bound::new(py, f)?)?;
    }
    Ok(())
}
