//! `oxla.nn`'s functions with arguments beyond one array: `squareplus`, `celu`, `glu`,
//! `softmax`/`log_softmax` with `where=`, `logsumexp` with `b`, `where`, `return_sign`,
//! `logmeanexp`, `standardize` and `dot_product_attention`.

use oxla::nn;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::array::Array;
use crate::convert::tensor;
use crate::convert::{axis_of, Arg};
use crate::errors::guard;
use crate::lax_ops::unsupported;

/// `jax.nn.squareplus(x, b=4)`: `(x + sqrt(x^2 + b)) / 2`.
#[pyfunction]
#[pyo3(signature = (x, b=Arg::Float(4.0)))]
fn squareplus(x: Arg, b: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(nn::squareplus(x.operand(), b.operand()))))
}

/// `jax.nn.celu(x, alpha=1.0)`: `max(x, 0) + alpha * min(expm1(x / alpha), 0)`.
#[pyfunction]
#[pyo3(signature = (x, alpha=Arg::Float(1.0)))]
fn celu(x: Arg, alpha: Arg) -> PyResult<Array> {
    guard(|| Ok(Array(nn::celu(x.operand(), alpha.operand()))))
}

/// `jax.nn.glu(x, axis=-1)`: the first half of `x` along `axis` times the sigmoid of the
/// second.
#[pyfunction]
#[pyo3(signature = (x, axis=-1))]
fn glu(x: Arg, axis: isize) -> PyResult<Array> {
    guard(|| Ok(Array(nn::glu(x.operand(), axis))))
}

/// `jax.nn.softmax(x, axis=-1, where=None)` and, with `log`, `log_softmax`: over `axis`,
/// only the elements where `where` holds when given.
#[pyfunction]
#[pyo3(signature = (log, x, axis=None, r#where=None))]
fn softmax(
    log: bool,
    x: Arg,
    axis: Option<&Bound<'_, PyAny>>,
    r#where: Option<Arg>,
) -> PyResult<Array> {
    let axis = axis_of(axis, false)?;
    let mask = r#where.map(|m| tensor(&m));
    guard(|| {
        Ok(Array(match (log, mask) {
            (false, None) => nn::softmax(x.operand(), axis),
            (true, None) => nn::log_softmax(x.operand(), axis),
            (false, Some(m)) => nn::softmax_where(x.operand(), axis, &m),
            (true, Some(m)) => nn::log_softmax_where(x.operand(), axis, &m),
        }))
    })
}

/// `jax.nn.logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None)`:
/// `log(sum(b * exp(a)))` over `axis`, stably; with `return_sign`, `log|sum|` and its sign.
#[pyfunction]
#[pyo3(signature = (a, axis=None, b=None, keepdims=false, return_sign=false, r#where=None))]
fn logsumexp(
    a: Arg,
    axis: Option<&Bound<'_, PyAny>>,
    b: Option<Arg>,
    keepdims: bool,
    return_sign: bool,
    r#where: Option<Arg>,
) -> PyResult<Vec<Array>> {
    let axis = axis_of(axis, keepdims)?;
    guard(|| {
        let mut l = nn::LogSumExp::new(a.operand(), axis);
        if let Some(b) = &b {
            l = l.b(b.operand());
        }
        if let Some(m) = &r#where {
            l = l.where_(m.operand());
        }
        Ok(if return_sign {
            let (out, sign) = l.with_sign();
            vec![Array(out), Array(sign)]
        } else {
            vec![Array(l.call())]
        })
    })
}

/// `jax.nn.logmeanexp(x, axis=None, where=None, keepdims=False)`: `log(mean(exp(x)))` over
/// `axis` (the elements where `where` holds).
#[pyfunction]
#[pyo3(signature = (x, axis=None, r#where=None, keepdims=false))]
fn logmeanexp(
    x: Arg,
    axis: Option<&Bound<'_, PyAny>>,
    r#where: Option<Arg>,
    keepdims: bool,
) -> PyResult<Array> {
    let axis = axis_of(axis, keepdims)?;
    let mask = r#where.map(|m| tensor(&m));
    guard(|| Ok(Array(nn::logmeanexp(x.operand(), axis, mask.as_ref()))))
}

