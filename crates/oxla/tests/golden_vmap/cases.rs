//! The `vmap` cases, one entry each: the case's name (its directory under
//! `tests/golden_vmap/`), how its float leaves are compared, and its program in oxla; then
//! the cases whose jaxpr text is compared with JAX's.

use oxla::numpy::{self as jnp, s, Ellipsis};
use oxla::{lax, random, DType, Tensor};

use crate::adapters::*;
use crate::common::{self, Cmp};
use crate::{check_case, check_jaxpr, leaves, seeds, vmap, NO, SKIPPED, SUITE};

cases! {
    // ---- elementwise
    unary_chain_axis0: |a| leaves(
        vmap(|v: Tensor| jnp::sin(&v) * jnp::exp(&-&v) + jnp::tanh(&v) - jnp::abs(&v))
            .call(a[0].clone()),
    );
    unary_chain_axis1: |a| leaves(
        vmap(|v: Tensor| jnp::log(&v) + jnp::sqrt(&v) * jnp::floor(&(&v * 2.0)))
            .in_axes(1)
            .call(a[0].clone()),
    );
    binary_batched_vs_unbatched_lower_rank: |a| leaves(
        vmap(|(a, b): T2| &a * &b - &b + jnp::maximum(&a, &b))
            .in_axes((0, NO))
            .call(a2(a)),
    );
    binary_unbatched_higher_rank_vs_batched: |a| leaves(
        vmap(|(a, b): T2| a - b * 2.0).in_axes((NO, 1)).call(a2(a)),
    );
    binary_with_scalar: |a| leaves(
        vmap(|(a, t): T2| (a * t + 2.0) / 4.0 - 1).in_axes((0, NO)).call(a2(a)),
    );
    binary_batched_scalar: |a| leaves(
        vmap(|(a, t): T2| a * &t + &t).in_axes((NO, 0)).call(a2(a)),
    );
    binary_axes_1_neg1: |a| leaves(
        vmap(|(a, b): T2| jnp::minimum(&a, &b) + &a / &b).in_axes((1, -1)).call(a2(a)),
    );
    compare_where: |a| leaves(
        vmap(|(a, b): T2| {
            (
                jnp::where_(jnp::greater(&a, &b), &a, &b * 2.0),
                jnp::less_equal(&a, &b),
                jnp::equal(&a, &b),
            )
        })
        .in_axes((0, NO))
        .call(a2(a)),
    );
    where_batched_cond_only: |a| leaves(
        vmap(|(c, a, t): T3| jnp::where_(&c, &a, &t)).in_axes((0, NO, NO)).call(a3(a)),
    );
    where_scalar_cond_batched: |a| leaves(
        vmap(|(c, a, b): T3| jnp::where_(&c, &a, &b)).in_axes((0, 0, NO)).call(a3(a)),
    );
    int_mod_floordiv_neg: |a| leaves(
        vmap(|(a, b): T2| (&a % &b, jnp::floor_divide(&a, &b))).in_axes((0, NO)).call(a2(a)),
    );
    int_mod_floordiv_axis1: |a| leaves(
        vmap(|(a, b): T2| (&a % &b, jnp::floor_divide(&a, &b), &b % 3, jnp::floor_divide(-7, &b)))
            .in_axes((NO, 1))
            .call(a2(a)),
    );
    astype_variants: |a| leaves(
        vmap(|(a, b): T2| {
            (
                a.astype(DType::I32),
                jnp::greater(&a, 0).astype(DType::F32),
                b.astype(DType::F32) * &a,
                jnp::not_equal(&b, 0),
            )
        })
        .in_axes((0, 1))
        .call(a2(a)),
    );
    integer_pow: |a| leaves(
        vmap(|a: Tensor| (jnp::power(&a, 2), jnp::power(&a, 3), lax::integer_pow(&a, -2)))
            .in_axes(1)
            .call(a[0].clone()),
    );
    select_mixed: |a| leaves(
        // lax.select(p, a, b) is select_n(p, b, a).
        vmap(|(p, a, b): T3| lax::select_n(&p, &[b, a])).in_axes((1, NO, 0)).call(a3(a)),
    );
    select_n_int_index: |a| leaves(
        vmap(|(i, x, y, z): T4| lax::select_n(&i, &[x, y, z]))
            .in_axes((0, NO, 0, NO))
            .call((a[0].clone(), a[1].clone(), a[2].clone(), a[3].clone())),
    );

    // ---- shapes
    broadcast_in_dim_variants: |a| leaves(
        vmap(|v: Tensor| {
            (
                v.index((.., None)) * v.index((None, ..)),
                jnp::broadcast_to(&v, &[2, 4]),
                v.index((None, .., None)) + jnp::zeros(&[3, 1, 2]),
            )
        })
        .in_axes(1)
        .call(a[0].clone()),
    );
    reshape_axis1: |a| leaves(
        vmap(|v: Tensor| (v.reshape(&[3, 4]), v.reshape(&[-1]), v.reshape(&[4, 1, 3])))
            .in_axes(1)
            .call(a[0].clone()),
    );
    transpose_variants: |a| leaves(
        vmap(|v: Tensor| {
            (
                jnp::transpose(&v, Some(&[1, 2, 0])),
                v.t(),
                // jnp.swapaxes(v, 0, 1)
                jnp::transpose(&v, Some(&[1, 0, 2])),
            )
        })
        .in_axes(2)
        .out_axes(1)
        .call(a[0].clone()),
    );
    squeeze_expand_dims: |a| leaves(
        vmap(|v: Tensor| {
            (
                jnp::squeeze(&v, Some(&[1])),
                // jnp.expand_dims(v, (0, 2)): one broadcast_in_dim, as JAX stages it.
                lax::broadcast_in_dim(&v, &[1, 3, 1, 1, 4], &[1, 3, 4]),
                jnp::squeeze(&v, None).index((Ellipsis, None)),
            )
        })
        .in_axes(-1)
        .call(a[0].clone()),
    );
    slice_steps_rev: |a| leaves(
        vmap(|v: Tensor| {
            (
                v.index(s(Some(1), Some(6), 2)),
                v.index(s(None, None, -1)),
                v.index(s(None, None, -2)),
                v.index(s(Some(5), Some(0), -2)),
                v.index(-3..),
                // jnp.flip(v)
                lax::rev(&v, &[0]),
            )
        })
        .call(a[0].clone()),
    );
    slice_2d_axis1: |a| leaves(
        vmap(|v: Tensor| {
            (
                v.index((1..4, s(None, None, 2))),
                v.index((s(None, None, -1), s(Some(1), None, 3))),
                v.index((.., s(None, None, -1))).index(2),
                lax::rev(&v, &[0, 1]),
            )
        })
        .in_axes(1)
        .call(a[0].clone()),
    );
    pad_variants: |a| leaves(
        vmap(|v: Tensor| {
            (
                jnp::pad(&v, &[(1, 2), (0, 1)], 0.0),
                jnp::pad(&v, &[(0, 0), (2, 1)], -1.0),
                lax::pad(&v, &Tensor::scalar(0.5f32), &[(1, -1, 1), (-1, 0, 2)]),
            )
        })
        .call(a[0].clone()),
    );
    pad_batched_value: |a| leaves(
        vmap(|(a, pv): T2| lax::pad(&a, &pv, &[(1, 0, 1), (0, 2, 0)]))
            .in_axes((NO, 0))
            .call(a2(a)),
    );
    concatenate_batched_unbatched: |a| leaves(
        vmap(|(a, b): T2| {
            (
                jnp::concatenate(&[a.clone(), b.clone()], 0),
                jnp::concatenate(&[b.t(), a.t(), b.t()], 1),
            )
        })
        .in_axes((0, NO))
        .call(a2(a)),
    );
    concatenate_axis1_in_axes_1: |a| leaves(
        vmap(|(a, b): T2| jnp::concatenate(&[a.clone(), b, a], 0))
            .in_axes((NO, 1))
            .out_axes(1)
            .call(a2(a)),
    );
    stack_mixed: |a| leaves(
        vmap(|(a, b): T2| {
            (
                jnp::stack(&[a.clone(), b.clone(), &a * 2.0], 1),
                jnp::stack(&[b.clone(), a.clone()], 0),
                jnp::stack(&[a, b], -1),
            )
        })
        .in_axes((0, NO))
        .call(a2(a)),
    );

    // ---- reductions, scans, sorts
    reductions_axis1: |a| leaves(
        // Seven outputs: a Vec, as oxla's tuples stop at six (same leaves).
        vmap(|v: Tensor| {
            vec![
                v.sum(0),
                jnp::max_keepdims(&v, 1),
                v.min(None),
                jnp::mean(&v, [0, 1]),
                v.sum_keepdims(-1),
                jnp::min(&v, 0),
                jnp::mean(&v, 1),
            ]
        })
        .in_axes(1)
        .call(a[0].clone()),
    );
    reductions_int_bool: |a| leaves(
        vmap(|(k, b): T2| {
            (k.sum(1), k.max(None), b.sum(None), jnp::any(&b, None), jnp::all(&b, None))
        })
        .call(a2(a)),
    );
    argmax_argmin: |a| leaves(
        vmap(|v: Tensor| {
            (
                jnp::argmax(&v, Some(0)),
                jnp::argmax(&v, Some(1)),
                jnp::argmin(&v, None),
                jnp::argmax_keepdims(&v, Some(1)),
            )
        })
        .in_axes(-1)
        .call(a[0].clone()),
    );
    cumsum_variants: |a| leaves(
        vmap(|(v, k): T2| {
            (
                jnp::cumsum(&v, Some(0)),
                jnp::cumsum(&v, Some(1)),
                jnp::cumsum(&v, None),
                jnp::cumsum(&k, None),
                cummax_1d(&k),
            )
        })
        .in_axes((2, 0))
        .call(a2(a)),
    );
    sort_variants: |a| leaves(
        vmap(|v: Tensor| {
            (
                jnp::sort(&v, Some(0)),
                jnp::sort(&v, Some(-1)),
                argsort(&v, 0),
                jnp::sort(&v.ravel(), Some(-1)),
            )
        })
        .in_axes(1)
        .call(a[0].clone()),
    );

    // ---- matrix products
    matmul_lhs_batched: |a| leaves(vmap(|(x, y): T2| x.matmul(&y)).in_axes((0, NO)).call(a2(a)));
    matmul_rhs_batched: |a| leaves(vmap(|(x, y): T2| x.matmul(&y)).in_axes((NO, 0)).call(a2(a)));
    matmul_rhs_batched_axis2: |a| leaves(
        vmap(|(x, y): T2| jnp::matmul(&x, &y)).in_axes((NO, 2)).call(a2(a)),
    );
    matmul_both_batched: |a| leaves(vmap(|(x, y): T2| x.matmul(&y)).in_axes((0, 1)).call(a2(a)));
    vecmat_matvec: |a| leaves(
        vmap(|(x, a, b): T3| (x.matmul(&a), b.matmul(&x), jnp::dot(&x, &x)))
            .in_axes((0, NO, NO))
            .call(a3(a)),
    );
    dot_vec_both_batched: |a| leaves(
        vmap(|(x, y): T2| jnp::dot(&x, &y)).in_axes((0, 1)).call(a2(a)),
    );
    batched_3d_matmul: |a| leaves(
        vmap(|(x, y): T2| {
            // jnp.einsum("bij,bjk->bki", x, y): JAX contracts y with x, batched over b.
            let m = jnp::matmul(&x, &y);
            (m, lax::dot_general(&y, &x, (&[1], &[2]), (&[0], &[0]), Some(DType::F32)))
        })
        .call(a2(a)),
    );
    batched_3d_matmul_unbatched_rhs: |a| leaves(
        vmap(|(x, y): T2| jnp::matmul(&x, &y)).in_axes((-1, NO)).call(a2(a)),
    );

    // ---- indexing
    gather_x_batched: |a| leaves(vmap(|(a, i): T2| a.index(&i)).in_axes((0, NO)).call(a2(a)));
    gather_idx_batched: |a| leaves(vmap(|(a, i): T2| a.index(&i)).in_axes((NO, 0)).call(a2(a)));
    gather_both_batched: |a| leaves(
        vmap(|(a, i): T2| (a.index(&i), a.index((.., 1)).index(&i), a.index((&i, 0))))
            .in_axes((0, 1))
            .call(a2(a)),
    );
    gather_scalar_index_batched: |a| leaves(
        vmap(|(a, i, j): T3| {
            (a.index(&i), a.index((&i, &j)), a.index((.., &j)), a.index((&i, 1..3)))
        })
        .in_axes((NO, 0, 0))
        .call(a3(a)),
    );
    ix_indexing: |a| leaves(
        vmap(|(a, r, c): T3| {
            let g = jnp::ix_(&[r, c]);
            a.index((&g[0], &g[1]))
        })
        .in_axes((0, 0, NO))
        .call(a3(a)),
    );
    dynamic_slice_batched_start: |a| leaves(
        vmap(|(a, s): T2| dynamic_slice(&a, &[s, Tensor::scalar(1i32)], &[2, 3]))
            .in_axes((NO, 0))
            .call(a2(a)),
    );
    dynamic_slice_both_batched: |a| {
        let first: Tensor = vmap(|(a, s): T2| dynamic_slice(&a, &[s], &[3]))
            .call(a2(a));
        // lax.dynamic_slice_in_dim(a, s, 2) on a 1-d a.
        let second: Tensor = vmap(|(a, s): T2| dynamic_slice(&a, &[s], &[2]))
            .in_axes((1, NO))
            .call((a[2].clone(), Tensor::scalar(3i32)));
        vec![first, second]
    };
    dynamic_update_slice_operand_batched: |a| leaves(
        vmap(|(a, b, s): T3| dynamic_update_slice(&a, &b, &[s, Tensor::scalar(2i32)]))
            .in_axes((0, NO, NO))
            .call(a3(a)),
    );
    dynamic_update_slice_update_batched: |a| leaves(
        vmap(|(a, b, s): T3| dynamic_update_slice(&a, &b, &[s, Tensor::scalar(0i32)]))
            .in_axes((NO, 1, NO))
            .call(a3(a)),
    );
    dynamic_update_slice_index_batched: |a| leaves(
        vmap(|(a, b, s): T3| dynamic_update_slice(&a, &b, &[s]))
            .in_axes((NO, NO, 0))
            .call(a3(a)),
    );
    dynamic_update_slice_all_batched: |a| leaves(
        vmap(|(a, b, s): T3| dynamic_update_slice(&a, &b, &[s.index(0), s.index(1)]))
            .in_axes((1, -1, 1))
            .call(a3(a)),
    );
    scatter_add_x_batched: |a| leaves(
        vmap(|(a, i, b): T3| at_add(&a, &i, &b)).in_axes((0, NO, NO)).call(a3(a)),
    );
    scatter_add_v_batched: |a| leaves(
        vmap(|(a, i, b): T3| at_add(&a, &i, &b)).in_axes((NO, NO, -1)).call(a3(a)),
    );
    scatter_add_idx_batched: |a| leaves(
        vmap(|(a, i, b): T3| at_add(&a, &i, &b)).in_axes((NO, 0, NO)).call(a3(a)),
    );
    scatter_add_all_batched: |a| leaves(
        vmap(|(a, i, b): T3| (at_add(&a, &i, &b), at_add(&jnp::zeros(&[3]), &(&i % 3), &b)))
            .in_axes((0, 1, 0))
            .call(a3(a)),
    );

    // ---- in_axes / out_axes trees, axis_size
    in_axes_tuple_prefix: |a| leaves(
        vmap(|((x, y), z): (T2, Tensor)| x * y + z)
            .in_axes(((0, NO), 0))
            .call(((a[0].clone(), a[1].clone()), a[2].clone())),
    );
    in_axes_none_for_tuple_arg: |a| leaves(
        vmap(|((w, b), v): (T2, Tensor)| w * v + b)
            .in_axes((NO, 0))
            .call(((a[0].clone(), a[1].clone()), a[2].clone())),
    );
    // The dict {'w': w, 'b': b} is the tuple (w, b); in_axes ({'w': None, 'b': None}, 0) is
    // ((None, None), 0).
    in_axes_dict_prefix: |a| leaves(
        vmap(|((w, b), v): (T2, Tensor)| (w.matmul(&v) + b, v.sum(None)))
            .in_axes(((NO, NO), 0))
            .call(((a[0].clone(), a[1].clone()), a[2].clone())),
    );
    in_axes_int_for_all: |a| leaves(vmap(|(a, b): T2| &a * b + &a).in_axes(1).call(a2(a)));
    out_axes_1: |a| leaves(
        vmap(|v: Tensor| jnp::sin(&v).matmul(&v.t())).out_axes(1).call(a[0].clone()),
    );
    out_axes_neg1: |a| leaves(
        vmap(|(a, t): T2| a * t).in_axes((NO, 0)).out_axes(-1).call(a2(a)),
    );
    out_axes_tuple: |a| leaves(
        vmap(|(a, b): T2| (a.sum(0), &a * 2.0, a.index((.., .., None)) + 1.0, b * 3.0))
            .in_axes((-1, NO))
            .out_axes((0, 1, -1, NO))
            .call(a2(a)),
    );
    out_unbatched_broadcast: |a| leaves(
        vmap(|(a, b): T2| (b * 2.0, Tensor::scalar(1.5f32), jnp::arange(3), a.index(0)))
            .in_axes((0, NO))
            .call(a2(a)),
    );
    axis_size_all_none: |a| leaves(
        vmap(|v: Tensor| (&v * 2.0, v.sum(None))).in_axes(NO).axis_size(3).call(a[0].clone()),
    );
    axis_size_no_args: |a| leaves(
        vmap(|(): ()| jnp::arange(3.0) * 2.0).axis_size(4).out_axes(1).call(()),
    );

    // ---- nesting and closures
    nested_2_outer_product: |a| {
        let inner = vmap(|(a, b): T2| jnp::dot(&a, &b)).in_axes((0, NO));
        leaves(vmap(|ab: T2| inner.call::<T2, Tensor>(ab)).in_axes((NO, 0)).call(a2(a)))
    };
    nested_2_axes_mix: |a| {
        let inner = vmap(|(a, b): T2| &a * b.sum(None) + a.max(None)).in_axes((1, NO));
        leaves(
            vmap(|ab: T2| inner.call::<T2, Tensor>(ab))
                .in_axes((2, 0))
                .out_axes(1)
                .call(a2(a)),
        )
    };
    nested_3_levels: |a| {
        let l3 = vmap(|(a, b, c): T3| (a * b).sum(None) + c).in_axes((-1, -1, NO));
        let l2 = vmap(|abc: T3| l3.call::<T3, Tensor>(abc))
            .in_axes((0, NO, NO))
            .out_axes(1);
        leaves(vmap(|abc: T3| l2.call::<T3, Tensor>(abc)).in_axes((0, NO, 0)).call(a3(a)))
    };
    nested_3_matmul: |a| {
        let v1 = vmap(|(a, b): T2| a.matmul(&b)).in_axes((0, NO));
        let v2 = vmap(|ab: T2| v1.call::<T2, Tensor>(ab)).in_axes((1, NO)).out_axes(-1);
        leaves(vmap(|ab: T2| v2.call::<T2, Tensor>(ab)).in_axes((0, NO)).call(a2(a)))
    };
    closure_captures_outer_tracer: |a| {
        let ys = a[1].clone();
        leaves(
            vmap(|x: Tensor| vmap(|y: Tensor| &x * y).call::<Tensor, Tensor>(ys.clone()))
                .call(a[0].clone()),
        )
    };
    closure_captures_outer_tracer_array: |a| {
        let ys = a[1].clone();
        let outer = |x: Tensor| {
            let nx = jnp::sqrt(&(&x * &x).sum(None));
            vmap(|y: Tensor| jnp::dot(&x, &y) / &nx + y.index(0))
                .call::<Tensor, Tensor>(ys.clone())
        };
        leaves(vmap(outer).out_axes(1).call(a[0].clone()))
    };

    // ---- seed programs
    seed004_f_vmap: |a| leaves(vmap(seeds::outer_sum).call(a[0].clone()));
    seed004_memory_test1_vmap_random [sum]: |a| leaves(
        vmap(|(id, v): T2| seeds::memory_test(&id, &v, 1)).in_axes((0, NO)).call(a2(a)),
    );
    seed004_memory_test1_vmap_ones: |a| leaves(
        vmap(|(id, v): T2| seeds::memory_test(&id, &v, 1)).in_axes((0, NO)).call(a2(a)),
    );
    seed004_memory_test2_vmap_random [sum]: |a| leaves(
        vmap(|(id, v): T2| seeds::memory_test(&id, &v, 2)).in_axes((0, NO)).call(a2(a)),
    );
    seed004_memory_test2_vmap_ones: |a| leaves(
        vmap(|(id, v): T2| seeds::memory_test(&id, &v, 2)).in_axes((0, NO)).call(a2(a)),
    );
    seed004_extract_grid_vmap: |a| leaves(
        vmap(|(id, v): T2| seeds::extract_3x3x3_grid(&id, &v)).in_axes((0, NO)).call(a2(a)),
    );
    seed002_squared_error_vmap: |a| leaves(
        vmap(|(p, x, y): (T2, Tensor, Tensor)| seeds::squared_error(&p, &x, &y))
            .in_axes((NO, 0, 0))
            .call(((a[0].clone(), a[1].clone()), a[2].clone(), a[3].clone())),
    );
    seed002_squared_error_vmap_random: |a| leaves(
        vmap(|(p, x, y): (T2, Tensor, Tensor)| seeds::squared_error(&p, &x, &y))
            .in_axes((NO, 0, 0))
            .call(((a[0].clone(), a[1].clone()), a[2].clone(), a[3].clone())),
    );
    seed000_neg_l1_affinity: |a| {
        let all = a[1].clone();
        leaves(
            vmap(|x: Tensor| {
                vmap(|y: Tensor| seeds::neg_l1(&x, &y)).call::<Tensor, Tensor>(all.clone())
            })
            .call(a[0].clone()),
        )
    };
    seed000_neg_l1_affinity_self: |a| {
        let imgs = a[0].clone();
        leaves(
            vmap(|x: Tensor| {
                vmap(|y: Tensor| seeds::neg_l1(&x, &y)).call::<Tensor, Tensor>(imgs.clone())
            })
            .call(a[0].clone()),
        )
    };

    // ---- PRNG: bit-identical
    random_normal_split_keys [bits]: |a| leaves(
        vmap(|k: Tensor| random::normal(&k, &[3])).call(random::split(&random::key(0), 4)),
    );
    random_uniform_keys_input [bits]: |a| leaves(
        vmap(|k: Tensor| {
            (
                random::uniform(&k, &[2, 3]),
                random::uniform_range(&k, &[4], -2.0, 3.0, DType::F32),
            )
        })
        .call(a[0].clone()),
    );
    random_randint_keys_input [bits]: |a| leaves(
        vmap(|k: Tensor| (random::randint(&k, &[5], 0, 10), random::randint(&k, &[2, 2], -3, 4)))
            .call(a[0].clone()),
    );
    random_keys_axis1_out_axes1 [bits]: |a| leaves(
        vmap(|k: Tensor| random::normal(&k, &[2])).in_axes(1).out_axes(1).call(a[0].clone()),
    );
    random_fold_in_data [bits]: |a| leaves(
        vmap(|x: Tensor| fold_in(&random::key(0), &x)).call(a[0].clone()),
    );
    random_fold_in_keys_and_data [bits]: |a| leaves(
        vmap(|(k, x): T2| {
            let k2 = fold_in(&k, &x);
            let s = random::split(&k2, 2);
            (k2, s)
        })
        .call(a2(a)),
    );
    random_split_then_normal_nested [bits]: |a| {
        let per_key = |k: Tensor| {
            vmap(|s: Tensor| random::normal(&s, &[2]))
                .call::<Tensor, Tensor>(random::split(&k, 3))
        };
        leaves(vmap(per_key).call(random::split(&random::key(42), 2)))
    };
}

