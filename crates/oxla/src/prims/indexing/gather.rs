//! `gather`: its shape rule and its kernel, with XLA's semantics (the index vector is the
//! last dimension of the indices; out-of-bounds windows clamp or give the fill value).

use super::dims::{check_dims, window_start, IndexRows};
use super::{GatherDims, GatherMode};
use crate::array::{with_dtype, Array, Aval, Elem};
use crate::prims::view::{for_each_index, new_array, signed_strides};

pub(crate) fn gather_rule(
    dims: &GatherDims,
    sizes: &[usize],
    inputs: &[Aval],
) -> Result<Vec<Aval>, String> {
    crate::prims::arity(inputs, 2)?;
    let (x, idx) = (&inputs[0], &inputs[1]);
    if !idx.dtype.is_int() || idx.ndim() == 0 {
        return Err(format!(
            "indices must be an integer array with an index vector, got {idx}"
        ));
    }
    let nvec = idx.shape[idx.ndim() - 1];
    let batch_rank = idx.ndim() - 1;
    if nvec != dims.start_index_map.len() || sizes.len() != x.ndim() {
        return Err(format!(
            "index vectors of {idx} must have one entry per start_index_map {:?}, and \
             slice_sizes {sizes:?} one per dimension of {x}",
            dims.start_index_map
        ));
    }
    check_dims("start_index_map", &dims.start_index_map, x.ndim())?;
    check_dims("collapsed_slice_dims", &dims.collapsed_slice_dims, x.ndim())?;
    check_dims(
        "operand_batching_dims",
        &dims.operand_batching_dims,
        x.ndim(),
    )?;
    check_dims(
        "start_indices_batching_dims",
        &dims.start_indices_batching_dims,
        batch_rank,
    )?;
    if sizes.iter().zip(&x.shape).any(|(s, d)| s > d)
        || dims
            .collapsed_slice_dims
            .iter()
            .chain(&dims.operand_batching_dims)
            .any(|&d| sizes[d] != 1)
    {
        return Err(format!("slice_sizes {sizes:?} invalid for {x}"));
    }
    let window: Vec<usize> = (0..x.ndim())
        .filter(|d| {
            !dims.collapsed_slice_dims.contains(d) && !dims.operand_batching_dims.contains(d)
        })
        .map(|d| sizes[d])
        .collect();
    if window.len() != dims.offset_dims.len() {
        return Err(format!(
            "offset_dims {:?} must list the {} window dimensions",
            dims.offset_dims,
            window.len()
        ));
    }
    let rank = batch_rank + window.len();
    check_dims("offset_dims", &dims.offset_dims, rank)?;
    let mut shape = Vec::with_capacity(rank);
    let (mut b, mut w) = (0, 0);
    for d in 0..rank {
        if dims.offset_dims.contains(&d) {
            shape.push(window[w]);
            w += 1;
        } else {
            shape.push(idx.shape[b]);
            b += 1;
        }
    }
    Ok(vec![Aval::new(x.dtype, &shape)])
}

pub(crate) fn gather(
    a: &Array,
    idx: &Array,
    dims: &GatherDims,
    sizes: &[usize],
    mode: GatherMode,
) -> Array {
    let out_shape = gather_rule(
        dims,
        sizes,
        &[crate::array::aval_of(a), crate::array::aval_of(idx)],
    )
    .expect("checked by the shape rule")[0]
        .shape
        .to_vec();
    let mut rows = IndexRows::of(idx);
    let strides = signed_strides(a.shape());
    let window_dims: Vec<usize> = (0..a.ndim())
        .filter(|d| {
            !dims.collapsed_slice_dims.contains(d) && !dims.operand_batching_dims.contains(d)
        })
        .collect();
    let batch_shape = &idx.shape()[..idx.ndim() - 1];
    let batch_strides = signed_strides(batch_shape);
    fn fill<T: Elem>() -> T {
        let bits = 8 * T::DTYPE.size() as u32;
        match T::DTYPE {
            d if d.is_inexact() => T::from_f64(f64::NAN),
            d if d.is_signed_int() => T::from_i128(-(1i128 << (bits - 1))),
            d if d.is_int() => T::from_i128((1i128 << bits) - 1),
            _ => T::from_i128(1),
        }
    }
    with_dtype!(a.dtype(), T, {
        let src = a.as_slice::<T>();
        new_array::<T>(&out_shape, |out| {
            let mut k = 0;
            let mut batch = vec![0usize; batch_shape.len()];
            let mut window = vec![0usize; window_dims.len()];
            for_each_index(&out_shape, |o| {
                let (mut b, mut w) = (0, 0);
                for (d, &i) in o.iter().enumerate() {
                    if dims.offset_dims.contains(&d) {
                        window[w] = i;
                        w += 1;
                    } else {
                        batch[b] = i;
                        b += 1;
                    }
                }
                let row: usize = batch
                    .iter()
                    .zip(&batch_strides)
                    .map(|(&i, &s)| i * s as usize)
                    .sum();
                let (start, ok) = window_start(
                    rows.row(row),
                    &batch,
                    &dims.start_index_map,
                    &dims.operand_batching_dims,
                    &dims.start_indices_batching_dims,
                    a.shape(),
                    sizes,
                );
                out[k] = if !ok && mode == GatherMode::FillOrDrop {
                    fill::<T>()
                } else {
                    let mut pos: isize = start
                        .iter()
                        .zip(&strides)
                        .map(|(&s, &st)| s as isize * st)
                        .sum();
                    for (&d, &wi) in window_dims.iter().zip(&window) {
                        pos += wi as isize * strides[d];
                    }
                    src[pos as usize]
                };
                k += 1;
            });
        })
    })
}
