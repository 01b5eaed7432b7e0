//! `oxla.lax`'s convolutions (`conv_general_dilated`, `conv`, `conv_with_general_padding`,
//! `conv_transpose`, `conv_dimension_numbers`) and `reduce_window`, with JAX's padding
//! (`"SAME"`, `"VALID"`, `"SAME_LOWER"` or `(low, high)` pairs) and dimension numbers
//! (`None`, three layout strings, or `lax.ConvDimensionNumbers`), and numpy's
//! one-dimensional `convolve` and `correlate` (for `oxla.numpy` to export).

use oxla::lax::{self, ConvLayout, Padding, WindowReducer};
use oxla::numpy as jnp;
use oxla::prims::ConvDimensionNumbers;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::array::Array;
use crate::convert::tensor;
use crate::convert::{dtype_arg, Arg};
use crate::errors::guard;
use crate::lax_ops::unsupported;
use crate::linalg::only_defaults;

/// A `padding` argument: a padding type's name or one `(low, high)` pair per dimension.
fn padding_of(p: &Bound<'_, PyAny>) -> PyResult<Padding> {
    if let Ok(s) = p.downcast::<PyString>() {
        return match s.to_cow()?.to_ascii_uppercase().as_str() {
            "VALID" => Ok(Padding::Valid),
            "SAME" => Ok(Padding::Same),
            "SAME_LOWER" => Ok(Padding::SameLower),
            other => Err(PyValueError::new_err(format!(
                "unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got \
                 {other:?}"
            ))),
        };
    }
    Ok(Padding::Explicit(p.extract()?))
}

/// A `dimension_numbers` argument: `None` (the default layout), `(lhs, rhs, out)` layout
/// strings, or a `lax.ConvDimensionNumbers` of dimension indices.
fn layout_of(d: Option<&Bound<'_, PyAny>>) -> PyResult<ConvLayout> {
    let Some(d) = d.filter(|d| !d.is_none()) else {
        return Ok(ConvLayout::Default);
    };
    if let Ok((l, r, o)) = d.extract::<(String, String, String)>() {
        return Ok(ConvLayout::Strings(l, r, o));
    }
    let (lhs_spec, rhs_spec, out_spec) = d.extract::<(Vec<usize>, Vec<usize>, Vec<usize>)>()?;
    Ok(ConvLayout::Numbers(ConvDimensionNumbers {
        lhs_spec,
        rhs_spec,
        out_spec,
    }))
}

/// `lax.conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None,
/// rhs_dilation=None, dimension_numbers=None, feature_group_count=1, batch_group_count=1,
/// precision=None, preferred_element_type=None)`. `precision` has no effect on oxla's CPU
/// arithmetic (full precision).
#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (lhs, rhs, window_strides, padding, lhs_dilation=None, rhs_dilation=None,
    dimension_numbers=None, feature_group_count=1, batch_group_count=1, precision=None,
    preferred_element_type=None))]
fn conv_general_dilated(
    py: Python<'_>,
    lhs: Arg,
    rhs: Arg,
    window_strides: Vec<usize>,
    padding: &Bound<'_, PyAny>,
    lhs_dilation: Option<Vec<usize>>,
    rhs_dilation: Option<Vec<usize>>,
    dimension_numbers: Option<&Bound<'_, PyAny>>,
    feature_group_count: usize,
    batch_group_count: usize,
    precision: Option<&Bound<'_, PyAny>>,
    preferred_element_type: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    let _ = precision;
    let (padding, layout) = (padding_of(padding)?, layout_of(dimension_numbers)?);
    let pet = dtype_arg(py, preferred_element_type)?;
    let (l, r) = (tensor(&lhs), tensor(&rhs));
    guard(|| {
        Ok(Array(lax::conv_general_dilated(
            &l,
            &r,
            &window_strides,
            padding,
            lhs_dilation.as_deref(),
            rhs_dilation.as_deref(),
            layout,
            feature_group_count,
            batch_group_count,
            pet,
        )))
    })
}

