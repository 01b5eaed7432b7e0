//! oxla's transforms over Python functions of flat lists of arrays (the package's Python
//! layer flattens and rebuilds pytrees around them).

use std::collections::HashSet;
use std::sync::Mutex;

use oxla::{AxisTree, Jit, Tensor};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::array::Array;
use crate::convert::{tensors, Arg};
use crate::errors::{from_oxla, guard, raise};

/// A Python function of a list of arrays returning a list of arrays, as oxla calls it.
pub(crate) type FlatFn = Box<dyn Fn(Vec<Tensor>) -> Vec<Tensor> + Send + Sync>;

/// Calls Python `f` on `leaves`; a Python exception unwinds through oxla (which pops its
/// traces) to the [`guard`] of the call that started the transform.
pub(crate) fn call(f: &Py<PyAny>, leaves: Vec<Tensor>) -> Vec<Tensor> {
    Python::with_gil(|py| {
        let args: Vec<Array> = leaves.into_iter().map(Array).collect();
        let out = f
            .call1(py, (args,))
            .and_then(|out| out.extract::<Vec<Arg>>(py));
        match out {
            Ok(out) => out.into_iter().map(|a| a.operand().into_tensor()).collect(),
            Err(e) => raise(e),
        }
    })
}

/// Python `f` as a function oxla can transform.
pub(crate) fn flat(f: Py<PyAny>) -> FlatFn {
    Box::new(move |leaves| call(&f, leaves))
}

/// A Python function of a list of arrays returning two lists: the outputs mapped along
/// axis 0 and those the same for every example (`out_axes` `None`), as `vmap` and `pmap`
/// call it; the Python layer moves and reorders them.
pub(crate) type SplitFn = Box<dyn Fn(Vec<Tensor>) -> (Vec<Tensor>, Vec<Tensor>) + Send + Sync>;

/// Python `f` returning `[mapped, unmapped]` as a [`SplitFn`].
pub(crate) fn split(f: Py<PyAny>) -> SplitFn {
    Box::new(move |leaves| {
        Python::with_gil(|py| {
            let args: Vec<Array> = leaves.into_iter().map(Array).collect();
            let out = f
                .call1(py, (args,))
                .and_then(|out| out.extract::<(Vec<Arg>, Vec<Arg>)>(py));
            let ts = |v: Vec<Arg>| v.into_iter().map(|a| a.operand().into_tensor()).collect();
            match out {
                Ok((mapped, same)) => (ts(mapped), ts(same)),
                Err(e) => raise(e),
            }
        })
    })
}

/// The output axes of a [`SplitFn`]: 0 for its first list, `None` for its second.
pub(crate) fn split_out_axes() -> AxisTree {
    AxisTree::Node(vec![AxisTree::Leaf(Some(0)), AxisTree::Leaf(None)])
}

/// A pair of tensors as `oxla.Array`s.
pub(crate) fn pair((a, b): (Tensor, Tensor)) -> (Array, Array) {
    (Array(a), Array(b))
}

/// Tensors as `oxla.Array`s.
pub(crate) fn arrays(ts: Vec<Tensor>) -> Vec<Array> {
    ts.into_iter().map(Array).collect()
}

/// `make_jaxpr`: the jaxpr of `f` on `args`, as JAX prints it.
#[pyfunction]
fn make_jaxpr(f: Py<PyAny>, args: Vec<Arg>) -> PyResult<String> {
    let f = flat(f);
    guard(|| Ok(oxla::make_jaxpr(f, tensors(args)).to_string()))
}

/// `value_and_grad` with aux: `f(diff + rest)` returns `[value, *aux]`; the gradient is
/// taken with respect to `diff`. Returns `(value, aux, grads)`.
#[pyfunction]
fn value_and_grad(
    f: Py<PyAny>,
    diff: Vec<Arg>,
    rest: Vec<Arg>,
) -> PyResult<(Array, Vec<Array>, Vec<Array>)> {
    let rest = tensors(rest);
    let f = |d: Vec<Tensor>| {
        let mut args = d;
        args.extend(rest.iter().cloned());
        let mut out = call(&f, args).into_iter();
        let value = out
            .next()
            .expect("the Python layer returns the value first");
        (value, out.collect::<Vec<Tensor>>())
    };
    guard(|| {
        let ((value, aux), grads): ((Tensor, Vec<Tensor>), Vec<Tensor>) =
            oxla::value_and_grad(f).has_aux().call(tensors(diff));
        Ok((Array(value), arrays(aux), arrays(grads)))
    })
}

/// `jvp(f, primals, tangents)`: `(outputs, output tangents)`.
#[pyfunction]
fn jvp(f: Py<PyAny>, primals: Vec<Arg>, tangents: Vec<Arg>) -> PyResult<(Vec<Array>, Vec<Array>)> {
    let f = flat(f);
    guard(|| {
        let (out, dout) = oxla::jvp(f, tensors(primals), tensors(tangents));
        Ok((arrays(out), arrays(dout)))
    })
}

/// The pull-back of a [`vjp`].
#[pyclass(frozen, module = "oxla")]
struct Pullback(oxla::transforms::Vjp<Vec<Tensor>>);