/// Every case directory under `tests/golden_vmap/` is covered or skipped, and only those.
#[test]
fn manifest_is_fully_accounted_for() {
    SUITE.assert_accounted_for(COVERED, SKIPPED);
}

jaxpr_cases!(
    argmax_argmin,
    astype_variants,
    axis_size_all_none,
    axis_size_no_args,
    batched_3d_matmul,
    batched_3d_matmul_unbatched_rhs,
    binary_axes_1_neg1,
    binary_batched_scalar,
    binary_batched_vs_unbatched_lower_rank,
    binary_unbatched_higher_rank_vs_batched,
    binary_with_scalar,
    broadcast_in_dim_variants,
    closure_captures_outer_tracer,
    closure_captures_outer_tracer_array,
    concatenate_axis1_in_axes_1,
    concatenate_batched_unbatched,
    dot_vec_both_batched,
    dynamic_slice_batched_start,
    gather_idx_batched,
    gather_x_batched,
    in_axes_dict_prefix,
    in_axes_int_for_all,
    in_axes_none_for_tuple_arg,
    in_axes_tuple_prefix,
    integer_pow,
    ix_indexing,
    matmul_both_batched,
    matmul_lhs_batched,
    matmul_rhs_batched,
    matmul_rhs_batched_axis2,
    nested_2_axes_mix,
    nested_2_outer_product,
    nested_3_levels,
    nested_3_matmul,
    out_axes_1,
    out_axes_neg1,
    out_axes_tuple,
    out_unbatched_broadcast,
    pad_batched_value,
    reductions_axis1,
    reductions_int_bool,
    reshape_axis1,
    seed000_neg_l1_affinity,
    seed000_neg_l1_affinity_self,
    seed002_squared_error_vmap,
    seed002_squared_error_vmap_random,
    seed004_f_vmap,
    select_mixed,
    select_n_int_index,
    slice_2d_axis1,
    squeeze_expand_dims,
    transpose_variants,
    unary_chain_axis0,
    unary_chain_axis1,
    vecmat_matvec,
);
