//! Errors: bad input at trace time panics with a message naming the primitive (or numpy
//! function), the operand shapes and the user's source line, eagerly and inside
//! `make_jaxpr`; a caught panic leaves the interpreter usable; malformed `.npy` files are
//! `Err`, never a panic.

mod panics;

use std::panic::catch_unwind;

use oxla::numpy::{self as jnp, s};
use oxla::prims::{GatherDims, GatherMode, ReduceOp};
use oxla::{
    eval_jaxpr, grad, jit, lax, make_jaxpr, random, value_and_grad, vmap, Array, DType, Tensor,
};
use panics::{assert_mentions, message};

fn m23() -> Tensor {
    Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])
}

/// One test that `$f` panics with `$expected` on `$arg` eagerly, and one that it does inside
/// `make_jaxpr` (where `$arg` is a tracer).
macro_rules! bad {
    ($eager:ident, $traced:ident, $expected:literal, $arg:expr, $f:expr) => {
        #[test]
        #[should_panic(expected = $expected)]
        fn $eager() {
            let f = $f;
            let _ = f($arg);
        }

        #[test]
        #[should_panic(expected = $expected)]
        fn $traced() {
            let _ = make_jaxpr($f, $arg);
        }
    };
}

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
    |x: Tensor| jnp::matmul(&x, &jnp::ones(&[4, 5]))
);
bad!(
    matmul_of_a_scalar,
    matmul_of_a_scalar_traced,
    "matmul: operands must not be scalars, got shapes [2, 3] and []",
    m23(),
    |x: Tensor| x.matmul(&Tensor::scalar(2.0f32))
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
    |x: Tensor| x.transpose(&[0, 2])
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
    |x: Tensor| jnp::squeeze(&x, Some(&[0]))
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
    |x: Tensor| x.argmax(Some(1))
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
    |x: Tensor| jnp::cumsum(&x, Some(5))
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

// Trace-only mistakes.
#[test]
#[should_panic(expected = "a tracer of aval f32[3] has no concrete value")]
fn reading_the_value_of_a_tracer() {
    make_jaxpr(|x: Tensor| &x * x.item(), jnp::ones(&[3]));
}

#[test]
fn messages_name_the_callers_line() {
    let (a, b, m) = (jnp::ones(&[3]), jnp::ones(&[4]), m23());
    // numpy functions and operators.
    let (line, msg) = (line!(), message(|| jnp::add(&a, &b)));
    assert_mentions(&msg, line, &["add", "f32[3]", "f32[4]"]);
    let (line, msg) = (line!(), message(|| &a - &b));
    assert_mentions(&msg, line, &["subtract", "f32[3]", "f32[4]"]);
    let (line, msg) = (line!(), message(|| m.sum(5)));
    assert_mentions(&msg, line, &["sum", "axis 5"]);
    let (line, msg) = (line!(), message(|| jnp::mean(&m, 5)));
    assert_mentions(&msg, line, &["mean", "axis 5"]);
    let (line, msg) = (line!(), message(|| m.index((0, 5))));
    assert_mentions(&msg, line, &["index", "[2, 3]"]);
    let (line, msg) = (line!(), message(|| m.reshape(&[5])));
    assert_mentions(&msg, line, &["reshape", "[2, 3]", "[5]"]);
    let (line, msg) = (line!(), message(|| jnp::matmul(&m, &m)));
    assert_mentions(&msg, line, &["matmul", "[2, 3]"]);
    let (line, msg) = (line!(), message(|| m.transpose(&[0, 2])));
    assert_mentions(&msg, line, &["transpose", "axis 2"]);
    let (line, msg) = (line!(), message(|| jnp::squeeze(&m, Some(&[-3]))));
    assert_mentions(&msg, line, &["squeeze", "axis -3"]);
    let (line, msg) = (line!(), message(|| m.index(jnp::ones(&[2]))));
    assert_mentions(&msg, line, &["index", "float32"]);
    let (i2, i3) = (jnp::arange(2), jnp::arange(3));
    let (line, msg) = (line!(), message(|| m.index((&i2, &i3))));
    assert_mentions(&msg, line, &["index arrays of shapes [2], [3]"]);
    let (line, msg) = (line!(), message(|| jnp::remainder(&a, &b)));
    assert_mentions(&msg, line, &["remainder", "f32[3]", "f32[4]"]);
    // lax functions: the primitive, the operand avals, the line.
    let (line, msg) = (line!(), message(|| lax::add(&a, &b)));
    assert_mentions(&msg, line, &["add", "operands: (f32[3], f32[4])"]);
    let (line, msg) = (line!(), message(|| lax::exp(&jnp::arange(3))));
    assert_mentions(&msg, line, &["exp", "i32[3]"]);
    let f = |x: &Tensor| lax::dot_general(x, x, (&[1], &[1]), (&[], &[0]), None);
    let (line, msg) = (line!(), message(|| f(&m)));
    assert_mentions(&msg, line - 1, &["dot_general", "f32[2,3]"]);
    // Inside make_jaxpr: the line inside the traced function.
    let sum5 = |x: Tensor| x.sum(5);
    let (line, msg) = (line!(), message(|| make_jaxpr(sum5, m.clone())));
    assert_mentions(&msg, line - 1, &["sum", "axis 5"]);
    let plus_b = |x: Tensor| &x + &b;
    let (line, msg) = (line!(), message(|| make_jaxpr(plus_b, a.clone())));
    assert_mentions(&msg, line - 1, &["add", "f32[3]", "f32[4]"]);
    let neg_bool = |x: Tensor| lax::neg(&x.astype(DType::Bool));
    let (line, msg) = (line!(), message(|| make_jaxpr(neg_bool, a.clone())));
    assert_mentions(&msg, line - 1, &["neg", "bool[3]"]);
}

#[test]
fn a_panic_inside_make_jaxpr_leaves_the_interpreter_usable() {
    let x = jnp::arange(3.0);
    for _ in 0..3 {
        let msg = message(|| make_jaxpr(|t: Tensor| jnp::add(&t, jnp::ones(&[4])), x.clone()));
        assert!(msg.contains("cannot be broadcast"), "{msg}");
        assert!(!oxla::core::is_tracing(), "the failed trace was popped");
        // Eager operations run eagerly again.
        let y = &x * 2.0 + 1.0;
        assert!(!y.is_tracer());
        assert_eq!(y.to_vec::<f32>(), vec![1.0, 3.0, 5.0]);
        // make_jaxpr works again, from a fresh trace.
        let j = make_jaxpr(|t: Tensor| &t * 2.0, x.clone());
        assert_eq!(
            j.to_string(),
            "{ lambda ; a:f32[3]. let b:f32[3] = mul a 2.0:f32[] in (b,) }"
        );
        assert_eq!(
            eval_jaxpr(&j, std::slice::from_ref(&x))[0].to_vec::<f32>(),
            vec![0.0, 2.0, 4.0]
        );
    }
}

#[test]
fn a_panic_in_an_inner_trace_caught_inside_an_outer_one() {
    let x = jnp::arange(3.0);
    let j = make_jaxpr(
        |t: Tensor| {
            let msg = message(|| {
                make_jaxpr(
                    |u: Tensor| {
                        let _ = &u * 3.0;
                        u.reshape(&[2])
                    },
                    t.clone(),
                )
            });
            assert!(msg.contains("reshape"), "{msg}");
            assert!(oxla::core::is_tracing(), "the outer trace is still open");
            &t + 1.0
        },
        x.clone(),
    );
    // The inner trace's equations stay out of the outer jaxpr.
    assert_eq!(
        j.to_string(),
        "{ lambda ; a:f32[3]. let b:f32[3] = add a 1.0:f32[] in (b,) }"
    );
    assert!(!oxla::core::is_tracing());
}

#[test]
fn a_panic_inside_a_numpy_function_does_not_pin_later_lines() {
    let x = jnp::arange(3.0);
    // numpy functions pin their caller's line while they run; a panic must release it.
    let _ = message(|| make_jaxpr(|t: Tensor| t.sum(7), x.clone()));
    let _ = message(|| x.index((0, 0)));
    let j = make_jaxpr(|t: Tensor| lax::neg(&t), x.clone());
    let line = line!() - 1;
    let text = j.pretty().source_info(true).to_string();
    assert!(text.contains(&format!("tests/errors.rs:{line}")), "{text}");
}

#[test]
fn a_tracer_that_escaped_its_trace_is_an_error_eagerly() {
    let mut leaked = None;
    make_jaxpr(
        |t: Tensor| {
            leaked = Some(t.clone());
            t
        },
        jnp::ones(&[3]),
    );
    let leaked = leaked.expect("the closure ran");
    let (line, msg) = (line!(), message(|| lax::neg(&leaked)));
    assert_mentions(&msg, line, &["neg", "tracer whose trace has ended"]);
}

#[test]
fn a_tracer_that_escaped_its_trace_is_an_error_in_a_later_trace() {
    let mut leaked = None;
    make_jaxpr(
        |t: Tensor| {
            leaked = Some(t.clone());
            t
        },
        jnp::ones(&[3]),
    );
    let leaked = leaked.expect("the closure ran");
    let msg = message(|| make_jaxpr(|t: Tensor| &t + &leaked, jnp::ones(&[3])));
    assert!(msg.contains("tracer"), "{msg}");
}

// ---------------------------------------------------------------------------------------------
// Mistakes in transforms, control flow, random keys and builders name the user's line: the
// call that made the mistake, not a line inside oxla.

#[test]
fn vmap_in_axes_out_of_range() {
    let bad = || vmap(|x: Tensor| x).in_axes(2).call::<_, Tensor>(m23());
    let (line, msg) = (line!() - 1, message(bad));
    assert_mentions(&msg, line, &["vmap", "in_axes 2", "[2, 3]"]);
    let bad = || vmap(|x: Tensor| x).in_axes((0, 0)).call::<_, Tensor>(m23());
    let (line, msg) = (line!() - 1, message(bad));
    assert_mentions(&msg, line, &["vmap", "in_axes (0, 0)", "does not match"]);
}

#[test]
fn vmap_out_axes_none_of_a_mapped_output() {
    let f = vmap(|x: Tensor| &x * 2.0).out_axes(None);
    let (line, msg) = (line!(), message(|| f.call::<_, Tensor>(m23())));
    assert_mentions(
        &msg,
        line,
        &["vmap has mapped output but out_axes is None", "f32[3]"],
    );
}

#[test]
fn vmap_out_axes_none_of_a_mapped_output_chunked() {
    let f = vmap(|x: Tensor| &x * 2.0).out_axes(None);
    let chunked = || f.clone().chunk_size(1).call::<_, Tensor>(m23());
    let (line, msg) = (line!() - 1, message(chunked));
    assert_mentions(&msg, line, &["vmap has mapped output but out_axes is None"]);
    let budgeted = || f.memory_budget(1 << 20).call::<_, Tensor>(m23());
    let (line, msg) = (line!() - 1, message(budgeted));
    assert_mentions(&msg, line, &["vmap has mapped output but out_axes is None"]);
}

#[test]
fn vmap_out_axes_none_of_a_mapped_output_chunked_under_grad() {
    let loss = |x: Tensor| {
        let f = vmap(|r: Tensor| &r * &r).out_axes(None).chunk_size(1);
        let y: Tensor = f.call(x).unwrap();
        y.sum(None)
    };
    let line = line!() - 3;
    let msg = message(|| grad(loss).call::<_, Tensor>(m23()));
    assert_mentions(&msg, line, &["vmap has mapped output but out_axes is None"]);
}

#[test]
fn vmap_out_axes_out_of_range() {
    let f = vmap(|x: Tensor| x.sum(None)).out_axes(2);
    let (line, msg) = (line!(), message(|| f.call::<_, Tensor>(m23())));
    assert_mentions(&msg, line, &["vmap", "out_axes 2", "rank 1"]);
    let chunked = || f.chunk_size(1).call::<_, Tensor>(m23());
    let (line, msg) = (line!() - 1, message(chunked));
    assert_mentions(&msg, line, &["vmap", "out_axes 2", "rank 1"]);
}

#[test]
fn vmap_chunk_size_zero() {
    let (line, msg) = (line!(), message(|| vmap(|x: Tensor| x).chunk_size(0)));
    assert_mentions(&msg, line, &["vmap", "chunk_size", "0"]);
}

#[test]
fn lax_map_batch_size_zero() {
    let bad = || lax::map(|x: Tensor| x, m23()).batch_size(0);
    let (line, msg) = (line!() - 1, message(bad));
    assert_mentions(&msg, line, &["lax::map", "batch_size", "0"]);
}

#[test]
fn compiled_call_with_other_shapes() {
    let c = jit(|x: Tensor| &x * 2.0)
        .lower(&m23())
        .unwrap()
        .compile()
        .unwrap();
    let (line, msg) = (line!(), message(|| c.call(jnp::ones(&[3]))));
    assert_mentions(
        &msg,
        line,
        &["compiled for arguments (f32[2,3])", "(f32[3])"],
    );
    let (line, msg) = (line!(), message(|| c.profile(jnp::ones(&[3]))));
    assert_mentions(
        &msg,
        line,
        &["compiled for arguments (f32[2,3])", "(f32[3])"],
    );
}

/// A tracer of a finished `make_jaxpr`, leaked by its closure.
fn leaked_tracer() -> Tensor {
    let mut leaked = None;
    make_jaxpr(
        |t: Tensor| {
            leaked = Some(t.clone());
            t
        },
        jnp::ones(&[3]),
    );
    leaked.expect("the closure ran")
}

#[test]
fn an_escaped_tracer_used_in_a_later_trace() {
    let leaked = leaked_tracer();
    let f = |t: Tensor| &t + &leaked;
    let (line, msg) = (line!() - 1, message(|| make_jaxpr(f, jnp::ones(&[3]))));
    assert_mentions(&msg, line, &["add", "f32[3]", "escaped"]);
}

#[test]
fn an_escaped_tracer_returned_from_a_later_trace() {
    let leaked = leaked_tracer();
    let bad = || make_jaxpr(|_: Tensor| leaked.clone(), m23());
    let (line, msg) = (line!() - 1, message(bad));
    assert_mentions(&msg, line, &["f32[3]", "escaped"]);
}

#[test]
fn grad_argnums_minus_one_is_the_last_argument() {
    let f = |(a, b, c): (Tensor, Tensor, Tensor)| (&a * &b * &c).sum(None);
    let args = (
        jnp::full(&[2], 2.0),
        jnp::full(&[2], 3.0),
        jnp::full(&[2], 5.0),
    );
    let gc: Tensor = grad(f).argnums(-1).call(args.clone()).unwrap();
    assert_eq!(gc.to_vec::<f32>(), vec![6.0, 6.0]);
    let (ga, gb): (Tensor, Tensor) = grad(f).argnums((-3, -2)).call(args.clone()).unwrap();
    assert_eq!(ga.to_vec::<f32>(), vec![15.0, 15.0]);
    assert_eq!(gb.to_vec::<f32>(), vec![10.0, 10.0]);
    let (v, gc): (Tensor, Tensor) = value_and_grad(f).argnums(-1).call(args.clone()).unwrap();
    assert_eq!((v.item(), gc.to_vec::<f32>()), (60.0, vec![6.0, 6.0]));
    // A function of one argument: -1 is that argument.
    let g: Tensor = grad(|x: Tensor| (&x * &x).sum(None))
        .argnums(-1)
        .call(jnp::full(&[2], 3.0))
        .unwrap();
    assert_eq!(g.to_vec::<f32>(), vec![6.0, 6.0]);
}

#[test]
fn grad_argnums_out_of_range() {
    let f = |(a, b): (Tensor, Tensor)| (&a * &b).sum(None);
    let args = (jnp::ones(&[2]), jnp::ones(&[2]));
    let g = grad(f).argnums(-3);
    let (line, msg) = (line!(), message(|| g.call::<_, Tensor>(args.clone())));
    assert_mentions(&msg, line, &["grad", "argnums -3", "2 arguments"]);
    let g = grad(f).argnums(2);
    let (line, msg) = (line!(), message(|| g.call::<_, Tensor>(args.clone())));
    assert_mentions(&msg, line, &["grad", "argnums 2", "2 arguments"]);
}

#[test]
fn scan_over_a_scalar() {
    let step = |(c, x): (Tensor, Tensor)| (&c + &x, x);
    let bad = || lax::scan(step, Tensor::scalar(0.0f32), Tensor::scalar(1.0f32));
    let (line, msg) = (line!() - 1, message(bad));
    assert_mentions(&msg, line, &["scan", "leading axis"]);
}

#[test]
fn eval_jaxpr_of_the_wrong_arguments() {
    let j = make_jaxpr(|x: Tensor| &x * 2.0, m23());
    let (line, msg) = (line!(), message(|| eval_jaxpr(&j, &[])));
    assert_mentions(&msg, line, &["eval_jaxpr", "0 arguments for 1 inputs"]);
    let (line, msg) = (line!(), message(|| eval_jaxpr(&j, &[jnp::ones(&[3])])));
    assert_mentions(&msg, line, &["eval_jaxpr", "f32[3]", "f32[2,3]"]);
}

#[test]
fn a_malformed_prng_key() {
    let bad = jnp::ones(&[2]);
    let (line, msg) = (line!(), message(|| random::normal(&bad, &[3])));
    assert_mentions(&msg, line, &["PRNG key", "f32[2]"]);
    let split = || random::split(&jnp::arange(3).astype(DType::U32), 2);
    let (line, msg) = (line!() - 1, message(split));
    assert_mentions(&msg, line, &["PRNG key", "u32[3]"]);
    let (line, msg) = (line!(), message(|| random::fold_in(&bad, 1)));
    assert_mentions(&msg, line, &["PRNG key", "f32[2]"]);
    let key = random::key(0);
    let int = || random::uniform_range(&key, &[3], 0.0, 1.0, DType::I32);
    let (line, msg) = (line!() - 1, message(int));
    assert_mentions(&msg, line, &["uniform", "int32"]);
}

#[test]
fn a_slice_step_of_zero() {
    let (line, msg) = (line!(), message(|| s(None, None, 0)));
    assert_mentions(&msg, line, &["slice step cannot be zero"]);
}

#[test]
fn ix_of_a_matrix() {
    let (line, msg) = (line!(), message(|| jnp::ix_(&[jnp::arange(2), m23()])));
    assert_mentions(&msg, line, &["ix_", "one-dimensional", "[2, 3]"]);
}

#[test]
fn numpy_constructors_of_bad_arguments() {
    let (line, msg) = (line!(), message(|| jnp::arange_step(0.0, 1.0, 0.0)));
    assert_mentions(&msg, line, &["arange_step", "step"]);
    let (line, msg) = (line!(), message(|| jnp::concatenate(&[], 0)));
    assert_mentions(&msg, line, &["concatenate", "at least one"]);
    let (line, msg) = (line!(), message(|| jnp::stack(&[], 0)));
    assert_mentions(&msg, line, &["stack", "at least one"]);
    let bad = || Tensor::from_vec(vec![1.0f32, 2.0], &[3]);
    let (line, msg) = (line!() - 1, message(bad));
    assert_mentions(&msg, line, &["from_vec", "2 elements", "[3]"]);
    let (line, msg) = (line!(), message(|| m23().item()));
    assert_mentions(&msg, line, &["item()", "[2, 3]"]);
    let (line, msg) = (line!(), message(|| m23().to_vec::<i32>()));
    assert_mentions(&msg, line, &["int32", "float32"]);
}

#[test]
fn reading_the_value_of_a_tracer_names_the_line() {
    let f = |x: Tensor| &x * x.item();
    let (line, msg) = (line!() - 1, message(|| make_jaxpr(f, jnp::ones(&[3]))));
    assert_mentions(
        &msg,
        line,
        &["a tracer of aval f32[3] has no concrete value"],
    );
}

#[test]
fn grad_of_a_while_loop() {
    let below_10 = |x: Tensor| jnp::less(x.sum(None), 10.0);
    let f = |x: Tensor| lax::while_loop(below_10, |x: Tensor| &x * 2.0, x).sum(None);
    let line = line!() - 1;
    let msg = message(|| grad(f).call::<_, Tensor>(jnp::ones(&[2])));
    assert_mentions(&msg, line, &["while_loop", "fori_loop"]);
}

// ---------------------------------------------------------------------------------------------
// Malformed .npy files are errors, not panics.

/// Writes `bytes` to a fresh file under the temp dir and reads it back as an array.
fn read_npy_bytes(name: &str, bytes: &[u8]) -> oxla::Result<Array> {
    let file = format!("oxla-errors-{}-{name}.npy", std::process::id());
    let path = std::env::temp_dir().join(file);
    std::fs::write(&path, bytes).unwrap();
    let r = catch_unwind(|| Array::read_npy(&path));
    let t = catch_unwind(|| Tensor::read_npy(&path));
    std::fs::remove_file(&path).unwrap();
    let r = r.unwrap_or_else(|_| panic!("reading {name}.npy panicked"));
    let t = t.unwrap_or_else(|_| panic!("reading {name}.npy as a tensor panicked"));
    assert_eq!(r.is_ok(), t.is_ok());
    r
}

/// A version-1.0 `.npy` header holding `dict`, padded as numpy pads it.
fn header(dict: &str) -> Vec<u8> {
    let mut h = dict.as_bytes().to_vec();
    while !(10 + h.len() + 1).is_multiple_of(64) {
        h.push(b' ');
    }
    h.push(b'\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(h.len() as u16).to_le_bytes());
    out.extend_from_slice(&h);
    out
}

#[test]
fn a_well_formed_file_reads_back() {
    let mut bytes = header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }");
    bytes.extend_from_slice(&1.5f32.to_le_bytes());
    bytes.extend_from_slice(&(-2.0f32).to_le_bytes());
    let a = read_npy_bytes("good", &bytes).expect("a valid file");
    assert_eq!(a.shape(), &[2]);
    assert_eq!(a.to_vec::<f32>(), vec![1.5, -2.0]);
}

#[test]
fn malformed_npy_files_are_errors() {
    let f4 = |shape: &str| {
        header(&format!(
            "{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}"
        ))
    };
    let with_data = |mut h: Vec<u8>, n: usize| {
        h.extend(std::iter::repeat_n(0u8, n));
        h
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", vec![]),
        ("bad_magic", b"\x93NUMPZ\x01\x00\x10\x00{}".to_vec()),
        ("text", b"this is not a npy file at all".to_vec()),
        ("magic_only", b"\x93NUMPY".to_vec()),
        ("truncated_header", f4("(2,)")[..30].to_vec()),
        (
            "header_length_past_the_end",
            b"\x93NUMPY\x01\x00\xff\x7f{'descr'".to_vec(),
        ),
        ("not_a_dict", header("[1, 2, 3]")),
        (
            "missing_shape",
            header("{'descr': '<f4', 'fortran_order': False, }"),
        ),
        (
            "missing_descr",
            header("{'fortran_order': False, 'shape': (2,), }"),
        ),
        (
            "bad_shape",
            header("{'descr': '<f4', 'fortran_order': False, 'shape': 'x', }"),
        ),
        ("negative_dim", with_data(f4("(-1,)"), 4)),
        (
            "complex_dtype",
            with_data(
                header("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }"),
                8,
            ),
        ),
        (
            "int64_dtype",
            with_data(
                header("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }"),
                8,
            ),
        ),
        (
            "object_dtype",
            with_data(
                header("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }"),
                8,
            ),
        ),
        (
            "structured_dtype",
            with_data(
                header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }"),
                4,
            ),
        ),
        (
            "fortran_order",
            with_data(
                header("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }"),
                16,
            ),
        ),
        ("too_little_data", with_data(f4("(4,)"), 10)),
        ("no_data", f4("(3, 2)")),
        ("huge_shape", with_data(f4("(4611686018427387904,)"), 16)),
        (
            "bool_out_of_range",
            with_data(
                header("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }"),
                1,
            )
            .into_iter()
            .chain([2u8])
            .collect(),
        ),
    ];
    for (name, bytes) in cases {
        let r = read_npy_bytes(name, &bytes);
        assert!(r.is_err(), "{name}: read {r:?}");
        // The error says what is wrong with which file.
        let msg = r.unwrap_err().to_string();
        assert!(msg.contains(&format!("{name}.npy")), "{name}: {msg}");
    }
}

#[test]
fn an_npy_shape_whose_size_overflows_is_an_error() {
    let h =
        header("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 2), }");
    assert!(read_npy_bytes("overflow", &h).is_err());
}

#[test]
fn a_missing_npy_file_is_an_io_error() {
    let path = std::env::temp_dir().join("oxla-errors-no-such-dir/none.npy");
    match Array::read_npy(&path) {
        Err(oxla::Error::Io { path: p, .. }) => assert!(p.contains("none.npy")),
        other => panic!("expected an Io error, got {other:?}"),
    }
}
