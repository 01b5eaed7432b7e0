//! `dynamic_slice` and `dynamic_update_slice`: a window at scalar start indices, read or
//! overwritten, the starts clamped so the window lies in bounds (as XLA clamps them).

use crate::array::{with_dtype, Array, Aval};
use crate::prims::view::{for_each_index, new_array, signed_strides};

fn scalar_indices(idx: &[Aval]) -> Result<(), String> {
    if let Some(a) = idx.iter().find(|a| a.ndim() != 0 || !a.dtype.is_int()) {
        return Err(format!("start indices must be integer scalars, got {a}"));
    }
    // As in JAX: one index dtype for all dimensions.
    if let Some(a) = idx.iter().find(|a| a.dtype != idx[0].dtype) {
        return Err(format!(
            "start indices must share one dtype, got {} and {a}",
            idx[0]
        ));
    }
    Ok(())
}

pub(crate) fn dynamic_slice_rule(sizes: &[usize], inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    let x = inputs.first().ok_or("needs an operand")?;
    scalar_indices(&inputs[1..])?;
    if inputs.len() != x.ndim() + 1 || sizes.len() != x.ndim() {
        return Err(format!(
            "needs one start index and one slice size per dimension of {x}"
        ));
    }
    if sizes.iter().zip(&x.shape).any(|(s, d)| s > d) {
        return Err(format!("slice_sizes {sizes:?} larger than {x}"));
    }
    Ok(vec![Aval::new(x.dtype, sizes)])
}

pub(crate) fn dynamic_update_slice_rule(inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    if inputs.len() < 2 {
        return Err("needs an operand and an update".into());
    }
    let (x, u) = (&inputs[0], &inputs[1]);
    scalar_indices(&inputs[2..])?;
    if inputs.len() != x.ndim() + 2
        || u.ndim() != x.ndim()
        || u.dtype != x.dtype
        || u.shape.iter().zip(&x.shape).any(|(a, b)| a > b)
    {
        return Err(format!(
            "update {u} does not fit operand {x} with one index per dimension"
        ));
    }
    Ok(vec![x.clone()])
}

/// Start indices clamped so a window of `sizes` lies inside `shape`.
fn clamped_starts(idx: &[Array], shape: &[usize], sizes: &[usize]) -> Vec<usize> {
    idx.iter()
        .zip(shape.iter().zip(sizes))
        .map(|(i, (&d, &s))| (i.item() as i64).clamp(0, (d - s) as i64) as usize)
        .collect()
}

pub(crate) fn dynamic_slice(a: &Array, idx: &[Array], sizes: &[usize]) -> Array {
    let start = clamped_starts(idx, a.shape(), sizes);
    let limit: Vec<usize> = start.iter().zip(sizes).map(|(s, z)| s + z).collect();
    crate::prims::shape::slice(a, &start, &limit, None)
}

pub(crate) fn dynamic_update_slice(a: &Array, u: &Array, idx: &[Array]) -> Array {
    let start = clamped_starts(idx, a.shape(), u.shape());
    let strides = signed_strides(a.shape());
    with_dtype!(a.dtype(), T, {
        let src = u.as_slice::<T>();
        new_array::<T>(a.shape(), |out| {
            out.copy_from_slice(a.as_slice::<T>());
            let mut k = 0;
            for_each_index(u.shape(), |i| {
                let pos: isize = i
                    .iter()
                    .zip(&start)
                    .zip(&strides)
                    .map(|((&i, &s), &st)| (i + s) as isize * st)
                    .sum();
                out[pos as usize] = src[k];
                k += 1;
            });
        })
    })
}
