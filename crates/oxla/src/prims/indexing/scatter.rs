//! XLA's scatter family (`scatter`, `scatter-add`, `scatter-mul`, `scatter-min`,
//! `scatter-max`): the shape rule and the kernel, with XLA's semantics (updates at the same
//! place combine in the order of the updates, so the last one wins for `scatter`;
//! out-of-bounds windows clamp or are dropped).

use super::dims::{check_dims, window_start, IndexRows};
use super::{GatherMode, ScatterDims};
use crate::array::{with_dtype, Array, Aval, DType, Elem};
use crate::prims::elementwise::Num;
use crate::prims::view::{for_each_index, new_array, signed_strides};

/// How a scatter combines an update with the value in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScatterOp {
    /// The update replaces the value (`scatter`).
    Replace,
    /// `scatter-add`.
    Add,
    /// `scatter-mul`.
    Mul,
    /// `scatter-min`.
    Min,
    /// `scatter-max`.
    Max,
}

impl ScatterOp {
    /// The primitive's JAX name.
    pub fn name(self) -> &'static str {
        match self {
            ScatterOp::Replace => "scatter",
            ScatterOp::Add => "scatter-add",
            ScatterOp::Mul => "scatter-mul",
            ScatterOp::Min => "scatter-min",
            ScatterOp::Max => "scatter-max",
        }
    }

    /// The value in place combined with an update.
    fn combine<T: Num>(self, old: T, new: T) -> T {
        match self {
            ScatterOp::Replace => new,
            ScatterOp::Add => old.add(new),
            ScatterOp::Mul => old.mul(new),
            ScatterOp::Min => old.min(new),
            ScatterOp::Max => old.max(new),
        }
    }
}

pub(crate) fn scatter_rule(
    op: ScatterOp,
    dims: &ScatterDims,
    inputs: &[Aval],
) -> Result<Vec<Aval>, String> {
    crate::prims::arity(inputs, 3)?;
    let (x, idx, upd) = (&inputs[0], &inputs[1], &inputs[2]);
    let dtype_ok = x.dtype.is_numeric() || op == ScatterOp::Replace;
    if !idx.dtype.is_int() || idx.ndim() == 0 || upd.dtype != x.dtype || !dtype_ok {
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

pub(crate) fn scatter(
    op: ScatterOp,
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
    fn run<T: Elem>(
        a: &Array,
        upd: &Array,
        mut place: impl FnMut(&[usize]) -> Option<usize>,
        combine: impl Fn(T, T) -> T,
    ) -> Array {
        let u = upd.as_slice::<T>();
        new_array::<T>(a.shape(), |out| {
            out.copy_from_slice(a.as_slice::<T>());
            let mut k = 0;
            for_each_index(upd.shape(), |i| {
                if let Some(p) = place(i) {
                    out[p] = combine(out[p], u[k]);
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
    if a.dtype() == DType::Bool {
        return run::<bool>(a, upd, place, |_, n| n);
    }
    with_dtype!(
        a.dtype(),
        T,
        Num,
        run::<T>(a, upd, place, |o, n| op.combine(o, n))
    )
}
