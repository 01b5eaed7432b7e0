//! numpy's set functions with JAX's static `size` (`unique_values`, `union1d`, ...), in
//! the `_oxla.stats` submodule (`oxla.numpy` names the pairs of the unique family).

use oxla::numpy::{self as jnp, Operand};
use oxla::Tensor;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::array::Array;
use crate::convert::Arg;
use crate::errors::guard;
use crate::stats::{refuse, unsupported};

/// The `size=` of the unique family: as given, or the number of distinct values of `x`
/// (concrete values, as JAX reads them).
fn unique_size(x: &Tensor, size: Option<usize>) -> usize {
    size.unwrap_or_else(|| {
        if x.size() == 0 {
            return 0;
        }
        let (_, counts) = jnp::unique_counts(x, x.size(), None);
        jnp::count_nonzero(&counts, None).item() as usize
    })
}

/// `unique_values`, `unique_counts`, `unique_inverse`: the sorted distinct values of `x`,
/// the first `size` (all, from concrete values, when `None`) padded with `fill_value` (the
/// smallest value), alone or with how often each occurs or, for each element of `x`, the
/// position of its value among them.
#[pyclass(frozen, module = "oxla.numpy")]
struct UniqueOf {
    #[pyo3(get)]
    __name__: &'static str,
    f: fn(&Tensor, usize, Option<f64>) -> Vec<Tensor>,
}

#[pymethods]
impl UniqueOf {
    /// JAX's `unique_values(x, /, *, size=None, fill_value=None)`: one array, or a pair.
    #[pyo3(signature = (x, /, *, size=None, fill_value=None))]
    fn __call__(
        &self,
        py: Python<'_>,
        x: Arg,
        size: Option<usize>,
        fill_value: Option<f64>,
    ) -> PyResult<PyObject> {
        let x = x.operand().into_tensor();
        let mut outs = guard(|| Ok((self.f)(&x, unique_size(&x, size), fill_value)))?;
        if outs.len() == 1 {
            return Ok(Array(outs.remove(0)).into_pyobject(py)?.into_any().unbind());
        }
        let outs: Vec<Array> = outs.into_iter().map(Array).collect();
        Ok(PyTuple::new(py, outs)?.into_any().unbind())
    }

    /// `repr()`: the function's name, as JAX's.
    fn __repr__(&self) -> String {
        format!("<function oxla.numpy.{}>", self.__name__)
    }
}

/// `jnp.unique(ar, return_index=False, return_inverse=False, return_counts=False,
/// axis=None, *, equal_nan=True, size=None, fill_value=None, sorted=True)`: the sorted
/// distinct values of `ar` (flattened; NaNs one value with `equal_nan`), with the inverse
/// indices and the counts on request (JAX always sorts, whatever `sorted`).
#[pyfunction]
#[pyo3(signature = (ar, return_index=false, return_inverse=false, return_counts=false,
                    axis=None, *, equal_nan=true, size=None, fill_value=None, sorted=true))]
#[allow(clippy::too_many_arguments)]
fn unique(
    py: Python<'_>,
    ar: Arg,
    return_index: bool,
    return_inverse: bool,
    return_counts: bool,
    axis: Option<&Bound<'_, PyAny>>,
    equal_nan: bool,
    size: Option<usize>,
    fill_value: Option<f64>,
    sorted: bool,
) -> PyResult<PyObject> {
    // JAX sorts whatever `sorted` says.
    let _ = sorted;
    if return_index {
        return Err(unsupported("unique", "return_index=True"));
    }
    refuse("unique", &[("axis", axis)])?;
    let x = ar.operand().into_tensor();
    let nan_equal = equal_nan && x.dtype().is_inexact();
    if nan_equal && (return_inverse || return_counts) {
        return Err(unsupported(
            "unique",
            "return_inverse or return_counts with equal_nan=True for inexact values \
             (pass equal_nan=False: NaNs each distinct)",
        ));
    }
    let mut out = guard(|| {
        Ok(if nan_equal {
            // The values of `x` or `x`: its distinct values, NaNs one.
            let n = size.unwrap_or_else(|| unique_size(&x, None) - extra_nans(&x));
            vec![Array(jnp::union1d(&x, &x, n, fill_value))]
        } else {
            let n = unique_size(&x, size);
            let (values, inverse) = jnp::unique_inverse(&x, n, fill_value);
            let mut out = vec![Array(values)];
            if return_inverse {
                out.push(Array(inverse));
            }
            if return_counts {
                out.push(Array(jnp::unique_counts(&x, n, fill_value).1));
            }
            out
        })
    })?;
    if out.len() == 1 {
        return Ok(out.remove(0).into_pyobject(py)?.into_any().unbind());
    }
    Ok(PyTuple::new(py, out)?.into_any().unbind())
}

/// One of oxla's functions of two sets, with the number of its results (the `size` JAX
/// reads from concrete values when `size=None`).
struct SetOp {
    f: fn(Operand, Operand, usize, Option<f64>) -> Tensor,
    count: fn(&Tensor, &Tensor) -> usize,
}

/// The distinct values of `x` (flattened, sorted; NaNs each distinct).
fn distinct(x: &Tensor) -> Tensor {
    jnp::unique_values(x, unique_size(x, None), None)
}

/// How many NaNs of `x` beyond the first (those that the two-set functions, NaNs equal,
/// drop).
fn extra_nans(x: &Tensor) -> usize {
    (jnp::count_nonzero(jnp::isnan(x), None).item() as usize).saturating_sub(1)
}