/// `jax.nn.standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *,
/// algorithm="fast")`: `(x - mean) / sqrt(variance + epsilon)` over `axis`.
#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (x, axis=None, mean=None, variance=None, epsilon=Arg::Float(1e-5),
    r#where=None, algorithm="fast"))]
fn standardize(
    x: Arg,
    axis: Option<&Bound<'_, PyAny>>,
    mean: Option<Arg>,
    variance: Option<Arg>,
    epsilon: Arg,
    r#where: Option<Arg>,
    algorithm: &str,
) -> PyResult<Array> {
    let axis = axis_of(axis, false)?;
    let stable = match algorithm {
        "fast" => false,
        "stable" => true,
        other => {
            return Err(PyValueError::new_err(format!(
                "standardize: algorithm must be 'fast' or 'stable', got {other:?}"
            )))
        }
    };
    guard(|| {
        let mut s = nn::Standardize::new(x.operand(), axis).epsilon(epsilon.operand());
        if let Some(m) = &mean {
            s = s.mean(m.operand());
        }
        if let Some(v) = &variance {
            s = s.variance(v.operand());
        }
        if let Some(w) = &r#where {
            s = s.where_(w.operand());
        }
        if stable {
            s = s.stable();
        }
        Ok(Array(s.call()))
    })
}

/// `jax.nn.dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
/// is_causal=False, query_seq_lengths=None, key_value_seq_lengths=None,
/// local_window_size=None, implementation=None, return_residual=False)`: `softmax(Q K^T *
/// scale + bias) V` over `[B, T, N, H]` queries and `[B, S, K, H]` keys and values (as
/// JAX's `"xla"` implementation).
#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (query, key, value, bias=None, mask=None, *, scale=None, is_causal=false,
    query_seq_lengths=None, key_value_seq_lengths=None, local_window_size=None,
    implementation=None, return_residual=false))]
fn dot_product_attention(
    query: Arg,
    key: Arg,
    value: Arg,
    bias: Option<Arg>,
    mask: Option<Arg>,
    scale: Option<f64>,
    is_causal: bool,
    query_seq_lengths: Option<Arg>,
    key_value_seq_lengths: Option<Arg>,
    local_window_size: Option<&Bound<'_, PyAny>>,
    implementation: Option<&str>,
    return_residual: bool,
) -> PyResult<Array> {
    if implementation.is_some_and(|i| i != "xla") {
        return Err(unsupported(
            "dot_product_attention's implementations other than 'xla'",
        ));
    }
    if return_residual {
        return Err(unsupported("dot_product_attention's return_residual=True"));
    }
    let window = match local_window_size.filter(|w| !w.is_none()) {
        None => None,
        Some(w) => Some(match w.extract::<usize>() {
            Ok(n) => (n, n),
            Err(_) => w.extract::<(usize, usize)>()?,
        }),
    };
    let mask = mask.map(|m| tensor(&m));
    let q_len = query_seq_lengths.map(|l| tensor(&l));
    let kv_len = key_value_seq_lengths.map(|l| tensor(&l));
    guard(|| {
        let mut a = nn::DotProductAttention::new(query.operand(), key.operand(), value.operand());
        if let Some(b) = &bias {
            a = a.bias(b.operand());
        }
        if let Some(m) = &mask {
            a = a.mask(m);
        }
        if let Some(s) = scale {
            a = a.scale(s);
        }
        if is_causal {
            a = a.is_causal();
        }
        if let Some(l) = &q_len {
            a = a.query_seq_lengths(l);
        }
        if let Some(l) = &kv_len {
            a = a.key_value_seq_lengths(l);
        }
        if let Some((left, right)) = window {
            a = a.local_window_size(left, right);
        }
        Ok(Array(a.call()))
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(squareplus, m)?)?;
    m.add_function(wrap_pyfunction!(celu, m)?)?;
    m.add_function(wrap_pyfunction!(glu, m)?)?;
    m.add_function(wrap_pyfunction!(softmax, m)?)?;
    m.add_function(wrap_pyfunction!(logsumexp, m)?)?;
    m.add_function(wrap_pyfunction!(logmeanexp, m)?)?;
    m.add_function(wrap_pyfunction!(standardize, m)?)?;
    m.add_function(wrap_pyfunction!(dot_product_attention, m)?)?;
    Ok(())
}
