//! `oxla.Array`: an oxla tensor, concrete or a tracer, with numpy's operators and methods.

use oxla::array::{Array as OxArray, DType};
use oxla::numpy::{self as jnp, Operand};
use oxla::Tensor;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::convert::{
    axis_of, dtype_of, from_numpy_sharing, index_items, shape_of, typestr, Arg, Items, Share,
};
use crate::errors::{guard, ConcretizationTypeError};

/// An array of oxla: concrete (its buffer readable by numpy without a copy) or, inside a
/// transform, a tracer.
#[pyclass(frozen, name = "Array", module = "oxla")]
pub(crate) struct Array(pub(crate) Tensor);

impl Array {
    /// The concrete array, or JAX's error for a tracer used where a value is needed.
    fn concrete(&self, what: &str) -> PyResult<&OxArray> {
        self.0.try_array().ok_or_else(|| {
            ConcretizationTypeError::new_err(format!(
                "Abstract tracer value encountered where concrete value is expected: {what} \
                 of {:?}. The value depends on the arguments of a transformed function; \
                 use oxla.numpy.where or lax control flow instead of Python control flow.",
                self.0
            ))
        })
    }

    fn unary(&self, f: impl FnOnce(&Tensor) -> Tensor) -> PyResult<Array> {
        guard(|| Ok(Array(f(&self.0))))
    }

    fn binary(&self, other: &Arg, f: fn(Operand, Operand) -> Tensor) -> PyResult<Array> {
        guard(|| Ok(Array(f(Operand::from(&self.0), other.operand()))))
    }

    fn rbinary(&self, other: &Arg, f: fn(Operand, Operand) -> Tensor) -> PyResult<Array> {
        guard(|| Ok(Array(f(other.operand(), Operand::from(&self.0)))))
    }

    fn scalar<T>(&self, what: &str, f: impl FnOnce(f64) -> T) -> PyResult<T> {
        let a = self.concrete(what)?;
        if a.size() != 1 {
            return Err(PyTypeError::new_err(format!(
                "only arrays of one element can be converted to Python scalars, got shape {:?}",
                a.shape()
            )));
        }
        Ok(f(a.item()))
    }
}

