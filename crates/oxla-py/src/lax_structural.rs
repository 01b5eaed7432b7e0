//! `oxla.lax`'s structural functions: `dot`, `batch_matmul`, `broadcast`,
//! `broadcast_to_rank`, `select`, `split`, the named scatters and `optimization_barrier`.

use oxla::lax;
use oxla::prims::{GatherMode, ScatterDims};
use oxla::{DType, Tensor};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::array::Array;
use crate::convert::tensor;
use crate::convert::{default_float, dtype_arg, dtype_of, tensors, Arg};
use crate::errors::guard;
use crate::lax_ops::{axis_in, first_array, tensor_like, unsupported};
use crate::transforms::arrays;

/// `(lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch)` of `dot_general`.
type DotDims = ((Vec<usize>, Vec<usize>), (Vec<usize>, Vec<usize>));

/// `lax.dot(lhs, rhs, *, dimension_numbers=None, precision=None,
/// preferred_element_type=None)`: the vector/matrix product, or `dot_general` with
/// `dimension_numbers`. `precision` has no effect on oxla's CPU arithmetic (full precision).
#[pyfunction]
#[pyo3(signature = (lhs, rhs, *, dimension_numbers=None, precision=None, preferred_element_type=None))]
fn dot(
    py: Python<'_>,
    lhs: Arg,
    rhs: Arg,
    dimension_numbers: Option<DotDims>,
    precision: Option<&Bound<'_, PyAny>>,
    preferred_element_type: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let _ = precision;
    let pet = dtype_arg(py, preferred_element_type)?;
    let (l, r) = (tensor(&lhs), tensor(&rhs));
    guard(|| {
        Ok(Array(match &dimension_numbers {
            None => lax::dot(&l, &r, pet),
            Some(((lc, rc), (lb, rb))) => lax::dot_general(&l, &r, (lc, rc), (lb, rb), pet),
        }))
    })
}

/// `lax.batch_matmul(lhs, rhs, precision=None)`: matrix products over the leading (batch)
/// dimensions.
#[pyfunction]
#[pyo3(signature = (lhs, rhs, precision=None))]
fn batch_matmul(lhs: Arg, rhs: Arg, precision: Option<&Bound<'_, PyAny>>) -> PyResult<Array> {
    let _ = precision;
    let (l, r) = (tensor(&lhs), tensor(&rhs));
    guard(|| Ok(Array(lax::batch_matmul(&l, &r))))
}

/// `lax.broadcast(operand, sizes)`: `operand` with leading dimensions `sizes` added.
#[pyfunction]
fn broadcast(operand: Arg, sizes: Vec<usize>) -> PyResult<Array> {
    let x = tensor(&operand);
    guard(|| Ok(Array(lax::broadcast(&x, &sizes))))
}

/// `lax.broadcast_to_rank(x, rank)`: `x` with leading size-1 dimensions up to `rank`.
#[pyfunction]
fn broadcast_to_rank(x: Arg, rank: usize) -> PyResult<Array> {
    let x = tensor(&x);
    guard(|| Ok(Array(lax::broadcast_to_rank(&x, rank))))
}

/// `lax.select(pred, on_true, on_false)`: `on_true` where `pred` holds, else `on_false`.
#[pyfunction]
fn select(pred: Arg, on_true: Arg, on_false: Arg) -> PyResult<Array> {
    let like = first_array(&[&on_true, &on_false]);
    let (p, t, f) = (
        tensor(&pred),
        tensor_like(&on_true, like.as_ref())?,
        tensor_like(&on_false, like.as_ref())?,
    );
    guard(|| Ok(Array(lax::select(&p, &t, &f))))
}

/// `lax.split(operand, sizes, axis=0)`: consecutive pieces of `sizes` along `axis`.
#[pyfunction]
#[pyo3(signature = (operand, sizes, axis=0))]
fn split(operand: Arg, sizes: Vec<usize>, axis: isize) -> PyResult<Vec<Array>> {
    let x = tensor(&operand);
    let axis = axis_in(axis, x.ndim())?;
    guard(|| Ok(arrays(lax::split(&x, &sizes, axis))))
}

/// `lax.optimization_barrier` on leaves: the operands unchanged.
#[pyfunction]
fn optimization_barrier(operands: Vec<Arg>) -> Vec<Array> {
    arrays(lax::optimization_barrier(tensors(operands)))
}

