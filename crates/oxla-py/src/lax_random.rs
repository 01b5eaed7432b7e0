//! `oxla.random`'s samplers beyond `normal`/`uniform`/`randint`, and its key functions
//! (`wrap_key_data`, `key_data`, `clone`): oxla's threefry stream, bit for bit JAX's.
//! `oxla.random` gives each sampler JAX's signature and calls [`sample`] by name.

use oxla::numpy::{self as jnp, Operand};
use oxla::random;
use oxla::{DType, Tensor};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::array::Array;
use crate::convert::tensor;
use crate::convert::{default_float, dtype_arg, Arg};
use crate::errors::guard;
use crate::lax_ops::unsupported;

/// A sampler of a key, its parameters and a shape.
type Sampler = fn(&Tensor, &[Operand], &[usize]) -> Tensor;

/// The sampler of a name, and whether an omitted shape is the parameters' broadcast shape
/// (JAX's `shape=None`) rather than `()`.
fn sampler(name: &str) -> Option<(Sampler, bool)> {
    Some(match name {
        "exponential" => (|k, _, s| random::exponential(k, s), false),
        "gumbel" => (|k, _, s| random::gumbel(k, s), false),
        "laplace" => (|k, _, s| random::laplace(k, s), false),
        "logistic" => (|k, _, s| random::logistic(k, s), false),
        "cauchy" => (|k, _, s| random::cauchy(k, s), false),
        "maxwell" => (|k, _, s| random::maxwell(k, s), false),
        "rademacher" => (|k, _, s| random::rademacher(k, s), false),
        "weibull_min" => (
            |k, ps, s| random::weibull_min(k, ps[0].clone(), ps[1].clone(), s),
            false,
        ),
        "pareto" => (|k, ps, s| random::pareto(k, ps[0].clone(), s), true),
        "lognormal" => (|k, ps, s| random::lognormal(k, ps[0].clone(), s), true),
        "rayleigh" => (|k, ps, s| random::rayleigh(k, ps[0].clone(), s), true),
        "wald" => (|k, ps, s| random::wald(k, ps[0].clone(), s), true),
        "geometric" => (|k, ps, s| random::geometric(k, ps[0].clone(), s), true),
        "gamma" => (|k, ps, s| random::gamma(k, ps[0].clone(), s), true),
        "loggamma" => (|k, ps, s| random::loggamma(k, ps[0].clone(), s), true),
        "chisquare" => (|k, ps, s| random::chisquare(k, ps[0].clone(), s), true),
        "t" => (|k, ps, s| random::t(k, ps[0].clone(), s), true),
        "beta" => (
            |k, ps, s| random::beta(k, ps[0].clone(), ps[1].clone(), s),
            true,
        ),
        "truncated_normal" => (
            |k, ps, s| random::truncated_normal(k, ps[0].clone(), ps[1].clone(), s),
            true,
        ),
        "triangular" => (
            |k, ps, s| random::triangular(k, ps[0].clone(), ps[1].clone(), ps[2].clone(), s),
            true,
        ),
        "poisson" => (|k, ps, s| random::poisson(k, ps[0].clone(), Some(s)), true),
        "binomial" => (
            |k, ps, s| random::binomial(k, ps[0].clone(), ps[1].clone(), Some(s)),
            true,
        ),
        _ => return None,
    })
}

/// The broadcast shape of operands (a Python scalar's is `()`).
fn broadcast_shape(params: &[Operand]) -> Vec<usize> {
    let shapes: Vec<Vec<usize>> = params
        .iter()
        .map(|p| match p {
            Operand::Tensor(t) => t.shape().to_vec(),
            Operand::Scalar(..) => vec![],
        })
        .collect();
    let refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
    jnp::broadcast_shapes(&refs)
}

/// `out`, or an error when JAX would give another dtype: the one asked for, or JAX's
/// default float or integer (64-bit under x64), which oxla's samplers do not draw.
fn check_dtype(
    py: Python<'_>,
    name: &str,
    out: Tensor,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let want = match dtype_arg(py, dtype)? {
        Some(d) => d,
        None if out.dtype().is_float() => default_float(),
        None if oxla::config::x64_enabled() && out.dtype() == DType::I32 => DType::I64,
        None => out.dtype(),
    };
    if want != out.dtype() {
        return Err(unsupported(&format!(
            "random.{name} giving {} (it draws {})",
            want.numpy_name(),
            out.dtype().numpy_name()
        )));
    }
    Ok(Array(out))
}

