//! `_oxla.lax_ops`: `oxla.lax`'s functions beyond the one-array table (binary elementwise
//! primitives, reductions, `argmax`/`argmin`, `clamp`, `round`, `reduce_precision`), with
//! the families in `lax_cumulative.rs`, `lax_structural.rs`, `lax_conv.rs`, `lax_nn.rs`
//! and `lax_random.rs` registered in the same submodule.

use oxla::lax;
use oxla::{DType, Tensor};
use pyo3::exceptions::{PyNotImplementedError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::array::Array;
use crate::convert::{dtype_of, tensor, Arg};
use crate::errors::guard;

/// An operand of a lax function as a tensor: a weakly typed Python scalar takes `like`'s
/// dtype when its kind fits it (as JAX's `lax.add(x, 1.0)` for a float `x`; a float scalar
/// with an integer array is JAX's dtype error), anything else keeps its own.
pub(crate) fn tensor_like(x: &Arg, like: Option<&Tensor>) -> PyResult<Tensor> {
    let (rank, like) = match (x, like) {
        (Arg::Array(t), _) => return Ok(t.clone()),
        (_, None) => return Ok(x.operand().into_tensor()),
        (Arg::Bool(_), Some(l)) => (0, l),
        (Arg::Int(_), Some(l)) => (1, l),
        (Arg::Float(_), Some(l)) => (2, l),
    };
    let d = like.dtype();
    let fits = match rank {
        0 => true,
        1 => d != DType::Bool,
        _ => d.is_float() || d.is_complex(),
    };
    if !fits {
        return Err(PyTypeError::new_err(format!(
            "lax operations require arguments of the same dtype: a Python {} with {}",
            ["bool", "int", "float"][rank],
            d.numpy_name()
        )));
    }
    Ok(x.operand().to_tensor(d))
}

/// The first array among `xs`, which weakly typed scalars follow.
pub(crate) fn first_array(xs: &[&Arg]) -> Option<Tensor> {
    xs.iter().find_map(|x| match x {
        Arg::Array(t) => Some(t.clone()),
        _ => None,
    })
}

/// `axis` of an array of rank `ndim`, counted from the end when negative.
pub(crate) fn axis_in(axis: isize, ndim: usize) -> PyResult<usize> {
    let n = ndim as isize;
    if axis < -n || axis >= n {
        return Err(PyValueError::new_err(format!(
            "axis {axis} is out of bounds for an array of rank {ndim}"
        )));
    }
    Ok(if axis < 0 { axis + n } else { axis } as usize)
}

/// `axis` of an array of rank `ndim` for the lax functions that, as XLA's operations, take
/// no negative axis.
pub(crate) fn axis_nonneg(axis: isize, ndim: usize) -> PyResult<usize> {
    if axis < 0 {
        return Err(PyValueError::new_err(format!(
            "XLA operations do not allow negative axes, got {axis}"
        )));
    }
    axis_in(axis, ndim)
}

/// An error for a JAX argument oxla does not honour.
pub(crate) fn unsupported(what: &str) -> PyErr {
    PyNotImplementedError::new_err(format!("oxla does not support {what} yet"))
}

/// `oxla.lax`'s elementwise primitives of two arrays (one dtype; a Python scalar takes the
/// other operand's).
#[pyclass(frozen, module = "oxla.lax")]
pub(crate) struct LaxBinary {
    #[pyo3(get)]
    pub(crate) __name__: &'static str,
    f: fn(&Tensor, &Tensor) -> Tensor,
}

#[pymethods]
impl LaxBinary {
    fn __call__(&self, x: Arg, y: Arg) -> PyResult<Array> {
        let like = first_array(&[&x, &y]);
        let (x, y) = (
            tensor_like(&x, like.as_ref())?,
            tensor_like(&y, like.as_ref())?,
        );
        guard(|| Ok(Array((self.f)(&x, &y))))
    }

    fn __repr__(&self) -> String {
        format!("<function oxla.lax.{}>", self.__name__)
    }
}

macro_rules! lax_binary {
    ($($name:ident),* $(,)?) => {
        [$(LaxBinary { __name__: stringify!($name), f: lax::$name }),*]
    };
}

/// `oxla.lax`'s functions of one array beyond the elementwise table of `axes.rs`: the bit
/// operations (integer operands) and `reciprocal`.
#[pyclass(frozen, module = "oxla.lax")]
struct LaxUnaryMore {
    #[pyo3(get)]
    __name__: &'static str,
    f: fn(&Tensor) -> Tensor,
}

#[pymethods]
impl LaxUnaryMore {
    fn __call__(&self, x: Arg) -> PyResult<Array> {
        let x = tensor(&x);
        guard(|| Ok(Array((self.f)(&x))))
    }

    fn __repr__(&self) -> String {
        format!("<function oxla.lax.{}>", self.__name__)
    }
}

/// `oxla.lax`'s reductions over `axes` (`reduce_sum(x, axes)`, ...).
#[pyclass(frozen, module = "oxla.lax")]
struct LaxReduction {
    #[pyo3(get)]
    __name__: &'static str,
    f: fn(&Tensor, &[usize]) -> Tensor,
}

#[pymethods]
impl LaxReduction {
    fn __call__(&self, operand: Arg, axes: Vec<isize>) -> PyResult<Array> {
        let x = tensor(&operand);
        let axes = axes
            .iter()
            .map(|&a| axis_nonneg(a, x.ndim()))
            .collect::<PyResult<Vec<usize>>>()?;
        guard(|| Ok(Array((self.f)(&x, &axes))))
    }

    fn __repr__(&self) -> String {
        format!("<function oxla.lax.{}>", self.__name__)
    }
}

macro_rules! lax_reduction {
    ($($name:ident),* $(,)?) => {
        [$(LaxReduction { __name__: stringify!($name), f: lax::$name }),*]
    };
}

/// The binary primitives and reductions of the tables above, by name.
#[pyfunction]
fn table_functions(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for f in lax_binary![
        add,
        sub,
        mul,
        div,
        rem,
        pow,
        max,
        min,
        nextafter,
        eq,
        ne,
        lt,
        le,
        gt,
        ge,
        atan2,
        shift_left,
        shift_right_logical,
        shift_right_arithmetic,
        bitwise_and,
        bitwise_or,
        bitwise_xor,
    ] {
        d.set_item(f.__name__, Bound::new(py, f)?)?;
    }
    for f in [
        ("reciprocal", lax::reciprocal as fn(&Tensor) -> Tensor),
        ("population_count", lax::population_count),
        ("clz", lax::clz),
        ("bitwise_not", lax::bitwise_not),
    ] {
        let f = LaxUnaryMore {
            __name__: f.0,
            f: f.1,
        };
        d.set_item(f.__name__, Bound::new(py, f)?)?;
    }
    for f in lax_reduction![
        reduce_sum,
        reduce_prod,
        reduce_max,
        reduce_min,
        reduce_and,
        reduce_or
    ] {
        d.set_item(f.__name__, Bound::new(py, f)?)?;
    }
    Ok(d)
}

/// `lax.argmax(operand, axis, index_dtype)` and `lax.argmin`: the index of the first
/// extremum along `axis`.
#[pyfunction]
fn arg_extremum(
    py: Python<'_>,
    max: bool,
    operand: Arg,
    axis: isize,
    index_dtype: &Bound<'_, PyAny>,
) -> PyResult<Array> {
    let x = tensor(&operand);
    let axis = axis_nonneg(axis, x.ndim())?;
    let d = dtype_of(py, index_dtype)?;
    guard(|| {
        Ok(Array(if max {
            lax::argmax(&x, axis, d)
        } else {
            lax::argmin(&x, axis, d)
        }))
    })
}

/// `lax.clamp(min, x, max)`: `x` limited to `[min, max]` (scalars or arrays of `x`'s shape).
#[pyfunction]
fn clamp(min: Arg, x: Arg, max: Arg) -> PyResult<Array> {
    let like = first_array(&[&x, &min, &max]);
    let like = like.as_ref();
    let (lo, x, hi) = (
        tensor_like(&min, like)?,
        tensor_like(&x, like)?,
        tensor_like(&max, like)?,
    );
    guard(|| Ok(Array(lax::clamp(&lo, &x, &hi))))
}

/// `lax.reduce_precision(operand, exponent_bits, mantissa_bits)`: `operand` rounded to a
/// float format with those bits, in its own dtype.
#[pyfunction]
fn reduce_precision(operand: Arg, exponent_bits: u32, mantissa_bits: u32) -> PyResult<Array> {
    let x = match operand {
        Arg::Float(_) | Arg::Int(_) => operand.operand().to_tensor(crate::convert::default_float()),
        _ => tensor(&operand),
    };
    guard(|| {
        Ok(Array(lax::reduce_precision(
            &x,
            exponent_bits,
            mantissa_bits,
        )))
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let sub = PyModule::new(m.py(), "lax_ops")?;
    sub.add_function(wrap_pyfunction!(table_functions, &sub)?)?;
    sub.add_function(wrap_pyfunction!(arg_extremum, &sub)?)?;
    sub.add_function(wrap_pyfunction!(clamp, &sub)?)?;
    sub.add_function(wrap_pyfunction!(reduce_precision, &sub)?)?;
    crate::lax_cumulative::register(&sub)?;
    crate::lax_structural::register(&sub)?;
    crate::lax_conv::register(&sub)?;
    crate::lax_nn::register(&sub)?;
    crate::lax_random::register(&sub)?;
    m.add_submodule(&sub)?;
    Ok(())
}
