//! `x.at[idx]` updates and `oxla.lax`'s control flow (`scan`, `cond`, `while_loop`,
//! `fori_loop`) over Python functions of flat lists of arrays.

use oxla::numpy::{AtMode, IndexItem};
use oxla::Tensor;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::array::Array;
use crate::convert::{index_items, tensors, Arg, Items};
use crate::errors::{guard, raise};
use crate::transforms::{arrays, call};

/// `x.at`: indexing it gives the place of an update.
#[pyclass(frozen, module = "oxla")]
pub(crate) struct AtIndexer(pub(crate) Tensor);

#[pymethods]
impl AtIndexer {
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<AtPlace> {
        let items = index_items(py, key)?;
        Ok(AtPlace(self.0.clone(), items))
    }
}

/// `x.at[idx]`: `set`, `add`, `multiply`, `min`, `max` give a new array with the places
/// updated; `get` reads them. `mode` is JAX's (`"promise_in_bounds"`, `"clip"`, `"drop"`,
/// `"fill"` with `fill_value`).
#[pyclass(frozen, module = "oxla")]
pub(crate) struct AtPlace(Tensor, Vec<IndexItem>);

/// An update's `mode`: out-of-bounds updates are dropped unless `"clip"` clamps them.
fn update_mode(mode: Option<&str>) -> PyResult<Option<AtMode>> {
    Ok(match mode {
        None => None,
        Some("promise_in_bounds") => Some(AtMode::PromiseInBounds),
        Some("clip") => Some(AtMode::Clip),
        Some("fill" | "drop") => Some(AtMode::Drop),
        Some(m) => return Err(PyValueError::new_err(format!("unknown mode {m:?}"))),
    })
}

/// `get`'s `mode`, as JAX's: none promises the indices are in bounds (clamping, and
/// `fill_value` unused); `"fill"` and `"drop"` give `fill_value` out of bounds, or the
/// dtype's fill value (NaN, the extreme integer) without one.
fn get_mode(mode: Option<&str>, fill_value: Option<f64>) -> PyResult<Option<AtMode>> {
    Ok(match mode {
        Some("fill" | "drop") => Some(fill_value.map_or(AtMode::Drop, AtMode::Fill)),
        other => update_mode(other)?,
    })
}

impl AtPlace {
    fn update(
        &self,
        mode: Option<&str>,
        f: impl FnOnce(oxla::numpy::At) -> Tensor,
    ) -> PyResult<Array> {
        let mode = update_mode(mode)?;
        guard(|| {
            let at = self.0.at(Items(self.1.clone()));
            Ok(Array(f(match mode {
                Some(m) => at.mode(m),
                None => at,
            })))
        })
    }
}

#[pymethods]
impl AtPlace {
    #[pyo3(signature = (values, mode=None))]
    fn set(&self, values: Arg, mode: Option<&str>) -> PyResult<Array> {
        self.update(mode, |at| at.set(values.operand()))
    }
    #[pyo3(signature = (values, mode=None))]
    fn add(&self, values: Arg, mode: Option<&str>) -> PyResult<Array> {
        self.update(mode, |at| at.add(values.operand()))
    }
    #[pyo3(signature = (values, mode=None))]
    fn multiply(&self, values: Arg, mode: Option<&str>) -> PyResult<Array> {
        self.update(mode, |at| at.mul(values.operand()))
    }
    #[pyo3(signature = (values, mode=None))]
    fn mul(&self, values: Arg, mode: Option<&str>) -> PyResult<Array> {
        self.multiply(values, mode)
    }
    #[pyo3(signature = (values, mode=None))]
    fn min(&self, values: Arg, mode: Option<&str>) -> PyResult<Array> {
        self.update(mode, |at| at.min(values.operand()))
    }
    #[pyo3(signature = (values, mode=None))]
    fn max(&self, values: Arg, mode: Option<&str>) -> PyResult<Array> {
        self.update(mode, |at| at.max(values.operand()))
    }
    #[pyo3(signature = (mode=None, fill_value=None))]
    fn get(&self, mode: Option<&str>, fill_value: Option<f64>) -> PyResult<Array> {
        let mode = get_mode(mode, fill_value)?;
        guard(|| Ok(Array(self.0.at(Items(self.1.clone())).get(mode))))
    }
}