/// A `lax.ScatterDimensionNumbers` as oxla's.
fn scatter_dims(d: &Bound<'_, PyAny>) -> PyResult<ScatterDims> {
    let get = |name: &str| -> PyResult<Vec<usize>> { d.getattr(name)?.extract() };
    Ok(ScatterDims {
        update_window_dims: get("update_window_dims")?,
        inserted_window_dims: get("inserted_window_dims")?,
        scatter_dims_to_operand_dims: get("scatter_dims_to_operand_dims")?,
        operand_batching_dims: get("operand_batching_dims")?,
        scatter_indices_batching_dims: get("scatter_indices_batching_dims")?,
    })
}

/// A scatter's `mode` (JAX's `GatherScatterMode` or its name): out-of-bounds updates are
/// dropped unless `"clip"` clamps them.
fn scatter_mode(mode: Option<&Bound<'_, PyAny>>) -> PyResult<GatherMode> {
    let Some(m) = mode.filter(|m| !m.is_none()) else {
        return Ok(GatherMode::FillOrDrop);
    };
    let name: String = match m.extract() {
        Ok(s) => s,
        Err(_) => m.getattr("name")?.extract()?,
    };
    match name.to_ascii_lowercase().as_str() {
        "clip" => Ok(GatherMode::Clip),
        "fill" | "drop" | "fill_or_drop" => Ok(GatherMode::FillOrDrop),
        "promise_in_bounds" => Ok(GatherMode::PromiseInBounds),
        other => Err(PyValueError::new_err(format!(
            "unknown scatter mode {other:?}"
        ))),
    }
}

/// `lax.scatter_add`, `scatter_mul`, `scatter_min`, `scatter_max` (by `op`):
/// `updates` combined into `operand` at `scatter_indices`.
#[pyfunction]
#[pyo3(signature = (op, operand, scatter_indices, updates, dimension_numbers, mode=None))]
fn scatter(
    op: &str,
    operand: Arg,
    scatter_indices: Arg,
    updates: Arg,
    dimension_numbers: &Bound<'_, PyAny>,
    mode: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let f = match op {
        "add" => lax::scatter_add,
        "mul" => lax::scatter_mul,
        "min" => lax::scatter_min,
        "max" => lax::scatter_max,
        _ => return Err(unsupported(&format!("lax.scatter_{op}"))),
    };
    let dims = scatter_dims(dimension_numbers)?;
    let mode = scatter_mode(mode)?;
    let x = tensor(&operand);
    let (i, u) = (tensor(&scatter_indices), tensor_like(&updates, Some(&x))?);
    guard(|| Ok(Array(f(&x, &i, &u, dims, mode))))
}

/// `lax.expand_dims(array, dimensions)`: size-1 dimensions inserted at `dimensions`.
#[pyfunction]
fn expand_dims(array: Arg, dimensions: Vec<isize>) -> PyResult<Array> {
    let x = tensor(&array);
    guard(|| Ok(Array(lax::expand_dims(&x, &dimensions))))
}

/// `lax.collapse(operand, start_dimension, stop_dimension=None)`: dimensions
/// `start..stop` merged into one.
#[pyfunction]
#[pyo3(signature = (operand, start_dimension, stop_dimension=None))]
fn collapse(
    operand: Arg,
    start_dimension: isize,
    stop_dimension: Option<isize>,
) -> PyResult<Array> {
    let x = tensor(&operand);
    let n = x.ndim() as isize;
    let fix = |d: isize| (if d < 0 { d + n } else { d }).max(0) as usize;
    let (start, stop) = (fix(start_dimension), stop_dimension.map(fix));
    guard(|| Ok(Array(lax::collapse(&x, start, stop))))
}

/// `lax.slice_in_dim(operand, start_index, limit_index, stride=1, axis=0)`.
#[pyfunction]
#[pyo3(signature = (operand, start_index, limit_index, stride=1, axis=0))]
fn slice_in_dim(
    operand: Arg,
    start_index: Option<isize>,
    limit_index: Option<isize>,
    stride: usize,
    axis: isize,
) -> PyResult<Array> {
    let x = tensor(&operand);
    let axis = axis_in(axis, x.ndim())?;
    guard(|| {
        Ok(Array(lax::slice_in_dim(
            &x,
            start_index,
            limit_index,
            stride,
            axis,
        )))
    })
}

