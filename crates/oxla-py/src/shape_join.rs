//! Joining and splitting arrays (`split`, `vstack`, `append`, `block`, ...), their
//! differences (`diff`, `ediff1d`), and editing at static positions (`delete`, `insert`,
//! `select`, `pad` with a mode), for the `shape` submodule.

use oxla::numpy::{self as jnp, Block, Indexing, PadMode, SplitAt};
use oxla::Tensor;
use pyo3::exceptions::{PyNotImplementedError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::array::Array;
use crate::convert::{dtype_arg, tensors, Arg};
use crate::errors::guard;
use crate::transforms::arrays;

/// `indices_or_sections`: a number of equal sections (an int or a 0-d array), or the
/// indices to split before (a sequence, or an array of rank 1 even of one element).
fn split_at(at: &Bound<'_, PyAny>) -> PyResult<SplitAt> {
    let ranked = at.hasattr("ndim")? && at.getattr("ndim")?.extract::<usize>()? > 0;
    match at.extract::<usize>() {
        Ok(n) if !ranked => Ok(SplitAt::Sections(n)),
        _ => Ok(SplitAt::Indices(at.extract()?)),
    }
}

/// Positions: one int or a sequence of ints.
fn positions(obj: &Bound<'_, PyAny>) -> PyResult<Vec<isize>> {
    match obj.extract::<isize>() {
        Ok(i) => Ok(vec![i]),
        Err(_) => obj.extract(),
    }
}

/// `jnp.split(ary, indices_or_sections, axis=0)`: equal sections, or cut before indices.
#[pyfunction]
#[pyo3(signature = (ary, indices_or_sections, axis=0))]
fn split(ary: Arg, indices_or_sections: &Bound<'_, PyAny>, axis: isize) -> PyResult<Vec<Array>> {
    let at = split_at(indices_or_sections)?;
    guard(|| Ok(arrays(jnp::split(ary.operand(), at, axis))))
}

/// `jnp.array_split(ary, indices_or_sections, axis=0)`: as `split`, sections of unequal
/// sizes allowed.
#[pyfunction]
#[pyo3(signature = (ary, indices_or_sections, axis=0))]
fn array_split(
    ary: Arg,
    indices_or_sections: &Bound<'_, PyAny>,
    axis: isize,
) -> PyResult<Vec<Array>> {
    let at = split_at(indices_or_sections)?;
    guard(|| Ok(arrays(jnp::array_split(ary.operand(), at, axis))))
}

/// `jnp.hsplit(ary, indices_or_sections)`: `split` along the second axis (the first of a
/// vector).
#[pyfunction]
fn hsplit(ary: Arg, indices_or_sections: &Bound<'_, PyAny>) -> PyResult<Vec<Array>> {
    let at = split_at(indices_or_sections)?;
    guard(|| Ok(arrays(jnp::hsplit(ary.operand(), at))))
}

/// `jnp.vsplit(ary, indices_or_sections)`: `split` along the first axis.
#[pyfunction]
fn vsplit(ary: Arg, indices_or_sections: &Bound<'_, PyAny>) -> PyResult<Vec<Array>> {
    let at = split_at(indices_or_sections)?;
    guard(|| Ok(arrays(jnp::vsplit(ary.operand(), at))))
}

/// `jnp.dsplit(ary, indices_or_sections)`: `split` along the third axis.
#[pyfunction]
fn dsplit(ary: Arg, indices_or_sections: &Bound<'_, PyAny>) -> PyResult<Vec<Array>> {
    let at = split_at(indices_or_sections)?;
    guard(|| Ok(arrays(jnp::dsplit(ary.operand(), at))))
}

/// `jnp.vstack`, `hstack`, `dstack`, `column_stack` (by name) of `tup`, in `dtype` when
/// given.
#[pyfunction]
#[pyo3(signature = (name, tup, dtype=None))]
fn stack_named(
    py: Python<'_>,
    name: &str,
    tup: Vec<Arg>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let f: fn(&[Tensor]) -> Tensor = match name {
        "vstack" => jnp::vstack,
        "hstack" => jnp::hstack,
        "dstack" => jnp::dstack,
        "column_stack" => jnp::column_stack,
        _ => return Err(PyValueError::new_err(format!("no numpy.{name}"))),
    };
    let dtype = dtype_arg(py, dtype)?;
    guard(|| {
        let t = f(&tensors(tup));
        Ok(Array(dtype.map_or_else(|| t.clone(), |d| t.astype(d))))
    })
}

/// `jnp.concat(arrays, /, *, axis=0)` (`axis=None`: the arrays flattened).
#[pyfunction]
#[pyo3(signature = (arrays, /, *, axis=Some(0)))]
fn concat(arrays: Vec<Arg>, axis: Option<isize>) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::concat(&tensors(arrays), axis))))
}

