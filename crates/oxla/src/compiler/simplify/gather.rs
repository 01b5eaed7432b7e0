//! Reductions of gathers: a reduction over gathered windows that span their operand
//! dimension reduces the operand first and gathers from the smaller result.

use super::Pass;
use crate::core::{Atom, Eqn, Prim};
use crate::prims::{GatherDims, GatherMode, ReduceOp};

impl Pass {
    /// A reduction over gathered window dimensions that span the whole of their operand
    /// dimension reduces the operand first and gathers from the smaller result, when the
    /// gather reads each operand element at least once on average: the windows are never
    /// read element by element. (The sum is reassociated, as XLA's reductions may be.)
    pub(super) fn reduce_of_gather(
        &mut self,
        e: &Eqn,
        op: ReduceOp,
        axes: &[usize],
        g: &Eqn,
    ) -> bool {
        let Prim::Gather {
            dims,
            slice_sizes,
            mode,
        } = &g.prim
        else {
            return false;
        };
        let operand = g.inputs[0].aval();
        let out = &g.outputs[0].aval;
        let reducible = matches!(op, ReduceOp::Sum | ReduceOp::Max | ReduceOp::Min);
        if !reducible || *mode == GatherMode::FillOrDrop || out.size() < operand.size() {
            return false;
        }
        // The operand's window dimensions, in the order of the offset dimensions.
        let window = (0..operand.ndim()).filter(|d| {
            !dims.collapsed_slice_dims.contains(d) && !dims.operand_batching_dims.contains(d)
        });
        let (dropped, dropped_out): (Vec<usize>, Vec<usize>) = window
            .zip(dims.offset_dims.iter().copied())
            .filter(|&(d, o)| {
                axes.contains(&o)
                    && slice_sizes[d] == operand.shape[d]
                    && !dims.start_index_map.contains(&d)
            })
            .unzip();
        if dropped.is_empty() {
            return false;
        }
        let renumber = |d: usize, gone: &[usize]| d - gone.iter().filter(|&&x| x < d).count();
        let remap = |ds: &[usize]| -> Vec<usize> {
            ds.iter()
                .filter(|d| !dropped.contains(d))
                .map(|&d| renumber(d, &dropped))
                .collect()
        };
        let keep = |shape: &[usize], gone: &[usize]| -> Vec<usize> {
            (0..shape.len())
                .filter(|d| !gone.contains(d))
                .map(|d| shape[d])
                .collect()
        };
        let dtype = out.dtype;
        let reduced = self.fresh(dtype, &keep(&operand.shape, &dropped));
        self.changed = true;
        self.rewrite(Eqn {
            prim: Prim::Reduce {
                op,
                axes: dropped.clone(),
            },
            inputs: vec![g.inputs[0].clone()],
            outputs: vec![reduced.clone()],
            source: e.source,
        });
        let new_dims = GatherDims {
            offset_dims: dims
                .offset_dims
                .iter()
                .filter(|o| !dropped_out.contains(o))
                .map(|&o| renumber(o, &dropped_out))
                .collect(),
            collapsed_slice_dims: remap(&dims.collapsed_slice_dims),
            start_index_map: dims
                .start_index_map
                .iter()
                .map(|&d| renumber(d, &dropped))
                .collect(),
            operand_batching_dims: remap(&dims.operand_batching_dims),
            start_indices_batching_dims: dims.start_indices_batching_dims.clone(),
        };
        let rest: Vec<usize> = axes
            .iter()
            .filter(|a| !dropped_out.contains(a))
            .map(|&a| renumber(a, &dropped_out))
            .collect();
        let gathered = if rest.is_empty() {
            e.outputs[0].clone()
        } else {
            self.fresh(dtype, &keep(&out.shape, &dropped_out))
        };
        let reduced = self.sub(&Atom::Var(reduced));
        self.rewrite(Eqn {
            prim: Prim::Gather {
                dims: new_dims,
                slice_sizes: keep(slice_sizes, &dropped),
                mode: *mode,
            },
            inputs: vec![reduced, g.inputs[1].clone()],
            outputs: vec![gathered.clone()],
            source: g.source,
        });
        if !rest.is_empty() {
            let gathered = self.sub(&Atom::Var(gathered));
            self.rewrite(Eqn {
                prim: Prim::Reduce { op, axes: rest },
                inputs: vec![gathered],
                outputs: e.outputs.clone(),
                source: e.source,
            });
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{arg, assert_simplifies, assert_unchanged, op};
    use crate::array::{Array, DType};
    use crate::core::Prim;
    use crate::core::Tensor;
    use crate::prims::{GatherDims, GatherMode, ReduceOp};

    /// `x[i]` (rows of `x` at indices `i` of shape `[n, 1]`), reduced over `axes`.
    fn reduced_rows(x: &Tensor, i: &Tensor, op_: ReduceOp, axes: &[usize]) -> Tensor {
        let gather = Prim::Gather {
            dims: GatherDims {
                offset_dims: vec![1],
                collapsed_slice_dims: vec![0],
                start_index_map: vec![0],
                ..GatherDims::default()
            },
            slice_sizes: vec![1, x.shape()[1]],
            mode: GatherMode::Clip,
        };
        let rows = op(gather, &[x, i]);
        let axes = axes.to_vec();
        op(Prim::Reduce { op: op_, axes }, &[&rows])
    }

    fn indices(n: usize) -> Tensor {
        Tensor::new(Array::zeros(DType::I32, &[n, 1]))
    }

    #[test]
    fn a_reduction_of_whole_rows_reduces_before_gathering() {
        let f = |(x, i): (Tensor, Tensor)| reduced_rows(&x, &i, ReduceOp::Max, &[1]);
        let before = "\
{ lambda ; a:f32[5,3] b:i32[6,1]. let
    c:f32[6,3] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.CLIP
      slice_sizes=(1, 3)
      unique_indices=False
    ] a b
    d:f32[6] = reduce_max[axes=(1,)] c
  in (d,) }";
        let after = "\
{ lambda ; a:f32[5,3] b:i32[6,1]. let
    c:f32[5] = reduce_max[axes=(1,)] a
    d:f32[6] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.CLIP
      slice_sizes=(1,)
      unique_indices=False
    ] c b
  in (d,) }";
        assert_simplifies(f, (arg(&[5, 3]), indices(6)), before, after);
    }

    #[test]
    fn a_reduction_over_the_indices_stays() {
        let f = |(x, i): (Tensor, Tensor)| reduced_rows(&x, &i, ReduceOp::Sum, &[0]);
        let text = "\
{ lambda ; a:f32[5,3] b:i32[6,1]. let
    c:f32[6,3] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.CLIP
      slice_sizes=(1, 3)
      unique_indices=False
    ] a b
    d:f32[3] = reduce_sum[axes=(0,)] c
  in (d,) }";
        assert_unchanged(f, (arg(&[5, 3]), indices(6)), text);
    }

    #[test]
    fn a_reduction_of_fewer_rows_than_the_operand_stays() {
        // Four rows of three read fewer elements than reducing all five rows would.
        let f = |(x, i): (Tensor, Tensor)| reduced_rows(&x, &i, ReduceOp::Sum, &[1]);
        let text = "\
{ lambda ; a:f32[5,3] b:i32[4,1]. let
    c:f32[4,3] = gather[
      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())
      fill_value=None
      indices_are_sorted=False
      mode=GatherScatterMode.CLIP
      slice_sizes=(1, 3)
      unique_indices=False
    ] a b
    d:f32[4] = reduce_sum[axes=(1,)] c
  in (d,) }";
        assert_unchanged(f, (arg(&[5, 3]), indices(4)), text);
    }
}