/// How many entries of `m` are true.
fn trues(m: Tensor) -> usize {
    jnp::count_nonzero(&m, None).item() as usize
}

/// `a` and `b` flattened, end to end.
fn both(a: &Tensor, b: &Tensor) -> Tensor {
    jnp::concatenate(&[a.clone(), b.clone()], None::<isize>)
}

/// `op(ar1, ar2)` with its `size` (all results, from concrete values, when `None`).
fn two_sets(
    op: SetOp,
    ar1: Arg,
    ar2: Arg,
    size: Option<usize>,
    fill: Option<f64>,
) -> PyResult<Array> {
    let (a, b) = (ar1.operand().into_tensor(), ar2.operand().into_tensor());
    guard(|| {
        let n = size.unwrap_or_else(|| (op.count)(&a, &b));
        Ok(Array((op.f)(Operand::from(&a), Operand::from(&b), n, fill)))
    })
}

/// `jnp.union1d(ar1, ar2, *, size=None, fill_value=None)`: the sorted distinct values in
/// either array.
#[pyfunction]
#[pyo3(signature = (ar1, ar2, *, size=None, fill_value=None))]
fn union1d(ar1: Arg, ar2: Arg, size: Option<usize>, fill_value: Option<f64>) -> PyResult<Array> {
    let op = SetOp {
        f: |a, b, n, v| jnp::union1d(a, b, n, v),
        count: |a, b| {
            let c = both(a, b);
            unique_size(&c, None) - extra_nans(&c)
        },
    };
    two_sets(op, ar1, ar2, size, fill_value)
}

/// `jnp.intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
/// fill_value=None)`: the sorted distinct values in both arrays (`assume_unique` is a hint
/// for speed only).
#[pyfunction]
#[pyo3(signature = (ar1, ar2, assume_unique=false, return_indices=false, *, size=None,
                    fill_value=None))]
fn intersect1d(
    ar1: Arg,
    ar2: Arg,
    assume_unique: bool,
    return_indices: bool,
    size: Option<usize>,
    fill_value: Option<f64>,
) -> PyResult<Array> {
    // A hint for speed only: the result is the same.
    let _ = assume_unique;
    if return_indices {
        return Err(unsupported("intersect1d", "return_indices=True"));
    }
    let op = SetOp {
        f: |a, b, n, v| jnp::intersect1d(a, b, n, v),
        count: |a, b| trues(jnp::isin(distinct(a), b, false)),
    };
    two_sets(op, ar1, ar2, size, fill_value)
}

/// `jnp.setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None)`: the
/// sorted distinct values of `ar1` not in `ar2`.
#[pyfunction]
#[pyo3(signature = (ar1, ar2, assume_unique=false, *, size=None, fill_value=None))]
fn setdiff1d(
    ar1: Arg,
    ar2: Arg,
    assume_unique: bool,
    size: Option<usize>,
    fill_value: Option<f64>,
) -> PyResult<Array> {
    // A hint for speed only: the result is the same.
    let _ = assume_unique;
    let op = SetOp {
        f: |a, b, n, v| jnp::setdiff1d(a, b, n, v),
        count: |a, b| trues(jnp::isin(distinct(a), b, true)) - extra_nans(a),
    };
    two_sets(op, ar1, ar2, size, fill_value)
}

/// `jnp.setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None)`: the
/// sorted distinct values in exactly one of the arrays.
#[pyfunction]
#[pyo3(signature = (ar1, ar2, assume_unique=false, *, size=None, fill_value=None))]
fn setxor1d(
    ar1: Arg,
    ar2: Arg,
    assume_unique: bool,
    size: Option<usize>,
    fill_value: Option<f64>,
) -> PyResult<Array> {
    // A hint for speed only: the result is the same.
    let _ = assume_unique;
    let op = SetOp {
        f: |a, b, n, v| jnp::setxor1d(a, b, n, v),
        count: |a, b| {
            let d = distinct(&both(a, b));
            trues(jnp::not_equal(
                jnp::isin(&d, a, false),
                jnp::isin(&d, b, false),
            ))
        },
    };
    two_sets(op, ar1, ar2, size, fill_value)
}

/// Adds this file's functions to the `stats` submodule.
pub(crate) fn add(sub: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = sub.py();
    let family = [
        UniqueOf {
            __name__: "unique_values",
            f: |x, n, fill| vec![jnp::unique_values(x, n, fill)],
        },
        UniqueOf {
            __name__: "unique_counts",
            f: |x, n, fill| {
                let (values, counts) = jnp::unique_counts(x, n, fill);
                vec![values, counts]
            },
        },
        UniqueOf {
            __name__: "unique_inverse",
            f: |x, n, fill| {
                let (values, inverse) = jnp::unique_inverse(x, n, fill);
                vec![values, inverse]
            },
        },
    ];
    for f in family {
        sub.add(f.__name__, Bound::new(py, f)?)?;
    }
    sub.add_function(wrap_pyfunction!(unique, sub)?)?;
    sub.add_function(wrap_pyfunction!(union1d, sub)?)?;
    sub.add_function(wrap_pyfunction!(intersect1d, sub)?)?;
    sub.add_function(wrap_pyfunction!(setdiff1d, sub)?)?;
    sub.add_function(wrap_pyfunction!(setxor1d, sub)?)?;
    Ok(())
}
