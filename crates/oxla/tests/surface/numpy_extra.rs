//! `jax.numpy`: other names of existing functions (`absolute`, `amax`, `mod_`, `pow`,
//! `concat`, `permute_dims`, ...), float decomposition (`divmod`, `modf`, `frexp`, `ldexp`,
//! `spacing`), `i0` and `kaiser`, `geomspace`/`logspace`, `fromfunction`, `cross`, `block`
//! and the dtype queries `promote_types`/`can_cast`. One row a golden case of
//! `scripts/surface/tables/numpy_extra.py`. `fromfunction` calls its closure once on the
//! broadcast index arrays (numpy's way) where JAX maps it over every index: the rows use
//! elementwise closures, for which the two agree. `absolute_fabs` has zeros among its inputs,
//! where `|x|` has a kink (`nofd`); `modf`, `frexp` and `ldexp_edges` hold infinities and
//! NaN (`nofd`). Subnormal inputs are left out of `frexp` and `ldexp`: XLA's CPU flushes
//! them to zero in their scaling (JAX gives `frexp(1e-40) = (0.5, -149)`), oxla keeps them
//! (`frexp(1e-40)` is exact).

use oxla::numpy::{self as jnp, Casting};
use oxla::{lax, DType, Tensor};

fn pair((a, b): (Tensor, Tensor)) -> Vec<Tensor> {
    vec![a, b]
}