/// `jnp.append(arr, values, axis=None)`: `values` joined after `arr` (both flattened when
/// `axis` is `None`).
#[pyfunction]
#[pyo3(signature = (arr, values, axis=None))]
fn append(arr: Arg, values: Arg, axis: Option<isize>) -> PyResult<Array> {
    guard(|| Ok(Array(jnp::append(arr.operand(), values.operand(), axis))))
}

/// `jnp.meshgrid(*xi, copy=True, sparse=False, indexing='xy')`: coordinate arrays.
#[pyfunction]
#[pyo3(signature = (*xi, copy=true, sparse=false, indexing="xy"))]
fn meshgrid(xi: Vec<Arg>, copy: bool, sparse: bool, indexing: &str) -> PyResult<Vec<Array>> {
    let _ = copy;
    let indexing = match indexing {
        "xy" => Indexing::Xy,
        "ij" => Indexing::Ij,
        _ => {
            return Err(PyValueError::new_err(format!(
                "Valid values for indexing are 'xy' and 'ij', got {indexing}"
            )))
        }
    };
    guard(|| Ok(arrays(jnp::meshgrid(&tensors(xi), indexing, sparse))))
}

/// `jnp.diff(a, n=1, axis=-1, prepend=None, append=None)`: the `n`-th discrete difference.
#[pyfunction]
#[pyo3(signature = (a, n=1, axis=-1, prepend=None, append=None))]
fn diff(
    a: Arg,
    n: usize,
    axis: isize,
    prepend: Option<Arg>,
    append: Option<Arg>,
) -> PyResult<Array> {
    guard(|| {
        Ok(Array(jnp::diff(
            a.operand(),
            n,
            axis,
            prepend.map(|p| p.operand()),
            append.map(|p| p.operand()),
        )))
    })
}

/// `jnp.ediff1d(ary, to_end=None, to_begin=None)`: the differences of `ary` flattened.
#[pyfunction]
#[pyo3(signature = (ary, to_end=None, to_begin=None))]
fn ediff1d(ary: Arg, to_end: Option<Arg>, to_begin: Option<Arg>) -> PyResult<Array> {
    guard(|| {
        Ok(Array(jnp::ediff1d(
            ary.operand(),
            to_end.map(|e| e.operand()),
            to_begin.map(|b| b.operand()),
        )))
    })
}

/// `jnp.select(condlist, choicelist, default=0)`: the first choice whose condition holds.
#[pyfunction]
#[pyo3(signature = (condlist, choicelist, default=Arg::Int(0)))]
fn select(condlist: Vec<Arg>, choicelist: Vec<Arg>, default: Arg) -> PyResult<Array> {
    guard(|| {
        Ok(Array(jnp::select(
            &tensors(condlist),
            &tensors(choicelist),
            default.operand(),
        )))
    })
}

