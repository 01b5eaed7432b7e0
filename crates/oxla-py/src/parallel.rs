//! `pmap`, `shard_map` over a 1-D mesh, the collectives of `jax.lax` and the device
//! counts, for Python functions of flat lists of arrays (the Python layer broadcasts the
//! axes and specs to one entry per leaf).

use oxla::lax;
use oxla::{AxisTree, Tensor};
use pyo3::prelude::*;

use crate::array::Array;
use crate::convert::{tensors, Arg};
use crate::errors::guard;
use crate::transforms::{arrays, intern, split, split_out_axes};

/// One axis per leaf (`None`: not mapped, or not cut).
fn leaf_axes(axes: Vec<Option<isize>>) -> AxisTree {
    AxisTree::Node(axes.into_iter().map(AxisTree::Leaf).collect())
}

/// `pmap(f)(*args)` on leaves: one input axis per leaf; `f` is a
/// [`SplitFn`](crate::transforms::SplitFn), whose outputs come back as `(mapped, the same
/// on every device)`.
#[pyfunction]
#[pyo3(signature = (f, args, in_axes, axis_name=None))]
fn pmap(
    f: Py<PyAny>,
    args: Vec<Arg>,
    in_axes: Vec<Option<isize>>,
    axis_name: Option<String>,
) -> PyResult<(Vec<Array>, Vec<Array>)> {
    let mut p = oxla::pmap(split(f))
        .in_axes(leaf_axes(in_axes))
        .out_axes(split_out_axes());
    if let Some(name) = axis_name {
        p = p.axis_name(intern(name));
    }
    let args = tensors(args);
    guard(|| {
        let (mapped, same): (Vec<Tensor>, Vec<Tensor>) = p.call(args);
        Ok((arrays(mapped), arrays(same)))
    })
}

/// `shard_map(f)(*args)` over a mesh of `devices` along `axis_name`: the dimension of each
/// leaf cut among the devices (`None`: whole on every device); `f` is a
/// [`SplitFn`](crate::transforms::SplitFn) whose first list is joined along axis 0 and
/// whose second is the same on every device.
#[pyfunction]
fn shard_map(
    f: Py<PyAny>,
    args: Vec<Arg>,
    in_specs: Vec<Option<isize>>,
    axis_name: String,
    devices: usize,
    check_vma: bool,
) -> PyResult<(Vec<Array>, Vec<Array>)> {
    let s = oxla::shard_map(split(f))
        .axis_name(intern(axis_name))
        .devices(devices)
        .in_specs(leaf_axes(in_specs))
        .out_specs(split_out_axes())
        .check_vma(check_vma);
    let args = tensors(args);
    guard(|| {
        let (joined, same): (Vec<Tensor>, Vec<Tensor>) = s.call(args);
        Ok((arrays(joined), arrays(same)))
    })
}

/// Axis names as oxla takes them: one name or a tuple of names (their product axis).
fn names(axes: &[String]) -> Vec<&str> {
    axes.iter().map(String::as_str).collect()
}

/// A reduction over named axes (`psum`, `pmean`, `pmax`, `pmin`) of one array.
#[pyfunction]
fn preduce(op: &str, x: Arg, axes: Vec<String>) -> PyResult<Array> {
    let x = x.operand().into_tensor();
    let ns = names(&axes);
    let ns = ns.as_slice();
    guard(|| {
        Ok(Array(match op {
            "psum" => lax::psum(&x, ns),
            "pmean" => lax::pmean(&x, ns),
            "pmax" => lax::pmax(&x, ns),
            "pmin" => lax::pmin(&x, ns),
            _ => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "no collective {op}"
                )))
            }
        }))
    })
}

/// `axis_index(axis_name)`: this member's index along the named axes.
#[pyfunction]
fn axis_index(axes: Vec<String>) -> PyResult<Array> {
    guard(|| Ok(Array(lax::axis_index(names(&axes).as_slice()))))
}