/// `lax.index_in_dim(operand, index, axis=0, keepdims=True)`.
#[pyfunction]
#[pyo3(signature = (operand, index, axis=0, keepdims=true))]
fn index_in_dim(operand: Arg, index: isize, axis: isize, keepdims: bool) -> PyResult<Array> {
    let x = tensor(&operand);
    let axis = axis_in(axis, x.ndim())?;
    guard(|| Ok(Array(lax::index_in_dim(&x, index, axis, keepdims))))
}

/// `lax.dynamic_slice_in_dim(operand, start_index, slice_size, axis=0)`: the start
/// clamped so the slice lies in bounds.
#[pyfunction]
#[pyo3(signature = (operand, start_index, slice_size, axis=0))]
fn dynamic_slice_in_dim(
    operand: Arg,
    start_index: Arg,
    slice_size: usize,
    axis: isize,
) -> PyResult<Array> {
    let (x, i) = (tensor(&operand), tensor(&start_index));
    let axis = axis_in(axis, x.ndim())?;
    guard(|| Ok(Array(lax::dynamic_slice_in_dim(&x, &i, slice_size, axis))))
}

/// `lax.dynamic_index_in_dim(operand, index, axis=0, keepdims=True)`.
#[pyfunction]
#[pyo3(signature = (operand, index, axis=0, keepdims=true))]
fn dynamic_index_in_dim(operand: Arg, index: Arg, axis: isize, keepdims: bool) -> PyResult<Array> {
    let (x, i) = (tensor(&operand), tensor(&index));
    let axis = axis_in(axis, x.ndim())?;
    guard(|| Ok(Array(lax::dynamic_index_in_dim(&x, &i, axis, keepdims))))
}

/// `lax.dynamic_update_slice_in_dim(operand, update, start_index, axis)` and, with
/// `index=True`, `lax.dynamic_update_index_in_dim(operand, update, index, axis)`.
#[pyfunction]
fn dynamic_update_in_dim(
    index: bool,
    operand: Arg,
    update: Arg,
    start: Arg,
    axis: isize,
) -> PyResult<Array> {
    let x = tensor(&operand);
    let (u, i) = (tensor_like(&update, Some(&x))?, tensor(&start));
    let axis = axis_in(axis, x.ndim())?;
    let f: fn(&Tensor, &Tensor, &Tensor, usize) -> Tensor = if index {
        lax::dynamic_update_index_in_dim
    } else {
        lax::dynamic_update_slice_in_dim
    };
    guard(|| Ok(Array(f(&x, &u, &i, axis))))
}

/// A fill value's number and dtype (a Python scalar's is JAX's default for its kind).
fn fill(value: &Arg) -> PyResult<(f64, DType)> {
    let x64 = oxla::config::x64_enabled();
    Ok(match value {
        Arg::Bool(b) => (f64::from(u8::from(*b)), DType::Bool),
        Arg::Int(i) => (*i as f64, if x64 { DType::I64 } else { DType::I32 }),
        Arg::Float(f) => (*f, default_float()),
        Arg::Array(t) => match t.try_array() {
            Some(a) if a.size() == 1 => (a.item(), t.dtype()),
            _ => return Err(unsupported("a traced or non-scalar fill_value")),
        },
    })
}

/// `lax.full(shape, fill_value, dtype=None)`.
#[pyfunction]
#[pyo3(signature = (shape, fill_value, dtype=None))]
fn full(
    py: Python<'_>,
    shape: Vec<usize>,
    fill_value: Arg,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let (v, d) = fill(&fill_value)?;
    let d = dtype_arg(py, dtype)?.unwrap_or(d);
    guard(|| Ok(Array(lax::full(&shape, v, d))))
}

/// `lax.full_like(x, fill_value, dtype=None, shape=None)`: `x`'s shape and dtype unless
/// given.
#[pyfunction]
#[pyo3(signature = (x, fill_value, dtype=None, shape=None))]
fn full_like(
    py: Python<'_>,
    x: Arg,
    fill_value: Arg,
    dtype: Option<&Bound<'_, PyAny>>,
    shape: Option<Vec<usize>>,
) -> PyResult<Array> {
    let x = tensor(&x);
    let (v, _) = fill(&fill_value)?;
    let d = dtype_arg(py, dtype)?;
    guard(|| {
        Ok(Array(match (d, shape) {
            (None, None) => lax::full_like(&x, v),
            (d, s) => lax::full(s.as_deref().unwrap_or(x.shape()), v, d.unwrap_or(x.dtype())),
        }))
    })
}

