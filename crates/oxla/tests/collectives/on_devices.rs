//! `vmap(f).devices(d)`: a batch split over devices in blocks of uneven length equals the
//! plain `vmap`, for every collective uneven blocks allow (mapped and unmapped operands,
//! any mapped axis, any batch size against 1 to 3 devices), eagerly, under `jit` and under
//! `grad` on either side; with `chunk_size` and `memory_budget` on each device; and the
//! collectives uneven blocks do not allow are refused naming the line.

use oxla::numpy as jnp;
use oxla::{grad, jit, lax, make_jaxpr, random, vmap, DType, Error, Tensor};
use proptest::prelude::*;

use crate::ops::{op_for, Op};
use crate::{close, panics};

type T = Tensor;

/// A collective that uneven blocks allow (all but `ppermute` and `all_to_all`), drawn by
/// `pick` as [`op_for`] draws one.
fn allowed(pick: u32, n: usize, shape: &mut [usize]) -> Op {
    let kind = [0, 1, 2, 3, 4, 5, 6, 7, 12, 13][pick as usize % 10];
    op_for((pick / 10 % 1000) * 14 + kind, n, shape)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// `vmap(f).axis_name("i").devices(d) == vmap(f).axis_name("i")`, eagerly and under
    /// `jit`, for any batch size against any device count.
    #[test]
    fn devices_equal_the_plain_vmap(
        n in 1usize..=8,
        d in 1usize..=3,
        mut shape in prop::collection::vec(1usize..4, 1..=3),
        pick in any::<u32>(),
        seed in any::<u32>(),
    ) {
        crate::pmap::devices();
        let op = allowed(pick, n, &mut shape);
        let at = pick as usize % (shape.len() + 1);
        let mut full = shape.clone();
        full.insert(at, n);
        let x = random::normal(&random::key(seed as i64), &full);
        let c = random::normal(&random::key(seed as i64 + 1), &shape);
        let f = |(v, c): (T, T)| (op.apply(&v), op.apply(&c) * op.apply(&(&v * &c)));
        let axes = (at as i32, None::<i32>);
        let (a, b): (T, T) = vmap(f).axis_name("i").in_axes(axes).call((x.clone(), c.clone()));
        let split = vmap(f).axis_name("i").in_axes(axes).devices(d);
        let (da, db): (T, T) = split.call((x.clone(), c.clone()));
        let what = format!("{op:?} n={n} d={d} at={at}");
        close(&da, &a, 1e-5, &what)?;
        close(&db, &b, 1e-5, &format!("{what}, unmapped"))?;
        let (ja, jb): (T, T) = jit(|(x, c): (T, T)| {
            vmap(f).axis_name("i").in_axes(axes).devices(d).call((x, c))
        })
        .call((x, c))
        .unwrap();
        close(&ja, &a, 1e-5, &format!("{what}: jit"))?;
        close(&jb, &b, 1e-5, &format!("{what}: jit, unmapped"))?;
    }
}

/// Gradients taken outside the split map, and inside it, equal the plain vmap's, and the
/// central differences of f64.
#[test]
fn gradients_through_the_split() {
    crate::pmap::devices();
    let x = random::normal_dtype(&random::key(5), &[7, 3], DType::F64);
    let v = random::normal_dtype(&random::key(6), &[7, 3], DType::F64);
    let f = |x: T| {
        let centred = &x - lax::pmean(&x, "i");
        let g = lax::all_gather(&jnp::tanh(&x), "i", 0, false);
        jnp::sum(&(&centred * &centred), None) * lax::pmax(&x, "i").sum(None)
            + jnp::sum(&(&g * 0.5), None)
            + (jnp::sin(&x) * lax::axis_index("i").astype(DType::F64)).sum(None)
    };
    for d in 1..=3 {
        let total = |x: T| jnp::sum(vmap(f).axis_name("i").devices(d).call(x), None);
        let plain = |x: T| jnp::sum(vmap(f).axis_name("i").call(x), None);
        let g = grad(total).call(x.clone());
        let want = grad(plain).call(x.clone());
        close(&g, &want, 1e-9, "g").unwrap();
        let eps = 1e-6;
        let fd = ((total(&x + &v * eps) - total(&x - &v * eps)) / (2.0 * eps)).item();
        let along = (&g * &v).sum(None).item();
        assert!(
            (along - fd).abs() < 1e-6 * (1.0 + fd.abs()),
            "d={d}: {along} vs {fd}"
        );
        // Per-example gradients, split over the devices.
        let per = || vmap(|x: T| grad(f).call(x)).axis_name("i");
        let got: T = per().devices(d).call(x.clone());
        let want: T = per().call(x.clone());
        close(&got, &want, 1e-9, "got").unwrap();
    }
}

