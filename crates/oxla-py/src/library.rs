//! `oxla.random`, `oxla.nn`, `oxla.numpy.ix_` and `isclose`: oxla's functions
//! with JAX's arguments.

use oxla::numpy::{self as jnp, Operand};
use oxla::Tensor;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::array::Array;
use crate::convert::{default_float, dtype_arg, Arg};
use crate::errors::guard;

fn key_of(key: &Arg) -> Tensor {
    key.operand().into_tensor()
}

/// `jax.random.PRNGKey(seed)`: a key as its raw `uint32[2]` data.
#[pyfunction(name = "PRNGKey")]
fn prng_key(seed: i64) -> Array {
    Array(oxla::random::key(seed))
}

/// `jax.random.split(key, num=2)`.
#[pyfunction]
#[pyo3(signature = (key, num=2))]
fn split(key: Arg, num: usize) -> PyResult<Array> {
    guard(|| Ok(Array(oxla::random::split(&key_of(&key), num))))
}

/// `jax.random.fold_in(key, data)`.
#[pyfunction]
fn fold_in(key: Arg, data: u32) -> PyResult<Array> {
    guard(|| Ok(Array(oxla::random::fold_in(&key_of(&key), data))))
}

/// `jax.random.normal(key, shape=(), dtype=float)`.
#[pyfunction]
#[pyo3(signature = (key, shape=vec![], dtype=None))]
fn normal(
    py: Python<'_>,
    key: Arg,
    shape: Vec<usize>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let d = dtype_arg(py, dtype)?.unwrap_or_else(default_float);
    guard(|| Ok(Array(oxla::random::normal_dtype(&key_of(&key), &shape, d))))
}

/// `jax.random.uniform(key, shape=(), dtype=float, minval=0.0, maxval=1.0)`.
#[pyfunction]
#[pyo3(signature = (key, shape=vec![], dtype=None, minval=0.0, maxval=1.0))]
fn uniform(
    py: Python<'_>,
    key: Arg,
    shape: Vec<usize>,
    dtype: Option<&Bound<'_, PyAny>>,
    minval: f64,
    maxval: f64,
) -> PyResult<Array> {
    let d = dtype_arg(py, dtype)?.unwrap_or_else(default_float);
    guard(|| {
        let k = key_of(&key);
        Ok(Array(oxla::random::uniform_range(
            &k, &shape, minval, maxval, d,
        )))
    })
}

/// `jax.random.randint(key, shape, minval, maxval, dtype=int)`.
#[pyfunction]
#[pyo3(signature = (key, shape, minval, maxval, dtype=None))]
fn randint(
    py: Python<'_>,
    key: Arg,
    shape: Vec<usize>,
    minval: i64,
    maxval: i64,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    crate::convert::only_dtype(py, "random.randint", dtype, oxla::DType::I32)?;
    guard(|| {
        Ok(Array(oxla::random::randint(
            &key_of(&key),
            &shape,
            minval,
            maxval,
        )))
    })
}

/// The `oxla.random` functions, by name.
#[pyfunction]
fn random_functions(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let m = PyDict::new(py);
    m.set_item("PRNGKey", wrap_pyfunction!(prng_key, py)?)?;
    m.set_item("split", wrap_pyfunction!(split, py)?)?;
    m.set_item("fold_in", wrap_pyfunction!(fold_in, py)?)?;
    m.set_item("normal", wrap_pyfunction!(normal, py)?)?;
    m.set_item("uniform", wrap_pyfunction!(uniform, py)?)?;
    m.set_item("randint", wrap_pyfunction!(randint, py)?)?;
    Ok(m)
}

