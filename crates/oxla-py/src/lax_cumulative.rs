//! `oxla.lax`'s cumulative reductions (`cumsum`, `cumprod`, `cummax`, `cummin`,
//! `cumlogsumexp`), `associative_scan`, `top_k` and `sort_key_val`.

use oxla::lax;
use oxla::Tensor;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::array::Array;
use crate::convert::{tensor, tensors, Arg};
use crate::errors::{guard, raise};
use crate::lax_ops::{axis_in, axis_nonneg, unsupported};
use crate::transforms::arrays;

/// `oxla.lax`'s cumulative reductions: `f(operand, axis=0, reverse=False)`.
#[pyclass(frozen, module = "oxla.lax")]
struct Cumulative {
    #[pyo3(get)]
    __name__: &'static str,
    f: fn(&Tensor, usize, bool) -> Tensor,
}

#[pymethods]
impl Cumulative {
    #[pyo3(signature = (operand, axis=0, reverse=false))]
    fn __call__(&self, operand: Arg, axis: isize, reverse: bool) -> PyResult<Array> {
        let x = tensor(&operand);
        let axis = axis_nonneg(axis, x.ndim())?;
        guard(|| Ok(Array((self.f)(&x, axis, reverse))))
    }

    fn __repr__(&self) -> String {
        format!("<function oxla.lax.{}>", self.__name__)
    }
}

macro_rules! cumulative {
    ($($name:ident),* $(,)?) => {
        [$(Cumulative { __name__: stringify!($name), f: lax::$name }),*]
    };
}

/// The cumulative reductions, by name.
#[pyfunction]
fn cumulative_functions(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for f in cumulative![cumsum, cumprod, cummax, cummin, cumlogsumexp] {
        d.set_item(f.__name__, Bound::new(py, f)?)?;
    }
    Ok(d)
}

/// `lax.associative_scan(fn, elems, reverse=False, axis=0)` on leaves: `f(a, b)` combines
/// two lists of blocks into one list.
#[pyfunction]
#[pyo3(signature = (f, elems, reverse=false, axis=0))]
fn associative_scan(
    f: Py<PyAny>,
    elems: Vec<Arg>,
    reverse: bool,
    axis: isize,
) -> PyResult<Vec<Array>> {
    let elems = tensors(elems);
    let combine = |a: &[Tensor], b: &[Tensor]| -> Vec<Tensor> {
        Python::with_gil(|py| {
            let out = f
                .call1(py, (arrays(a.to_vec()), arrays(b.to_vec())))
                .and_then(|o| o.extract::<Vec<Arg>>(py));
            match out {
                Ok(out) => tensors(out),
                Err(e) => raise(e),
            }
        })
    };
    guard(|| {
        Ok(arrays(lax::associative_scan(
            combine, &elems, reverse, axis,
        )))
    })
}

/// `lax.top_k(operand, k, *, axis=-1)`: the `k` largest values along the last axis and
/// their indices.
#[pyfunction]
#[pyo3(signature = (operand, k, *, axis=-1))]
fn top_k(operand: Arg, k: usize, axis: isize) -> PyResult<(Array, Array)> {
    let x = tensor(&operand);
    if x.ndim() > 0 && axis_in(axis, x.ndim())? != x.ndim() - 1 {
        return Err(unsupported("lax.top_k along an axis other than the last"));
    }
    guard(|| {
        let (v, i) = lax::top_k(&x, k);
        Ok((Array(v), Array(i)))
    })
}

/// `lax.sort_key_val(keys, values, dimension=-1, is_stable=True)`: `keys` sorted along
/// `dimension` (stably) and `values` permuted alike.
#[pyfunction]
#[pyo3(signature = (keys, values, dimension=-1, is_stable=true))]
fn sort_key_val(
    keys: Arg,
    values: Arg,
    dimension: isize,
    is_stable: bool,
) -> PyResult<(Array, Array)> {
    // oxla's sort is always stable, which an unstable sort may be.
    let _ = is_stable;
    let (k, v) = (tensor(&keys), tensor(&values));
    let dimension = axis_in(dimension, k.ndim())?;
    guard(|| {
        let (k, v) = lax::sort_key_val(&k, &v, dimension);
        Ok((Array(k), Array(v)))
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cumulative_functions, m)?)?;
    m.add_function(wrap_pyfunction!(associative_scan, m)?)?;
    m.add_function(wrap_pyfunction!(top_k, m)?)?;
    m.add_function(wrap_pyfunction!(sort_key_val, m)?)?;
    Ok(())
}