#[pymethods]
impl Array {
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.0.shape())
    }

    #[getter]
    fn dtype<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        numpy_dtype(py, self.0.dtype())
    }

    #[getter]
    fn ndim(&self) -> usize {
        self.0.ndim()
    }

    #[getter]
    fn size(&self) -> usize {
        self.0.size()
    }

    /// `x.at[idx]`: the places of an update (`set`, `add`, ...) or a read (`get`).
    #[getter]
    fn at(&self) -> crate::control::AtIndexer {
        crate::control::AtIndexer(self.0.clone())
    }

    #[getter(T)]
    fn transposed(&self) -> PyResult<Array> {
        self.unary(Tensor::t)
    }

    /// Above numpy's arrays (JAX's value): `np_array * oxla_array` calls this class's
    /// reflected operator, so a tracer on the right stays a tracer.
    #[classattr]
    fn __array_priority__() -> i32 {
        100
    }

    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let a = self.concrete("conversion to a numpy array")?;
        if a.dtype() == DType::BF16 {
            // No typestr names bfloat16: numpy then asks `__array__`.
            return Err(pyo3::exceptions::PyAttributeError::new_err(
                "__array_interface__",
            ));
        }
        let d = PyDict::new(py);
        d.set_item("shape", PyTuple::new(py, a.shape())?)?;
        d.set_item("typestr", typestr(a.dtype()))?;
        // Read-only: oxla's buffers are shared between arrays and never written after.
        d.set_item("data", (a.as_bytes().as_ptr() as usize, true))?;
        d.set_item("version", 3)?;
        Ok(d)
    }

    #[pyo3(signature = (dtype=None, copy=None))]
    fn __array__<'py>(
        slf: &Bound<'py, Self>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let values = slf.get().concrete("conversion to a numpy array")?;
        let py = slf.py();
        let np = py.import("numpy")?;
        let a = if values.dtype() == DType::BF16 {
            // ml_dtypes' bfloat16, over a copy of the bytes.
            let bytes = pyo3::types::PyBytes::new(py, values.as_bytes());
            np.call_method1("frombuffer", (bytes, numpy_dtype(py, DType::BF16)?))?
                .call_method1("reshape", (PyTuple::new(py, values.shape())?,))?
        } else {
            np.call_method1("asarray", (slf,))?
        };
        let a = match dtype {
            Some(d) if !d.is_none() => a.call_method1("astype", (d,))?,
            _ => a,
        };
        match copy {
            Some(true) => a.call_method0("copy"),
            _ => Ok(a),
        }
    }

    fn __repr__(&self) -> String {
        format!("{:?}", self.0)
    }

    fn __str__(&self) -> String {
        format!("{}", self.0)
    }

    fn __len__(&self) -> PyResult<usize> {
        self.0
            .shape()
            .first()
            .copied()
            .ok_or_else(|| PyTypeError::new_err("len() of unsized object"))
    }

    fn __iter__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let n = slf.get().__len__()?;
        let rows = (0..n)
            .map(|i| slf.get().unary(|t| t.index(i as isize)))
            .collect::<PyResult<Vec<Array>>>()?;
        PyList::new(slf.py(), rows)?.call_method0("__iter__")
    }

    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Array> {
        let items = index_items(py, key)?;
        self.unary(|t| t.index(Items(items)))
    }

    fn __bool__(&self) -> PyResult<bool> {
        self.scalar("the truth value", |v| v != 0.0)
    }

    fn __float__(&self) -> PyResult<f64> {
        self.scalar("conversion to float", |v| v)
    }

    fn __int__(slf: &Bound<'_, Self>) -> PyResult<PyObject> {
        slf.get().scalar("conversion to int", |_| ())?;
        // Through numpy, so that a 64-bit integer keeps every bit.
        let py = slf.py();
        let v = py
            .import("numpy")?
            .call_method1("asarray", (slf,))?
            .call_method0("item")?;
        Ok(py.get_type::<pyo3::types::PyInt>().call1((v,))?.unbind())
    }

    fn __index__(slf: &Bound<'_, Self>) -> PyResult<PyObject> {
        if !slf.get().0.dtype().is_int() {
            return Err(PyTypeError::new_err(
                "only integer arrays with one element can be converted to an index",
            ));
        }
        Array::__int__(slf)
    }

    /// The value as a Python scalar.
    fn item(slf: &Bound<'_, Self>) -> PyResult<PyObject> {
        let a = slf.get();
        a.scalar("item()", |_| ())?;
        Ok(slf
            .py()
            .import("numpy")?
            .call_method1("asarray", (slf,))?
            .call_method0("item")?
            .unbind())
    }

    fn __hash__(&self) -> PyResult<isize> {
        Err(PyTypeError::new_err("unhashable type: 'Array'"))
    }

    fn __add__(&self, o: Arg) -> PyResult<Array> {
        self.binary(&o, jnp::add)
    }
    fn __radd__(&self, o: Arg) -> PyResult<Array> {
        self.rbinary(&o, jnp::add)
    }
    fn __sub__(&self, o: Arg) -> PyResult<Array> {
        self.binary(&o, jnp::subtract)
    }
    fn __rsub__(&self, o: Arg) -> PyResult<Array> {
        self.rbinary(&o, jnp::subtract)
    }
    fn __mul__(&self, o: Arg) -> PyResult<Array> {
        self.binary(&o, jnp::multiply)
    }
    fn __rmul__(&self, o: Arg) -> PyResult<Array> {
        self.rbinary(&o, jnp::multiply)
    }
    fn __truediv__(&self, o: Arg) -> PyResult<Array> {
        self.binary(&o, jnp::divide)
    }
    fn __rtruediv__(&self, o: Arg) -> PyResult<Array> {
        self.rbinary(&o, jnp::divide)
    }
    fn __floordiv__(&self, o: Arg) -> PyResult<Array> {
        self.binary(&o, jnp::floor_divide)
    }
    fn __rfloordiv__(&self, o: Arg) -> PyResult<Array> {
        self.rbinary(&o, jnp::floor_divide)
    }
    fn __mod__(&self, o: Arg) -> PyResult<Array> {
        self.binary(&o, jnp::remainder)
    }
    fn __rmod__(&self, o: Arg) -> PyResult<Array> {
        self.rbinary(&o, jnp::remainder)
    }
    fn __pow__(&self, o: Arg, _modulo: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
        self.binary(&o, jnp::power)
    }
    fn __rpow__(&self, o: Arg, _modulo: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
        self.rbinary(&o, jnp::power)
    }
    fn __matmul__(&self, o: Arg) -> PyResult<Array> {
        self.binary(&o, jnp::matmul)
    }
    fn __rmatmul__(&self, o: Arg) -> PyResult<Array> {
        self.rbinary(&o, jnp::matmul)
    }
    fn __lt__(&self, o: Arg) -> PyResult<Array> {
        self.binary(&o, jnp::less)
    }
    fn __le__(&self, o: Arg) -> PyResult<Array> {
        self.binary(&o, jnp::less_equal)
    }
    fn __gt__(&self, o: Arg) -> PyResult<Array> {
        self.binary(&o, jnp::greater)
    }
    fn __ge__(&self, o: Arg) -> PyResult<Array> {
        self.binary(&o, jnp::greater_equal)
    }
    fn __eq__(&self, o: Arg) -> PyResult<Array> {
        self.binary(&o, jnp::equal)
    }
    fn __ne__(&self, o: Arg) -> PyResult<Array> {
        self.binary(&o, jnp::not_equal)
    }
    fn __and__(&self, o: Arg) -> PyResult<Array> {
        self.binary(&o, jnp::bitwise_and)
    }
    fn __rand__(&self, o: Arg) -> PyResult<Array> {
        self.rbinary(&o, jnp::bitwise_and)
    }
    fn __or__(&self, o: Arg) -> PyResult<Array> {
        self.binary(&o, jnp::bitwise_or)
    }
    fn __ror__(&self, o: Arg) -> PyResult<Array> {
        self.rbinary(&o, jnp::bitwise_or)
    }
    fn __xor__(&self, o: Arg) -> PyResult<Array> {
        self.binary(&o, jnp::bitwise_xor)
    }
    fn __rxor__(&self, o: Arg) -> PyResult<Array> {
        self.rbinary(&o, jnp::bitwise_xor)
    }
    fn __lshift__(&self, o: Arg) -> PyResult<Array> {
        self.binary(&o, jnp::left_shift)
    }
    fn __rlshift__(&self, o: Arg) -> PyResult<Array> {
        self.rbinary(&o, jnp::left_shift)
    }
    fn __rshift__(&self, o: Arg) -> PyResult<Array> {
        self.binary(&o, jnp::right_shift)
    }
    fn __rrshift__(&self, o: Arg) -> PyResult<Array> {
        self.rbinary(&o, jnp::right_shift)
    }
    fn __invert__(&self) -> PyResult<Array> {
        self.unary(|t| jnp::invert(t))
    }
    fn __neg__(&self) -> PyResult<Array> {
        self.unary(|t| -t)
    }
    fn __pos__(&self) -> Array {
        Array(self.0.clone())
    }
    fn __abs__(&self) -> PyResult<Array> {
        self.unary(Tensor::abs)
    }

    #[pyo3(signature = (axis=None, keepdims=false))]
    fn sum(&self, axis: Option<&Bound<'_, PyAny>>, keepdims: bool) -> PyResult<Array> {
        let axis = axis_of(axis, keepdims)?;
        self.unary(|t| t.sum(axis))
    }
    #[pyo3(signature = (axis=None, keepdims=false))]
    fn mean(&self, axis: Option<&Bound<'_, PyAny>>, keepdims: bool) -> PyResult<Array> {
        let axis = axis_of(axis, keepdims)?;
        self.unary(|t| t.mean(axis))
    }
    #[pyo3(signature = (axis=None, keepdims=false))]
    fn max(&self, axis: Option<&Bound<'_, PyAny>>, keepdims: bool) -> PyResult<Array> {
        let axis = axis_of(axis, keepdims)?;
        self.unary(|t| t.max(axis))
    }
    #[pyo3(signature = (axis=None, keepdims=false))]
    fn min(&self, axis: Option<&Bound<'_, PyAny>>, keepdims: bool) -> PyResult<Array> {
        let axis = axis_of(axis, keepdims)?;
        self.unary(|t| t.min(axis))
    }
    #[pyo3(signature = (axis=None, keepdims=false))]
    fn prod(&self, axis: Option<&Bound<'_, PyAny>>, keepdims: bool) -> PyResult<Array> {
        let axis = axis_of(axis, keepdims)?;
        self.unary(|t| t.prod(axis))
    }
    #[pyo3(signature = (axis=None))]
    fn argmax(&self, axis: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
        let axis = axis_of(axis, false)?;
        self.unary(|t| t.argmax(axis))
    }
    #[pyo3(signature = (axis=None))]
    fn argmin(&self, axis: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
        let axis = axis_of(axis, false)?;
        self.unary(|t| t.argmin(axis))
    }

    #[pyo3(signature = (*shape))]
    fn reshape(&self, shape: &Bound<'_, PyTuple>) -> PyResult<Array> {
        let shape = shape_of(shape)?;
        self.unary(|t| t.reshape(&shape))
    }

    #[pyo3(signature = (*axes))]
    fn transpose(&self, axes: &Bound<'_, PyTuple>) -> PyResult<Array> {
        if axes.is_empty() || (axes.len() == 1 && axes.get_item(0)?.is_none()) {
            return self.unary(|t| t.transpose(None::<isize>));
        }
        let axes = shape_of(axes)?;
        self.unary(|t| t.transpose(axes))
    }

    #[pyo3(signature = (axis=None))]
    fn squeeze(&self, axis: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
        let axis = axis_of(axis, false)?;
        self.unary(|t| t.squeeze(axis))
    }

    fn ravel(&self) -> PyResult<Array> {
        self.unary(Tensor::ravel)
    }

    fn astype(&self, py: Python<'_>, dtype: &Bound<'_, PyAny>) -> PyResult<Array> {
        let d = dtype_of(py, dtype)?;
        self.unary(|t| t.astype(d))
    }

    /// The value as nested Python lists.
    fn tolist(slf: &Bound<'_, Self>) -> PyResult<PyObject> {
        slf.get().concrete("tolist()")?;
        Ok(slf
            .py()
            .import("numpy")?
            .call_method1("asarray", (slf,))?
            .call_method0("tolist")?
            .unbind())
    }

    /// Waits for the value (oxla computes eagerly: it is ready), as JAX's method does.
    fn block_until_ready(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }
}

