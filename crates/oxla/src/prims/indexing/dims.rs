//! XLA's dimension numbers for gather and scatter ([`GatherDims`], [`ScatterDims`],
//! [`GatherMode`]), printed as JAX prints them, and what both primitives share: the check
//! of a list of dimensions, the index vectors read row by row, and the window one index
//! vector selects.

use std::fmt;

use crate::array::{with_dtype, Array, Elem};
use crate::prims::pyfmt::tuple;

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

/// Checks that `dims` (named `what` in the error) are distinct dimensions below `bound`.
pub(super) fn check_dims(what: &str, dims: &[usize], bound: usize) -> Result<(), String> {
    for (i, &d) in dims.iter().enumerate() {
        if d >= bound || dims[..i].contains(&d) {
            return Err(format!("{what} {dims:?} invalid for rank {bound}"));
        }
    }
    Ok(())
}

/// The index vectors of an integer indices array, read in place one row at a time.
pub(super) struct IndexRows<'a> {
    read: Box<dyn Fn(usize) -> i64 + 'a>,
    row: Vec<i64>,
}

impl IndexRows<'_> {
    pub(super) fn of(idx: &Array) -> IndexRows<'_> {
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
    pub(super) fn row(&mut self, r: usize) -> &[i64] {
        let n = self.row.len();
        for (k, v) in self.row.iter_mut().enumerate() {
            *v = (self.read)(r * n + k);
        }
        &self.row
    }
}

/// Start of the window in each operand dimension for one index vector, and whether it lies
/// in bounds.
pub(super) fn window_start(
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
