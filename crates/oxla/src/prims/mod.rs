//! The primitive set: JAX's lax primitives, named and parameterised as JAX names them.
//!
//! Each family file holds, for its primitives, the shape rule (`abstract_eval`) and the eager
//! kernel (`eval`). Every `match` on [`Prim`] is exhaustive, so adding a primitive makes the
//! compiler list every rule still owed.

#[macro_use]
mod view;
mod broadcast;
mod elementwise;
mod indexing;
pub(crate) mod isa;
mod linalg;
mod polynomial;
mod reduce;
mod scratch;
mod shape;
mod skinny;
mod sort;

use std::fmt;

use crate::array::{Array, DType, Shape, Values, ValuesMut};
use crate::core::Aval;

pub(crate) use elementwise::broadcast_shapes;
pub use elementwise::{BinaryOp, UnaryOp};
pub use indexing::{GatherDims, GatherMode, ScatterDims};
pub(crate) use reduce::{fold, fold_by, with_monoid, Monoid, SHORT_RUN};
pub use reduce::{ArgOp, ReduceOp};
pub(crate) use view::with_dtype;

/// A primitive operation with its parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum Prim {
    /// Elementwise function of one operand (`exp`, `neg`, ...).
    Unary(UnaryOp),
    /// Elementwise function of two operands of one shape, or one of them rank 0.
    Binary(BinaryOp),
    /// `x ** y` for a constant integer `y`.
    IntegerPow {
        /// The exponent.
        y: i32,
    },
    /// `cases[which]` elementwise; `which` is bool (two cases) or int32.
    SelectN,
    /// Value conversion to another dtype.
    ConvertElementType {
        /// Target dtype.
        new_dtype: DType,
    },
    /// Reinterpretation of the bits as another dtype of the same width.
    BitcastConvertType {
        /// Target dtype.
        new_dtype: DType,
    },
    /// `0, 1, 2, ...` along one dimension of a new array.
    Iota {
        /// Element type.
        dtype: DType,
        /// Result shape.
        shape: Shape,
        /// Dimension that counts.
        dimension: usize,
    },
    /// Broadcast to `shape`, operand dimension `i` becoming `broadcast_dimensions[i]`.
    BroadcastInDim {
        /// Result shape.
        shape: Shape,
        /// Where each operand dimension lands.
        broadcast_dimensions: Vec<usize>,
    },
    /// Row-major reshape.
    Reshape {
        /// Result shape.
        new_sizes: Shape,
    },
    /// Reversal of the listed dimensions.
    Rev {
        /// Dimensions reversed.
        dimensions: Vec<usize>,
    },
    /// Permutation of dimensions.
    Transpose {
        /// `result.shape[i] = operand.shape[permutation[i]]`.
        permutation: Vec<usize>,
    },
    /// Removal of size-1 dimensions.
    Squeeze {
        /// Dimensions removed.
        dimensions: Vec<usize>,
    },
    /// A strided window with static bounds.
    Slice {
        /// First index per dimension.
        start_indices: Vec<usize>,
        /// One past the last index per dimension.
        limit_indices: Vec<usize>,
        /// Step per dimension; `None` means all ones.
        strides: Option<Vec<usize>>,
    },
    /// Padding with a scalar: `(low, high, interior)` per dimension; low/high may be negative.
    Pad {
        /// One `(low, high, interior)` per dimension.
        padding_config: Vec<(i64, i64, i64)>,
    },
    /// Joining operands along a dimension.
    Concatenate {
        /// The dimension joined along.
        dimension: usize,
    },
    /// `reduce_sum`, `reduce_max`, ... over `axes`.
    Reduce {
        /// The monoid.
        op: ReduceOp,
        /// Axes reduced away.
        axes: Vec<usize>,
    },
    /// `argmax`/`argmin` along one axis.
    ArgReduce {
        /// Which extremum.
        op: ArgOp,
        /// The single axis reduced away.
        axes: Vec<usize>,
        /// Dtype of the indices.
        index_dtype: DType,
    },
    /// Inclusive prefix sum along `axis`.
    Cumsum {
        /// The axis.
        axis: usize,
        /// Sum from the end.
        reverse: bool,
    },
    /// Tensor contraction with batch dimensions.
    DotGeneral {
        /// `(lhs_contracting, rhs_contracting)`.
        contracting: (Vec<usize>, Vec<usize>),
        /// `(lhs_batch, rhs_batch)`.
        batch: (Vec<usize>, Vec<usize>),
        /// Result dtype, if not the operands'.
        preferred_element_type: Option<DType>,
    },
    /// A window of static size at dynamic (clamped) start indices, one scalar operand each.
    DynamicSlice {
        /// Window size.
        slice_sizes: Vec<usize>,
    },
    /// Writes `update` into `operand` at dynamic (clamped) start indices.
    DynamicUpdateSlice,
    /// XLA's gather.
    Gather {
        /// Dimension numbers.
        dims: GatherDims,
        /// Window size in the operand.
        slice_sizes: Vec<usize>,
        /// Out-of-bounds behaviour.
        mode: GatherMode,
    },
    /// XLA's scatter with addition.
    ScatterAdd {
        /// Dimension numbers.
        dims: ScatterDims,
        /// Out-of-bounds behaviour.
        mode: GatherMode,
    },
    /// Sort of `num_keys` key operands (lexicographic), carrying the rest along.
    Sort {
        /// The dimension sorted.
        dimension: usize,
        /// Whether equal keys keep their order.
        is_stable: bool,
        /// How many leading operands are keys.
        num_keys: usize,
    },
    /// The Threefry-2x32 block cipher, elementwise on `(k0, k1, x0, x1)` u32 arrays.
    Threefry2x32,
    /// The identity, whose derivative is zero: differentiation treats the value as a
    /// constant.
    StopGradient,
    /// A loop running a batched body over chunks of its mapped operands (see
    /// [`crate::control`]).
    Map(std::sync::Arc<crate::control::MapSpec>),
    /// A loop carrying a value through steps over slices of its scanned operands (see
    /// [`crate::control::scan()`]).
    Scan(std::sync::Arc<crate::control::ScanSpec>),
    /// One of several branches chosen by an index (see [`crate::control::cond()`]).
    Cond(std::sync::Arc<crate::control::CondSpec>),
    /// A loop whose trip count is known at run time (see
    /// [`crate::control::while_loop()`]).
    While(std::sync::Arc<crate::control::WhileSpec>),
}

