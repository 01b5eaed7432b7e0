//! `conv_general_dilated`'s transposes (JAX's `_conv_general_dilated_transpose_lhs` and
//! `_rhs`): each operand's cotangent is itself a convolution, with the dimension numbers,
//! strides, dilations and paddings exchanged. The axis helpers are shared with the
//! batching rule.

use crate::core::Tensor;
use crate::ops as lax;
use crate::prims::conv::dilate_dim;
use crate::prims::{ConvDimensionNumbers, ConvParams};

/// `x` with axis `src` merged into axis `dst` (numbered after `src` is removed), `src`
/// becoming the major part (JAX's `_reshape_axis_into`).
pub(crate) fn axis_into(src: usize, dst: usize, x: &Tensor) -> Tensor {
    let mut perm: Vec<usize> = (0..x.ndim()).filter(|&d| d != src).collect();
    perm.insert(dst, src);
    let mut shape: Vec<usize> = x
        .shape()
        .iter()
        .enumerate()
        .filter(|&(d, _)| d != src)
        .map(|(_, &s)| s)
        .collect();
    shape[dst] *= x.shape()[src];
    lax::reshape(&lax::transpose(x, &perm), &shape)
}

/// `x` with axis `src` split into `(size, rest)` (JAX's `_reshape_axis_out_of`).
pub(crate) fn axis_out_of(src: usize, size: usize, x: &Tensor) -> Tensor {
    let mut shape = x.shape().to_vec();
    let rest = shape[src] / size;
    shape.splice(src..=src, [size, rest]);
    lax::reshape(x, &shape)
}

/// A spec with its first two entries exchanged.
fn swapped(spec: &[usize]) -> Vec<usize> {
    let mut s = spec.to_vec();
    s.swap(0, 1);
    s
}

fn take(shape: &[usize], dims: &[usize]) -> Vec<usize> {
    dims.iter().map(|&d| shape[d]).collect()
}

fn dilated(sizes: &[usize], by: &[usize]) -> Vec<i64> {
    sizes
        .iter()
        .zip(by)
        .map(|(&n, &d)| dilate_dim(n, d) as i64)
        .collect()
}

/// `x` converted to `like`'s dtype, if it differs.
fn as_dtype_of(x: &Tensor, like: &Tensor) -> Tensor {
    if x.dtype() == like.dtype() {
        x.clone()
    } else {
        lax::convert_element_type(x, like.dtype())
    }
}

/// The cotangent of the input, `lhs_shape`, from the result's cotangent `ct`.
pub(crate) fn transpose_lhs(ct: &Tensor, lhs: &Tensor, rhs: &Tensor, p: &ConvParams) -> Tensor {
    let dn = &p.dimension_numbers;
    let (lhs_spec, rhs_spec, out_spec) = (&dn.lhs_spec, &dn.rhs_spec, &dn.out_spec);
    let mut rhs = rhs.clone();
    let mut groups = p.feature_group_count;
    if p.feature_group_count > 1 || p.batch_group_count > 1 {
        let g = p.feature_group_count.max(p.batch_group_count);
        rhs = axis_into(rhs_spec[0], rhs_spec[1], &axis_out_of(rhs_spec[0], g, &rhs));
        groups = g;
    }
    let rhs_sp = take(rhs.shape(), &rhs_spec[2..]);
    let before: Vec<i64> = dilated(&rhs_sp, &p.rhs_dilation)
        .iter()
        .zip(&p.padding)
        .map(|(k, (lo, _))| k - lo - 1)
        .collect();
    let lhs_d = dilated(&take(lhs.shape(), &lhs_spec[2..]), &p.lhs_dilation);
    let rhs_d = dilated(&rhs_sp, &p.rhs_dilation);
    let out_d = dilated(&take(ct.shape(), &out_spec[2..]), &p.window_strides);
    let padding: Vec<(i64, i64)> = (0..before.len())
        .map(|i| (before[i], lhs_d[i] + rhs_d[i] - 1 - out_d[i] - before[i]))
        .collect();
    let revd = as_dtype_of(&lax::rev(&rhs, &rhs_spec[2..]), ct);
    let out = lax::conv_with_params(
        ct,
        &revd,
        ConvParams {
            window_strides: p.lhs_dilation.clone(),
            padding,
            lhs_dilation: p.window_strides.clone(),
            rhs_dilation: p.rhs_dilation.clone(),
            dimension_numbers: ConvDimensionNumbers {
                lhs_spec: out_spec.clone(),
                rhs_spec: swapped(rhs_spec),
                out_spec: lhs_spec.clone(),
            },
            feature_group_count: groups,
            batch_group_count: 1,
            preferred_element_type: None,
        },
    );
    let out = as_dtype_of(&out, lhs);
    if p.batch_group_count > 1 {
        let out = axis_out_of(lhs_spec[1], p.batch_group_count, &out);
        axis_into(lhs_spec[1], lhs_spec[0], &out)
    } else {
        out
    }
}

/// The cotangent of the kernel from the result's cotangent `ct`.
pub(crate) fn transpose_rhs(ct: &Tensor, lhs: &Tensor, rhs: &Tensor, p: &ConvParams) -> Tensor {
    if ct.size() == 0 {
        return super::jvp_rules::zeros_of_aval(rhs);
    }
    let dn = &p.dimension_numbers;
    let (lhs_spec, rhs_spec, out_spec) = (&dn.lhs_spec, &dn.rhs_spec, &dn.out_spec);
    let (groups, batch_groups) = if p.batch_group_count > 1 {
        (p.batch_group_count, 1)
    } else {
        (1, p.feature_group_count)
    };
    let lhs_d = dilated(&take(lhs.shape(), &lhs_spec[2..]), &p.lhs_dilation);
    let rhs_d = dilated(&take(rhs.shape(), &rhs_spec[2..]), &p.rhs_dilation);
    let out_d = dilated(&take(ct.shape(), &out_spec[2..]), &p.window_strides);
    let padding: Vec<(i64, i64)> = (0..lhs_d.len())
        .map(|i| {
            let lo = p.padding[i].0;
            (lo, out_d[i] - lhs_d[i] + rhs_d[i] - lo - 1)
        })
        .collect();
    let out = lax::conv_with_params(
        &as_dtype_of(lhs, ct),
        ct,
        ConvParams {
            window_strides: p.rhs_dilation.clone(),
            padding,
            lhs_dilation: p.lhs_dilation.clone(),
            rhs_dilation: p.window_strides.clone(),
            dimension_numbers: ConvDimensionNumbers {
                lhs_spec: swapped(lhs_spec),
                rhs_spec: swapped(out_spec),
                out_spec: swapped(rhs_spec),
            },
            feature_group_count: groups,
            batch_group_count: batch_groups,
            preferred_element_type: None,
        },
    );
    as_dtype_of(&out, rhs)
}
