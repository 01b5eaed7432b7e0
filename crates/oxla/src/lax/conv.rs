//! JAX's convenience wrappers around `conv_general_dilated`: `conv`,
//! `conv_with_general_padding` and `conv_transpose`.

use crate::core::Tensor;
use crate::ops::{self as lax, conv_dimension_numbers, ConvLayout, Padding};
use crate::prims::conv::dilate_dim;

/// JAX's `lax.conv`: [`conv_general_dilated`](crate::lax::conv_general_dilated) in the
/// default layout (`NCHW`, `OIHW`) with `window_strides` and `padding` (`"SAME"`,
/// `"VALID"`, or pairs) and nothing else.
#[track_caller]
pub fn conv(
    lhs: &Tensor,
    rhs: &Tensor,
    window_strides: &[usize],
    padding: impl Into<Padding>,
) -> Tensor {
    let _line = crate::core::user_line();
    lax::conv_general_dilated(
        lhs,
        rhs,
        window_strides,
        padding,
        None,
        None,
        ConvLayout::Default,
        1,
        1,
        None,
    )
}

/// JAX's `lax.conv_with_general_padding`: [`conv`] with input and kernel dilations.
#[track_caller]
pub fn conv_with_general_padding(
    lhs: &Tensor,
    rhs: &Tensor,
    window_strides: &[usize],
    padding: impl Into<Padding>,
    lhs_dilation: Option<&[usize]>,
    rhs_dilation: Option<&[usize]>,
) -> Tensor {
    let _line = crate::core::user_line();
    lax::conv_general_dilated(
        lhs,
        rhs,
        window_strides,
        padding,
        lhs_dilation,
        rhs_dilation,
        ConvLayout::Default,
        1,
        1,
        None,
    )
}

/// One dimension's padding of a transposed convolution for the forward convolution's
/// `"SAME"` or `"VALID"` padding (JAX's `_conv_transpose_padding`), `k` the dilated kernel
/// size and `s` the stride.
fn transpose_padding(k: usize, s: usize, same: bool) -> (i64, i64) {
    let (k, s) = (k as i64, s as i64);
    let (len, a) = if same {
        let len = k + s - 2;
        (len, if s > k - 1 { k - 1 } else { (len + 1) / 2 })
    } else {
        (k + s - 2 + (k - s).max(0), k - 1)
    };
    (a, len - a)
}

/// JAX's `lax.conv_transpose`: the fractionally strided convolution with `strides` as the
/// input's dilation. `"SAME"` and `"VALID"` are the forward convolution's padding (as
/// Keras' `Conv2DTranspose`); explicit pairs pad the transposed convolution itself. The
/// layout defaults to `NC`/`NHC`/`NHWC`/`NHWDC` with kernels `IO`/`HIO`/`HWIO`/`HWDIO`
/// ([`ConvLayout::Default`]). `transpose_kernel` flips the kernel's spatial axes and
/// exchanges its input and output features, giving the gradient of a forward convolution
/// with that kernel.
///
/// # Panics
/// As [`conv_general_dilated`](crate::lax::conv_general_dilated), and for operands of rank
/// above 5 with the default layout.
#[track_caller]
pub fn conv_transpose(
    lhs: &Tensor,
    rhs: &Tensor,
    strides: &[usize],
    padding: impl Into<Padding>,
    rhs_dilation: Option<&[usize]>,
    dimension_numbers: impl Into<ConvLayout>,
    transpose_kernel: bool,
) -> Tensor {
    let _line = crate::core::user_line();
    let layout = match dimension_numbers.into() {
        ConvLayout::Default => {
            let (l, r) = match lhs.ndim() {
                2 => ("NC", "IO"),
                3 => ("NHC", "HIO"),
                4 => ("NHWC", "HWIO"),
                5 => ("NHWDC", "HWDIO"),
                n => panic!(
                    "conv_transpose: no default dimension_numbers for operands of rank {n}\n  \
                     at {}",
                    std::panic::Location::caller()
                ),
            };
            ConvLayout::from((l, r, l))
        }
        other => other,
    };
    let dn = conv_dimension_numbers(lhs.ndim(), rhs.ndim(), layout);
    let nd = lhs.ndim().saturating_sub(2);
    let ones = vec![1; nd];
    let rhs_dil = rhs_dilation.map_or(ones.clone(), <[usize]>::to_vec);
    let padding = padding.into();
    let pads = match padding {
        Padding::Same | Padding::Valid => Padding::Explicit(
            (0..nd)
                .map(|i| {
                    let k = dilate_dim(rhs.shape()[dn.rhs_spec[2 + i]], rhs_dil[i]);
                    transpose_padding(k, strides[i], padding == Padding::Same)
                })
                .collect(),
        ),
        other => other,
    };
    let rhs = if transpose_kernel {
        let flipped = lax::rev(rhs, &dn.rhs_spec[2..]);
        let mut perm: Vec<usize> = (0..rhs.ndim()).collect();
        perm.swap(dn.rhs_spec[0], dn.rhs_spec[1]);
        lax::transpose(&flipped, &perm)
    } else {
        rhs.clone()
    };
    lax::conv_general_dilated(
        lhs,
        &rhs,
        &ones,
        pads,
        Some(strides),
        Some(&rhs_dil),
        dn,
        1,
        1,
        None,
    )
}
