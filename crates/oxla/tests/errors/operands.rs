//! Bad operands: each primitive and numpy function refuses the shapes, dtypes, axes and
//! indices it cannot take, with a message naming it and the operands, eagerly and traced.

use oxla::numpy::{self as jnp, s};
use oxla::prims::{GatherDims, GatherMode, ReduceOp};
use oxla::{lax, make_jaxpr, DType, Tensor};

use crate::m23;

// Broadcasting and dtypes.
bad!(
    numpy_add_of_incompatible_shapes,
    numpy_add_of_incompatible_shapes_traced,
    "add: shapes f32[3], f32[4] cannot be broadcast together",
    jnp::ones(&[3]),
    |x: Tensor| jnp::add(&x, jnp::ones(&[4]))
);
bad!(
    operator_mul_of_incompatible_shapes,
    operator_mul_of_incompatible_shapes_traced,
    "multiply: shapes f32[3], f32[2,4] cannot be broadcast together",
    jnp::ones(&[3]),
    |x: Tensor| &x * &jnp::ones(&[2, 4])
);
bad!(
    where_of_incompatible_shapes,
    where_of_incompatible_shapes_traced,
    "where: shapes bool[4], f32[2,3], f32[2,3] cannot be broadcast together",
    m23(),
    |x: Tensor| jnp::where_(jnp::ones(&[4]).astype(DType::Bool), &x, &x)
);
bad!(
    lax_add_of_incompatible_shapes,
    lax_add_of_incompatible_shapes_traced,
    "add: incompatible shapes f32[3] and f32[4]",
    jnp::ones(&[3]),
    |x: Tensor| lax::add(&x, &jnp::ones(&[4]))
);
bad!(
    lax_mul_of_mismatched_dtypes,
    lax_mul_of_mismatched_dtypes_traced,
    "mul: operands must have one dtype, got f32[3] and i32[3]",
    jnp::ones(&[3]),
    |x: Tensor| lax::mul(&x, &x.astype(DType::I32))
);
bad!(
    lax_exp_of_an_int,
    lax_exp_of_an_int_traced,
    "exp: requires a floating-point operand, got i32[3]",
    jnp::arange(3),
    |x: Tensor| lax::exp(&x)
);
bad!(
    lax_shift_of_a_float,
    lax_shift_of_a_float_traced,
    "shift_left: requires an integer operand, got f32[2,3]",
    m23(),
    |x: Tensor| lax::shift_left(&x, &x)
);
bad!(
    integer_pow_of_an_int_to_a_negative_power,
    integer_pow_of_an_int_to_a_negative_power_traced,
    "integer_pow: integers cannot be raised to negative powers, got i32[3] to the power -1",
    jnp::arange(3),
    |x: Tensor| jnp::power(&x, -1)
);
bad!(
    select_n_of_mismatched_cases,
    select_n_of_mismatched_cases_traced,
    "select_n: cases must have one aval, got f32[2,3] and i32[2,3]",
    m23(),
    |x: Tensor| lax::select_n(&lax::gt(&x, &x), &[x.clone(), x.astype(DType::I32)])
);

// Contractions.
bad!(
    dot_general_of_mismatched_contraction,
    dot_general_of_mismatched_contraction_traced,
    "dot_general: contracting dimensions [1] of f32[2,3] and [0] of f32[4,5] do not match",
    m23(),
    |x: Tensor| lax::dot_general(&x, &jnp::ones(&[4, 5]), (&[1], &[0]), (&[], &[]), None)
);
bad!(
    matmul_of_mismatched_shapes,
    matmul_of_mismatched_shapes_traced,
    "matmul: shapes [2, 3] and [4, 5] are not aligned for a matrix product",
    m23(),
    |x: Tensor| jnp::matmul(&x, jnp::ones(&[4, 5]))
);
bad!(
    matmul_of_a_scalar,
    matmul_of_a_scalar_traced,
    "matmul: operands must not be scalars, got shapes [2, 3] and []",
    m23(),
    |x: Tensor| x.matmul(Tensor::scalar(2.0f32))
);

