//! The golden cases, one line each: the case's name (its directory under `tests/golden/`),
//! how its float leaves are compared, and its program in oxla; then the cases whose jaxpr
//! text is compared with JAX's.

use oxla::numpy::{self as jnp, s, Ellipsis};
use oxla::{lax, nn, random, vmap, DType, Tensor};

use crate::common::{self, Cmp};
use crate::{check_case, check_jaxpr, seeds, SKIPPED, SUITE};

cases! {
    // ---- elementwise arithmetic and math functions
    add_f32: |a| vec![&a[0] + &a[1]];
    sub_f32: |a| vec![&a[0] - &a[1]];
    mul_f32: |a| vec![&a[0] * &a[1]];
    div_f32: |a| vec![&a[0] / &a[1]];
    neg_f32: |a| vec![-&a[0]];
    maximum_f32: |a| vec![jnp::maximum(&a[0], &a[1])];
    minimum_f32: |a| vec![jnp::minimum(&a[0], &a[1])];
    power_f32_f32: |a| vec![jnp::power(&a[0], &a[1])];
    integer_pow_2: |a| vec![jnp::power(&a[0], 2)];
    integer_pow_3: |a| vec![jnp::power(&a[0], 3)];
    exp_f32: |a| vec![jnp::exp(&a[0])];
    log_f32: |a| vec![jnp::log(&a[0])];
    log1p_f32: |a| vec![jnp::log1p(&a[0])];
    sin_f32: |a| vec![jnp::sin(&a[0])];
    cos_f32: |a| vec![jnp::cos(&a[0])];
    tanh_f32: |a| vec![jnp::tanh(&a[0])];
    cbrt_f32: |a| vec![jnp::cbrt(&a[0])];
    sigmoid_f32: |a| vec![nn::sigmoid(&a[0])];
    sqrt_f32: |a| vec![jnp::sqrt(&a[0])];
    rsqrt_f32: |a| vec![lax::rsqrt(&a[0])];
    abs_f32: |a| vec![jnp::abs(&a[0])];
    sign_f32: |a| vec![jnp::sign(&a[0])];
    floor_f32: |a| vec![jnp::floor(&a[0])];
    abs_neg_i32: |a| vec![jnp::abs(&a[0]), -&a[0], jnp::sign(&a[0])];
    int_mod_neg: |a| vec![&a[0] % &a[1]];
    int_floordiv_neg: |a| vec![jnp::floor_divide(&a[0], &a[1])];
    int_mod_floordiv_scalar: |a| {
        let x = &a[0];
        vec![x % 5, jnp::floor_divide(x, 5), x % -3, jnp::floor_divide(x, -3)]
    };
    float_mod_neg: |a| vec![&a[0] % &a[1]];

    // ---- comparisons, logic, where
    eq_f32: |a| vec![jnp::equal(&a[0], &a[1])];
    ne_f32: |a| vec![jnp::not_equal(&a[0], &a[1])];
    lt_f32: |a| vec![jnp::less(&a[0], &a[1])];
    le_f32: |a| vec![jnp::less_equal(&a[0], &a[1])];
    gt_f32: |a| vec![jnp::greater(&a[0], &a[1])];
    ge_f32: |a| vec![jnp::greater_equal(&a[0], &a[1])];
    compare_i32_scalar: |a| {
        let x = &a[0];
        vec![jnp::equal(x, 0), jnp::less(x, 1), jnp::greater_equal(x, -1)]
    };
    logical_and_or_not: |a| vec![
        jnp::logical_and(&a[0], &a[1]),
        jnp::logical_or(&a[0], &a[1]),
        jnp::logical_not(&a[0]),
    ];
    bool_operators: |a| vec![
        jnp::logical_and(&a[0], &a[1]),
        jnp::logical_or(&a[0], &a[1]),
        jnp::logical_not(&a[0]),
        jnp::logical_xor(&a[0], &a[1]),
    ];
    where_f32: |a| vec![jnp::where_(&a[0], &a[1], &a[2])];
    where_scalar_branch: |a| vec![jnp::where_(jnp::greater(&a[0], 0.0), &a[0], 0.0)];
    where_broadcast: |a| vec![jnp::where_(jnp::greater(&a[0], &a[1]), &a[0], &a[1])];

    // ---- dtype conversion and promotion
    astype_f32_i32: |a| vec![a[0].astype(DType::I32)];
    astype_i32_f32: |a| vec![a[0].astype(DType::F32)];
    astype_bool_f32: |a| vec![a[0].astype(DType::F32)];
    astype_f32_bool: |a| vec![a[0].astype(DType::Bool)];
    astype_f32_f64_x64: |a| vec![a[0].astype(DType::F64)];
    broadcast_add_rank: |a| vec![&a[0] + &a[1]];
    broadcast_mul_3d: |a| vec![&a[0] * &a[1]];
    broadcast_outer_sub: |a| vec![&a[0] - &a[1]];
    broadcast_scalar_array: |a| vec![&a[0] * &a[1] + &a[0]];
    scalar_mul_float: |a| vec![&a[0] * 2.0];
    scalar_rsub_float: |a| vec![1.0 - &a[0]];
    scalar_rdiv_float: |a| vec![1.0 / &a[0], &a[0] / 4];
    scalar_int_add: |a| vec![&a[0] + 1];
    scalar_int_mul_float: |a| vec![&a[0] * 0.5];
    int_true_divide: |a| vec![&a[0] / &a[1]];
    mixed_int_float_add: |a| vec![&a[0] + &a[1]];

    // ---- shapes
    reshape_neg1: |a| {
        let x = &a[0];
        vec![x.reshape(&[-1, 4]), jnp::reshape(x, &[6, -1]), x.reshape(&[-1])]
    };
    transpose_perm: |a| vec![jnp::transpose(&a[0], Some(&[2, 0, 1]))];
    transpose_T: |a| vec![a[0].t()];
    transpose_default_3d: |a| vec![jnp::transpose(&a[0], None)];
    squeeze: |a| vec![jnp::squeeze(&a[0], None), jnp::squeeze(&a[0], Some(&[2]))];
    expand_dims: |a| {
        let x = &a[0];
        vec![jnp::expand_dims(x, 1), jnp::expand_dims(x, -1), jnp::expand_dims(x, 0)]
    };
    broadcast_to: |a| vec![
        jnp::broadcast_to(&a[0], &[3, 4]),
        jnp::broadcast_to(&a[1], &[2, 3, 4]),
    ];
    pad_constant: |a| vec![jnp::pad(&a[0], &[(1, 2), (0, 3)], 0.0)];
    pad_constant_value: |a| vec![jnp::pad(&a[0], &[(0, 1), (2, 1)], 1.5)];
    pad_1d: |a| vec![jnp::pad(&a[0], &[(2, 1)], 0), jnp::pad(&a[0], &[(3, 3)], 0)];
    concatenate_axis0: |a| vec![jnp::concatenate(&[a[0].clone(), a[1].clone(), a[0].clone()], 0)];
    concatenate_axis1: |a| vec![jnp::concatenate(&[a[0].clone(), a[1].clone()], 1)];
    stack_axis0: |a| vec![jnp::stack(&[a[0].clone(), a[1].clone()], 0)];
    stack_axis_neg1: |a| vec![jnp::stack(&[a[0].clone(), a[1].clone(), a[2].clone()], -1)];

    // ---- reductions
    sum_all: |a| vec![jnp::sum(&a[0], None)];
    sum_axis1: |a| vec![a[0].sum(1)];
    sum_axes_tuple_keepdims: |a| vec![jnp::sum_keepdims(&a[0], [0, 2]), jnp::sum(&a[0], [0, 2])];
    sum_i32: |a| vec![jnp::sum(&a[0], None), jnp::sum(&a[0], 0)];
    sum_bool: |a| vec![jnp::sum(&a[0], None), jnp::sum(&a[0], 1)];
    mean_variants: |a| {
        let x = &a[0];
        vec![jnp::mean(x, None), jnp::mean(x, 0), jnp::mean_keepdims(x, -1), x.mean([1, 2])]
    };
    max_variants: |a| {
        let x = &a[0];
        vec![jnp::max(x, None), jnp::max(x, 1), jnp::max_keepdims(x, [0, 2])]
    };
    min_variants: |a| {
        let x = &a[0];
        vec![jnp::min(x, None), jnp::min_keepdims(x, 0), jnp::min(x, -1)]
    };
    argmax_variants: |a| {
        let x = &a[0];
        vec![jnp::argmax(x, None), jnp::argmax(x, Some(1)), jnp::argmax_keepdims(x, Some(-1))]
    };
    argmax_ties: |a| {
        let x = &a[0];
        vec![jnp::argmax(x, Some(1)), jnp::argmin(x, Some(1)), jnp::argmax(x, Some(0))]
    };
    argmin_all: |a| vec![jnp::argmin(&a[0], None), jnp::argmin(&a[0], Some(0))];
    norm_vector: |a| vec![jnp::linalg::norm(&a[0], None)];
    norm_axis1_keepdims: |a| vec![jnp::linalg::norm_keepdims(&a[0], 1)];
    normalize_rows: |a| vec![&a[0] / jnp::linalg::norm_keepdims(&a[0], 1)];
    cumsum_1d: |a| vec![jnp::cumsum(&a[0], None)];
    cumsum_axis1: |a| vec![jnp::cumsum(&a[0], Some(1))];
    sort_1d: |a| vec![jnp::sort(&a[0], Some(-1))];
    sort_2d: |a| vec![jnp::sort(&a[0], Some(-1)), jnp::sort(&a[0], Some(0))];

    // ---- matrix products
    dot_vv: |a| vec![a[0].matmul(&a[1])];
    matvec: |a| vec![a[0].matmul(&a[1])];
    vecmat: |a| vec![a[0].matmul(&a[1])];
    matmul: |a| vec![a[0].matmul(&a[1])];
    matmul_batched: |a| vec![jnp::matmul(&a[0], &a[1])];
    matmul_batch_broadcast: |a| vec![a[0].matmul(&a[1])];
    jnp_dot: |a| vec![jnp::dot(&a[0], &a[1]), jnp::dot(&a[2], &a[2]), jnp::dot(&a[0], &a[2])];
    matmul_i32: |a| vec![a[0].matmul(&a[1])];

    // ---- indexing
    slice_steps: |a| {
        let x = &a[0];
        vec![
            x.index(s(Some(1), Some(7), 2)),
            x.index(s(None, None, 3)),
            x.index(s(None, None, -1)),
            x.index(s(Some(8), Some(2), -2)),
            x.index(-3..),
        ]
    };
    slice_2d: |a| {
        let x = &a[0];
        vec![
            x.index((1.., s(None, None, 2))),
            x.index((..2, 1..4)),
            x.index((s(None, None, -1), -2..)),
        ]
    };
    negative_int_index: |a| {
        let x = &a[0];
        vec![x.index(-1), x.index((.., -2)), x.index((-2, -1))]
    };
    newaxis_index: |a| {
        let x = &a[0];
        vec![x.index((.., None)), x.index((None, ..)), x.index((None, .., None))]
    };
    ellipsis_index: |a| {
        let x = &a[0];
        vec![x.index((Ellipsis, 0)), x.index((Ellipsis, 1..3)), x.index((0, Ellipsis))]
    };
    int_array_index: |a| vec![a[0].index(&a[1])];
    int_array_index_negative: |a| vec![a[0].index(&a[1])];
    int_array_index_2d_rows: |a| vec![a[0].index(&a[1])];
    int_array_index_pairs: |a| vec![a[0].index((&a[1], &a[2]))];
    ix_index: |a| {
        let g = jnp::ix_(&[a[1].clone(), a[2].clone()]);
        vec![a[0].index((&g[0], &g[1]))]
    };
    ix_index_3d: |a| {
        let g = jnp::ix_(&[a[1].clone(), a[2].clone(), a[3].clone()]);
        vec![a[0].index((&g[0], &g[1], &g[2]))]
    };
    mixed_slice_int_array: |a| {
        let (x, idx) = (&a[0], &a[1]);
        vec![x.index((1..3, idx)), x.index((&idx.index(..2), 1..)), x.index((.., idx))]
    };
    scalar_int_index_traced: |a| vec![a[0].index(&a[1]), a[0].index(&a[1] - 5)];
    index_with_const_array: |a| vec![a[0].index(jnp::array(&[5i32, 1, -1], &[3]))];

    // ---- creation
    add_arange: |a| vec![&a[0] + jnp::arange(5)];
    arange_variants: |a| vec![
        &a[0] + jnp::arange_step(2, 11, 3),
        jnp::arange(3.0) * &a[0],
        jnp::arange(4),
    ];
    zeros_ones_full: |a| {
        let x = &a[0];
        vec![
            x + jnp::zeros(&[2, 3]),
            x * jnp::ones(&[3]),
            jnp::full(&[2, 3], 7.0) - x,
            jnp::full(&[2], 3) + 1,
        ]
    };
    linspace_add: |a| vec![&a[0] + jnp::linspace(0.0, 1.0, 5), jnp::linspace(-1.0, 2.0, 4)];
    eye_ops: |a| {
        let x = &a[0];
        let first = x + jnp::eye(3);
        // jnp.eye(3, 4), as JAX builds it: row iota == column iota.
        let eye34 = jnp::equal(
            lax::iota(DType::I32, &[3, 4], 0),
            lax::iota(DType::I32, &[3, 4], 1),
        )
        .astype(DType::F32);
        vec![first, x.matmul(&eye34), jnp::eye(2).astype(DType::I32)]
    };
    zeros_like_ones_like: |a| vec![
        jnp::zeros_like(&a[0]),
        jnp::full(a[0].shape(), 1.0f32) + &a[0],
    ];

    // ---- jax.nn and friends
    one_hot: |a| vec![nn::one_hot(&a[0], 5)];
    log_softmax: |a| vec![nn::log_softmax(&a[0], -1)];
    softmax: |a| vec![nn::softmax(&a[0], -1)];
    relu: |a| vec![nn::relu(&a[0])];
    allclose_true: |a| vec![jnp::allclose(&a[0], &(&a[0] + 1e-9))];
    allclose_false: |a| vec![jnp::allclose(&a[0], &a[1])];
    clip: |a| vec![jnp::clip(&a[0], -0.5, 1.0)];

    // ---- seed programs
    seed004_f: |a| vec![seeds::outer_sum(a[0].clone())];
    seed004_memory_test1: |a| vec![seeds::memory_test(&a[0], &a[1], 1)];
    seed004_memory_test2: |a| vec![seeds::memory_test(&a[0], &a[1], 2)];
    seed004_memory_test1_corner: |a| vec![seeds::memory_test(&a[0], &a[1], 1)];
    seed004_extract_grid: |a| vec![seeds::extract_3x3x3_grid(&a[0], &a[1])];
    seed002_squared_error: |a| vec![
        seeds::squared_error(&(a[0].clone(), a[1].clone()), &a[2], &a[3]),
    ];
    seed002_squared_error_batch: |a| vec![
        seeds::squared_error(&(a[0].clone(), a[1].clone()), &a[2], &a[3]),
    ];
    transform_vmap_seed004_f [sum]: |a| vec![vmap(seeds::outer_sum).call(a[0].clone())];
    transform_vmap_memory_test1 [sum]: |a| vec![
        vmap(|(id, v): (Tensor, Tensor)| seeds::memory_test(&id, &v, 1))
            .in_axes((0, None::<i32>))
            .call((a[0].clone(), a[1].clone())),
    ];

    // ---- x64
    x64_exp: |a| vec![jnp::exp(&a[0])];
    x64_matmul: |a| vec![a[0].matmul(&a[1])];
    x64_sum: |a| vec![jnp::sum(&a[0], None), jnp::sum(&a[0], 1)];
    // out_1 is int64 in JAX (jnp.arange under x64); oxla's is i32, compared by value.
    x64_default_dtypes: |a| vec![&a[0] * 2.0, jnp::arange(3), jnp::ones(&[3]) + &a[0]];

    // ---- PRNG: bit-identical
    random_normal_key0_3 [bits]: |a| vec![random::normal(&random::key(0), &[3])];
    random_normal_key42_2x3 [bits]: |a| vec![random::normal(&random::key(42), &[2, 3])];
    random_normal_key0_1000 [bits]: |a| vec![random::normal(&random::key(0), &[1000])];
    random_normal_key_input [bits]: |a| vec![random::normal(&a[0], &[3])];
    random_uniform_key0_5 [bits]: |a| vec![random::uniform(&random::key(0), &[5])];
    random_uniform_minmax [bits]: |a| vec![
        random::uniform_range(&random::key(0), &[5], -2.0, 3.0, DType::F32),
    ];
    random_uniform_scalar [bits]: |a| vec![random::uniform(&random::key(7), &[])];
    random_split_key0 [bits]: |a| vec![random::split(&random::key(0), 2)];
    random_split_key0_3 [bits]: |a| vec![random::split(&random::key(0), 3)];
    random_split_then_normal [bits]: |a| {
        let ks = random::split(&random::key(0), 2);
        vec![random::normal(&ks.index(0), &[3]), random::uniform(&ks.index(1), &[2])]
    };
    random_fold_in_key0_7 [bits]: |a| vec![random::fold_in(&random::key(0), 7)];
    random_bernoulli_key1 [bits]: |a| vec![random::bernoulli(&random::key(1), 0.3, &[8])];
    random_bernoulli_key1_p05_16 [bits]: |a| vec![random::bernoulli(&random::key(1), 0.5, &[16])];
    random_randint_key2 [bits]: |a| vec![random::randint(&random::key(2), &[6], 0, 10)];
    random_randint_negative [bits]: |a| vec![random::randint(&random::key(2), &[6], -5, 5)];
    random_typed_key_data [bits]: |a| vec![random::key(0)];
    random_typed_key_split [bits]: |a| vec![random::split(&random::key(0), 3)];
    random_typed_key_fold_in [bits]: |a| vec![random::fold_in(&random::key(0), 7)];
    random_typed_key_normal [bits]: |a| vec![random::normal(&random::key(0), &[3])];
    random_bits_key0 [bits]: |a| vec![random::bits(&random::key(0), &[4])];
    random_uniform_f64_x64 [bits]: |a| vec![
        random::uniform_range(&random::key(0), &[5], 0.0, 1.0, DType::F64),
    ];
    random_normal_f64_x64 [bits]: |a| vec![random::normal_dtype(&random::key(0), &[3], DType::F64)];
}