/// `lax.conv(lhs, rhs, window_strides, padding, precision=None,
/// preferred_element_type=None)`: in the default layout (`NCHW`, `OIHW`).
#[pyfunction]
#[pyo3(signature = (lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None))]
fn conv(
    py: Python<'_>,
    lhs: Arg,
    rhs: Arg,
    window_strides: Vec<usize>,
    padding: &Bound<'_, PyAny>,
    precision: Option<&Bound<'_, PyAny>>,
    preferred_element_type: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    conv_general_dilated(
        py,
        lhs,
        rhs,
        window_strides,
        padding,
        None,
        None,
        None,
        1,
        1,
        precision,
        preferred_element_type,
    )
}

/// `lax.conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation,
/// rhs_dilation, precision=None, preferred_element_type=None)`.
#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation,
    precision=None, preferred_element_type=None))]
fn conv_with_general_padding(
    py: Python<'_>,
    lhs: Arg,
    rhs: Arg,
    window_strides: Vec<usize>,
    padding: &Bound<'_, PyAny>,
    lhs_dilation: Option<Vec<usize>>,
    rhs_dilation: Option<Vec<usize>>,
    precision: Option<&Bound<'_, PyAny>>,
    preferred_element_type: Option<&Bound<'_, PyAny>>,
) -> PyResult<Array> {
    conv_general_dilated(
        py,
        lhs,
        rhs,
        window_strides,
        padding,
        lhs_dilation,
        rhs_dilation,
        None,
        1,
        1,
        precision,
        preferred_element_type,
    )
}

/// `lax.conv_transpose(lhs, rhs, strides, padding, rhs_dilation=None,
/// dimension_numbers=None, transpose_kernel=False, precision=None,
/// preferred_element_type=None, use_consistent_padding=False)`: the fractionally strided
/// convolution (default layout `NHWC`, `HWIO`).
#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (lhs, rhs, strides, padding, rhs_dilation=None, dimension_numbers=None,
    transpose_kernel=false, precision=None, preferred_element_type=None,
    use_consistent_padding=false))]
fn conv_transpose(
    lhs: Arg,
    rhs: Arg,
    strides: Vec<usize>,
    padding: &Bound<'_, PyAny>,
    rhs_dilation: Option<Vec<usize>>,
    dimension_numbers: Option<&Bound<'_, PyAny>>,
    transpose_kernel: bool,
    precision: Option<&Bound<'_, PyAny>>,
    preferred_element_type: Option<&Bound<'_, PyAny>>,
    use_consistent_padding: bool,
) -> PyResult<Array> {
    let _ = precision;
    if preferred_element_type.is_some_and(|p| !p.is_none()) {
        return Err(unsupported("conv_transpose's preferred_element_type"));
    }
    if use_consistent_padding {
        return Err(unsupported("conv_transpose's use_consistent_padding=True"));
    }
    let (padding, layout) = (padding_of(padding)?, layout_of(dimension_numbers)?);
    let (l, r) = (tensor(&lhs), tensor(&rhs));
    guard(|| {
        Ok(Array(lax::conv_transpose(
            &l,
            &r,
            &strides,
            padding,
            rhs_dilation.as_deref(),
            layout,
            transpose_kernel,
        )))
    })
}

/// `lax.conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)`: the layout as
/// `(lhs_spec, rhs_spec, out_spec)` dimension indices.
#[pyfunction]
fn conv_dimension_numbers(
    lhs_shape: Vec<usize>,
    rhs_shape: Vec<usize>,
    dimension_numbers: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Vec<usize>, Vec<usize>, Vec<usize>)> {
    let layout = layout_of(dimension_numbers)?;
    guard(|| {
        let d = lax::conv_dimension_numbers(lhs_shape.len(), rhs_shape.len(), layout);
        Ok((d.lhs_spec, d.rhs_spec, d.out_spec))
    })
}