/// The numpy dtype of `d`; bfloat16's comes from the `ml_dtypes` package, as JAX's does.
fn numpy_dtype(py: Python<'_>, d: DType) -> PyResult<Bound<'_, PyAny>> {
    let np = py.import("numpy")?;
    if d == DType::BF16 {
        let Ok(ml) = py.import("ml_dtypes") else {
            return Err(PyTypeError::new_err(
                "bfloat16 arrays need the ml_dtypes package (pip install ml_dtypes), as JAX's do",
            ));
        };
        return np.call_method1("dtype", (ml.getattr("bfloat16")?,));
    }
    np.call_method1("dtype", (d.numpy_name(),))
}

/// `_oxla.asarray(x, dtype=None, copy=None)`: an oxla array of `x` (an array is returned
/// as it is). numpy's memory is shared when nothing can change it (`copy=None`), whenever the
/// layout allows (`copy=False`, else `ValueError`), or never (`copy=True`).
#[pyfunction]
#[pyo3(signature = (x, dtype=None, copy=None))]
fn asarray(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    dtype: Option<&Bound<'_, PyAny>>,
    copy: Option<bool>,
) -> PyResult<Array> {
    let share = match copy {
        None => Share::IfImmutable,
        Some(false) => Share::Always,
        Some(true) => Share::Never,
    };
    let a = match x.downcast::<Array>() {
        Ok(a) => Array(a.get().0.clone()),
        Err(_) => match dtype {
            Some(d) if !d.is_none() => {
                let name = dtype_of(py, d)?.numpy_name();
                let np = py.import("numpy")?;
                let x = if copy == Some(false) {
                    x.clone()
                } else {
                    np.call_method1("asarray", (x, name))?
                };
                return from_numpy_sharing(py, &x, share)?.astype(py, d);
            }
            _ => from_numpy_sharing(py, x, share)?,
        },
    };
    match dtype {
        Some(d) if !d.is_none() => a.astype(py, d),
        _ => Ok(a),
    }
}

/// Whether 64-bit types are enabled.
#[pyfunction]
fn x64_enabled() -> bool {
    oxla::config::x64_enabled()
}

/// Enables or disables 64-bit types (`jax_enable_x64`).
#[pyfunction]
fn enable_x64(on: bool) {
    oxla::config::enable_x64(on)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(asarray, m)?)?;
    m.add_function(wrap_pyfunction!(x64_enabled, m)?)?;
    m.add_function(wrap_pyfunction!(enable_x64, m)?)?;
    Ok(())
}
