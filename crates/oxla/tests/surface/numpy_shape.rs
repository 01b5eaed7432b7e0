//! `jax.numpy`: building, reshaping, joining, splitting, indexing and contracting arrays.
//! One row a golden case of `scripts/surface/tables/numpy_shape.py`.
//!
//! `einsum` contracts pairwise left to right where JAX follows opt_einsum's order: the
//! values agree within the default tolerance. `take_flat_fill` and `take_along_axis_modes`
//! fill out-of-bounds elements with NaN, whose finite differences are NaN: `nofd`.

use oxla::numpy::{self as jnp, Indexing, Operand, TakeMode};

surface! {
    einsum_matmul: |a| vec![jnp::einsum("ij,jk->ik", &[a[0].clone(), a[1].clone()])];
    einsum_implicit: |a| vec![jnp::einsum("ba,ac", &[a[0].clone(), a[1].clone()])];
    einsum_batch: |a| vec![jnp::einsum("bij,bjk->bik", &[a[0].clone(), a[1].clone()])];
    einsum_ellipsis: |a| vec![jnp::einsum("...ij,...jk->...ik", &a[..2])];
    einsum_ellipsis_broadcast: |a| vec![
        jnp::einsum("...i,...i", &a[..2]),
        jnp::einsum("...i,...i->i", &a[..2]),
    ];
    einsum_trace: |a| vec![jnp::einsum("ii", &a[..1]), jnp::einsum("ii->i", &a[..1])];
    einsum_repeated_contract: |a| vec![jnp::einsum("ijj,jk->ik", &a[..2])];
    einsum_three: |a| vec![jnp::einsum("ij,jk,kl->il", &a[..3])];
    einsum_outer_sum_transpose: |a| vec![
        jnp::einsum("i,j->ij", &a[..2]),
        jnp::einsum("ijk->kj", &a[2..3]),
        jnp::einsum("i,i->i", &[a[0].clone(), a[0].clone()]),
    ];
    einsum_int: |a| vec![jnp::einsum("ij,j->i", &a[..2])];
    einsum_empty: |a| vec![jnp::einsum("ij,jk->ik", &a[..2])];
    tensordot_int: |a| vec![
        jnp::tensordot(&a[0], &a[1], 2),
        jnp::tensordot(a[0].index(0), a[1].index(0), 1),
    ];
    tensordot_pairs: |a| vec![
        jnp::tensordot(&a[0], &a[1], ([1, 0], [0, 2])),
        jnp::tensordot(&a[0], &a[1], (-2, 0)),
    ];
    tensordot_zero: |a| vec![jnp::tensordot(&a[0], &a[1], 0)];
    outer_inner_vdot: |a| vec![
        jnp::outer(&a[0], &a[2]),
        jnp::inner(&a[0], &a[1]),
        jnp::vdot(&a[0], &a[2]),
        jnp::inner(&a[0], 2.0),
    ];
    vecdot: |a| vec![jnp::vecdot(&a[0], &a[1], -1), jnp::vecdot(&a[2], &a[2], 0)];
    matvec_vecmat: |a| vec![jnp::matvec(&a[0], &a[1]), jnp::vecmat(&a[1], &a[2])];
    kron: |a| vec![jnp::kron(&a[0], &a[1]), jnp::kron(&a[0], &a[2])];

    take_axis: |a| vec![jnp::take(&a[0], &a[1], 1, None), jnp::take(&a[0], a[1].index(0), -2, None)];
    take_flat_fill [nofd]: |a| vec![
        jnp::take(&a[0], &a[1], None, None),
        jnp::take(&a[0], &a[1], None, TakeMode::FillWith(2.5)),
    ];
    take_int_fill: |a| vec![jnp::take(&a[0], &a[1], 0, TakeMode::Fill)];
    take_clip_wrap: |a| vec![
        jnp::take(&a[0], &a[1], None, TakeMode::Clip),
        jnp::take(&a[0], &a[1], None, TakeMode::Wrap),
    ];
    take_empty: |a| vec![jnp::take(&a[0], &a[1], 1, None)];
    take_along_axis: |a| vec![
        jnp::take_along_axis(&a[0], &a[1], 1, None),
        jnp::take_along_axis(&a[0], a[1].index((.., ..1)), 0, None),
    ];
    take_along_axis_broadcast: |a| vec![
        jnp::take_along_axis(&a[0], &a[1], -1, None),
        jnp::take_along_axis(&a[0], a[1].t(), 0, None),
    ];
    take_along_axis_modes [nofd]: |a| vec![
        jnp::take_along_axis(&a[0], &a[1], 1, None),
        jnp::take_along_axis(&a[0], &a[1], 1, TakeMode::Clip),
        jnp::take_along_axis(&a[0], &a[1], 1, TakeMode::FillWith(-3.0)),
        jnp::take_along_axis(&a[0], jnp::ravel(&a[1]), None, None),
    ];

    flip: |a| vec![
        jnp::flip(&a[0], None),
        jnp::flip(&a[0], (0, 2)),
        jnp::flip(&a[0], -1),
        jnp::fliplr(&a[0]),
        jnp::flipud(&a[0]),
    ];
    rot90: |a| vec![
        jnp::rot90(&a[0], 1, (0, 1)),
        jnp::rot90(&a[0], 2, (0, 1)),
        jnp::rot90(&a[0], 3, (1, 2)),
        jnp::rot90(&a[0], -1, (2, 0)),
        jnp::rot90(&a[0], 4, (0, 1)),
    ];
    tile: |a| vec![jnp::tile(&a[0], &[2, 1, 2]), jnp::tile(&a[0], &[3]), jnp::tile(&a[0], &[0, 1])];
    repeat: |a| vec![
        jnp::repeat(&a[0], 2, None),
        jnp::repeat(&a[0], 3, 1),
        jnp::repeat(&a[0], [1, 0, 2], -1),
        jnp::repeat(&a[0], [2], 0),
        jnp::repeat(&a[0], 0, 0),
    ];
    moveaxis_swapaxes: |a| vec![
        jnp::moveaxis(&a[0], 0, -1),
        jnp::moveaxis(&a[0], (0, 1), (2, 0)),
        jnp::swapaxes(&a[0], 0, -1),
    ];
    atleast: |a| vec![
        jnp::atleast_1d(&a[0]),
        jnp::atleast_2d(&a[0]),
        jnp::atleast_3d(&a[0]),
        jnp::atleast_2d(&a[1]),
        jnp::atleast_3d(&a[1]),
        jnp::atleast_3d(&a[2]),
        jnp::atleast_1d(&a[2]),
    ];

    split: |a| [
        jnp::split(&a[0], 3, 1),
        jnp::split(&a[1], [1, 4], 0),
        jnp::split(&a[1], [0, 6], 0),
        jnp::split(&a[0], 2, -2),
    ].concat();
    array_split: |a| [jnp::array_split(&a[0], 3, 0), jnp::array_split(&a[1], 3, 0)].concat();
    hsplit_vsplit_dsplit: |a| [
        jnp::hsplit(&a[0], 2),
        jnp::hsplit(&a[1], [3]),
        jnp::vsplit(&a[0], 2),
        jnp::dsplit(&a[0], [1]),
    ].concat();
    stacks: |a| vec![
        jnp::vstack(&a[..3]),
        jnp::hstack(&[a[0].clone(), a[2].clone()]),
        jnp::hstack(&[a[1].clone(), a[1].clone()]),
        jnp::dstack(&[a[0].clone(), a[2].clone()]),
        jnp::dstack(&[a[1].clone(), a[1].clone()]),
        jnp::column_stack(&[a[0].clone(), a[1].t(), a[2].clone()]),
    ];
    append: |a| vec![
        jnp::append(&a[0], &a[1], None),
        jnp::append(&a[0], &a[1], 0),
        jnp::append(&a[2], 2.5, None),
        jnp::append(&a[2], &a[2], None),
    ];
    meshgrid: |a| [
        jnp::meshgrid(&a[..2], Indexing::Xy, false),
        jnp::meshgrid(&a[..3], Indexing::Ij, false),
        jnp::meshgrid(&a[..2], Indexing::Xy, true),
        jnp::meshgrid(&a[..3], Indexing::Xy, true),
    ].concat();
    diff: |a| vec![
        jnp::diff(&a[0], 1, -1, None, None),
        jnp::diff(&a[0], 2, 0, None, None),
        jnp::diff(&a[0], 1, -1, Some(0.0.into()), Some(a[0].index((.., ..2)).into())),
        jnp::diff(&a[0], 7, -1, None, None),
        jnp::diff(&a[0], 0, -1, None, None),
    ];
    diff_int_bool: |a| vec![
        jnp::diff(&a[0], 1, -1, None, None),
        jnp::diff(&a[0], 1, -1, Some(Operand::from(1.5)), None),
        jnp::diff(&a[1], 1, -1, None, None),
        jnp::diff(&a[1], 2, -1, None, None),
    ];

    diagonal: |a| vec![
        jnp::diagonal(&a[0], 0, 0, 1),
        jnp::diagonal(&a[0], 1, 0, 2),
        jnp::diagonal(&a[0], -1, -1, 1),
        jnp::diagonal(&a[0], 5, 1, 2),
    ];
    trace: |a| vec![
        jnp::trace(&a[0], 0, 0, 1),
        jnp::trace(&a[0], 1, 0, 1),
        jnp::trace(&a[0], -2, 0, 1),
        jnp::trace(&a[1], 0, 0, 1),
    ];
    diag: |a| vec![
        jnp::diag(&a[0], 0),
        jnp::diag(&a[0], -1),
        jnp::diag(&a[0], 2),
        jnp::diag(&a[1], 1),
        jnp::diagflat(&a[2], -1),
    ];
    fill_diagonal: |a| vec![
        jnp::fill_diagonal(&a[0], &a[1]),
        jnp::fill_diagonal(a[0].t(), 0.5),
        jnp::fill_diagonal(&a[2], a[1].index(..2)),
    ];
    tri_tril_triu: |a| vec![
        jnp::tril(&a[0], 0),
        jnp::tril(&a[0], -1),
        jnp::triu(&a[0], 0),
        jnp::triu(&a[0], 2),
        jnp::tri(3, None, 0),
        jnp::tri(2, 4, 1),
        jnp::tri(3, 2, -1),
    ];
    tri_indices [novmap]: |a| {
        let z = |s: &[usize]| jnp::zeros(s);
        let p = [
            jnp::tril_indices(3, 0, None),
            jnp::tril_indices(3, 1, 4),
            jnp::triu_indices(3, -1, None),
            jnp::triu_indices(2, 0, 3),
            jnp::tril_indices_from(&z(&[2, 3]), -1),
            jnp::triu_indices_from(&z(&[3, 2]), 1),
        ];
        p.into_iter().flat_map(|(r, c)| [r, c]).collect()
    };
}