// Shapes.
bad!(
    reshape_to_the_wrong_size,
    reshape_to_the_wrong_size_traced,
    "reshape: cannot reshape an array of shape [2, 3] into [4]",
    m23(),
    |x: Tensor| x.reshape(&[4])
);
bad!(
    lax_reshape_to_the_wrong_size,
    lax_reshape_to_the_wrong_size_traced,
    "reshape: cannot reshape f32[2,3] to [4, 2]",
    m23(),
    |x: Tensor| lax::reshape(&x, &[4, 2])
);
bad!(
    transpose_with_a_bad_axis,
    transpose_with_a_bad_axis_traced,
    "transpose: axis 2 is out of bounds for an array of rank 2",
    m23(),
    |x: Tensor| x.transpose([0, 2])
);
bad!(
    lax_transpose_with_a_repeated_axis,
    lax_transpose_with_a_repeated_axis_traced,
    "transpose: [0, 0] is not a permutation of 2 dimensions",
    m23(),
    |x: Tensor| lax::transpose(&x, &[0, 0])
);
bad!(
    concatenate_with_a_bad_axis,
    concatenate_with_a_bad_axis_traced,
    "concatenate: axis 2 is out of bounds for an array of rank 2",
    m23(),
    |x: Tensor| jnp::concatenate(&[x.clone(), x], 2)
);
bad!(
    concatenate_of_mismatched_shapes,
    concatenate_of_mismatched_shapes_traced,
    "concatenate: operands must agree in dtype and in every dimension but 0: f32[2,3] vs f32[2,4]",
    m23(),
    |x: Tensor| jnp::concatenate(&[x, jnp::ones(&[2, 4])], 0)
);
bad!(
    stack_of_mismatched_shapes,
    stack_of_mismatched_shapes_traced,
    "stack: all arrays must have one shape, got [2, 3] and [3, 2]",
    m23(),
    |x: Tensor| jnp::stack(&[x.clone(), x.t()], 0)
);
bad!(
    broadcast_in_dim_to_an_incompatible_shape,
    broadcast_in_dim_to_an_incompatible_shape_traced,
    "broadcast_in_dim: operand f32[2,3] cannot broadcast to [4, 3] with broadcast_dimensions \
     [0, 1]",
    m23(),
    |x: Tensor| lax::broadcast_in_dim(&x, &[4, 3], &[0, 1])
);
bad!(
    broadcast_in_dim_with_too_few_dimensions,
    broadcast_in_dim_with_too_few_dimensions_traced,
    "broadcast_in_dim: broadcast_dimensions [1] must have one entry per operand dimension of \
     f32[2,3]",
    m23(),
    |x: Tensor| lax::broadcast_in_dim(&x, &[2, 3, 4], &[1])
);
bad!(
    broadcast_to_an_incompatible_shape,
    broadcast_to_an_incompatible_shape_traced,
    "broadcast_to: cannot broadcast shape [2, 3] to [3, 3]",
    m23(),
    |x: Tensor| jnp::broadcast_to(&x, &[3, 3])
);
bad!(
    squeeze_of_a_dimension_not_of_size_1,
    squeeze_of_a_dimension_not_of_size_1_traced,
    "squeeze: cannot squeeze dimension 0 of f32[2,3]: it is not of size 1",
    m23(),
    |x: Tensor| jnp::squeeze(&x, [0])
);
bad!(
    argmax_of_several_axes,
    argmax_of_several_axes_traced,
    "argmax: takes a single axis (an integer) or None, got the axes [0, 1]",
    m23(),
    |x: Tensor| jnp::argmax(&x, [0, 1])
);
bad!(
    keepdims_of_sort,
    keepdims_of_sort_traced,
    "sort: keepdims applies to reductions only",
    m23(),
    |x: Tensor| jnp::sort(&x, jnp::keepdims(0))
);
bad!(
    bitwise_and_of_floats,
    bitwise_and_of_floats_traced,
    "bitwise_and: needs integer or bool operands, got f32[2,3]",
    m23(),
    |x: Tensor| &x & 1
);
bad!(
    invert_of_floats,
    invert_of_floats_traced,
    "invert: needs integer or bool operands, got f32[2,3]",
    m23(),
    |x: Tensor| !x
);
bad!(
    slice_out_of_range,
    slice_out_of_range_traced,
    "slice: slice [1:3:1] out of range for dimension 0 of f32[2,3]",
    m23(),
    |x: Tensor| lax::slice(&x, &[1, 0], &[3, 3], None)
);
bad!(
    pad_with_negative_interior,
    pad_with_negative_interior_traced,
    "pad: padding (0, 0, -1) of dimension 0 of f32[2,3] is invalid",
    m23(),
    |x: Tensor| lax::pad(&x, &Tensor::scalar(0.0f32), &[(0, 0, -1), (0, 0, 0)])
);
bad!(
    pad_with_a_value_of_another_dtype,
    pad_with_a_value_of_another_dtype_traced,
    "pad: padding value must be a scalar of f32[2,3]'s dtype, got i32[]",
    m23(),
    |x: Tensor| lax::pad(&x, &Tensor::scalar(0i32), &[(1, 1, 0), (0, 0, 0)])
);
bad!(
    iota_of_a_bad_dimension,
    iota_of_a_bad_dimension_traced,
    "iota: dimension 2 out of range for shape [2, 3]",
    m23(),
    |x: Tensor| &x + &lax::iota(DType::F32, &[2, 3], 2)
);

