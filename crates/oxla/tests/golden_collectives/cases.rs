//! The collective cases: each case's program in oxla, then the cases whose jaxpr text is
//! compared with JAX's, then the jaxprs traced under `axis_env`.

use oxla::numpy as jnp;
use oxla::{axis_env, grad, jvp, lax, make_jaxpr, vmap, Tensor};

use crate::common::Cmp;
use crate::{check_case, check_env, check_jaxpr, leaves, SUITE};

type T = Tensor;
const NO: Option<i32> = None;

/// `vmap(f)` over the axis called `"i"`.
fn vm<F>(f: F) -> oxla::transforms::Vmap<F> {
    vmap(f).axis_name("i")
}

cases! {
    // ---- psum family
    psum_axis0: |a| leaves(vm(|v: T| lax::psum(&v, "i")).call(a[0].clone()));
    psum_axis1: |a| leaves(
        vm(|v: T| &v / lax::psum(&(&v * &v), "i")).in_axes(1).out_axes(1).call(a[0].clone()),
    );
    psum_unmapped: |a| leaves(
        vm(|(v, c): (T, T)| lax::psum(&c, "i") * v)
            .in_axes((0, NO))
            .call((a[0].clone(), a[1].clone())),
    );
    psum_int: |a| leaves(vm(|v: T| lax::psum(&v, "i") - v).call(a[0].clone()));
    psum_bool: |a| leaves(vm(|v: T| lax::psum(&v, "i")).call(a[0].clone()));
    pmean_centre: |a| leaves(vm(|v: T| &v - lax::pmean(&v, "i")).call(a[0].clone()));
    batch_norm: |a| leaves(vm(batch_norm).call(a[0].clone()));
    pmax_ties: |a| leaves(vm(|v: T| lax::pmax(&v, "i") - v).call(a[0].clone()));
    pmin_axis1: |a| leaves(vm(|v: T| lax::pmin(&v, "i")).in_axes(1).call(a[0].clone()));
    pmax_unmapped: |a| leaves(
        vm(|(v, c): (T, T)| v + lax::pmax(&c, "i"))
            .in_axes((0, NO))
            .call((a[0].clone(), a[1].clone())),
    );
    psum_two_names: |a| leaves(
        vm(vmap(|v: T| lax::psum(&v, ("i", "j"))).axis_name("j").as_fn()).call(a[0].clone()),
    );
    pmax_two_names_outer_only: |a| leaves(
        vm(vmap(|v: T| lax::pmax(&v, "i") + lax::psum(&v, "j")).axis_name("j").as_fn())
            .call(a[0].clone()),
    );

    // ---- all_gather
    all_gather_axis0: |a| leaves(vm(|v: T| lax::all_gather(&v, "i", 0, false) * 2.0).call(a[0].clone()));
    all_gather_axis1: |a| leaves(vm(|v: T| lax::all_gather(&v, "i", 1, false)).call(a[0].clone()));
    all_gather_tiled: |a| leaves(vm(|v: T| lax::all_gather(&v, "i", 1, true)).call(a[0].clone()));
    all_gather_in_axes1: |a| leaves(
        vm(|v: T| jnp::matmul(lax::all_gather(&v, "i", 0, false), &v)).in_axes(1).call(a[0].clone()),
    );
    all_gather_unmapped: |a| leaves(
        vm(|(v, c): (T, T)| (v, lax::all_gather(&c, "i", 1, false), lax::all_gather(&c, "i", 0, true)))
            .in_axes((0, NO))
            .call((a[0].clone(), a[1].clone())),
    );

    // ---- psum_scatter
    psum_scatter_untiled: |a| leaves(vm(|v: T| lax::psum_scatter(&v, "i", 0, false)).call(a[0].clone()));
    psum_scatter_tiled: |a| leaves(vm(|v: T| lax::psum_scatter(&v, "i", 0, true)).call(a[0].clone()));
    psum_scatter_dim1_tiled: |a| leaves(
        vm(|v: T| lax::psum_scatter(&v, "i", 1, true)).call(a[0].clone()),
    );
    psum_scatter_unmapped: |a| leaves(
        vm(|(v, c): (T, T)| (v, lax::psum_scatter(&c, "i", 0, false)))
            .in_axes((0, NO))
            .call((a[0].clone(), a[1].clone())),
    );

    // ---- ppermute
    ppermute_cycle: |a| leaves(
        vm(|v: T| lax::ppermute(&v, "i", &[(0, 1), (1, 2), (2, 0)])).call(a[0].clone()),
    );
    ppermute_swap_axis1: |a| leaves(
        vm(|v: T| lax::ppermute(&v, "i", &[(0, 1), (1, 0)]) - v).in_axes(1).call(a[0].clone()),
    );
    ppermute_unmapped: |a| leaves(
        vm(|(v, c): (T, T)| v * lax::ppermute(&c, "i", &[(0, 2), (2, 1), (1, 0)]))
            .in_axes((0, NO))
            .call((a[0].clone(), a[1].clone())),
    );

    pshuffle_reverse: |a| leaves(vm(|v: T| lax::pshuffle(&v, "i", &[2, 1, 0])).call(a[0].clone()));

    // ---- all_to_all
    pswapaxes_axis1: |a| leaves(vm(|v: T| lax::pswapaxes(&v, "i", 1)).call(a[0].clone()));
    all_to_all_split0_concat0: |a| leaves(vm(|v: T| lax::all_to_all(&v, "i", 0, 0, false)).call(a[0].clone()));
    all_to_all_split0_concat1: |a| leaves(vm(|v: T| lax::all_to_all(&v, "i", 0, 1, false)).call(a[0].clone()));
    all_to_all_split1_concat0: |a| leaves(vm(|v: T| lax::all_to_all(&v, "i", 1, 0, false)).call(a[0].clone()));
    all_to_all_tiled: |a| leaves(vm(|v: T| lax::all_to_all(&v, "i", 0, 1, true)).call(a[0].clone()));

    // ---- axis_index
    axis_index_scale: |a| leaves(vm(|v: T| &v * lax::axis_index("i")).call(a[0].clone()));
    axis_index_two_names: |a| leaves(
        vm(vmap(|v: T| &v + lax::axis_index(("i", "j"))).axis_name("j").as_fn()).call(a[0].clone()),
    );
    axis_index_unmapped: |a| leaves(
        vm(|c: T| &c * lax::axis_index("i")).in_axes(NO).axis_size(3).call(a[0].clone()),
    );

    // ---- derivatives
    grad_psum: |a| leaves(
        vm(|v: T| grad(|v: T| jnp::sum(&(jnp::sin(&v) * lax::psum(&v, "i")), None)).call(v))
            .call(a[0].clone()),
    );
    grad_pmean_batch_norm: |a| leaves(
        vm(|v: T| {
            grad(|v: T| {
                let m = lax::pmean(&v, "i");
                jnp::sum(&((&v - &m) * (&v - &m) * jnp::cos(&v)), None)
            })
            .call(v)
        })
        .call(a[0].clone()),
    );
    grad_all_gather: |a| leaves(
        vm(|v: T| {
            grad(|v: T| {
                let g = lax::all_gather(&v, "i", 0, false);
                jnp::sum(&(&g * &g * jnp::arange(4.0)), None)
            })
            .call(v)
        })
        .call(a[0].clone()),
    );
    grad_psum_scatter: |a| leaves(
        vm(|v: T| grad(|v: T| jnp::sum(jnp::tanh(lax::psum_scatter(&v, "i", 0, true)), None)).call(v))
            .call(a[0].clone()),
    );
    grad_ppermute: |a| leaves(
        vm(|v: T| {
            grad(|v: T| jnp::sum(&(&v * lax::ppermute(&v, "i", &[(0, 1), (1, 2), (2, 0)])), None))
                .call(v)
        })
        .call(a[0].clone()),
    );
    grad_all_to_all: |a| leaves(
        vm(|v: T| {
            grad(|v: T| {
                let y = lax::all_to_all(&v, "i", 0, 1, true);
                jnp::sum(&(jnp::sin(&y) * v.index((0, 0))), None)
            })
            .call(v)
        })
        .call(a[0].clone()),
    );
    grad_of_vmap_psum: |a| leaves(
        grad(|x: T| {
            let p = vm(|v: T| jnp::exp(&v) / lax::psum(&jnp::exp(&v), "i")).call(x);
            jnp::sum(&(&p * &p), None)
        })
        .call(a[0].clone()),
    );
    jvp_all_gather: |a| leaves(
        vm(|(v, t): (T, T)| jvp(|v: T| lax::all_gather(&v, "i", 0, false) * &v, v, t))
            .call((a[0].clone(), a[1].clone())),
    );

    // ---- loops
    scan_psum: |a| leaves(vm(scan_psum).call(a[0].clone()));
    cond_psum: |a| leaves(
        vm(|(v, k): (T, T)| {
            lax::cond(
                &k.gt(0),
                |v: T| &v / lax::psum(&v, "i"),
                |v: T| &v - lax::pmean(&v, "i"),
                v,
            )
        })
        .in_axes((0, NO))
        .call((a[0].clone(), a[1].clone())),
    );
    fori_all_gather: |a| leaves(
        vm(|v: T| {
            lax::fori_loop(
                0,
                3,
                |(_, v): (T, T)| &v * 0.5 + jnp::mean(lax::all_gather(&v, "i", 0, false), 0),
                v,
            )
        })
        .call(a[0].clone()),
    );
    while_pmax: |a| leaves(
        vm(|v: T| {
            lax::while_loop(
                |(c, _): (T, T)| lax::pmax(&c, "i").lt(10.0),
                |(c, k): (T, T)| (&c * 2.0 + 1.0, k + 1),
                (v, Tensor::scalar(0i32)),
            )
        })
        .call(a[0].clone()),
    );
}

