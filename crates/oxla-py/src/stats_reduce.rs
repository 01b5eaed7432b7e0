//! numpy's reductions and scans over an axis with JAX's own further parameters (`ptp`,
//! `nanprod`, `nanargmax`, `nancumsum`, ...), in the `_oxla.stats` submodule.

use oxla::numpy::{self as jnp, Axis, Operand};
use oxla::Tensor;
use pyo3::exceptions::{PyNotImplementedError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::array::Array;
use crate::convert::{axis_of, Arg, Params};
use crate::errors::guard;
use crate::stats::{refuse, with_dtype};

/// A function of one array over `axis`, taking JAX's parameters after `(a, axis)`:
/// `dtype` (the input converted first), `out` (refused, as in JAX), `keepdims`,
/// `overwrite_input` (`True` refused, as in JAX), `initial` (joined to the result by
/// `initial`'s function, where the row has one) and `where` (not supported yet). numpy's
/// own reductions (`sum`, `max`, ...) are rows of this class too (`ops.rs`).
#[pyclass(frozen, module = "oxla.numpy")]
pub(crate) struct Reduce {
    #[pyo3(get)]
    pub(crate) __name__: &'static str,
    pub(crate) f: fn(Operand, Axis) -> Tensor,
    pub(crate) params: &'static [&'static str],
    /// How `initial` joins the result, as one more element (`None`: refused).
    pub(crate) initial: Option<fn(Operand, Operand) -> Tensor>,
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
        let params = Params::bind(name, 2, self.params, args, kwargs)?;
        let arg = |p: &str| params.get(p);
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
        let initial = match (arg("initial"), self.initial) {
            (Some(v), Some(join)) => Some((v.extract::<Arg>()?, join)),
            (v, _) => {
                refuse(name, &[("initial", v.as_ref())])?;
                None
            }
        };
        refuse(name, &[("where", arg("where").as_ref())])?;
        let keepdims = arg("keepdims").map_or(Ok(false), |v| v.is_truthy())?;
        let axis = axis_of(axis, keepdims)?;
        let a = with_dtype(py, &a, arg("dtype").as_ref())?;
        guard(|| {
            let out = (self.f)(a, axis);
            Ok(Array(match initial {
                Some((v, join)) => join(out.into(), v.operand()),
                None => out,
            }))
        })
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
            initial: None,
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