/// `jax.nn`'s activations of one array.
#[pyfunction]
fn nn_unary(name: &str, x: Arg) -> PyResult<Array> {
    let f: fn(Operand) -> Tensor = match name {
        "relu" => |x| oxla::nn::relu(x),
        "relu6" => |x| oxla::nn::relu6(x),
        "sigmoid" => |x| oxla::nn::sigmoid(x),
        "softplus" => |x| oxla::nn::softplus(x),
        "silu" => |x| oxla::nn::silu(x),
        "swish" => |x| oxla::nn::swish(x),
        "log_sigmoid" => |x| oxla::nn::log_sigmoid(x),
        "selu" => |x| oxla::nn::selu(x),
        "mish" => |x| oxla::nn::mish(x),
        "soft_sign" => |x| oxla::nn::soft_sign(x),
        "hard_tanh" => |x| oxla::nn::hard_tanh(x),
        "identity" => |x| oxla::nn::identity(x),
        "hard_sigmoid" => |x| oxla::nn::hard_sigmoid(x),
        "hard_silu" => |x| oxla::nn::hard_silu(x),
        "hard_swish" => |x| oxla::nn::hard_swish(x),
        "tanh" => |x| oxla::nn::tanh(x),
        "sparse_plus" => |x| oxla::nn::sparse_plus(x),
        "sparse_sigmoid" => |x| oxla::nn::sparse_sigmoid(x),
        "log1mexp" => |x| oxla::nn::log1mexp(x),
        _ => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "no nn.{name}"
            )))
        }
    };
    guard(|| Ok(Array(f(x.operand()))))
}

/// `jax.nn.gelu(x, approximate=True)`.
#[pyfunction]
#[pyo3(signature = (x, approximate=true))]
fn gelu(x: Arg, approximate: bool) -> PyResult<Array> {
    guard(|| Ok(Array(oxla::nn::gelu(x.operand(), approximate))))
}

/// `jax.nn.elu(x, alpha=1.0)`.
#[pyfunction]
#[pyo3(signature = (x, alpha=1.0))]
fn elu(x: Arg, alpha: f64) -> PyResult<Array> {
    guard(|| Ok(Array(oxla::nn::elu(x.operand(), alpha))))
}

/// `jax.nn.leaky_relu(x, negative_slope=0.01)`.
#[pyfunction]
#[pyo3(signature = (x, negative_slope=0.01))]
fn leaky_relu(x: Arg, negative_slope: f64) -> PyResult<Array> {
    guard(|| Ok(Array(oxla::nn::leaky_relu(x.operand(), negative_slope))))
}

/// `jax.nn.one_hot(x, num_classes, *, dtype=float, axis=-1)`: the classes along `axis`.
#[pyfunction]
#[pyo3(signature = (x, num_classes, *, dtype=None, axis=-1))]
fn one_hot(
    py: Python<'_>,
    x: Arg,
    num_classes: usize,
    dtype: Option<&Bound<'_, PyAny>>,
    axis: isize,
) -> PyResult<Array> {
    let d = dtype_arg(py, dtype)?;
    guard(|| {
        let t = oxla::nn::one_hot(x.operand(), num_classes);
        let t = match d {
            Some(d) if d != t.dtype() => t.astype(d),
            _ => t,
        };
        Ok(Array(if axis == -1 {
            t
        } else {
            jnp::moveaxis(&t, -1, axis)
        }))
    })
}

/// `jnp.isclose(a, b, rtol=1e-05, atol=1e-08)` (NaNs never close; the Python layer adds
/// `equal_nan`).
#[pyfunction]
#[pyo3(signature = (a, b, rtol=1e-5, atol=1e-8))]
fn isclose(a: Arg, b: Arg, rtol: f64, atol: f64) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::isclose(a.operand(), b.operand(), rtol, atol))))
}

/// `jnp.ix_(*args)`: open-mesh index arrays.
#[pyfunction(signature = (*args))]
fn ix_(args: Vec<Arg>) -> PyResult<Vec<Array>> {
    let ts: Vec<Tensor> = args
        .into_iter()
        .map(|a| a.operand().into_tensor())
        .collect();
    guard(|| Ok(jnp::ix_(&ts).into_iter().map(Array).collect()))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(random_functions, m)?)?;
    m.add_function(wrap_pyfunction!(nn_unary, m)?)?;
    m.add_function(wrap_pyfunction!(gelu, m)?)?;
    m.add_function(wrap_pyfunction!(elu, m)?)?;
    m.add_function(wrap_pyfunction!(leaky_relu, m)?)?;
    m.add_function(wrap_pyfunction!(one_hot, m)?)?;
    m.add_function(wrap_pyfunction!(ix_, m)?)?;
    m.add_function(wrap_pyfunction!(isclose, m)?)?;
    Ok(())
}