fn batch_norm(v: T) -> T {
    let m = lax::pmean(&v, "i");
    let var = lax::pmean(&((&v - &m) * (&v - &m)), "i");
    (&v - &m) / jnp::sqrt(&(var + 1e-5))
}

fn scan_psum(xs: T) -> (T, T) {
    lax::scan(
        |(c, x): (T, T)| {
            let c = &c + lax::psum(&(&x * &c), "i");
            let m = lax::pmax(&c, "i");
            (c, m)
        },
        jnp::ones(&[2]),
        xs,
    )
    .call()
}

#[test]
fn manifest_is_fully_accounted_for() {
    SUITE.assert_accounted_for(COVERED, &[]);
}

jaxpr_cases!(
    psum_axis0,
    psum_unmapped,
    psum_int,
    psum_bool,
    pmax_ties,
    pmax_unmapped,
    psum_two_names,
    pmax_two_names_outer_only,
    all_gather_axis0,
    all_gather_axis1,
    all_gather_tiled,
    all_gather_unmapped,
    psum_scatter_untiled,
    psum_scatter_tiled,
    psum_scatter_dim1_tiled,
    psum_scatter_unmapped,
    ppermute_unmapped,
    axis_index_scale,
    axis_index_two_names,
    axis_index_unmapped,
);

