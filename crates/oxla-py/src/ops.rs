//! `oxla.numpy`'s functions, from one table per argument pattern: adding a row adds the
//! Python function (the package's `numpy` module takes every entry of
//! `_oxla.numpy_functions()`).

use oxla::numpy::{self as jnp, Operand};
use oxla::Tensor;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::array::Array;
use crate::convert::{tensors, Arg};
use crate::errors::guard;
use crate::stats_reduce::Reduce;

/// Functions of one array.
#[pyclass(frozen, module = "oxla.numpy")]
struct Unary {
    #[pyo3(get)]
    __name__: &'static str,
    f: fn(Operand) -> Tensor,
}

#[pymethods]
impl Unary {
    fn __call__(&self, x: Arg) -> PyResult<Array> {
        guard(|| Ok(Array((self.f)(x.operand()))))
    }

    fn __repr__(&self) -> String {
        format!("<function oxla.numpy.{}>", self.__name__)
    }
}

/// Functions of two arrays (numpy's broadcasting, JAX's promotion).
#[pyclass(frozen, module = "oxla.numpy")]
struct Binary {
    #[pyo3(get)]
    __name__: &'static str,
    f: fn(Operand, Operand) -> Tensor,
}

#[pymethods]
impl Binary {
    fn __call__(&self, x: Arg, y: Arg) -> PyResult<Array> {
        guard(|| Ok(Array((self.f)(x.operand(), y.operand()))))
    }

    fn __repr__(&self) -> String {
        format!("<function oxla.numpy.{}>", self.__name__)
    }
}

macro_rules! unary {
    ($($name:ident),* $(,)?) => {
        [$(Unary { __name__: stringify!($name), f: |x| jnp::$name(x) }),*]
    };
}

macro_rules! binary {
    ($($name:ident $(as $py:literal)?),* $(,)?) => {
        [$(Binary { __name__: py_name!($($py,)? $name), f: |x, y| jnp::$name(x, y) }),*]
    };
}

/// A row's Python name: the one given (`mod_ as "mod"`), else the Rust one.
macro_rules! py_name {
    ($py:literal, $name:ident) => {
        $py
    };
    ($name:ident) => {
        stringify!($name)
    };
}

/// numpy's reductions as [`Reduce`] rows: JAX's name, its parameters after `(a, axis)`,
/// and `| f` to join `initial` to the result with `f`.
macro_rules! reduction {
    (@join) => { None };
    (@join $join:ident) => { Some(|x, v| jnp::$join(x, v)) };
    ($($name:ident: [$($param:literal),*] $(| $join:ident)?),* $(,)?) => {
        [$(Reduce {
            __name__: stringify!($name),
            f: |x, a| jnp::$name(x, a),
            params: &[$($param),*],
            initial: reduction!(@join $($join)?),
        }),*]
    };
}

/// `jnp.where(condition, x, y)`.
#[pyfunction(name = "where")]
fn where_(condition: Arg, x: Arg, y: Arg) -> PyResult<Array> {
    guard(|| {
        Ok(Array(jnp::where_(
            condition.operand(),
            x.operand(),
            y.operand(),
        )))
    })
}

/// `jnp.reshape(a, shape)`.
#[pyfunction]
fn reshape(a: Arg, shape: Vec<isize>) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::reshape(a.operand(), &shape))))
}

/// `jnp.transpose(a, axes=None)`.
#[pyfunction]
#[pyo3(signature = (a, axes=None))]
fn transpose(a: Arg, axes: Option<Vec<isize>>) -> PyResult<Array> {
    guard(|| {
        Ok(Array(match axes {
            Some(axes) => jnp::transpose(a.operand(), axes),
            None => jnp::transpose(a.operand(), None::<isize>),
        }))
    })
}

/// `jnp.concatenate(arrays, axis=0)` (`axis=None`: the arrays flattened, end to end).
#[pyfunction]
#[pyo3(signature = (arrays, axis=Some(0)))]
fn concatenate(arrays: Vec<Arg>, axis: Option<isize>) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::concatenate(&tensors(arrays), axis))))
}

