//! The parameters of each primitive as JAX prints them in a jaxpr.

use super::Prim;
use crate::prims::ThreefryWords;
use crate::prims::{pyfmt, UnaryOp};

impl Prim {
    /// The parameters as JAX prints them, sorted by name, sharding parameters left out.
    pub fn params(&self) -> Vec<(&'static str, String)> {
        let mut p: Vec<(&'static str, String)> = match self {
            Prim::Unary(UnaryOp::Round) => vec![("rounding_method", "0".into())],
            Prim::Unary(UnaryOp::RoundEven) => vec![("rounding_method", "1".into())],
            Prim::Unary(UnaryOp::ReducePrecision {
                exponent_bits,
                mantissa_bits,
            }) => vec![
                ("exponent_bits", exponent_bits.to_string()),
                ("mantissa_bits", mantissa_bits.to_string()),
            ],
            Prim::Unary(_) | Prim::Binary(_) | Prim::SelectN | Prim::StopGradient => vec![],
            Prim::Threefry2x32 { words } => match words {
                ThreefryWords::Both => vec![],
                ThreefryWords::Xor => vec![("word", "xor".into())],
                ThreefryWords::Hi => vec![("word", "hi".into())],
                ThreefryWords::Lo => vec![("word", "lo".into())],
            },
            Prim::Control(c) => c.params(),
            Prim::DebugCallback(c) => c.params(),
            Prim::ConvGeneralDilated(p) => p.params(),
            Prim::Linalg(op) => op.params(),
            Prim::Collective(c) => c.params(),
            Prim::Fft {
                fft_type,
                fft_lengths,
            } => vec![
                ("fft_lengths", pyfmt::tuple(fft_lengths)),
                ("fft_type", fft_type.name().to_string()),
            ],
            Prim::DynamicUpdateSlice => vec![],
            Prim::IntegerPow { y } => vec![("y", y.to_string())],
            Prim::ConvertElementType { new_dtype } => vec![
                ("new_dtype", new_dtype.to_string()),
                ("weak_type", "False".into()),
            ],
            Prim::BitcastConvertType { new_dtype } => vec![("new_dtype", new_dtype.to_string())],
            Prim::Iota {
                dtype,
                shape,
                dimension,
            } => vec![
                ("dimension", dimension.to_string()),
                ("dtype", dtype.to_string()),
                ("shape", pyfmt::tuple(shape)),
            ],
            Prim::BroadcastInDim {
                shape,
                broadcast_dimensions,
            } => vec![
                ("broadcast_dimensions", pyfmt::tuple(broadcast_dimensions)),
                ("shape", pyfmt::tuple(shape)),
            ],
            Prim::Reshape { new_sizes } => vec![
                ("dimensions", "None".into()),
                ("new_sizes", pyfmt::tuple(new_sizes)),
            ],
            Prim::Rev { dimensions } => vec![("dimensions", pyfmt::tuple(dimensions))],
            Prim::Transpose { permutation } => vec![("permutation", pyfmt::tuple(permutation))],
            Prim::Squeeze { dimensions } => vec![("dimensions", pyfmt::tuple(dimensions))],
            Prim::Slice {
                start_indices,
                limit_indices,
                strides,
            } => vec![
                ("limit_indices", pyfmt::tuple(limit_indices)),
                ("start_indices", pyfmt::tuple(start_indices)),
                (
                    "strides",
                    strides.as_ref().map_or("None".into(), |s| pyfmt::tuple(s)),
                ),
            ],
            Prim::Pad { padding_config } => {
                let items: Vec<String> = padding_config
                    .iter()
                    .map(|(l, h, i)| format!("({l}, {h}, {i})"))
                    .collect();
                vec![("padding_config", pyfmt::tuple_of_strings(&items))]
            }
            Prim::Concatenate { dimension } => vec![("dimension", dimension.to_string())],
            Prim::Reduce { axes, .. } => vec![("axes", pyfmt::tuple(axes))],
            Prim::ArgReduce {
                axes, index_dtype, ..
            } => vec![
                ("axes", pyfmt::tuple(axes)),
                ("index_dtype", index_dtype.to_string()),
            ],
            Prim::Cumsum { axis, reverse } => {
                vec![
                    ("axis", axis.to_string()),
                    ("reverse", pyfmt::py_bool(*reverse)),
                ]
            }
            Prim::DotGeneral {
                contracting,
                batch,
                preferred_element_type,
            } => vec![
                ("dimension_numbers", dimension_numbers(contracting, batch)),
                ("precision", "None".into()),
                (
                    "preferred_element_type",
                    preferred_element_type.map_or("None".into(), |d| d.to_string()),
                ),
            ],
            Prim::DotReduce(p) => vec![
                (
                    "dimension_numbers",
                    dimension_numbers(&p.contracting, &p.batch),
                ),
                ("map", p.map.name().into()),
                ("reduce", p.op.name().into()),
                ("axes", pyfmt::tuple(&p.axes)),
            ],
            Prim::DynamicSlice { slice_sizes } => vec![("slice_sizes", pyfmt::tuple(slice_sizes))],
            Prim::Gather {
                dims,
                slice_sizes,
                mode,
            } => vec![
                ("dimension_numbers", dims.to_string()),
                ("fill_value", "None".into()),
                ("indices_are_sorted", "False".into()),
                ("mode", mode.to_string()),
                ("slice_sizes", pyfmt::tuple(slice_sizes)),
                ("unique_indices", "False".into()),
            ],
            Prim::Scatter { dims, mode, .. } => vec![
                ("dimension_numbers", dims.to_string()),
                ("indices_are_sorted", "False".into()),
                ("mode", mode.to_string()),
                ("unique_indices", "False".into()),
                ("update_consts", "()".into()),
                ("update_jaxpr", "None".into()),
            ],
            Prim::Sort {
                dimension,
                is_stable,
                num_keys,
            } => vec![
                ("dimension", dimension.to_string()),
                ("is_stable", pyfmt::py_bool(*is_stable)),
                ("num_keys", num_keys.to_string()),
            ],
        };
        p.sort_by_key(|(k, _)| *k);
        p
    }
}

/// A product's dimension numbers as JAX prints them: `((lhs_contracting, rhs_contracting),
/// (lhs_batch, rhs_batch))`.
fn dimension_numbers(
    contracting: &(Vec<usize>, Vec<usize>),
    batch: &(Vec<usize>, Vec<usize>),
) -> String {
    format!(
        "(({}, {}), ({}, {}))",
        pyfmt::list(&contracting.0),
        pyfmt::list(&contracting.1),
        pyfmt::list(&batch.0),
        pyfmt::list(&batch.1)
    )
}