/// `jnp.delete(arr, obj, axis=None)`: the entries at positions `obj` (an int or ints)
/// removed along `axis` (`None`: from `arr` flattened).
#[pyfunction]
#[pyo3(signature = (arr, obj, axis=None, *, assume_unique_indices=false))]
fn delete(
    arr: Arg,
    obj: &Bound<'_, PyAny>,
    axis: Option<isize>,
    assume_unique_indices: bool,
) -> PyResult<Array> {
    let _ = assume_unique_indices;
    let obj = positions(obj)?;
    guard(|| Ok(Array(jnp::delete(arr.operand(), &obj, axis))))
}

/// `jnp.insert(arr, obj, values, axis=None)`: `values` placed before positions `obj`.
#[pyfunction]
#[pyo3(signature = (arr, obj, values, axis=None))]
fn insert(arr: Arg, obj: &Bound<'_, PyAny>, values: Arg, axis: Option<isize>) -> PyResult<Array> {
    let obj = positions(obj)?;
    guard(|| {
        Ok(Array(jnp::insert(
            arr.operand(),
            &obj,
            values.operand(),
            axis,
        )))
    })
}

/// `jnp.pad(array, pad_width, mode)` for the modes `edge`, `reflect`, `symmetric`, `wrap`:
/// `widths` one `(before, after)` per axis.
#[pyfunction]
fn pad_mode(array: Arg, widths: Vec<(usize, usize)>, mode: &str) -> PyResult<Array> {
    let mode = match mode {
        "edge" => PadMode::Edge,
        "reflect" => PadMode::Reflect,
        "symmetric" => PadMode::Symmetric,
        "wrap" => PadMode::Wrap,
        _ => {
            return Err(PyNotImplementedError::new_err(format!(
                "oxla's pad takes mode 'constant', 'edge', 'reflect', 'symmetric' or 'wrap', \
                 not {mode:?}"
            )))
        }
    };
    guard(|| Ok(Array(jnp::pad_mode(array.operand(), &widths, mode))))
}

/// The nested lists of `jnp.block` (lists nest; anything else is one array).
fn block_of(ob: &Bound<'_, PyAny>) -> PyResult<Block> {
    match ob.downcast::<PyList>() {
        Ok(l) => Ok(Block::List(
            l.iter().map(|e| block_of(&e)).collect::<PyResult<_>>()?,
        )),
        Err(_) => Ok(Block::Array(ob.extract::<Arg>()?.operand().into_tensor())),
    }
}

/// `jnp.block(arrays)`: an array assembled from nested lists of blocks.
#[pyfunction]
fn block(arrays: &Bound<'_, PyAny>) -> PyResult<Array> {
    let b = block_of(arrays)?;
    guard(|| Ok(Array(jnp::block(b))))
}

/// Adds this file's functions to the `shape` submodule.
pub(crate) fn register(sub: &Bound<'_, PyModule>) -> PyResult<()> {
    sub.add_function(wrap_pyfunction!(split, sub)?)?;
    sub.add_function(wrap_pyfunction!(array_split, sub)?)?;
    sub.add_function(wrap_pyfunction!(hsplit, sub)?)?;
    sub.add_function(wrap_pyfunction!(vsplit, sub)?)?;
    sub.add_function(wrap_pyfunction!(dsplit, sub)?)?;
    sub.add_function(wrap_pyfunction!(stack_named, sub)?)?;
    sub.add_function(wrap_pyfunction!(concat, sub)?)?;
    sub.add_function(wrap_pyfunction!(append, sub)?)?;
    sub.add_function(wrap_pyfunction!(meshgrid, sub)?)?;
    sub.add_function(wrap_pyfunction!(diff, sub)?)?;
    sub.add_function(wrap_pyfunction!(ediff1d, sub)?)?;
    sub.add_function(wrap_pyfunction!(select, sub)?)?;
    sub.add_function(wrap_pyfunction!(delete, sub)?)?;
    sub.add_function(wrap_pyfunction!(insert, sub)?)?;
    sub.add_function(wrap_pyfunction!(pad_mode, sub)?)?;
    sub.add_function(wrap_pyfunction!(block, sub)?)?;
    Ok(())
}