/// `jnp.stack(arrays, axis=0)`.
#[pyfunction]
#[pyo3(signature = (arrays, axis=0))]
fn stack(arrays: Vec<Arg>, axis: isize) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::stack(&tensors(arrays), axis))))
}

/// Every function of the tables, by name.
#[pyfunction]
fn numpy_functions(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for f in unary![
        abs,
        negative,
        sign,
        exp,
        log,
        log1p,
        expm1,
        exp2,
        log2,
        log10,
        sin,
        cos,
        tan,
        tanh,
        sinh,
        cosh,
        arcsin,
        arccos,
        arctan,
        arcsinh,
        arccosh,
        arctanh,
        sqrt,
        cbrt,
        square,
        reciprocal,
        floor,
        ceil,
        trunc,
        rint,
        isnan,
        isinf,
        isfinite,
        signbit,
        logical_not,
        positive,
        deg2rad,
        rad2deg,
        real,
        imag,
        conj,
        invert,
        bitwise_not,
        absolute,
        fabs,
        i0,
        isposinf,
        isneginf,
        radians,
        degrees,
        sinc,
        atan,
        asinh,
        conjugate,
    ] {
        d.set_item(f.__name__, Bound::new(py, f)?)?;
    }
    for f in binary![
        add,
        subtract,
        multiply,
        divide,
        true_divide,
        floor_divide,
        remainder,
        power,
        maximum,
        minimum,
        fmax,
        fmin,
        equal,
        not_equal,
        less,
        less_equal,
        greater,
        greater_equal,
        arctan2,
        hypot,
        copysign,
        logaddexp,
        logical_and,
        logical_or,
        logical_xor,
        bitwise_and,
        bitwise_or,
        bitwise_xor,
        left_shift,
        right_shift,
        matmul,
        dot,
        outer,
        inner,
        mod_ as "mod",
        fmod,
        heaviside,
        logaddexp2,
        atan2,
    ] {
        d.set_item(f.__name__, Bound::new(py, f)?)?;
    }
    for f in reduction![
        sum: ["dtype", "out", "keepdims", "initial", "where"] | add,
        prod: ["dtype", "out", "keepdims", "initial", "where"] | multiply,
        mean: ["dtype", "out", "keepdims", "where"],
        max: ["out", "keepdims", "initial", "where"] | maximum,
        min: ["out", "keepdims", "initial", "where"] | minimum,
        amax: ["out", "keepdims", "initial", "where"] | maximum,
        amin: ["out", "keepdims", "initial", "where"] | minimum,
        all: ["out", "keepdims", "where"],
        any: ["out", "keepdims", "where"],
    ] {
        d.set_item(f.__name__, Bound::new(py, f)?)?;
    }
    Ok(d)
}

/// The functions of restricted arguments (integers only, or a domain narrower than the
/// reals), by name: rows as in [`numpy_functions`], kept apart from the ones any float
/// arguments exercise.
#[pyfunction]
fn numpy_restricted_functions(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for f in unary![
        bitwise_invert,
        bitwise_count,
        spacing,
        asin,
        acos,
        acosh,
        atanh
    ] {
        d.set_item(f.__name__, Bound::new(py, f)?)?;
    }
    for f in binary![
        pow,
        bitwise_left_shift,
        bitwise_right_shift,
        ldexp,
        nextafter,
        float_power,
        gcd,
        lcm,
    ] {
        d.set_item(f.__name__, Bound::new(py, f)?)?;
    }
    Ok(d)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(numpy_functions, m)?)?;
    m.add_function(wrap_pyfunction!(numpy_restricted_functions, m)?)?;
    m.add_function(wrap_pyfunction!(where_, m)?)?;
    m.add_function(wrap_pyfunction!(reshape, m)?)?;
    m.add_function(wrap_pyfunction!(transpose, m)?)?;
    m.add_function(wrap_pyfunction!(concatenate, m)?)?;
    m.add_function(wrap_pyfunction!(stack, m)?)?;
    Ok(())
}