/// Collectives traced outside any map, under `axis_env`.
mod axis_env {
    use super::*;

    fn z(shape: &[usize]) -> T {
        jnp::zeros(shape)
    }

    macro_rules! env_cases {
        ($($name:ident: $env:expr, $f:expr, $args:expr;)*) => {$(
            #[test]
            fn $name() {
                let env: &[(&str, usize)] = $env;
                check_env(stringify!($name), env, axis_env(env, || make_jaxpr($f, $args)));
            }
        )*};
    }

    env_cases! {
        psum: &[("i", 4)], |v: T| lax::psum(&v, "i"), z(&[3, 4]);
        pmean: &[("i", 2)], |v: T| lax::pmean(&v, "i"), z(&[3, 4]);
        pmax_two: &[("i", 2), ("j", 3)], |v: T| lax::pmax(&v, ("i", "j")), z(&[3, 4]);
        pmin: &[("i", 2)], |v: T| lax::pmin(&v, "i"), z(&[3, 4]);
        psum_int: &[("i", 2)], |v: T| lax::psum(&v, "i"), Tensor::new(oxla::Array::zeros(oxla::DType::I32, &[3]));
        psum_bool: &[("i", 2)], |v: T| lax::psum(&v, "i"), Tensor::new(oxla::Array::zeros(oxla::DType::Bool, &[3]));
        psum_const: &[("i", 2)], |v: T| lax::psum(&Tensor::scalar(2.0f32), "i") * v, z(&[3, 4]);
        all_gather: &[("i", 4)], |v: T| lax::all_gather(&v, "i", 0, false), z(&[3, 4]);
        all_gather_tiled: &[("i", 2)], |v: T| lax::all_gather(&v, "i", 1, true), z(&[3, 4]);
        psum_scatter: &[("i", 3)], |v: T| lax::psum_scatter(&v, "i", 0, false), z(&[3, 2]);
        psum_scatter_tiled: &[("i", 4)], |v: T| lax::psum_scatter(&v, "i", 0, true), z(&[8]);
        ppermute: &[("i", 2)], |v: T| lax::ppermute(&v, "i", &[(0, 1), (1, 0)]), z(&[3, 4]);
        all_to_all: &[("i", 2)], |v: T| lax::all_to_all(&v, "i", 0, 1, false), z(&[2, 3]);
        all_to_all_split1: &[("i", 2)], |v: T| lax::all_to_all(&v, "i", 1, 0, false), z(&[3, 2]);
        all_to_all_tiled: &[("i", 2)], |v: T| lax::all_to_all(&v, "i", 0, 1, true), z(&[4, 3]);
        axis_index: &[("i", 2)], |(): ()| lax::axis_index("i"), ();
        axis_index_two: &[("i", 2), ("j", 3)], |(): ()| lax::axis_index(("i", "j")), ();
        axis_size: &[("i", 2)], |v: T| &v * lax::axis_size("i") as f32, z(&[3, 4]);
    }
}
