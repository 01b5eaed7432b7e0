//! Python values as oxla's: operands, dtypes, axes, indices and numpy arrays.

use oxla::array::{Array as OxArray, Buffer, DType};
use oxla::numpy::{self as jnp, Axis, IndexItem, Operand};
use oxla::Tensor;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyEllipsis, PyFloat, PyInt, PySlice, PyTuple};

use crate::array::Array;

/// An operand of a numpy function or an operator: an array, a Python scalar (weakly
/// typed, as in JAX), or anything else numpy reads (copied into a new array).
pub(crate) enum Arg {
    Array(Tensor),
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl<'py> FromPyObject<'py> for Arg {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Arg> {
        if let Ok(a) = ob.downcast::<Array>() {
            Ok(Arg::Array(a.get().0.clone()))
        } else if let Ok(b) = ob.downcast_exact::<PyBool>() {
            Ok(Arg::Bool(b.is_true()))
        } else if ob.is_exact_instance_of::<PyInt>() {
            Ok(Arg::Int(ob.extract()?))
        } else if ob.is_exact_instance_of::<PyFloat>() {
            Ok(Arg::Float(ob.extract()?))
        } else {
            Ok(Arg::Array(from_numpy(ob.py(), ob)?.0))
        }
    }
}

impl Arg {
    pub(crate) fn operand(&self) -> Operand {
        match self {
            Arg::Array(a) => Operand::from(a),
            Arg::Bool(b) => Operand::from(*b),
            Arg::Int(i) => Operand::from(*i),
            Arg::Float(f) => Operand::from(*f),
        }
    }
}

/// The oxla dtype of any numpy dtype-like (`"float32"`, `np.float32`, `jnp.float32`).
pub(crate) fn dtype_of(py: Python<'_>, dtype: &Bound<'_, PyAny>) -> PyResult<DType> {
    let np = py.import("numpy")?;
    let name: String = np
        .call_method1("dtype", (dtype,))?
        .getattr("name")?
        .extract()?;
    DType::from_numpy_name(&name)
        .ok_or_else(|| PyTypeError::new_err(format!("oxla has no dtype {name}")))
}

/// A `dtype=` argument: `None` when not given.
pub(crate) fn dtype_arg(
    py: Python<'_>,
    dtype: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<DType>> {
    match dtype {
        Some(d) if !d.is_none() => Ok(Some(dtype_of(py, d)?)),
        _ => Ok(None),
    }
}

/// JAX's default float: float64 under x64, else float32.
pub(crate) fn default_float() -> DType {
    if oxla::config::x64_enabled() {
        DType::F64
    } else {
        DType::F32
    }
}

/// The tensor of an operand (a Python scalar as JAX's default dtype).
pub(crate) fn tensor(x: &Arg) -> Tensor {
    x.operand().into_tensor()
}

/// The tensors of operands (Python scalars as rank-0 arrays of the default dtypes).
pub(crate) fn tensors(xs: Vec<Arg>) -> Vec<Tensor> {
    xs.into_iter().map(|x| x.operand().into_tensor()).collect()
}

/// The dtype numpy reads oxla's bytes as (numpy has no bfloat16: its bytes are `V2`).
pub(crate) fn typestr(d: DType) -> &'static str {
    match d {
        DType::Bool => "|b1",
        DType::I8 => "|i1",
        DType::I16 => "<i2",
        DType::I32 => "<i4",
        DType::I64 => "<i8",
        DType::U8 => "|u1",
        DType::U16 => "<u2",
        DType::U32 => "<u4",
        DType::U64 => "<u8",
        DType::F16 => "<f2",
        DType::BF16 => "|V2",
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::C64 => "<c8",
        DType::C128 => "<c16",
    }
}

/// An axis argument: `None` (every axis), an int, or a sequence of ints.
pub(crate) fn axis_of(axis: Option<&Bound<'_, PyAny>>, keepdims: bool) -> PyResult<Axis> {
    let axis: Axis = match axis {
        None => Axis::from(None::<isize>),
        Some(a) if a.is_none() => Axis::from(None::<isize>),
        Some(a) => match a.extract::<isize>() {
            Ok(i) => Axis::from(i),
            Err(_) => Axis::from(a.extract::<Vec<isize>>()?),
        },
    };
    Ok(if keepdims { jnp::keepdims(axis) } else { axis })
}

/// A shape given as ints or as one sequence of ints (`reshape(2, 3)`, `reshape((2, 3))`).
pub(crate) fn shape_of(args: &Bound<'_, PyTuple>) -> PyResult<Vec<isize>> {
    if args.len() == 1 {
        let first = args.get_item(0)?;
        if let Ok(v) = first.extract::<Vec<isize>>() {
            return Ok(v);
        }
    }
    args.extract()
}

/// One entry of an index: an int, a slice, `None`, `...`, or an integer array.
fn index_item(py: Python<'_>, k: &Bound<'_, PyAny>) -> PyResult<IndexItem> {
    if k.is_none() {
        return Ok(IndexItem::NewAxis);
    }
    if k.is(PyEllipsis::get(py)) {
        return Ok(IndexItem::Ellipsis);
    }
    if let Ok(s) = k.downcast::<PySlice>() {
        let get = |name| -> PyResult<Option<isize>> { s.getattr(name)?.extract() };
        let step = get("step")?.unwrap_or(1);
        return Ok(IndexItem::Slice(jnp::s(get("start")?, get("stop")?, step)));
    }
    if let Ok(a) = k.downcast::<Array>() {
        return Ok(IndexItem::Array(a.get().0.clone()));
    }
    if k.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(
            "oxla does not index with a Python bool (numpy adds an axis, or none)",
        ));
    }
    if let Ok(i) = k.extract::<isize>() {
        return Ok(IndexItem::Int(i));
    }
    Ok(IndexItem::Array(from_numpy(py, k)?.0))
}