/// Every case directory under `tests/golden/` is covered or skipped, and only those.
#[test]
fn manifest_is_fully_accounted_for() {
    SUITE.assert_accounted_for(COVERED, SKIPPED);
}

jaxpr_cases!(
    add_f32,
    sub_f32,
    mul_f32,
    div_f32,
    neg_f32,
    maximum_f32,
    minimum_f32,
    power_f32_f32,
    integer_pow_2,
    integer_pow_3,
    exp_f32,
    log_f32,
    log1p_f32,
    sin_f32,
    cos_f32,
    tanh_f32,
    cbrt_f32,
    sigmoid_f32,
    sqrt_f32,
    rsqrt_f32,
    abs_f32,
    sign_f32,
    floor_f32,
    abs_neg_i32,
    eq_f32,
    ne_f32,
    lt_f32,
    le_f32,
    gt_f32,
    ge_f32,
    compare_i32_scalar,
    logical_and_or_not,
    bool_operators,
    astype_f32_i32,
    astype_i32_f32,
    astype_bool_f32,
    astype_f32_bool,
    astype_f32_f64_x64,
    broadcast_add_rank,
    broadcast_mul_3d,
    broadcast_outer_sub,
    broadcast_scalar_array,
    scalar_mul_float,
    scalar_rsub_float,
    scalar_rdiv_float,
    scalar_int_add,
    int_true_divide,
    mixed_int_float_add,
    reshape_neg1,
    transpose_perm,
    transpose_T,
    transpose_default_3d,
    squeeze,
    expand_dims,
    broadcast_to,
    concatenate_axis0,
    concatenate_axis1,
    sum_all,
    sum_axis1,
    sum_axes_tuple_keepdims,
    sum_i32,
    sum_bool,
    mean_variants,
    max_variants,
    min_variants,
    argmax_variants,
    argmax_ties,
    argmin_all,
    dot_vv,
    matvec,
    vecmat,
    matmul,
    matmul_batched,
    matmul_batch_broadcast,
    jnp_dot,
    matmul_i32,
    slice_steps,
    slice_2d,
    negative_int_index,
    newaxis_index,
    ellipsis_index,
    int_array_index,
    int_array_index_negative,
    int_array_index_2d_rows,
    int_array_index_pairs,
    ix_index,
    ix_index_3d,
    index_with_const_array,
    add_arange,
    arange_variants,
    zeros_like_ones_like,
    seed004_f,
    seed002_squared_error,
    seed002_squared_error_batch,
    transform_vmap_seed004_f,
    x64_exp,
    x64_matmul,
    x64_sum,
);
