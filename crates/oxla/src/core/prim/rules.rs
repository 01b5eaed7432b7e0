//! Each primitive's shape rule and eager kernel, dispatched to [`crate::prims`].

use super::Kind;
use super::Prim;
use crate::array::{aval_of, Array, Aval, Values, ValuesMut};
use crate::prims::{self, arity, Lanewise};

impl Prim {
    /// The shape rule: result avals for operand avals, or a message saying what is wrong
    /// (also when a result would be too large for memory, see [`Aval::check`]).
    pub fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
        let outs = self.shape_rule(inputs)?;
        for a in &outs {
            a.check().map_err(|m| format!("the result's {m}"))?;
        }
        Ok(outs)
    }

    /// The primitive's own shape rule.
    fn shape_rule(&self, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
        match self {
            Prim::Unary(op) => prims::elementwise::unary_rule(*op, inputs),
            Prim::Binary(op) => prims::elementwise::binary_rule(*op, inputs),
            Prim::IntegerPow { y } => prims::elementwise::integer_pow_rule(*y, inputs),
            Prim::SelectN => prims::elementwise::select_n_rule(inputs),
            Prim::StopGradient => arity(inputs, 1).map(|()| vec![inputs[0].clone()]),
            Prim::ConvertElementType { new_dtype } => {
                prims::elementwise::convert_rule(*new_dtype, inputs)
            }
            Prim::BitcastConvertType { new_dtype } => {
                prims::elementwise::bitcast_rule(*new_dtype, inputs)
            }
            Prim::Iota {
                dtype,
                shape,
                dimension,
            } => prims::shape::iota_rule(*dtype, shape, *dimension, inputs),
            Prim::BroadcastInDim {
                shape,
                broadcast_dimensions,
            } => prims::shape::broadcast_in_dim_rule(shape, broadcast_dimensions, inputs),
            Prim::Reshape { new_sizes } => prims::shape::reshape_rule(new_sizes, inputs),
            Prim::Rev { dimensions } => prims::shape::rev_rule(dimensions, inputs),
            Prim::Transpose { permutation } => prims::shape::transpose_rule(permutation, inputs),
            Prim::Squeeze { dimensions } => prims::shape::squeeze_rule(dimensions, inputs),
            Prim::Slice {
                start_indices,
                limit_indices,
                strides,
            } => prims::shape::slice_rule(start_indices, limit_indices, strides.as_deref(), inputs),
            Prim::Pad { padding_config } => prims::shape::pad_rule(padding_config, inputs),
            Prim::Concatenate { dimension } => prims::shape::concatenate_rule(*dimension, inputs),
            Prim::Reduce { op, axes } => prims::reduce::reduce_rule(*op, axes, inputs),
            Prim::ArgReduce {
                axes, index_dtype, ..
            } => prims::reduce::arg_rule(axes, *index_dtype, inputs),
            Prim::Cumsum { axis, .. } => prims::reduce::cumsum_rule(*axis, inputs),
            Prim::DotGeneral {
                contracting,
                batch,
                preferred_element_type,
            } => {
                prims::linalg::dot_general_rule(contracting, batch, *preferred_element_type, inputs)
            }
            Prim::DotReduce(p) => prims::dot_reduce::dot_reduce_rule(p, inputs),
            Prim::DynamicSlice { slice_sizes } => {
                prims::indexing::dynamic_slice_rule(slice_sizes, inputs)
            }
            Prim::DynamicUpdateSlice => prims::indexing::dynamic_update_slice_rule(inputs),
            Prim::Gather {
                dims, slice_sizes, ..
            } => prims::indexing::gather_rule(dims, slice_sizes, inputs),
            Prim::Scatter { op, dims, .. } => prims::indexing::scatter_rule(*op, dims, inputs),
            Prim::Sort {
                dimension,
                num_keys,
                ..
            } => prims::sort::sort_rule(*dimension, *num_keys, inputs),
            Prim::Threefry2x32 { words } => prims::elementwise::threefry_rule(*words, inputs),
            Prim::Control(c) => c.abstract_eval(inputs),
            Prim::DebugCallback(_) => Ok(vec![]),
            Prim::ConvGeneralDilated(p) => prims::conv::conv_rule(p, inputs),
            Prim::Linalg(op) => prims::decomp::rule(*op, inputs),
            Prim::Fft {
                fft_type,
                fft_lengths,
            } => prims::fft::fft_rule(*fft_type, fft_lengths, inputs),
            Prim::Collective(c) => c.rule(inputs),
        }
    }

    /// Runs an elementwise primitive (one that fusion turns into a kernel node) on typed
    /// runs of elements into `out`; one-element operands repeat.
    pub(crate) fn eval_lanes(&self, args: &[Values], out: ValuesMut) {
        self.lanewise()
            .unwrap_or_else(|| panic!("{} is not elementwise", self.name()))
            .apply_into(args, out)
    }

    /// The operation a kernel runs on lanes, for an elementwise primitive.
    pub(crate) fn lanewise(&self) -> Option<Lanewise> {
        if let Kind::Lanewise(op) = self.kind() {
            Some(op)
        } else {
            None
        }
    }

    /// The eager kernel: runs the primitive on concrete arrays whose avals passed the shape rule.
    pub fn eval(&self, inputs: &[Array]) -> Vec<Array> {
        match self {
            Prim::Unary(op) => vec![prims::elementwise::unary(*op, &inputs[0])],
            Prim::Binary(op) => vec![prims::elementwise::binary(*op, &inputs[0], &inputs[1])],
            Prim::IntegerPow { y } => vec![prims::elementwise::integer_pow(&inputs[0], *y)],
            Prim::SelectN => vec![prims::elementwise::select_n(inputs)],
            Prim::StopGradient => vec![inputs[0].clone()],
            Prim::ConvertElementType { new_dtype } => {
                vec![prims::elementwise::convert(&inputs[0], *new_dtype)]
            }
            Prim::BitcastConvertType { new_dtype } => {
                vec![prims::elementwise::bitcast(&inputs[0], *new_dtype)]
            }
            Prim::Iota {
                dtype,
                shape,
                dimension,
            } => vec![prims::shape::iota(*dtype, shape, *dimension)],
            Prim::BroadcastInDim {
                shape,
                broadcast_dimensions,
            } => vec![prims::shape::broadcast_in_dim(
                &inputs[0],
                shape,
                broadcast_dimensions,
            )],
            Prim::Reshape { new_sizes } => vec![inputs[0].reshaped(new_sizes)],
            Prim::Rev { dimensions } => vec![prims::shape::rev(&inputs[0], dimensions)],
            Prim::Transpose { permutation } => {
                vec![prims::shape::transpose(&inputs[0], permutation)]
            }
            Prim::Squeeze { .. } => {
                let out: Vec<usize> = self.abstract_eval(&[aval_of(&inputs[0])]).unwrap()[0]
                    .shape
                    .to_vec();
                vec![inputs[0].reshaped(&out)]
            }
            Prim::Slice {
                start_indices,
                limit_indices,
                strides,
            } => vec![prims::shape::slice(
                &inputs[0],
                start_indices,
                limit_indices,
                strides.as_deref(),
            )],
            Prim::Pad { padding_config } => {
                vec![prims::shape::pad(&inputs[0], &inputs[1], padding_config)]
            }
            Prim::Concatenate { dimension } => vec![prims::shape::concatenate(inputs, *dimension)],
            Prim::Reduce { op, axes } => vec![prims::reduce::reduce(*op, &inputs[0], axes)],
            Prim::ArgReduce {
                op,
                axes,
                index_dtype,
            } => vec![prims::reduce::arg_reduce(
                *op,
                &inputs[0],
                axes[0],
                *index_dtype,
            )],
            Prim::Cumsum { axis, reverse } => {
                vec![prims::reduce::cumsum(&inputs[0], *axis, *reverse)]
            }
            Prim::DotGeneral {
                contracting,
                batch,
                preferred_element_type,
            } => vec![prims::linalg::dot_general(
                &inputs[0],
                &inputs[1],
                contracting,
                batch,
                *preferred_element_type,
            )],
            Prim::DotReduce(p) => vec![prims::dot_reduce::dot_reduce(&inputs[0], &inputs[1], p)],
            Prim::DynamicSlice { slice_sizes } => {
                vec![prims::indexing::dynamic_slice(
                    &inputs[0],
                    &inputs[1..],
                    slice_sizes,
                )]
            }
            Prim::DynamicUpdateSlice => vec![prims::indexing::dynamic_update_slice(
                &inputs[0],
                &inputs[1],
                &inputs[2..],
            )],
            Prim::Gather {
                dims,
                slice_sizes,
                mode,
            } => vec![prims::indexing::gather(
                &inputs[0],
                &inputs[1],
                dims,
                slice_sizes,
                *mode,
            )],
            Prim::Scatter { op, dims, mode } => vec![prims::indexing::scatter(
                *op, &inputs[0], &inputs[1], &inputs[2], dims, *mode,
            )],
            Prim::Sort {
                dimension,
                num_keys,
                ..
            } => prims::sort::sort(inputs, *dimension, *num_keys),
            Prim::Threefry2x32 { words } => prims::elementwise::threefry2x32(*words, inputs),
            Prim::Control(c) => c.eval(inputs),
            Prim::DebugCallback(c) => {
                c.call(inputs);
                vec![]
            }
            Prim::ConvGeneralDilated(p) => {
                vec![prims::conv::conv_general_dilated(&inputs[0], &inputs[1], p)]
            }
            Prim::Linalg(op) => prims::decomp::eval(*op, inputs),
            Prim::Fft {
                fft_type,
                fft_lengths,
            } => vec![prims::fft::fft(&inputs[0], *fft_type, fft_lengths)],
            Prim::Collective(c) => c.eval(inputs),
        }
    }
}