#[pymethods]
impl Pullback {
    fn __call__(&self, cotangents: Vec<Arg>) -> PyResult<Vec<Array>> {
        guard(|| Ok(arrays(self.0.call(tensors(cotangents)))))
    }
}

/// `vjp(f, primals)`: `(outputs, pullback)`.
#[pyfunction]
fn vjp(f: Py<PyAny>, primals: Vec<Arg>) -> PyResult<(Vec<Array>, Pullback)> {
    let f = flat(f);
    guard(|| {
        let (out, pb) = oxla::vjp(f, tensors(primals));
        Ok((arrays(out), Pullback(pb)))
    })
}

/// Axis names live as long as the program: each distinct name is kept once.
pub(crate) fn intern(name: String) -> &'static str {
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let names = names.get_or_insert_with(HashSet::new);
    if let Some(n) = names.get(name.as_str()) {
        return n;
    }
    let n: &'static str = Box::leak(name.into_boxed_str());
    names.insert(n);
    n
}

/// `vmap(f)(*args)` on leaves: one input axis per leaf (`None`: not mapped); `f` is a
/// [`SplitFn`], whose outputs come back as `(mapped, unmapped)`. oxla's chunking and
/// memory budget apply.
#[pyfunction]
#[pyo3(signature = (f, args, in_axes, axis_name=None, axis_size=None, chunk_size=None, memory_budget=None))]
#[allow(clippy::too_many_arguments)]
fn vmap(
    py: Python<'_>,
    f: Py<PyAny>,
    args: Vec<Arg>,
    in_axes: Vec<Option<isize>>,
    axis_name: Option<String>,
    axis_size: Option<usize>,
    chunk_size: Option<usize>,
    memory_budget: Option<usize>,
) -> PyResult<(Vec<Array>, Vec<Array>)> {
    let mut v = oxla::vmap(split(f))
        .in_axes(AxisTree::Node(
            in_axes.into_iter().map(AxisTree::Leaf).collect(),
        ))
        .out_axes(split_out_axes());
    if let Some(name) = axis_name {
        v = v.axis_name(intern(name));
    }
    if let Some(n) = axis_size {
        v = v.axis_size(n);
    }
    if let Some(k) = chunk_size {
        v = v.chunk_size(k);
    }
    let args = tensors(args);
    let both = |(a, b): (Vec<Tensor>, Vec<Tensor>)| (arrays(a), arrays(b));
    guard(|| match memory_budget {
        Some(bytes) => match v.memory_budget(bytes).call(args) {
            Ok(out) => Ok(both(out)),
            Err(e) => Err(from_oxla(py, e)),
        },
        None => Ok(both(v.call(args))),
    })
}

/// A jitted Python function of a list of arrays: compiled once per shapes and dtypes.
#[pyclass(frozen, module = "oxla")]
pub(crate) struct Jitted(Jit<FlatFn, Vec<Tensor>, Vec<Tensor>>);

#[pymethods]
impl Jitted {
    #[new]
    fn new(f: Py<PyAny>) -> Jitted {
        Jitted(oxla::jit(flat(f)))
    }

    fn __call__(&self, py: Python<'_>, args: Vec<Arg>) -> PyResult<Vec<Array>> {
        let args = tensors(args);
        // Compiled code runs without the GIL; tracing takes it back to call Python.
        let out = guard(|| Ok(py.allow_threads(|| self.0.call(args))))?;
        out.map(arrays).map_err(|e| from_oxla(py, e))
    }

    /// The memory plan of the call on `args`: its figures and its printed table.
    fn memory_analysis<'py>(
        &self,
        py: Python<'py>,
        args: Vec<Arg>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let args = tensors(args);
        let plan = guard(|| Ok(self.0.lower(&args).compile().memory_analysis().clone()))?;
        let d = PyDict::new(py);
        d.set_item("argument_bytes", plan.argument_bytes)?;
        d.set_item("output_bytes", plan.output_bytes)?;
        d.set_item("temp_bytes", plan.temp_bytes)?;
        d.set_item("peak_bytes", plan.peak_bytes)?;
        d.set_item("text", plan.to_string())?;
        Ok(d)
    }

    /// The jaxpr the call on `args` compiles, as JAX prints it.
    fn lowered_text(&self, args: Vec<Arg>) -> PyResult<String> {
        let args = tensors(args);
        guard(|| Ok(self.0.lower(&args).jaxpr().to_string()))
    }
}

/// `explain(f, *args)`: the memory plan of `f` compiled for `args`, as text.
#[pyfunction]
fn explain(f: Py<PyAny>, args: Vec<Arg>) -> PyResult<String> {
    let f = flat(f);
    guard(|| Ok(oxla::explain(f, &tensors(args)).to_string()))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Pullback>()?;
    m.add_function(wrap_pyfunction!(make_jaxpr, m)?)?;
    m.add_function(wrap_pyfunction!(value_and_grad, m)?)?;
    m.add_function(wrap_pyfunction!(jvp, m)?)?;
    m.add_function(wrap_pyfunction!(vjp, m)?)?;
    m.add_function(wrap_pyfunction!(vmap, m)?)?;
    m.add_function(wrap_pyfunction!(explain, m)?)?;
    Ok(())
}