/// `lax.broadcasted_iota(dtype, shape, dimension)`: indices along `dimension`.
#[pyfunction]
fn broadcasted_iota(
    py: Python<'_>,
    dtype: &Bound<'_, PyAny>,
    shape: Vec<usize>,
    dimension: isize,
) -> PyResult<Array> {
    let d = dtype_of(py, dtype)?;
    let dimension = axis_in(dimension, shape.len())?;
    guard(|| Ok(Array(lax::broadcasted_iota(d, &shape, dimension))))
}

/// Start indices as int32 scalars (Python ints, or traced scalars of any integer type).
fn starts(start_indices: Vec<Arg>) -> Vec<Tensor> {
    start_indices
        .iter()
        .map(|i| tensor(i).astype(DType::I32))
        .collect()
}

/// `lax.dynamic_slice(operand, start_indices, slice_sizes)`: the window of `slice_sizes`
/// at `start_indices` (each clamped so the window fits).
#[pyfunction]
fn dynamic_slice(
    operand: Arg,
    start_indices: Vec<Arg>,
    slice_sizes: Vec<usize>,
) -> PyResult<Array> {
    let (x, start) = (tensor(&operand), starts(start_indices));
    guard(|| Ok(Array(lax::dynamic_slice(&x, &start, &slice_sizes))))
}

/// `lax.dynamic_update_slice(operand, update, start_indices)`: `operand` with `update`
/// written at `start_indices` (each clamped so the update fits).
#[pyfunction]
fn dynamic_update_slice(operand: Arg, update: Arg, start_indices: Vec<Arg>) -> PyResult<Array> {
    let (x, u, start) = (tensor(&operand), tensor(&update), starts(start_indices));
    guard(|| Ok(Array(lax::dynamic_update_slice(&x, &u, &start))))
}

/// `lax.sort(operand, dimension=-1, is_stable=True, num_keys=1)` on a list of operands:
/// all sorted along `dimension` by the first `num_keys` (stably, lexicographically).
#[pyfunction]
fn sort(operands: Vec<Arg>, dimension: isize, num_keys: usize) -> PyResult<Vec<Array>> {
    let xs = tensors(operands);
    let rank = xs.first().map_or(0, Tensor::ndim);
    let dim = axis_in(dimension, rank)?;
    guard(|| Ok(arrays(lax::sort(&xs, dim, num_keys))))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(dynamic_slice, m)?)?;
    m.add_function(wrap_pyfunction!(dynamic_update_slice, m)?)?;
    m.add_function(wrap_pyfunction!(sort, m)?)?;
    m.add_function(wrap_pyfunction!(dot, m)?)?;
    m.add_function(wrap_pyfunction!(batch_matmul, m)?)?;
    m.add_function(wrap_pyfunction!(broadcast, m)?)?;
    m.add_function(wrap_pyfunction!(broadcast_to_rank, m)?)?;
    m.add_function(wrap_pyfunction!(select, m)?)?;
    m.add_function(wrap_pyfunction!(split, m)?)?;
    m.add_function(wrap_pyfunction!(optimization_barrier, m)?)?;
    m.add_function(wrap_pyfunction!(scatter, m)?)?;
    m.add_function(wrap_pyfunction!(expand_dims, m)?)?;
    m.add_function(wrap_pyfunction!(collapse, m)?)?;
    m.add_function(wrap_pyfunction!(slice_in_dim, m)?)?;
    m.add_function(wrap_pyfunction!(index_in_dim, m)?)?;
    m.add_function(wrap_pyfunction!(dynamic_slice_in_dim, m)?)?;
    m.add_function(wrap_pyfunction!(dynamic_index_in_dim, m)?)?;
    m.add_function(wrap_pyfunction!(dynamic_update_in_dim, m)?)?;
    m.add_function(wrap_pyfunction!(full, m)?)?;
    m.add_function(wrap_pyfunction!(full_like, m)?)?;
    m.add_function(wrap_pyfunction!(broadcasted_iota, m)?)?;
    Ok(())
}