/// `jax.random.<name>(key, *params, shape, dtype)` for the samplers of [`sampler`]:
/// `shape=None` is the parameters' broadcast shape (or `()`, for those whose JAX default
/// shape is `()`).
#[pyfunction]
#[pyo3(signature = (name, key, params, shape=None, dtype=None))]
fn sample(
    py: Python<'_>,
    name: &str,
    key: Arg,
    params: Vec<Arg>,
    shape: Option<Vec<usize>>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let (f, param_shape) =
        sampler(name).ok_or_else(|| PyValueError::new_err(format!("oxla has no random.{name}")))?;
    let params: Vec<Operand> = params.iter().map(Arg::operand).collect();
    let shape = match shape {
        Some(s) => s,
        None if param_shape => broadcast_shape(&params),
        None => vec![],
    };
    let key = tensor(&key);
    let out = guard(|| Ok(f(&key, &params, &shape)))?;
    check_dtype(py, name, out, dtype)
}

/// `jax.random.bernoulli(key, p=0.5, shape=None)`: `true` with probability `p` (a number
/// or an array), of `shape` (`p`'s shape when `None`).
#[pyfunction]
#[pyo3(signature = (key, p, shape=None))]
fn bernoulli(key: Arg, p: Arg, shape: Option<Vec<usize>>) -> PyResult<Array> {
    let key = tensor(&key);
    guard(|| {
        Ok(Array(match &p {
            Arg::Array(t) => random::bernoulli_p(&key, t, shape.as_deref()),
            Arg::Float(v) => random::bernoulli(&key, *v as f32, shape.as_deref().unwrap_or(&[])),
            Arg::Int(v) => random::bernoulli(&key, *v as f32, shape.as_deref().unwrap_or(&[])),
            Arg::Bool(v) => random::bernoulli(
                &key,
                f32::from(u8::from(*v)),
                shape.as_deref().unwrap_or(&[]),
            ),
        }))
    })
}

/// `jax.random.categorical(key, logits, axis=-1, shape=None, replace=True)`: samples
/// (`i32`) of the distributions whose log-probabilities lie along `axis`.
#[pyfunction]
#[pyo3(signature = (key, logits, axis=-1, shape=None, replace=true))]
fn categorical(
    key: Arg,
    logits: Arg,
    axis: isize,
    shape: Option<Vec<usize>>,
    replace: bool,
) -> PyResult<Array> {
    let (key, logits) = (tensor(&key), tensor(&logits));
    guard(|| {
        Ok(Array(random::categorical(
            &key,
            &logits,
            axis,
            shape.as_deref(),
            replace,
        )))
    })
}

/// An integer population size (a Python int or a rank-0 integer array), as JAX reads
/// `permutation`'s `x` and `choice`'s `a`; `None` for an array to draw from.
fn count_of(x: &Arg) -> PyResult<Option<usize>> {
    let n = match x {
        Arg::Int(n) => *n,
        Arg::Array(t) if t.ndim() == 0 && t.dtype().is_int() => match t.try_array() {
            Some(a) => a.item() as i64,
            None => return Err(unsupported("a traced population size")),
        },
        _ => return Ok(None),
    };
    usize::try_from(n)
        .map(Some)
        .map_err(|_| PyValueError::new_err(format!("a population size must be >= 0, got {n}")))
}

/// `jax.random.permutation(key, x, axis=0, independent=False)`: a shuffle of `range(x)`
/// for an integer `x`, else of `x`'s slices along `axis` (each independently when asked).
#[pyfunction]
#[pyo3(signature = (key, x, axis=0, independent=false))]
fn permutation(key: Arg, x: Arg, axis: isize, independent: bool) -> PyResult<Array> {
    let key = tensor(&key);
    let n = count_of(&x)?;
    guard(|| {
        Ok(Array(match n {
            Some(n) => random::permutation_n(&key, n),
            None => random::permutation(&key, &tensor(&x), axis, independent),
        }))
    })
}

/// `jax.random.choice(key, a, shape=(), replace=True, p=None, axis=0)`: samples of
/// `range(a)` for an integer `a`, else of `a`'s slices along `axis`, weighted by `p`.
#[pyfunction]
#[pyo3(signature = (key, a, shape=vec![], replace=true, p=None, axis=0))]
fn choice(
    key: Arg,
    a: Arg,
    shape: Vec<usize>,
    replace: bool,
    p: Option<Arg>,
    axis: isize,
) -> PyResult<Array> {
    let key = tensor(&key);
    let p = p.map(|p| tensor(&p));
    let n = count_of(&a)?;
    guard(|| {
        Ok(Array(match n {
            Some(n) => random::choice_n(&key, n, &shape, replace, p.as_ref()),
            None => random::choice(&key, &tensor(&a), &shape, replace, p.as_ref(), axis),
        }))
    })
}

/// `jax.random.dirichlet(key, alpha, shape=None, dtype=None)`: `shape + [k]` draws
/// (`shape` is `alpha`'s batch shape when `None`).
#[pyfunction]
#[pyo3(signature = (key, alpha, shape=None, dtype=None))]
fn dirichlet(
    py: Python<'_>,
    key: Arg,
    alpha: Arg,
    shape: Option<Vec<usize>>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let (key, alpha) = (tensor(&key), tensor(&alpha));
    let shape = shape.unwrap_or_else(|| alpha.shape()[..alpha.ndim().saturating_sub(1)].to_vec());
    let out = guard(|| Ok(random::dirichlet(&key, &alpha, &shape)))?;
    check_dtype(py, "dirichlet", out, dtype)
}