impl Prim {
    /// The primitive's name as JAX prints it.
    pub fn name(&self) -> &'static str {
        match self {
            Prim::Unary(op) => op.name(),
            Prim::Binary(op) => op.name(),
            Prim::IntegerPow { .. } => "integer_pow",
            Prim::SelectN => "select_n",
            Prim::StopGradient => "stop_gradient",
            Prim::ConvertElementType { .. } => "convert_element_type",
            Prim::BitcastConvertType { .. } => "bitcast_convert_type",
            Prim::Iota { .. } => "iota",
            Prim::BroadcastInDim { .. } => "broadcast_in_dim",
            Prim::Reshape { .. } => "reshape",
            Prim::Rev { .. } => "rev",
            Prim::Transpose { .. } => "transpose",
            Prim::Squeeze { .. } => "squeeze",
            Prim::Slice { .. } => "slice",
            Prim::Pad { .. } => "pad",
            Prim::Concatenate { .. } => "concatenate",
            Prim::Reduce { op, .. } => op.name(),
            Prim::ArgReduce { op, .. } => op.name(),
            Prim::Cumsum { .. } => "cumsum",
            Prim::DotGeneral { .. } => "dot_general",
            Prim::DynamicSlice { .. } => "dynamic_slice",
            Prim::DynamicUpdateSlice => "dynamic_update_slice",
            Prim::Gather { .. } => "gather",
            Prim::ScatterAdd { .. } => "scatter-add",
            Prim::Sort { .. } => "sort",
            Prim::Threefry2x32 => "threefry2x32",
            Prim::Map(_) => "chunked_map",
            Prim::Scan(_) => "scan",
            Prim::Cond(_) => "cond",
            Prim::While(_) => "while",
        }
    }

    /// The parameters as JAX prints them, sorted by name, sharding parameters left out.
    pub fn params(&self) -> Vec<(&'static str, String)> {
        let mut p: Vec<(&'static str, String)> = match self {
            Prim::Unary(UnaryOp::Round) => vec![("rounding_method", "0".into())],
            Prim::Unary(_)
            | Prim::Binary(_)
            | Prim::SelectN
            | Prim::Threefry2x32
            | Prim::StopGradient => vec![],
            Prim::Map(spec) => spec.params(),
            Prim::Scan(spec) => spec.params(),
            Prim::Cond(spec) => spec.params(),
            Prim::While(spec) => spec.params(),
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
                ("shape", tuple(shape)),
            ],
            Prim::BroadcastInDim {
                shape,
                broadcast_dimensions,
            } => vec![
                ("broadcast_dimensions", tuple(broadcast_dimensions)),
                ("shape", tuple(shape)),
            ],
            Prim::Reshape { new_sizes } => vec![
                ("dimensions", "None".into()),
                ("new_sizes", tuple(new_sizes)),
            ],
            Prim::Rev { dimensions } => vec![("dimensions", tuple(dimensions))],
            Prim::Transpose { permutation } => vec![("permutation", tuple(permutation))],
            Prim::Squeeze { dimensions } => vec![("dimensions", tuple(dimensions))],
            Prim::Slice {
                start_indices,
                limit_indices,
                strides,
            } => vec![
                ("limit_indices", tuple(limit_indices)),
                ("start_indices", tuple(start_indices)),
                (
                    "strides",
                    strides.as_ref().map_or("None".into(), |s| tuple(s)),
                ),
            ],
            Prim::Pad { padding_config } => {
                let items: Vec<String> = padding_config
                    .iter()
                    .map(|(l, h, i)| format!("({l}, {h}, {i})"))
                    .collect();
                vec![("padding_config", tuple_of_strings(&items))]
            }
            Prim::Concatenate { dimension } => vec![("dimension", dimension.to_string())],
            Prim::Reduce { axes, .. } => vec![("axes", tuple(axes))],
            Prim::ArgReduce {
                axes, index_dtype, ..
            } => vec![
                ("axes", tuple(axes)),
                ("index_dtype", index_dtype.to_string()),
            ],
            Prim::Cumsum { axis, reverse } => {
                vec![("axis", axis.to_string()), ("reverse", py_bool(*reverse))]
            }
            Prim::DotGeneral {
                contracting,
                batch,
                preferred_element_type,
            } => vec![
                (
                    "dimension_numbers",
                    format!(
                        "(({}, {}), ({}, {}))",
                        list(&contracting.0),
                        list(&contracting.1),
                        list(&batch.0),
                        list(&batch.1)
                    ),
                ),
                ("precision", "None".into()),
                (
                    "preferred_element_type",
                    preferred_element_type.map_or("None".into(), |d| d.to_string()),
                ),
            ],
            Prim::DynamicSlice { slice_sizes } => vec![("slice_sizes", tuple(slice_sizes))],
            Prim::Gather {
                dims,
                slice_sizes,
                mode,
            } => vec![
                ("dimension_numbers", dims.to_string()),
                ("fill_value", "None".into()),
                ("indices_are_sorted", "False".into()),
                ("mode", mode.to_string()),
                ("slice_sizes", tuple(slice_sizes)),
                ("unique_indices", "False".into()),
            ],
            Prim::ScatterAdd { dims, mode } => vec![
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
                ("is_stable", py_bool(*is_stable)),
                ("num_keys", num_keys.to_string()),
            ],
        };
        p.sort_by_key(|(k, _)| *k);
        p
    }

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
            Prim::Unary(op) => elementwise::unary_rule(*op, inputs),
            Prim::Binary(op) => elementwise::binary_rule(*op, inputs),
            Prim::IntegerPow { y } => elementwise::integer_pow_rule(*y, inputs),
            Prim::SelectN => elementwise::select_n_rule(inputs),
            Prim::StopGradient => arity(inputs, 1).map(|()| vec![inputs[0].clone()]),
            Prim::ConvertElementType { new_dtype } => elementwise::convert_rule(*new_dtype, inputs),
            Prim::BitcastConvertType { new_dtype } => elementwise::bitcast_rule(*new_dtype, inputs),
            Prim::Iota {
                dtype,
                shape,
                dimension,
            } => shape::iota_rule(*dtype, shape, *dimension, inputs),
            Prim::BroadcastInDim {
                shape,
                broadcast_dimensions,
            } => shape::broadcast_in_dim_rule(shape, broadcast_dimensions, inputs),
            Prim::Reshape { new_sizes } => shape::reshape_rule(new_sizes, inputs),
            Prim::Rev { dimensions } => shape::rev_rule(dimensions, inputs),
            Prim::Transpose { permutation } => shape::transpose_rule(permutation, inputs),
            Prim::Squeeze { dimensions } => shape::squeeze_rule(dimensions, inputs),
            Prim::Slice {
                start_indices,
                limit_indices,
                strides,
            } => shape::slice_rule(start_indices, limit_indices, strides.as_deref(), inputs),
            Prim::Pad { padding_config } => shape::pad_rule(padding_config, inputs),
            Prim::Concatenate { dimension } => shape::concatenate_rule(*dimension, inputs),
            Prim::Reduce { op, axes } => reduce::reduce_rule(*op, axes, inputs),
            Prim::ArgReduce {
                axes, index_dtype, ..
            } => reduce::arg_rule(axes, *index_dtype, inputs),
            Prim::Cumsum { axis, .. } => reduce::cumsum_rule(*axis, inputs),
            Prim::DotGeneral {
                contracting,
                batch,
                preferred_element_type,
            } => linalg::dot_general_rule(contracting, batch, *preferred_element_type, inputs),
            Prim::DynamicSlice { slice_sizes } => indexing::dynamic_slice_rule(slice_sizes, inputs),
            Prim::DynamicUpdateSlice => indexing::dynamic_update_slice_rule(inputs),
            Prim::Gather {
                dims, slice_sizes, ..
            } => indexing::gather_rule(dims, slice_sizes, inputs),
            Prim::ScatterAdd { dims, .. } => indexing::scatter_add_rule(dims, inputs),
            Prim::Sort {
                dimension,
                num_keys,
                ..
            } => sort::sort_rule(*dimension, *num_keys, inputs),
            Prim::Threefry2x32 => elementwise::threefry_rule(inputs),
            Prim::Map(spec) => spec.abstract_eval(inputs),
            Prim::Scan(spec) => spec.abstract_eval(inputs),
            Prim::Cond(spec) => spec.abstract_eval(inputs),
            Prim::While(spec) => spec.abstract_eval(inputs),
        }
    }

    /// Runs an elementwise primitive (one that fusion turns into a kernel node) on typed
    /// runs of elements into `out`; one-element operands repeat.
    pub(crate) fn eval_lanes(&self, args: &[Values], out: ValuesMut) {
        elementwise::apply_into(self, args, out)
    }

    /// The eager kernel: runs the primitive on concrete arrays whose avals passed the shape rule.
    pub fn eval(&self, inputs: &[Array]) -> Vec<Array> {
        match self {
            Prim::Unary(op) => vec![elementwise::unary(*op, &inputs[0])],
            Prim::Binary(op) => vec![elementwise::binary(*op, &inputs[0], &inputs[1])],
            Prim::IntegerPow { y } => vec![elementwise::integer_pow(&inputs[0], *y)],
            Prim::SelectN => vec![elementwise::select_n(inputs)],
            Prim::StopGradient => vec![inputs[0].clone()],
            Prim::ConvertElementType { new_dtype } => {
                vec![elementwise::convert(&inputs[0], *new_dtype)]
            }
            Prim::BitcastConvertType { new_dtype } => {
                vec![elementwise::bitcast(&inputs[0], *new_dtype)]
            }
            Prim::Iota {
                dtype,
                shape,
                dimension,
            } => vec![shape::iota(*dtype, shape, *dimension)],
            Prim::BroadcastInDim {
                shape,
                broadcast_dimensions,
            } => vec![shape::broadcast_in_dim(
                &inputs[0],
                shape,
                broadcast_dimensions,
            )],
            Prim::Reshape { new_sizes } => vec![inputs[0].reshaped(new_sizes)],
            Prim::Rev { dimensions } => vec![shape::rev(&inputs[0], dimensions)],
            Prim::Transpose { permutation } => vec![shape::transpose(&inputs[0], permutation)],
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
            } => vec![shape::slice(
                &inputs[0],
                start_indices,
                limit_indices,
                strides.as_deref(),
            )],
            Prim::Pad { padding_config } => {
                vec![shape::pad(&inputs[0], &inputs[1], padding_config)]
            }
            Prim::Concatenate { dimension } => vec![shape::concatenate(inputs, *dimension)],
            Prim::Reduce { op, axes } => vec![reduce::reduce(*op, &inputs[0], axes)],
            Prim::ArgReduce {
                op,
                axes,
                index_dtype,
            } => vec![reduce::arg_reduce(*op, &inputs[0], axes[0], *index_dtype)],
            Prim::Cumsum { axis, reverse } => vec![reduce::cumsum(&inputs[0], *axis, *reverse)],
            Prim::DotGeneral {
                contracting,
                batch,
                preferred_element_type,
            } => vec![linalg::dot_general(
                &inputs[0],
                &inputs[1],
                contracting,
                batch,
                *preferred_element_type,
            )],
            Prim::DynamicSlice { slice_sizes } => {
                vec![indexing::dynamic_slice(
                    &inputs[0],
                    &inputs[1..],
                    slice_sizes,
                )]
            }
            Prim::DynamicUpdateSlice => vec![indexing::dynamic_update_slice(
                &inputs[0],
                &inputs[1],
                &inputs[2..],
            )],
            Prim::Gather {
                dims,
                slice_sizes,
                mode,
            } => vec![indexing::gather(
                &inputs[0],
                &inputs[1],
                dims,
                slice_sizes,
                *mode,
            )],
            Prim::ScatterAdd { dims, mode } => vec![indexing::scatter_add(
                &inputs[0], &inputs[1], &inputs[2], dims, *mode,
            )],
            Prim::Sort {
                dimension,
                num_keys,
                ..
            } => sort::sort(inputs, *dimension, *num_keys),
            Prim::Threefry2x32 => elementwise::threefry2x32(inputs),
            Prim::Map(spec) => spec.eval(inputs),
            Prim::Scan(spec) => spec.eval(inputs),
            Prim::Cond(spec) => spec.eval(inputs),
            Prim::While(spec) => spec.eval(inputs),
        }
    }
}