// Reductions.
bad!(
    sum_over_a_bad_axis,
    sum_over_a_bad_axis_traced,
    "sum: axis 2 is out of bounds for an array of rank 2",
    m23(),
    |x: Tensor| x.sum(2)
);
bad!(
    mean_over_a_negative_bad_axis,
    mean_over_a_negative_bad_axis_traced,
    "mean: axis -3 is out of bounds for an array of rank 2",
    m23(),
    |x: Tensor| x.mean(-3)
);
bad!(
    sum_over_a_repeated_axis,
    sum_over_a_repeated_axis_traced,
    "sum: repeated axis in Some([1, -1])",
    m23(),
    |x: Tensor| x.sum([1, -1])
);
bad!(
    lax_reduce_sum_of_bools,
    lax_reduce_sum_of_bools_traced,
    "reduce_sum: cannot reduce bool[2,3]",
    m23(),
    |x: Tensor| lax::reduce(&x.astype(DType::Bool), ReduceOp::Sum, &[0])
);
bad!(
    argmax_over_an_empty_axis,
    argmax_over_an_empty_axis_traced,
    "argmax: requires a non-empty reduced dimension; axis 1 of f32[3,0] is empty",
    jnp::zeros(&[3, 0]),
    |x: Tensor| x.argmax(1)
);
bad!(
    argmin_of_an_empty_array,
    argmin_of_an_empty_array_traced,
    "argmin: requires a non-empty reduced dimension; axis 0 of f32[0] is empty",
    jnp::zeros(&[3, 0]),
    |x: Tensor| jnp::argmin(&x, None)
);
bad!(
    cumsum_over_a_bad_axis,
    cumsum_over_a_bad_axis_traced,
    "cumsum: axis 5 is out of bounds for an array of rank 2",
    m23(),
    |x: Tensor| jnp::cumsum(&x, 5)
);
bad!(
    sort_along_a_bad_dimension,
    sort_along_a_bad_dimension_traced,
    "sort: dimension 2 out of range for f32[2,3]",
    m23(),
    |x: Tensor| lax::sort(&[x], 2, 1).pop().unwrap()
);

// Indexing.
bad!(
    too_many_indices,
    too_many_indices_traced,
    "index: too many indices: 3 for 2 dimensions (array of shape [2, 3])",
    m23(),
    |x: Tensor| x.index((0, 0, 0))
);
bad!(
    integer_index_out_of_range,
    integer_index_out_of_range_traced,
    "index: index 5 is out of bounds for axis 1 with size 3 (array of shape [2, 3])",
    m23(),
    |x: Tensor| x.index((.., 5))
);
bad!(
    negative_integer_index_out_of_range,
    negative_integer_index_out_of_range_traced,
    "index: index -3 is out of bounds for axis 0 with size 2 (array of shape [2, 3])",
    m23(),
    |x: Tensor| x.index((-3, s(None, None, -1)))
);
bad!(
    index_arrays_that_do_not_broadcast,
    index_arrays_that_do_not_broadcast_traced,
    "index arrays of shapes [2], [3] cannot be broadcast together",
    m23(),
    |x: Tensor| x.index((
        jnp::array(&[0i32, 1], &[2]),
        jnp::array(&[0i32, 1, 2], &[3])
    ))
);
bad!(
    float_index_array,
    float_index_array_traced,
    "index: index arrays must be integers, got float32",
    m23(),
    |x: Tensor| x.index(jnp::ones(&[2]))
);
bad!(
    dynamic_slice_larger_than_the_operand,
    dynamic_slice_larger_than_the_operand_traced,
    "dynamic_slice: slice_sizes [3, 1] larger than f32[2,3]",
    m23(),
    |x: Tensor| lax::dynamic_slice(&x, &[Tensor::scalar(0i32), Tensor::scalar(0i32)], &[3, 1])
);
bad!(
    dynamic_slice_with_mixed_index_dtypes,
    dynamic_slice_with_mixed_index_dtypes_traced,
    "dynamic_slice: start indices must share one dtype, got i32[] and u32[]",
    m23(),
    |x: Tensor| lax::dynamic_slice(&x, &[Tensor::scalar(0i32), Tensor::scalar(0u32)], &[1, 1])
);
bad!(
    dynamic_update_slice_of_a_larger_update,
    dynamic_update_slice_of_a_larger_update_traced,
    "dynamic_update_slice: update f32[2,4] does not fit operand f32[2,3]",
    m23(),
    |x: Tensor| {
        let i = Tensor::scalar(0i32);
        lax::dynamic_update_slice(&x, &jnp::ones(&[2, 4]), &[i.clone(), i])
    }
);
bad!(
    gather_with_a_short_index_vector,
    gather_with_a_short_index_vector_traced,
    "gather: index vectors of i32[1,2] must have one entry per start_index_map [0]",
    m23(),
    |x: Tensor| {
        let dims = GatherDims {
            offset_dims: vec![1],
            collapsed_slice_dims: vec![0],
            start_index_map: vec![0],
            ..GatherDims::default()
        };
        let idx = Tensor::from_vec(vec![0i32, 0], &[1, 2]);
        lax::gather(&x, &idx, dims, &[1, 3], GatherMode::Clip)
    }
);
