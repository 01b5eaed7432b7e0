//! `oxla.numpy`'s functions of one array along an axis (`sort`, `cumsum`, `argmax`,
//! `squeeze`, ...), `oxla.lax`'s elementwise primitives, and a few functions of shapes.

use oxla::lax::RoundingMethod;
use oxla::numpy::{self as jnp, Axis, Operand};
use oxla::Tensor;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::array::Array;
use crate::convert::{axis_of, Arg};
use crate::errors::guard;

/// What a function does when `axis` is not given.
#[derive(Clone, Copy)]
enum Default {
    /// Every axis (`None`): flattened, or all reduced.
    All,
    /// The last axis.
    Last,
    /// `axis` must be given.
    Required,
}

/// Functions of one array along `axis`.
#[pyclass(frozen, module = "oxla.numpy")]
struct OnAxis {
    #[pyo3(get)]
    __name__: &'static str,
    f: fn(Operand, Axis) -> Tensor,
    default: Default,
}

#[pymethods]
impl OnAxis {
    /// `f(a, axis)`; `keepdims` keeps a reduced axis as size 1 (`argmax`, `argmin`).
    #[pyo3(signature = (a, axis=None, keepdims=false))]
    fn __call__(&self, a: Arg, axis: Option<&Bound<'_, PyAny>>, keepdims: bool) -> PyResult<Array> {
        let axis = match (axis, self.default) {
            (Some(a), _) => axis_of(Some(a), keepdims)?,
            (None, Default::All) => axis_of(None, keepdims)?,
            (None, Default::Last) => Axis::from(-1isize),
            (None, Default::Required) => {
                return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                    "{}() missing required argument 'axis'",
                    self.__name__
                )))
            }
        };
        guard(|| Ok(Array((self.f)(a.operand(), axis))))
    }

    fn __repr__(&self) -> String {
        format!("<function oxla.numpy.{}>", self.__name__)
    }
}

macro_rules! on_axis {
    ($($name:ident: $default:ident),* $(,)?) => {
        [$(OnAxis {
            __name__: stringify!($name),
            f: |x, a| jnp::$name(x, a),
            default: Default::$default,
        }),*]
    };
}

/// `oxla.lax`'s elementwise primitives of one array (operands of one dtype, no promotion).
#[pyclass(frozen, module = "oxla.lax")]
struct LaxUnary {
    #[pyo3(get)]
    __name__: &'static str,
    f: fn(&Tensor) -> Tensor,
    /// `f` with JAX's `rounding_method` (`lax.round`'s), for the functions that take one.
    with_method: Option<fn(&Tensor, RoundingMethod) -> Tensor>,
}

#[pymethods]
impl LaxUnary {
    /// `f(x)`; `lax.round` also takes `rounding_method` (`lax.RoundingMethod`: 0 rounds
    /// halves away from zero, 1 to the even neighbour).
    #[pyo3(signature = (x, rounding_method=None))]
    fn __call__(&self, x: Arg, rounding_method: Option<i64>) -> PyResult<Array> {
        let x = x.operand().into_tensor();
        let Some(m) = rounding_method else {
            return guard(|| Ok(Array((self.f)(&x))));
        };
        let Some(g) = self.with_method else {
            return Err(PyTypeError::new_err(format!(
                "{}() got an unexpected keyword argument 'rounding_method'",
                self.__name__
            )));
        };
        let method = match m {
            0 => RoundingMethod::AwayFromZero,
            1 => RoundingMethod::ToNearestEven,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "unknown rounding_method {m}"
                )))
            }
        };
        guard(|| Ok(Array(g(&x, method))))
    }

    fn __repr__(&self) -> String {
        format!("<function oxla.lax.{}>", self.__name__)
    }
}

macro_rules! lax_unary {
    ($($name:ident),* $(,)?) => {
        [$(LaxUnary { __name__: stringify!($name), f: oxla::lax::$name, with_method: None }),*]
    };
}

/// The functions of the tables above, by name: `numpy` ones and `lax` ones.
#[pyfunction]
fn axis_functions(py: Python<'_>) -> PyResult<(Bound<'_, PyDict>, Bound<'_, PyDict>)> {
    let numpy = PyDict::new(py);
    for f in on_axis![
        argmax: All, argmin: All, cumsum: All, cumprod: All, sort: Last, squeeze: All,
        expand_dims: Required, flip: All, median: All, nanmax: All, nanmin: All,
        nansum: All, nanmean: All,
    ] {
        numpy.set_item(f.__name__, Bound::new(py, f)?)?;
    }
    let lax = PyDict::new(py);
    for f in lax_unary![
        neg,
        exp,
        log,
        log1p,
        sin,
        cos,
        tanh,
        logistic,
        sqrt,
        cbrt,
        rsqrt,
        abs,
        sign,
        floor,
        ceil,
        erf_inv,
        is_finite,
        erf,
        erfc,
        lgamma,
        digamma,
        tan,
        asin,
        acos,
        atan,
        sinh,
        cosh,
        asinh,
        acosh,
        atanh,
        expm1,
        exp2,
        square,
        stop_gradient,
    ] {
        lax.set_item(f.__name__, Bound::new(py, f)?)?;
    }
    let round = LaxUnary {
        __name__: "round",
        f: oxla::lax::round,
        with_method: Some(oxla::lax::round_with),
    };
    lax.set_item("round", Bound::new(py, round)?)?;
    Ok((numpy, lax))
}

/// `jnp.broadcast_to(x, shape)`.
#[pyfunction]
fn broadcast_to(x: Arg, shape: Vec<usize>) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::broadcast_to(x.operand(), &shape))))
}

/// `jnp.pad` with constant values: `widths` one `(before, after)` per axis.
#[pyfunction]
fn pad_constant(x: Arg, widths: Vec<(usize, usize)>, value: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::pad(x.operand(), &widths, value.operand()))))
}

/// `jnp.clip(x, lo, hi)` with both bounds.
#[pyfunction]
fn clip(x: Arg, lo: Arg, hi: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::clip(x.operand(), lo.operand(), hi.operand()))))
}

/// `jax.random.bits(key, shape=(), dtype=None)`: raw `uint32` draws.
#[pyfunction]
#[pyo3(signature = (key, shape=vec![], dtype=None))]
fn bits(
    py: Python<'_>,
    key: Arg,
    shape: Vec<usize>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    crate::convert::only_dtype(py, "random.bits", dtype, oxla::DType::U32)?;
    guard(|| {
        Ok(Array(oxla::random::bits(
            &key.operand().into_tensor(),
            &shape,
        )))
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(axis_functions, m)?)?;
    m.add_function(wrap_pyfunction!(broadcast_to, m)?)?;
    m.add_function(wrap_pyfunction!(pad_constant, m)?)?;
    m.add_function(wrap_pyfunction!(clip, m)?)?;
    m.add_function(wrap_pyfunction!(bits, m)?)?;
    Ok(())
}