/// The aval of a concrete array.
pub fn aval_of(a: &Array) -> Aval {
    Aval::new(a.dtype(), a.shape())
}

impl fmt::Display for Prim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        let params = self.params();
        if !params.is_empty() {
            f.write_str("[")?;
            for (i, (k, v)) in params.iter().enumerate() {
                if i > 0 {
                    f.write_str(" ")?;
                }
                write!(f, "{k}={v}")?;
            }
            f.write_str("]")?;
        }
        Ok(())
    }
}

/// Python's tuple syntax: `()`, `(0,)`, `(0, 1)`.
pub(crate) fn tuple<T: fmt::Display>(items: &[T]) -> String {
    let s: Vec<String> = items.iter().map(|x| x.to_string()).collect();
    tuple_of_strings(&s)
}

pub(crate) fn tuple_of_strings(items: &[String]) -> String {
    match items.len() {
        1 => format!("({},)", items[0]),
        _ => format!("({})", items.join(", ")),
    }
}

/// Python's list syntax: `[]`, `[0]`, `[0, 1]`.
fn list(items: &[usize]) -> String {
    let s: Vec<String> = items.iter().map(|x| x.to_string()).collect();
    format!("[{}]", s.join(", "))
}

fn py_bool(b: bool) -> String {
    if b { "True" } else { "False" }.into()
}

/// Checks the operand count of a shape rule.
pub(crate) fn arity(inputs: &[Aval], n: usize) -> Result<(), String> {
    if inputs.len() == n {
        Ok(())
    } else {
        Err(format!("expected {n} operands, got {}", inputs.len()))
    }
}