/// `all_gather(x, axis_name, axis, tiled)`.
#[pyfunction]
fn all_gather(x: Arg, axis_name: &str, axis: usize, tiled: bool) -> PyResult<Array> {
    let x: Tensor = x.operand().into_tensor();
    guard(|| Ok(Array(lax::all_gather(&x, axis_name, axis, tiled))))
}

/// `psum_scatter(x, axis_name, scatter_dimension, tiled)`.
#[pyfunction]
fn psum_scatter(x: Arg, axis_name: &str, scatter_dimension: usize, tiled: bool) -> PyResult<Array> {
    let x: Tensor = x.operand().into_tensor();
    guard(|| {
        Ok(Array(lax::psum_scatter(
            &x,
            axis_name,
            scatter_dimension,
            tiled,
        )))
    })
}

/// `ppermute(x, axis_name, perm)`: member `src`'s value sent to member `dst`.
#[pyfunction]
fn ppermute(x: Arg, axis_name: &str, perm: Vec<(usize, usize)>) -> PyResult<Array> {
    let x: Tensor = x.operand().into_tensor();
    guard(|| Ok(Array(lax::ppermute(&x, axis_name, &perm))))
}

/// `pshuffle(x, axis_name, perm)`: member `perm[j]`'s value received by member `j`.
#[pyfunction]
fn pshuffle(x: Arg, axis_name: &str, perm: Vec<usize>) -> PyResult<Array> {
    let x: Tensor = x.operand().into_tensor();
    guard(|| Ok(Array(lax::pshuffle(&x, axis_name, &perm))))
}

/// `all_to_all(x, axis_name, split_axis, concat_axis, tiled)`.
#[pyfunction]
fn all_to_all(
    x: Arg,
    axis_name: &str,
    split_axis: usize,
    concat_axis: usize,
    tiled: bool,
) -> PyResult<Array> {
    let x: Tensor = x.operand().into_tensor();
    guard(|| {
        Ok(Array(lax::all_to_all(
            &x,
            axis_name,
            split_axis,
            concat_axis,
            tiled,
        )))
    })
}

/// `axis_size(axis_name)`: the size of the named axes' product.
#[pyfunction]
fn axis_size(axes: Vec<String>) -> PyResult<usize> {
    guard(|| Ok(lax::axis_size(names(&axes).as_slice())))
}

/// `jax.device_count()`: every process's devices.
#[pyfunction]
fn device_count() -> usize {
    oxla::device_count()
}

/// `jax.local_device_count()`: this process's devices.
#[pyfunction]
fn local_device_count() -> usize {
    oxla::local_device_count()
}

/// Splits the machine into `n` CPU devices (`jax_num_cpu_devices`), before their first use.
#[pyfunction]
fn set_num_devices(n: usize) -> PyResult<()> {
    guard(|| {
        oxla::set_num_devices(n);
        Ok(())
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(pmap, m)?)?;
    m.add_function(wrap_pyfunction!(shard_map, m)?)?;
    m.add_function(wrap_pyfunction!(preduce, m)?)?;
    m.add_function(wrap_pyfunction!(axis_index, m)?)?;
    m.add_function(wrap_pyfunction!(all_gather, m)?)?;
    m.add_function(wrap_pyfunction!(psum_scatter, m)?)?;
    m.add_function(wrap_pyfunction!(ppermute, m)?)?;
    m.add_function(wrap_pyfunction!(pshuffle, m)?)?;
    m.add_function(wrap_pyfunction!(all_to_all, m)?)?;
    m.add_function(wrap_pyfunction!(axis_size, m)?)?;
    m.add_function(wrap_pyfunction!(device_count, m)?)?;
    m.add_function(wrap_pyfunction!(local_device_count, m)?)?;
    m.add_function(wrap_pyfunction!(set_num_devices, m)?)?;
    Ok(())
}
