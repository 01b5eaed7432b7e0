//! `conv_general_dilated`, binding the primitive, with JAX's string paddings and layouts.

use std::panic::Location;

use super::bind1;
use crate::array::DType;
use crate::core::{Prim, Tensor};
use crate::prims::conv::dilate_dim;
pub use crate::prims::ConvDimensionNumbers;
use crate::prims::ConvParams;

/// A convolution's or window's padding: JAX's strings `"VALID"`, `"SAME"` and
/// `"SAME_LOWER"`, or explicit `(low, high)` pairs, one per spatial dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Padding {
    /// No padding.
    Valid,
    /// Enough padding for `ceil(in / stride)` results, the odd one at the end.
    Same,
    /// As `Same`, the odd one at the start.
    SameLower,
    /// `(low, high)` per spatial dimension; negative values crop.
    Explicit(Vec<(i64, i64)>),
}

impl From<&str> for Padding {
    /// `"VALID"`, `"SAME"` or `"SAME_LOWER"`, in any case.
    ///
    /// # Panics
    /// On any other string, as JAX's `padtype_to_pads`.
    #[track_caller]
    fn from(s: &str) -> Padding {
        match s.to_ascii_uppercase().as_str() {
            "VALID" => Padding::Valid,
            "SAME" => Padding::Same,
            "SAME_LOWER" => Padding::SameLower,
            _ => panic!(
                "unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got \
                 {s:?}\n  at {}",
                Location::caller()
            ),
        }
    }
}

impl From<Vec<(i64, i64)>> for Padding {
    fn from(v: Vec<(i64, i64)>) -> Padding {
        Padding::Explicit(v)
    }
}

impl From<&[(i64, i64)]> for Padding {
    fn from(v: &[(i64, i64)]) -> Padding {
        Padding::Explicit(v.to_vec())
    }
}

impl<const N: usize> From<[(i64, i64); N]> for Padding {
    fn from(v: [(i64, i64); N]) -> Padding {
        Padding::Explicit(v.to_vec())
    }
}

/// JAX's `lax.padtype_to_pads`: the `(low, high)` pairs of `padding` for an input of
/// spatial shape `in_shape`, a (dilated) window of `window_shape` and `window_strides`.
/// Explicit pairs come back as they are.
pub fn padtype_to_pads(
    in_shape: &[usize],
    window_shape: &[usize],
    window_strides: &[usize],
    padding: &Padding,
) -> Vec<(i64, i64)> {
    let lower = match padding {
        Padding::Valid => return vec![(0, 0); in_shape.len()],
        Padding::Explicit(v) => return v.clone(),
        Padding::Same => false,
        Padding::SameLower => true,
    };
    in_shape
        .iter()
        .zip(window_shape)
        .zip(window_strides)
        .map(|((&i, &w), &s)| {
            let out = i.div_ceil(s.max(1)) as i64;
            let size = ((out - 1) * s as i64 + w as i64 - i as i64).max(0);
            let (small, big) = (size / 2, size - size / 2);
            if lower {
                (big, small)
            } else {
                (small, big)
            }
        })
        .collect()
}

/// A convolution's layout: JAX's default (`None`: `NCHW`, `OIHW`, `NCHW` and their
/// analogues), three strings such as `("NHWC", "HWIO", "NHWC")`, or the dimension numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConvLayout {
    /// Every spec `0, 1, 2, ...`.
    Default,
    /// The input's, kernel's and result's layouts as letters.
    Strings(String, String, String),
    /// The dimension numbers themselves.
    Numbers(ConvDimensionNumbers),
}

impl From<(&str, &str, &str)> for ConvLayout {
    fn from((l, r, o): (&str, &str, &str)) -> ConvLayout {
        ConvLayout::Strings(l.into(), r.into(), o.into())
    }
}

impl From<ConvDimensionNumbers> for ConvLayout {
    fn from(d: ConvDimensionNumbers) -> ConvLayout {
        ConvLayout::Numbers(d)
    }
}

impl From<&ConvDimensionNumbers> for ConvLayout {
    fn from(d: &ConvDimensionNumbers) -> ConvLayout {
        ConvLayout::Numbers(d.clone())
    }
}

