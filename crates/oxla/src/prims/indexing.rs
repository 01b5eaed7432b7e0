//! Indexing primitives: `dynamic_slice`, `dynamic_update_slice`, `gather`, `scatter-add`,
//! with XLA's semantics (the index vector is the last dimension of the indices).

use std::fmt;

use super::pyfmt::tuple;
use super::view::{for_each_index, new_array, signed_strides};
use crate::array::with_dtype;
use crate::array::Aval;
use crate::array::{Array, DType, Elem};

/// How out-of-bounds gather and scatter indices behave.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GatherMode {
    /// Start indices are clamped so the window lies in bounds.
    Clip,
    /// Out-of-bounds gathers give the fill value; out-of-bounds scatters are dropped.
    FillOrDrop,
    /// The caller promises in-bounds indices; as XLA does (and so JAX), oxla clamps
    /// out-of-bounds gathers as `Clip` does and drops out-of-bounds scatters.
    PromiseInBounds,
}

impl fmt::Display for GatherMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GatherMode::Clip => "GatherScatterMode.CLIP",
            GatherMode::FillOrDrop => "GatherScatterMode.FILL_OR_DROP",
            GatherMode::PromiseInBounds => "GatherScatterMode.PROMISE_IN_BOUNDS",
        })
    }
}

/// XLA's gather dimension numbers.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct GatherDims {
    /// Output dimensions that index into a slice.
    pub offset_dims: Vec<usize>,
    /// Operand dimensions of slice size 1 left out of the output.
    pub collapsed_slice_dims: Vec<usize>,
    /// Operand dimension each index-vector component starts.
    pub start_index_map: Vec<usize>,
    /// Operand dimensions indexed by the matching batch dimension of the indices.
    pub operand_batching_dims: Vec<usize>,
    /// Batch dimensions of the indices matched with `operand_batching_dims`.
    pub start_indices_batching_dims: Vec<usize>,
}

impl fmt::Display for GatherDims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "GatherDimensionNumbers(offset_dims={}, collapsed_slice_dims={}, start_index_map={}, \
             operand_batching_dims={}, start_indices_batching_dims={})",
            tuple(&self.offset_dims),
            tuple(&self.collapsed_slice_dims),
            tuple(&self.start_index_map),
            tuple(&self.operand_batching_dims),
            tuple(&self.start_indices_batching_dims)
        )
    }
}

/// XLA's scatter dimension numbers.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ScatterDims {
    /// Update dimensions that index into a window of the operand.
    pub update_window_dims: Vec<usize>,
    /// Operand window dimensions of size 1 absent from the updates.
    pub inserted_window_dims: Vec<usize>,
    /// Operand dimension each index-vector component starts.
    pub scatter_dims_to_operand_dims: Vec<usize>,
    /// Operand dimensions indexed by the matching batch dimension of the indices.
    pub operand_batching_dims: Vec<usize>,
    /// Batch dimensions of the indices matched with `operand_batching_dims`.
    pub scatter_indices_batching_dims: Vec<usize>,
}

impl fmt::Display for ScatterDims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ScatterDimensionNumbers(update_window_dims={}, inserted_window_dims={}, \
             scatter_dims_to_operand_dims={}, operand_batching_dims={}, \
             scatter_indices_batching_dims={})",
            tuple(&self.update_window_dims),
            tuple(&self.inserted_window_dims),
            tuple(&self.scatter_dims_to_operand_dims),
            tuple(&self.operand_batching_dims),
            tuple(&self.scatter_indices_batching_dims)
        )
    }
}

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
    super::shape::slice(a, &start, &limit, None)
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

fn check_dims(what: &str, dims: &[usize], bound: usize) -> Result<(), String> {
    for (i, &d) in dims.iter().enumerate() {
        if d >= bound || dims[..i].contains(&d) {
            return Err(format!("{what} {dims:?} invalid for rank {bound}"));
        }
    }
    Ok(())
}

pub(crate) fn gather_rule(
    dims: &GatherDims,
    sizes: &[usize],
    inputs: &[Aval],
) -> Result<Vec<Aval>, String> {
    super::arity(inputs, 2)?;
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

/// The index vectors of an integer indices array, read in place one row at a time.
struct IndexRows<'a> {
    read: Box<dyn Fn(usize) -> i64 + 'a>,
    row: Vec<i64>,
}

impl IndexRows<'_> {
    fn of(idx: &Array) -> IndexRows<'_> {
        let n = *idx.shape().last().expect("rank checked");
        let read: Box<dyn Fn(usize) -> i64 + '_> = with_dtype!(idx.dtype(), T, {
            let s = idx.as_slice::<T>();
            Box::new(move |i| s[i].to_f64() as i64)
        });
        IndexRows {
            read,
            row: vec![0; n],
        }
    }

    /// Index vector `r`.
    fn row(&mut self, r: usize) -> &[i64] {
        let n = self.row.len();
        for (k, v) in self.row.iter_mut().enumerate() {
            *v = (self.read)(r * n + k);
        }
        &self.row
    }
}

/// Start of the window in each operand dimension for one index vector, and whether it lies
/// in bounds.
fn window_start(
    vec: &[i64],
    batch: &[usize],
    map: &[usize],
    operand_batching: &[usize],
    indices_batching: &[usize],
    shape: &[usize],
    sizes: &[usize],
) -> (Vec<usize>, bool) {
    let mut start = vec![0i64; shape.len()];
    for (k, &d) in map.iter().enumerate() {
        start[d] = vec[k];
    }
    for (&od, &id) in operand_batching.iter().zip(indices_batching) {
        start[od] = batch[id] as i64;
    }
    let mut in_bounds = true;
    let start = start
        .iter()
        .enumerate()
        .map(|(d, &s)| {
            let hi = (shape[d] - sizes[d]) as i64;
            in_bounds &= (0..=hi).contains(&s);
            s.clamp(0, hi) as usize
        })
        .collect();
    (start, in_bounds)
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
        match T::DTYPE {
            DType::F32 | DType::F64 => T::from_f64(f64::NAN),
            DType::I32 => T::from_f64(i32::MIN as f64),
            DType::U32 => T::from_f64(u32::MAX as f64),
            DType::Bool => T::from_f64(1.0),
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

pub(crate) fn scatter_add_rule(dims: &ScatterDims, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    super::arity(inputs, 3)?;
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
    fn run<T: Elem + std::ops::Add<Output = T>>(
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
                    out[p] = out[p] + u[k];
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
    match a.dtype() {
        DType::F32 => run::<f32>(a, upd, place),
        DType::F64 => run::<f64>(a, upd, place),
        DType::I32 => run::<i32>(a, upd, place),
        DType::U32 => run::<u32>(a, upd, place),
        DType::Bool => unreachable!("scatter-add rejects bool"),
    }
}