/// `jax.random.multinomial(key, n, p, *, shape=None, dtype=None)`: counts of `n` trials
/// over the categories of `p`'s last axis.
#[pyfunction]
#[pyo3(signature = (key, n, p, shape=None, dtype=None))]
fn multinomial(
    py: Python<'_>,
    key: Arg,
    n: Arg,
    p: Arg,
    shape: Option<Vec<usize>>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let (key, p) = (tensor(&key), tensor(&p));
    let out = guard(|| Ok(random::multinomial(&key, n.operand(), &p, shape.as_deref())))?;
    check_dtype(py, "multinomial", out, dtype)
}

/// `jax.random.generalized_normal(key, p, shape=(), dtype=None)` and, with `d`,
/// `jax.random.ball(key, d, p=2, shape=(), dtype=None)`.
#[pyfunction]
#[pyo3(signature = (key, p, shape, dtype=None, d=None))]
fn generalized_normal(
    py: Python<'_>,
    key: Arg,
    p: f64,
    shape: Vec<usize>,
    dtype: Option<&Bound<'_, PyAny>>,
    d: Option<usize>,
) -> PyResult<Array> {
    let key = tensor(&key);
    let out = guard(|| {
        Ok(match d {
            Some(d) => random::ball(&key, d, p, &shape),
            None => random::generalized_normal(&key, p, &shape),
        })
    })?;
    check_dtype(
        py,
        if d.is_some() {
            "ball"
        } else {
            "generalized_normal"
        },
        out,
        dtype,
    )
}

/// `jax.random.orthogonal(key, n, shape=(), dtype=None, m=None)`: Haar-random
/// (semi-)orthogonal `n x m` matrices.
#[pyfunction]
#[pyo3(signature = (key, n, shape=vec![], dtype=None, m=None))]
fn orthogonal(
    py: Python<'_>,
    key: Arg,
    n: usize,
    shape: Vec<usize>,
    dtype: Option<&Bound<'_, PyAny>>,
    m: Option<usize>,
) -> PyResult<Array> {
    let d = dtype_arg(py, dtype)?.unwrap_or_else(default_float);
    let key = tensor(&key);
    guard(|| Ok(Array(random::orthogonal(&key, n, &shape, d, m))))
}

/// `jax.random.multivariate_normal(key, mean, cov, shape=None, dtype=None,
/// method="cholesky")`: `mean + factor @ z` for a standard normal `z`.
#[pyfunction]
#[pyo3(signature = (key, mean, cov, shape=None, dtype=None, method="cholesky"))]
fn multivariate_normal(
    py: Python<'_>,
    key: Arg,
    mean: Arg,
    cov: Arg,
    shape: Option<Vec<usize>>,
    dtype: Option<&Bound<'_, PyAny>>,
    method: &str,
) -> PyResult<Array> {
    let (key, mean, cov) = (tensor(&key), tensor(&mean), tensor(&cov));
    let out = guard(|| {
        Ok(random::multivariate_normal(
            &key,
            &mean,
            &cov,
            shape.as_deref(),
            method,
        ))
    })?;
    check_dtype(py, "multivariate_normal", out, dtype)
}

/// `jax.random.wrap_key_data`, `key_data` and `clone` (by `name`): oxla's keys are their
/// raw `u32[2]` data, so each checks the key (or an array of keys) and returns it.
#[pyfunction]
fn key_function(name: &str, key: Arg) -> PyResult<Array> {
    let f: fn(&Tensor) -> Tensor = match name {
        "wrap_key_data" => random::wrap_key_data,
        "key_data" => random::key_data,
        "clone" => random::clone,
        _ => return Err(PyValueError::new_err(format!("oxla has no random.{name}"))),
    };
    let key = tensor(&key);
    if key.ndim() > 1 && key.dtype() == DType::U32 && key.shape().last() == Some(&2) {
        // An array of keys (`split`'s result) is its own data, as one key is.
        return Ok(Array(key));
    }
    guard(|| Ok(Array(f(&key))))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sample, m)?)?;
    m.add_function(wrap_pyfunction!(bernoulli, m)?)?;
    m.add_function(wrap_pyfunction!(categorical, m)?)?;
    m.add_function(wrap_pyfunction!(permutation, m)?)?;
    m.add_function(wrap_pyfunction!(choice, m)?)?;
    m.add_function(wrap_pyfunction!(dirichlet, m)?)?;
    m.add_function(wrap_pyfunction!(multinomial, m)?)?;
    m.add_function(wrap_pyfunction!(generalized_normal, m)?)?;
    m.add_function(wrap_pyfunction!(orthogonal, m)?)?;
    m.add_function(wrap_pyfunction!(multivariate_normal, m)?)?;
    m.add_function(wrap_pyfunction!(key_function, m)?)?;
    Ok(())
}