/// JAX's `lax.conv_dimension_numbers`: the dimension numbers of `layout` for operands of
/// rank `lhs_ndim` and `rhs_ndim`.
///
/// # Panics
/// When the ranks differ or the strings are not a layout of that rank (JAX's messages).
#[track_caller]
pub fn conv_dimension_numbers(
    lhs_ndim: usize,
    rhs_ndim: usize,
    layout: impl Into<ConvLayout>,
) -> ConvDimensionNumbers {
    let _line = crate::core::user_line();
    if lhs_ndim != rhs_ndim {
        panic!(
            "conv_dimension_numbers: convolution requires lhs and rhs ndim to be equal, got \
             {lhs_ndim} and {rhs_ndim}\n  at {}",
            Location::caller()
        );
    }
    match layout.into() {
        ConvLayout::Default => ConvDimensionNumbers::identity(lhs_ndim),
        ConvLayout::Numbers(d) => d,
        ConvLayout::Strings(l, r, o) => {
            for s in [&l, &r, &o] {
                if s.chars().count() != lhs_ndim {
                    panic!(
                        "conv_dimension_numbers: dimension_numbers ({l:?}, {r:?}, {o:?}) must \
                         each have {lhs_ndim} letters, one per dimension of the operands\n  at {}",
                        Location::caller()
                    );
                }
            }
            ConvDimensionNumbers::from_strings(&l, &r, &o).unwrap_or_else(|m| {
                panic!(
                    "conv_dimension_numbers: convolution {m}\n  at {}",
                    Location::caller()
                )
            })
        }
    }
}

/// Binds `conv_general_dilated` with resolved parameters.
#[track_caller]
pub(crate) fn conv_with_params(lhs: &Tensor, rhs: &Tensor, params: ConvParams) -> Tensor {
    bind1(
        Prim::ConvGeneralDilated(params),
        &[lhs.clone(), rhs.clone()],
    )
}

/// JAX's `lax.conv_general_dilated`: the `n`-dimensional convolution of `lhs` (the input)
/// with `rhs` (the kernel), with `window_strides`, `padding` (a [`Padding`]: `"SAME"`,
/// `"VALID"`, `"SAME_LOWER"` or `(low, high)` pairs), `lhs_dilation` (a transposed
/// convolution's stride) and `rhs_dilation` (atrous convolution) — `None` for ones —, the
/// layout `dimension_numbers` (a [`ConvLayout`]: [`ConvLayout::Default`], strings such as
/// `("NHWC", "HWIO", "NHWC")`, or [`ConvDimensionNumbers`]), and feature or batch groups.
///
/// # Panics
/// When the shapes, layout or groups do not fit (JAX's checks), or a string padding is
/// asked for with an input dilation.
#[allow(clippy::too_many_arguments)]
#[track_caller]
pub fn conv_general_dilated(
    lhs: &Tensor,
    rhs: &Tensor,
    window_strides: &[usize],
    padding: impl Into<Padding>,
    lhs_dilation: Option<&[usize]>,
    rhs_dilation: Option<&[usize]>,
    dimension_numbers: impl Into<ConvLayout>,
    feature_group_count: usize,
    batch_group_count: usize,
    preferred_element_type: Option<DType>,
) -> Tensor {
    let _line = crate::core::user_line();
    let dn = conv_dimension_numbers(lhs.ndim(), rhs.ndim(), dimension_numbers);
    let nd = lhs.ndim().saturating_sub(2);
    let ones = vec![1; nd];
    let lhs_dilation = lhs_dilation.map_or(ones.clone(), <[usize]>::to_vec);
    let rhs_dilation = rhs_dilation.map_or(ones, <[usize]>::to_vec);
    let padding = padding.into();
    if !matches!(padding, Padding::Explicit(_)) && lhs_dilation.iter().any(|&d| d != 1) {
        panic!(
            "conv_general_dilated: string padding is not implemented for transposed \
             convolution using this op; specify the padding exactly or use conv_transpose \
            \n  at {}",
            Location::caller()
        );
    }
    let padding = if let Padding::Explicit(v) = padding {
        v
    } else {
        let take = |shape: &[usize], spec: &[usize]| -> Vec<usize> {
            spec.iter()
                .skip(2)
                .map(|&d| shape.get(d).copied().unwrap_or(0))
                .collect()
        };
        let window: Vec<usize> = take(rhs.shape(), &dn.rhs_spec)
            .iter()
            .zip(&rhs_dilation)
            .map(|(&k, &d)| dilate_dim(k, d))
            .collect();
        padtype_to_pads(
            &take(lhs.shape(), &dn.lhs_spec),
            &window,
            window_strides,
            &padding,
        )
    };
    conv_with_params(
        lhs,
        rhs,
        ConvParams {
            window_strides: window_strides.to_vec(),
            padding,
            lhs_dilation,
            rhs_dilation,
            dimension_numbers: dn,
            feature_group_count,
            batch_group_count,
            preferred_element_type,
        },
    )
}