/// The entries of an index: those of a tuple, or the one entry.
pub(crate) fn index_items(py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Vec<IndexItem>> {
    match key.downcast::<PyTuple>() {
        Ok(t) => t.iter().map(|k| index_item(py, &k)).collect(),
        Err(_) => Ok(vec![index_item(py, key)?]),
    }
}

/// An index as oxla's [`Index`](jnp::Index): the entries of a tuple, or one entry.
pub(crate) struct Items(pub(crate) Vec<IndexItem>);

impl jnp::Index for Items {
    fn items(self) -> Vec<IndexItem> {
        self.0
    }
}

/// When an oxla array may share a numpy array's memory instead of copying it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Share {
    /// When nothing can change the bytes: numpy's array was made here for the conversion
    /// (from a list, or converted), or it is a read-only view of an immutable owner (a
    /// `bytes` object, a read-only memory map). A read-only flag on an array that owns or
    /// views writeable memory is not enough: it can be set back.
    IfImmutable,
    /// Whenever the layout allows, else an error (`asarray(x, copy=False)`): the caller
    /// asks for the sharing, and sees later writes to numpy's array.
    Always,
    /// Never (`copy=True`).
    Never,
}

/// Below this many bytes a copy costs less than holding numpy's array.
const SHARE_FROM: usize = 4096;

/// Anything numpy can read as a new oxla array, with JAX's default dtypes (64-bit values
/// become 32-bit unless x64 is enabled): numpy's memory shared where
/// [`Share::IfImmutable`] allows, else copied.
pub(crate) fn from_numpy(py: Python<'_>, x: &Bound<'_, PyAny>) -> PyResult<Array> {
    from_numpy_sharing(py, x, Share::IfImmutable)
}

/// [`from_numpy`], sharing numpy's memory as `share` says when the array is C-contiguous
/// and 8-byte aligned.
pub(crate) fn from_numpy_sharing(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    share: Share,
) -> PyResult<Array> {
    let np = py.import("numpy")?;
    // `tobytes` below gives the elements in row-major order whatever the layout (and,
    // unlike `ascontiguousarray`, keeps a 0-d array 0-d).
    let mut a = np.call_method1("asarray", (x,))?;
    let dtype = a.getattr("dtype")?;
    let mut converted = false;
    if dtype.getattr("kind")?.extract::<String>()? == "b" {
        // Bytes other than 0 and 1 read as true: numpy's own rule, and oxla's kernels
        // assume 0 and 1.
        let truth = np.call_method1("not_equal", (a.call_method1("view", ("uint8",))?, 0))?;
        a = np.call_method1("asarray", (truth,))?;
        converted = true;
    }
    if !dtype.getattr("isnative")?.extract::<bool>()? {
        // Big-endian values: in this machine's byte order first.
        a = a.call_method1("astype", (dtype.call_method1("newbyteorder", ("=",))?,))?;
        converted = true;
    }
    let mut name: String = a.getattr("dtype")?.getattr("name")?.extract()?;
    if !oxla::config::x64_enabled() {
        let narrow = match name.as_str() {
            "float64" => Some("float32"),
            "int64" => Some("int32"),
            "uint64" => Some("uint32"),
            "complex128" => Some("complex64"),
            _ => None,
        };
        if let Some(n) = narrow {
            a = a.call_method1("astype", (n,))?;
            name = n.to_string();
            converted = true;
        }
    }
    let dtype = DType::from_numpy_name(&name)
        .ok_or_else(|| PyTypeError::new_err(format!("oxla has no dtype {name}")))?;
    let shape: Vec<usize> = a.getattr("shape")?.extract()?;
    let flags = a.getattr("flags")?;
    let address: usize = a.getattr("ctypes")?.getattr("data")?.extract()?;
    let nbytes: usize = a.getattr("nbytes")?.extract()?;
    let layout_ok = flags.getattr("c_contiguous")?.extract::<bool>()?
        && address.is_multiple_of(8)
        && nbytes > 0;
    let shared = match share {
        Share::Never => false,
        Share::Always if !(layout_ok && !converted && a.is(x)) => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "asarray(copy=False): a copy is needed (a {name} array of shape {shape:?} \
                 not C-contiguous and 8-byte aligned, or converted from another type)"
            )))
        }
        Share::Always => true,
        Share::IfImmutable => {
            layout_ok && nbytes >= SHARE_FROM && (made_here(x, converted) || immutable(&a)?)
        }
    };
    let buffer = match std::ptr::NonNull::new(address as *mut u8) {
        Some(ptr) if shared => {
            let owner: Py<PyAny> = a.clone().unbind();
            // SAFETY: numpy's array holds `nbytes` initialised, 8-byte aligned bytes at
            // `ptr`, kept alive by `owner`; nothing changes them (the array was made here,
            // or views an immutable owner) unless the caller asked to share writeable
            // memory (`copy=False`), whose later writes oxla then reads as any value of
            // its dtype (bools were normalised above).
            unsafe { Buffer::from_foreign(ptr, nbytes, Box::new(owner)) }
        }
        _ => {
            let bytes = a.call_method0("tobytes")?;
            Buffer::from_bytes(bytes.extract()?)
        }
    };
    Ok(Array(Tensor::new(OxArray::from_buffer(
        dtype, &shape, buffer,
    ))))
}

