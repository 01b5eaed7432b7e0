//! `scatter-add`: its shape rule and its kernel, with XLA's semantics (updates at the same
//! place add up; out-of-bounds windows clamp or are dropped).

use super::dims::{check_dims, window_start, IndexRows};
use super::{GatherMode, ScatterDims};
use crate::array::{with_dtype, Array, Aval};
use crate::prims::view::{for_each_index, new_array, signed_strides};
use crate::prims::{Monoid, ReduceOp};

pub(crate) fn scatter_add_rule(dims: &ScatterDims, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    crate::prims::arity(inputs, 3)?;
    let (x, idx, upd) = (&inputs[0], &inputs[1], &inputs[2]);
    if !idx.dtype.is_int() || idx.ndim() == 0 || upd.dtype != x.dtype || !x.dtype.is_numeric() {
        return Err(format!(
            "operand {x}, indices {idx} and updates {upd} are incompatible"
        ));
    }
    let batch_rank = idx.ndim() - 1;
    if idx.shape[batch_rank] != dims.scatter_dims_to_operand_dims.len() {
        return Err(format!(
            "index vectors of {idx} must have one entry per scatter_dims_to_operand_dims {:?}",
            dims.scatter_dims_to_operand_dims
        ));
    }
    check_dims("update_window_dims", &dims.update_window_dims, upd.ndim())?;
    check_dims("inserted_window_dims", &dims.inserted_window_dims, x.ndim())?;
    check_dims(
        "scatter_dims_to_operand_dims",
        &dims.scatter_dims_to_operand_dims,
        x.ndim(),
    )?;
    let window_rank = x.ndim() - dims.inserted_window_dims.len() - dims.operand_batching_dims.len();
    if dims.update_window_dims.len() != window_rank || upd.ndim() != batch_rank + window_rank {
        return Err(format!(
            "updates {upd} do not match operand {x} and indices {idx}"
        ));
    }
    Ok(vec![x.clone()])
}

pub(crate) fn scatter_add(
    a: &Array,
    idx: &Array,
    upd: &Array,
    dims: &ScatterDims,
    mode: GatherMode,
) -> Array {
    let mut rows = IndexRows::of(idx);
    let strides = signed_strides(a.shape());
    let window_dims: Vec<usize> = (0..a.ndim())
        .filter(|d| {
            !dims.inserted_window_dims.contains(d) && !dims.operand_batching_dims.contains(d)
        })
        .collect();
    let mut sizes = vec![1usize; a.ndim()];
    for (&d, &u) in window_dims.iter().zip(&dims.update_window_dims) {
        sizes[d] = upd.shape()[u];
    }
    let batch_shape = &idx.shape()[..idx.ndim() - 1];
    let batch_strides = signed_strides(batch_shape);
    fn run<T: Monoid>(
        a: &Array,
        upd: &Array,
        mut place: impl FnMut(&[usize]) -> Option<usize>,
    ) -> Array {
        let u = upd.as_slice::<T>();
        new_array::<T>(a.shape(), |out| {
            out.copy_from_slice(a.as_slice::<T>());
            let mut k = 0;
            for_each_index(upd.shape(), |i| {
                if let Some(p) = place(i) {
                    out[p] = T::combine(ReduceOp::Sum, out[p], u[k]);
                }
                k += 1;
            });
        })
    }
    let mut batch = vec![0usize; batch_shape.len()];
    let mut window = vec![0usize; window_dims.len()];
    let place = |i: &[usize]| -> Option<usize> {
        let (mut b, mut w) = (0, 0);
        for (d, &v) in i.iter().enumerate() {
            if dims.update_window_dims.contains(&d) {
                window[w] = v;
                w += 1;
            } else {
                batch[b] = v;
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
            &dims.scatter_dims_to_operand_dims,
            &dims.operand_batching_dims,
            &dims.scatter_indices_batching_dims,
            a.shape(),
            &sizes,
        );
        if !ok && mode != GatherMode::Clip {
            return None;
        }
        let mut pos: isize = start
            .iter()
            .zip(&strides)
            .map(|(&s, &st)| s as isize * st)
            .sum();
        for (&d, &wi) in window_dims.iter().zip(&window) {
            pos += wi as isize * strides[d];
        }
        Some(pos as usize)
    };
    with_dtype!(a.dtype(), T, Num, run::<T>(a, upd, place))
}