/// Calls Python `f(a, b)` on two lists of arrays, returning two lists.
fn call2(f: &Py<PyAny>, a: Vec<Tensor>, b: Vec<Tensor>) -> (Vec<Tensor>, Vec<Tensor>) {
    Python::with_gil(|py| {
        let out = f
            .call1(py, (arrays(a), arrays(b)))
            .and_then(|o| o.extract::<(Vec<Arg>, Vec<Arg>)>(py));
        match out {
            Ok((c, y)) => (tensors(c), tensors(y)),
            Err(e) => raise(e),
        }
    })
}

/// `lax.scan` on leaves: `f(carry, x)` returns `(carry, y)` as lists of arrays.
#[pyfunction]
#[pyo3(signature = (f, init, xs, length=None, reverse=false, unroll=1))]
fn scan(
    f: Py<PyAny>,
    init: Vec<Arg>,
    xs: Vec<Arg>,
    length: Option<usize>,
    reverse: bool,
    unroll: usize,
) -> PyResult<(Vec<Array>, Vec<Array>)> {
    let (init, xs) = (tensors(init), tensors(xs));
    guard(|| {
        let mut s = oxla::lax::scan(|(c, x)| call2(&f, c, x), init, xs)
            .reverse(reverse)
            .unroll(unroll.max(1));
        if let Some(n) = length {
            s = s.length(n);
        }
        let (c, ys): (Vec<Tensor>, Vec<Tensor>) = s.call();
        Ok((arrays(c), arrays(ys)))
    })
}

/// `lax.cond` on leaves: `true_fn` or `false_fn` of the operands, as `pred` says.
#[pyfunction]
fn cond(
    pred: Arg,
    true_fn: Py<PyAny>,
    false_fn: Py<PyAny>,
    operands: Vec<Arg>,
) -> PyResult<Vec<Array>> {
    let (pred, operands) = (pred.operand().into_tensor(), tensors(operands));
    guard(|| {
        let out: Vec<Tensor> = oxla::lax::cond(
            &pred,
            |a: Vec<Tensor>| call(&true_fn, a),
            |a: Vec<Tensor>| call(&false_fn, a),
            operands,
        );
        Ok(arrays(out))
    })
}

/// A branch of `switch`, as oxla takes it.
type Branch<'a> = &'a dyn Fn(Vec<Tensor>) -> Vec<Tensor>;

/// `lax.switch` on leaves: `branches[index]` of the operands (`index` clamped into range).
#[pyfunction]
fn switch(index: Arg, branches: Vec<Py<PyAny>>, operands: Vec<Arg>) -> PyResult<Vec<Array>> {
    let (index, operands) = (index.operand().into_tensor(), tensors(operands));
    let fns: Vec<_> = branches
        .into_iter()
        .map(|b| move |a: Vec<Tensor>| call(&b, a))
        .collect();
    let refs: Vec<Branch<'_>> = fns.iter().map(|f| f as Branch<'_>).collect();
    guard(|| Ok(arrays(oxla::lax::switch(&index, &refs, operands))))
}

/// `lax.while_loop` on leaves: `body_fn` while `cond_fn` (a list holding one bool) holds.
#[pyfunction]
fn while_loop(cond_fn: Py<PyAny>, body_fn: Py<PyAny>, init: Vec<Arg>) -> PyResult<Vec<Array>> {
    let init = tensors(init);
    guard(|| {
        let out = oxla::lax::while_loop(
            |c: Vec<Tensor>| {
                let mut out = call(&cond_fn, c);
                out.pop().expect("the Python layer returns the predicate")
            },
            |c: Vec<Tensor>| call(&body_fn, c),
            init,
        );
        Ok(arrays(out))
    })
}

/// `lax.fori_loop` on leaves: `body(i, carry)` for `i` in `lower..upper`.
#[pyfunction]
fn fori_loop(lower: i32, upper: i32, body: Py<PyAny>, init: Vec<Arg>) -> PyResult<Vec<Array>> {
    let init = tensors(init);
    guard(|| {
        let out = oxla::lax::fori_loop(
            lower,
            upper,
            |(i, c): (Tensor, Vec<Tensor>)| call2(&body, vec![i], c).1,
            init,
        );
        Ok(arrays(out))
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<AtIndexer>()?;
    m.add_class::<AtPlace>()?;
    m.add_function(wrap_pyfunction!(scan, m)?)?;
    m.add_function(wrap_pyfunction!(cond, m)?)?;
    m.add_function(wrap_pyfunction!(switch, m)?)?;
    m.add_function(wrap_pyfunction!(while_loop, m)?)?;
    m.add_function(wrap_pyfunction!(fori_loop, m)?)?;
    Ok(())
}