/// Whether numpy's array was made for this conversion alone: from Python lists, tuples or
/// scalars, or converted to another type here.
fn made_here(x: &Bound<'_, PyAny>, converted: bool) -> bool {
    converted
        || x.is_instance_of::<pyo3::types::PyList>()
        || x.is_instance_of::<PyTuple>()
        || x.is_instance_of::<PyFloat>()
        || x.is_instance_of::<PyInt>()
}

/// Whether `a` views memory nothing can write: the object at the root of its `base` chain
/// is not a numpy array (whose writeable flag can be set again) and exports its buffer
/// read-only (`bytes`, a read-only memory map).
fn immutable(a: &Bound<'_, PyAny>) -> PyResult<bool> {
    let py = a.py();
    let ndarray = py.import("numpy")?.getattr("ndarray")?;
    let mut root = a.clone();
    while root.is_instance(&ndarray)? {
        let base = root.getattr("base")?;
        if base.is_none() {
            return Ok(false);
        }
        root = base;
    }
    let view = py
        .import("builtins")?
        .getattr("memoryview")?
        .call1((&root,));
    Ok(match view {
        Ok(v) => v.getattr("readonly")?.extract()?,
        Err(_) => false,
    })
}

/// Refuses a `dtype=` other than `only` for `what`, whose draws oxla makes in `only`.
pub(crate) fn only_dtype(
    py: Python<'_>,
    what: &str,
    dtype: Option<&Bound<'_, PyAny>>,
    only: DType,
) -> PyResult<()> {
    match dtype_arg(py, dtype)? {
        Some(d) if d.canonical() != only => Err(pyo3::exceptions::PyNotImplementedError::new_err(
            format!("oxla's {what} draws {only} only, not {d}"),
        )),
        _ => Ok(()),
    }
}

/// A function's further parameters (after its leading ones), given positionally or by
/// keyword as Python allows; a `None` value counts as not given.
pub(crate) struct Params<'py> {
    names: &'static [&'static str],
    values: Vec<Option<Bound<'py, PyAny>>>,
}

impl<'py> Params<'py> {
    /// Binds `args` and `kwargs` to `names`, the parameters of `name` after its `leading`
    /// ones, with Python's errors for too many, unknown or repeated arguments.
    pub(crate) fn bind(
        name: &str,
        leading: usize,
        names: &'static [&'static str],
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, pyo3::types::PyDict>>,
    ) -> PyResult<Params<'py>> {
        if args.len() > names.len() {
            return Err(PyTypeError::new_err(format!(
                "{name}() takes at most {} positional arguments ({} given)",
                names.len() + leading,
                args.len() + leading
            )));
        }
        let mut values: Vec<Option<Bound<'py, PyAny>>> = vec![None; names.len()];
        for (slot, v) in values.iter_mut().zip(args.iter()) {
            *slot = Some(v);
        }
        for (k, v) in kwargs.into_iter().flatten() {
            let k: String = k.extract()?;
            let Some(i) = names.iter().position(|p| *p == k) else {
                return Err(PyTypeError::new_err(format!(
                    "{name}() got an unexpected keyword argument '{k}'"
                )));
            };
            if values[i].is_some() {
                return Err(PyTypeError::new_err(format!(
                    "{name}() got multiple values for argument '{k}'"
                )));
            }
            values[i] = Some(v);
        }
        Ok(Params { names, values })
    }

    /// The value of parameter `p`, when given and not `None`.
    pub(crate) fn get(&self, p: &str) -> Option<Bound<'py, PyAny>> {
        self.names
            .iter()
            .position(|q| *q == p)
            .and_then(|i| self.values[i].clone())
            .filter(|v| !v.is_none())
    }
}