/// Out axes other than 0, and results the same on every example.
#[test]
fn out_axes_and_unmapped_results() {
    crate::pmap::devices();
    let x = jnp::arange(15.0).reshape(&[5, 3]);
    let f = |v: T| (&v * 2.0, lax::psum(&v, "i"));
    let (a, s): (T, T) = vmap(f)
        .axis_name("i")
        .out_axes((1, None::<i32>))
        .devices(2)
        .call(x.clone());
    assert_eq!(
        a.to_vec::<f32>(),
        (&x * 2.0).transpose(None).to_vec::<f32>()
    );
    assert_eq!(s.to_vec::<f32>(), x.sum(0).to_vec::<f32>());
}

/// Each device runs its block in chunks: of a given size, or that fit a budget there; a
/// budget no example fits is an error before anything runs.
#[test]
fn chunks_and_budgets_on_each_device() {
    crate::pmap::devices();
    let x = random::normal(&random::key(2), &[11, 64]);
    let f = |v: T| (v.index((.., None)) * v.index((None, ..))).sum(1);
    let want: T = vmap(f).call(x.clone());
    let chunked: T = vmap(f).chunk_size(2).devices(3).call(x.clone());
    close(&chunked, &want, 1e-5, "chunked").unwrap();
    let budgeted: T = vmap(f)
        .devices(2)
        .memory_budget(200_000)
        .call(x.clone())
        .unwrap();
    close(&budgeted, &want, 1e-5, "budgeted").unwrap();
    let jaxpr = make_jaxpr(
        |x: T| vmap(f).devices(2).memory_budget(200_000).call(x).unwrap(),
        x.clone(),
    )
    .to_string();
    assert!(
        jaxpr.contains("shard_map") && jaxpr.contains("chunked_map"),
        "{jaxpr}"
    );
    match vmap(f).devices(2).memory_budget(1000).call(x.clone()) {
        Err(Error::OutOfMemory { .. }) => {}
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
}

/// Two bodies, one per block length, in the staged map.
#[test]
fn uneven_blocks_stage_one_body_per_length() {
    crate::pmap::devices();
    let x = jnp::ones(&[5, 2]);
    let j = make_jaxpr(
        |x: T| {
            vmap(|v: T| lax::psum(&v, "i"))
                .axis_name("i")
                .devices(2)
                .call(x)
        },
        x,
    )
    .to_string();
    assert!(j.contains("shares=(3, 2)"), "{j}");
    assert!(j.contains("a:f32[3,2]") && j.contains("a:f32[2,2]"), "{j}");
    assert!(j.contains("psum[axes=('i',)"), "{j}");
}

#[test]
fn collectives_of_fixed_blocks_are_refused() {
    crate::pmap::devices();
    let x = jnp::ones(&[4, 2]);
    let msg = panics::message(|| {
        let _: T = vmap(|v: T| lax::ppermute(&v, "i", &[(0, 1), (1, 0)]))
            .axis_name("i")
            .devices(2)
            .call(x.clone());
    });
    assert!(
        msg.contains("ppermute over \"i\"") && msg.contains("split over devices"),
        "{msg}"
    );
    assert!(msg.contains("tests/collectives/on_devices.rs"), "{msg}");
    let msg = panics::message(|| {
        let _: T = vmap(|v: T| v * 2.0).devices(9).call(x.clone());
    });
    assert!(
        msg.contains(".devices(9), but 3 devices are available"),
        "{msg}"
    );
}

/// Ties of `pmax` spread over devices share the derivative as the plain vmap's do: the
/// whole axis's tied examples, each alike.
#[test]
fn ties_across_devices_share_the_gradient() {
    crate::pmap::devices();
    // Examples 0 and 1 on device 0, example 4 on device 1 hold the maximum.
    let x = jnp::array(&[3.0f32, 3.0, 1.0, 0.0, 3.0], &[5]);
    for d in 1..=3 {
        let total = |x: T| {
            jnp::sum(
                vmap(|v: T| lax::pmax(&v, "i"))
                    .axis_name("i")
                    .devices(d)
                    .call(x),
                None,
            )
        };
        let g = grad(total).call(x.clone());
        let third = 5.0 / 3.0;
        let want = jnp::array(&[third, third, 0.0, 0.0, third], &[5]);
        close(&g, &want, 1e-6, &format!("d={d}")).unwrap();
        let y: T = vmap(|v: T| lax::pmin(&v, "i"))
            .axis_name("i")
            .devices(d)
            .call(x.clone());
        assert_eq!(y.to_vec::<f32>(), vec![0.0; 5]);
    }
    let inf = jnp::array(&[1.0f32, f32::INFINITY, 2.0], &[3]);
    let y: T = vmap(|v: T| lax::pmax(&v, "i"))
        .axis_name("i")
        .devices(2)
        .call(inf);
    assert_eq!(y.to_vec::<f32>(), vec![f32::INFINITY; 3]);
}

/// The split map under an outer vmap (cut along a later dimension, two bodies), under
/// `jvp`, with fewer examples than devices, with gradients through `psum_scatter` and a
/// tiled `all_gather`, and with a nested map of the same axis name inside `f`.
#[test]
fn more_compositions() {
    crate::pmap::devices();
    let x = random::normal_dtype(&random::key(7), &[4, 5, 3], DType::F64);
    let f = |v: T| &v * lax::psum(&v, "i") + lax::all_gather(&v, "i", 0, true).sum(None);
    let inner = |x: T| -> T { vmap(f).axis_name("i").devices(2).call(x) };
    let plain = |x: T| -> T { vmap(f).axis_name("i").call(x) };
    let outer: T = vmap(inner).call(x.clone());
    let want: T = vmap(plain).call(x.clone());
    close(&outer, &want, 1e-12, "vmap of devices").unwrap();
    let t = random::normal_dtype(&random::key(8), &[4, 5, 3], DType::F64);
    let (_, tan) = oxla::jvp(inner, x.clone(), t.clone());
    let (_, tan_want) = oxla::jvp(plain, x.clone(), t);
    close(&tan, &tan_want, 1e-12, "jvp").unwrap();

    let small = random::normal_dtype(&random::key(9), &[2, 6], DType::F64);
    let g = |x: T| {
        let s = lax::psum_scatter(&jnp::sin(&x), "i", 0, true);
        let u = lax::psum_scatter(&x.index((..2,)), "i", 0, false);
        (jnp::tanh(&s).sum(None) + (&u * &u).sum(None)) * lax::pmean(&x, "i").sum(None)
    };
    for d in 1..=3 {
        let split = |x: T| jnp::sum(vmap(g).axis_name("i").devices(d).call(x), None);
        let whole = |x: T| jnp::sum(vmap(g).axis_name("i").call(x), None);
        let got = grad(split).call(small.clone());
        let want = grad(whole).call(small.clone());
        close(&got, &want, 1e-12, &format!("psum_scatter grad, d={d}")).unwrap();
    }

    // The same name bound again inside f: its collectives are the inner map's.
    let nested = |v: T| {
        let row: T = vmap(|w: T| &w - lax::pmean(&w, "i"))
            .axis_name("i")
            .call(v.clone());
        row * lax::psum(&v, "i").sum(None)
    };
    let m = random::normal(&random::key(10), &[5, 4]);
    let got: T = vmap(nested).axis_name("i").devices(3).call(m.clone());
    let want: T = vmap(nested).axis_name("i").call(m);
    close(&got, &want, 1e-5, "nested name").unwrap();
}