/// The monoid of a `reduce_window` `computation`: `lax.add`, `lax.max`, `lax.min` (or
/// numpy's `add`, `maximum`, `minimum`).
fn reducer_of(computation: &Bound<'_, PyAny>) -> PyResult<WindowReducer> {
    let name: String = computation
        .getattr("__name__")
        .and_then(|n| n.extract())
        .unwrap_or_default();
    match name.as_str() {
        "add" => Ok(WindowReducer::Add),
        "max" | "maximum" => Ok(WindowReducer::Max),
        "min" | "minimum" => Ok(WindowReducer::Min),
        _ => Err(unsupported(&format!(
            "reduce_window with the computation {computation} (lax.add, lax.max and lax.min \
             only)"
        ))),
    }
}

/// `lax.reduce_window(operand, init_value, computation, window_dimensions,
/// window_strides=None, padding="VALID", base_dilation=None, window_dilation=None)`: the
/// windows of `operand` folded with `computation` from `init_value`.
#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (operand, init_value, computation, window_dimensions, window_strides=None,
    padding=None, base_dilation=None, window_dilation=None))]
fn reduce_window(
    operand: Arg,
    init_value: f64,
    computation: &Bound<'_, PyAny>,
    window_dimensions: Vec<usize>,
    window_strides: Option<Vec<usize>>,
    padding: Option<&Bound<'_, PyAny>>,
    base_dilation: Option<Vec<usize>>,
    window_dilation: Option<Vec<usize>>,
) -> PyResult<Array> {
    let reducer = reducer_of(computation)?;
    let padding = match padding {
        Some(p) => padding_of(p)?,
        None => Padding::Valid,
    };
    let x = tensor(&operand);
    let strides = window_strides.unwrap_or_else(|| vec![1; window_dimensions.len()]);
    guard(|| {
        Ok(Array(lax::reduce_window(
            &x,
            init_value,
            reducer,
            &window_dimensions,
            &strides,
            padding,
            base_dilation.as_deref(),
            window_dilation.as_deref(),
        )))
    })
}

/// `jnp.NAME(a, v, mode=DEFAULT, *, precision=None, preferred_element_type=None)` for the
/// products of two one-dimensional arrays that differ only in the function and the mode.
macro_rules! one_d_product {
    ($(#[$doc:meta])* $name:ident, $mode:literal) => {
        $(#[$doc])*
        #[pyfunction]
        #[pyo3(signature = (a, v, mode=$mode, *, precision=None, preferred_element_type=None))]
        fn $name(
            a: Arg,
            v: Arg,
            mode: &str,
            precision: Option<&Bound<'_, PyAny>>,
            preferred_element_type: Option<&Bound<'_, PyAny>>,
        ) -> PyResult<Array> {
            let _ = precision;
            only_defaults(
                stringify!($name),
                &[("preferred_element_type", preferred_element_type)],
            )?;
            guard(|| Ok(Array(jnp::$name(a.operand(), v.operand(), mode))))
        }
    };
}

one_d_product!(
    /// `jnp.convolve`: the discrete convolution of two one-dimensional arrays (`mode`
    /// `"full"`, `"same"` or `"valid"`).
    convolve,
    "full"
);
one_d_product!(
    /// `jnp.correlate`: the cross-correlation of two one-dimensional arrays.
    correlate,
    "valid"
);

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(conv_general_dilated, m)?)?;
    m.add_function(wrap_pyfunction!(conv, m)?)?;
    m.add_function(wrap_pyfunction!(conv_with_general_padding, m)?)?;
    m.add_function(wrap_pyfunction!(conv_transpose, m)?)?;
    m.add_function(wrap_pyfunction!(conv_dimension_numbers, m)?)?;
    m.add_function(wrap_pyfunction!(reduce_window, m)?)?;
    m.add_function(wrap_pyfunction!(convolve, m)?)?;
    m.add_function(wrap_pyfunction!(correlate, m)?)?;
    Ok(())
}