surface! {
    absolute_fabs [nofd]: |a| vec![
        jnp::absolute(&a[0]), jnp::fabs(&a[0]), jnp::absolute(&a[1]), jnp::fabs(&a[1]),
    ];
    amax_amin: |a| vec![
        jnp::amax(&a[0], 1), jnp::amin(&a[0], 0), jnp::amax(&a[0], None),
        jnp::amin(&a[0], jnp::keepdims(None)),
    ];
    mod_pow_true_divide: |a| vec![
        jnp::mod_(&a[0], &a[1]), jnp::mod_(&a[0], jnp::negative(&a[1])),
        jnp::pow(&a[1], &a[0]), jnp::true_divide(&a[0], &a[1]),
    ];
    mod_pow_int: |a| vec![
        jnp::mod_(&a[0], &a[1]), jnp::mod_(&a[0], jnp::negative(&a[1])),
        jnp::pow(&a[0], &a[1]), jnp::true_divide(&a[0], &a[1]),
    ];
    divmod_float: |a| pair(jnp::divmod(&a[0], &a[1]));
    divmod_int: |a| pair(jnp::divmod(&a[0], &a[1]));
    modf [nofd]: |a| pair(jnp::modf(&a[0]));
    frexp [nofd]: |a| pair(jnp::frexp(&a[0]));
    ldexp: |a| vec![jnp::ldexp(&a[0], &a[1]), jnp::ldexp(&a[0], 3)];
    ldexp_edges [nofd]: |a| vec![jnp::ldexp(&a[0], &a[1])];
    spacing [nograd]: |a| vec![jnp::spacing(&a[0])];
    i0: |a| vec![jnp::i0(&a[0])];
    kaiser [novmap]: |a| vec![
        jnp::kaiser(0, 8.6), jnp::kaiser(1, 8.6), jnp::kaiser(7, 8.6), jnp::kaiser(6, 0.0),
    ];
    kaiser_beta: |a| vec![jnp::kaiser(5, &a[0])];
    bitwise_aliases: |a| vec![
        jnp::bitwise_invert(&a[0]), jnp::bitwise_left_shift(&a[0], &a[1]),
        jnp::bitwise_right_shift(&a[0], &a[1]),
    ];
    empty_asarray_copy: |a| vec![
        jnp::empty(&[2, 3], None), jnp::empty(&[1, 2], Some(DType::I32)),
        jnp::empty_like(&a[0], None), jnp::empty_like(&a[0], Some(DType::I32)),
        jnp::asarray(&a[0], None), jnp::asarray(&a[0], Some(DType::I32)), jnp::copy(&a[0]),
    ];
    concat_permute: |a| {
        let xy = [a[0].clone(), a[1].clone()];
        vec![
            jnp::concat(&xy, 1), jnp::concat(&xy, None),
            jnp::concat(&[a[0].clone(), a[0].clone()], 0),
            jnp::permute_dims(&a[2], &[2, 0, 1]), jnp::matrix_transpose(&a[2]),
            jnp::matrix_transpose(&a[0]),
        ]
    };
    geomspace_logspace [novmap]: |a| vec![
        jnp::geomspace(1.0, 1000.0, 4, true, 0), jnp::geomspace(-1.0, -16.0, 5, false, 0),
        jnp::geomspace(2.0, 32.0, 1, true, 0), jnp::geomspace(2.0, 32.0, 0, true, 0),
        jnp::logspace(0.0, 3.0, 4, true, 10.0, 0), jnp::logspace(0.0, 1.0, 5, false, 2.0, 0),
    ];
    geomspace_arrays: |a| vec![
        jnp::geomspace(&a[0], &a[1], 4, true, 1), jnp::geomspace(&a[0], &a[1], 3, true, 0),
        jnp::logspace(&a[0], &a[1], 5, false, 2.0, -1),
    ];
    fromfunction: |a| vec![
        jnp::fromfunction(|i| jnp::add(jnp::multiply(&i[0], &a[0]), &i[1]), &[2, 3], DType::F32),
        jnp::fromfunction(|i| jnp::equal(&i[0], &i[1]), &[3, 3], DType::I32),
    ];
    cross3: |a| vec![
        jnp::cross(&a[0], &a[1], -1, -1, -1, None),
        jnp::cross(&a[0], lax::index_in_dim(&a[1], 0, 0, false), -1, -1, -1, None),
        jnp::cross(a[0].t(), &a[1], 0, -1, -1, None),
        jnp::cross(a[0].t(), a[1].t(), -1, -1, -1, Some(0)),
    ];
    cross2: |a| vec![
        jnp::cross(&a[0], &a[1], -1, -1, -1, None),
        jnp::cross(&a[0], &a[2], -1, -1, -1, None),
        jnp::cross(&a[2], &a[1], -1, -1, 0, None),
    ];
    block: |a| vec![
        jnp::block(vec![vec![&a[0], &a[1]], vec![&a[2]]]),
        jnp::block(vec![&a[0], &a[0]]),
        jnp::block(vec![vec![&a[3]], vec![&a[2]]]),
        jnp::block(&a[3]),
    ];
    dtype_queries [novmap]: |a| {
        use DType::*;
        let pairs = [
            (I64, I32), (U64, I64), (F64, I8), (Bool, U64), (BF16, F16), (U8, I8),
            (F32, F64),
        ];
        let casts = [
            (I32, F32, Casting::Safe), (I32, F64, Casting::Safe), (I64, F64, Casting::Safe),
            (U8, I16, Casting::Safe), (U8, I8, Casting::Safe), (I8, U64, Casting::Safe),
            (BF16, F16, Casting::Safe), (F16, F32, Casting::Safe), (Bool, I8, Casting::Safe),
            (I8, Bool, Casting::Safe), (F64, F32, Casting::SameKind), (U8, I8, Casting::SameKind),
            (I8, U8, Casting::SameKind), (F32, I32, Casting::SameKind),
            (F32, I32, Casting::Unsafe), (I32, I32, Casting::No), (I32, I64, Casting::Equiv),
        ];
        let mut out: Vec<Tensor> = pairs
            .iter()
            .map(|&(x, y)| jnp::empty(&[], Some(jnp::promote_types(x, y))))
            .collect();
        let can: Vec<bool> = casts.iter().map(|&(x, y, c)| jnp::can_cast(x, y, c)).collect();
        out.push(jnp::array(&can, &[can.len()]));
        out
    };
}
