//! The collectives under `vmap(f).axis_name("i")`, without JAX: every collective against a
//! loop over the examples (random sizes, shapes and mapped axes), under `jit` against
//! eager, and its derivatives against central finite differences (f64), with the gradient
//! taken inside the map (the collective's own JVP and VJP rules) and outside it (the
//! rules of what batching made of it). Also the mistakes a user can make: an unbound axis
//! name, a chunked map over a collective's axis, a bad permutation.
//!
//! Inside the map, a gradient follows JAX's SPMD convention: member `k`'s gradient is that
//! of the sum of every member's loss with respect to its own operand (the transpose of a
//! `psum` is a `psum`).

#[path = "../panics/mod.rs"]
mod panics;

mod on_devices;
mod ops;
mod pmap;

use ops::op_for;

use oxla::numpy as jnp;
use oxla::{grad, jit, jvp, lax, make_jaxpr, random, vmap, DType, Tensor};
use proptest::prelude::*;

type T = Tensor;

pub(crate) fn close(a: &T, b: &T, tol: f64, what: &str) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.shape(), b.shape(), "{}: shapes", what);
    for (x, y) in a.array().to_f64_vec().iter().zip(b.array().to_f64_vec()) {
        prop_assert!((x - y).abs() <= tol * (1.0 + y.abs()), "{what}: {x} vs {y}");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// `vmap(f).axis_name("i")` of every collective equals each member's value computed
    /// from slices, eagerly and under `jit`, for the mapped axis anywhere.
    #[test]
    fn vmap_equals_a_loop_over_the_members(
        n in 1usize..5,
        mut shape in prop::collection::vec(1usize..4, 1..=3),
        pick in any::<u32>(),
        seed in any::<u32>(),
    ) {
        let op = op_for(pick, n, &mut shape);
        let at = pick as usize % (shape.len() + 1);
        let mut full = shape.clone();
        full.insert(at, n);
        let x = random::normal(&random::key(seed as i64), &full);
        let f = |v: T| op.apply(&v);
        let got: T = vmap(f).axis_name("i").in_axes(at as i32).call(x.clone());
        let xs: Vec<T> = (0..n).map(|k| lax::index_in_dim(&x, k as isize, at, false)).collect();
        let want = jnp::stack(&(0..n).map(|k| op.reference(&xs, k)).collect::<Vec<_>>(), 0);
        close(&got, &want, 1e-6, &format!("{op:?} n={n} at={at}"))?;
        let compiled: T = jit(|x: T| vmap(f).axis_name("i").in_axes(at as i32).call(x))
            .call(x.clone())
            .unwrap();
        close(&compiled, &got, 1e-6, &format!("{op:?} jit"))?;
    }

    /// Derivatives through every float collective, inside the map (its JVP and VJP rules)
    /// and outside it, against central differences in f64.
    #[test]
    fn derivatives_match_finite_differences(
        n in 2usize..4,
        mut shape in prop::collection::vec(1usize..4, 1..=2),
        pick in any::<u32>(),
        seed in any::<u32>(),
    ) {
        let op = op_for(pick, n, &mut shape);
        let mut full = shape.clone();
        full.insert(0, n);
        let key = |k: i64| random::key(seed as i64 * 7 + k);
        let x = random::normal_dtype(&key(0), &full, DType::F64);
        let v = random::normal_dtype(&key(1), &full, DType::F64);
        // A nonlinear function of the collective and of the operand.
        let f = |x: T| {
            let y = op.apply(&jnp::sin(&x));
            jnp::sum(jnp::tanh(&(&y * 1.3)), None) * jnp::sum(&x, None) + jnp::sum(&(&y * &y), None)
        };
        let mapped = |x: T| -> T { vmap(f).axis_name("i").call(x) };
        let total = |x: &T| jnp::sum(mapped(x.clone()), None);
        let eps = 1e-6;
        let fd_map = (mapped(&x + &v * eps) - mapped(&x - &v * eps)) / (2.0 * eps);
        let fd_total = ((total(&(&x + &v * eps)) - total(&(&x - &v * eps))) / (2.0 * eps)).item();
        let what = format!("{op:?} n={n} shape={shape:?}");
        // Forward mode inside the map: each member's tangent.
        let inside: T = vmap(|(x, t): (T, T)| jvp(f, x, t).1).axis_name("i").call((x.clone(), v.clone()));
        close(&inside, &fd_map, 1e-5, &format!("{what}: jvp inside"))?;
        // Reverse mode inside the map: the gradient of every member's loss summed.
        let g_in: T = vmap(|x: T| grad(f).call(x)).axis_name("i").call(x.clone());
        let along = (&g_in * &v).sum(None).item();
        prop_assert!((along - fd_total).abs() <= 1e-5 * (1.0 + fd_total.abs()), "{what}: grad inside {along} vs {fd_total}");
        // Reverse mode outside the map, and compiled.
        let g_out = grad(|x: T| total(&x)).call(x.clone());
        let along = (&g_out * &v).sum(None).item();
        prop_assert!((along - fd_total).abs() <= 1e-5 * (1.0 + fd_total.abs()), "{what}: grad outside {along} vs {fd_total}");
        let g_jit: T = jit(|x: T| vmap(|x: T| grad(f).call(x)).axis_name("i").call(x)).call(x.clone()).unwrap();
        close(&g_jit, &g_in, 1e-9, &format!("{what}: jit grad inside"))?;
    }
}

/// `pmax` shares the derivative among tied members, as `reduce_max` does.
#[test]
fn pmax_ties_share_the_gradient() {
    let x = jnp::array(&[1.0f32, 3.0, 3.0, 0.0], &[4]);
    let g: T = vmap(|v: T| grad(|v: T| lax::pmax(&v, "i")).call(v))
        .axis_name("i")
        .call(x.clone());
    // Every member's loss is the maximum: the sum of four losses, shared by two members.
    assert_eq!(g.to_vec::<f32>(), vec![0.0, 2.0, 2.0, 0.0]);
    let g: T =
        grad(|x: T| jnp::sum(vmap(|v: T| lax::pmin(&v, "i")).axis_name("i").call(x), None)).call(x);
    assert_eq!(g.to_vec::<f32>(), vec![0.0, 0.0, 0.0, 4.0]);
}

/// A collective inside a scan, differentiated inside and outside the map.
#[test]
fn scan_with_collectives_differentiates() {
    let f = |xs: T| {
        let (c, ys): (T, T) = lax::scan(
            |(c, x): (T, T)| {
                let c = jnp::tanh(&(&c * 0.9 + lax::pmean(&(&x * &c), "i")));
                (c.clone(), lax::pmax(&c, "i"))
            },
            jnp::ones(&[2]).astype(DType::F64),
            xs,
        )
        .call();
        jnp::sum(&c, None) + jnp::sum(&ys, None)
    };
    let x = random::normal_dtype(&random::key(3), &[3, 4, 2], DType::F64);
    let v = random::normal_dtype(&random::key(4), &[3, 4, 2], DType::F64);
    let total = |x: &T| jnp::sum(vmap(f).axis_name("i").call(x.clone()), None).item();
    let eps = 1e-6;
    let fd = (total(&(&x + &v * eps)) - total(&(&x - &v * eps))) / (2.0 * eps);
    let inside: T = vmap(|x: T| grad(f).call(x)).axis_name("i").call(x.clone());
    let outside = grad(|x: T| jnp::sum(vmap(f).axis_name("i").call(x), None)).call(x);
    for g in [inside, outside] {
        let along = (&g * &v).sum(None).item();
        assert!(
            (along - fd).abs() < 1e-6 * (1.0 + fd.abs()),
            "{along} vs {fd}"
        );
    }
}

/// A jitted function holding a collective, called inside the map, stages into it.
#[test]
fn jit_inside_the_map() {
    let x = jnp::arange(6.0).reshape(&[3, 2]);
    let f = jit(|v: T| &v / lax::psum(&v, "i"));
    let got: T = vmap(|v: T| f.call(v).unwrap())
        .axis_name("i")
        .call(x.clone());
    let want: T = vmap(|v: T| &v / lax::psum(&v, "i")).axis_name("i").call(x);
    assert_eq!(got.to_vec::<f32>(), want.to_vec::<f32>());
}

/// Nested maps: a collective over both names, and over the outer one from inside.
#[test]
fn nested_names() {
    let x = jnp::arange(24.0).reshape(&[2, 3, 4]);
    let inner = vmap(|v: T| lax::psum(&v, ("i", "j")) - lax::psum(&v, "i")).axis_name("j");
    let got: T = vmap(inner.as_fn()).axis_name("i").call(x.clone());
    let all = x.sum(vec![0, 1]);
    let over_i = x.sum(0);
    let want = jnp::broadcast_to(
        all.index((None, None, ..)) - over_i.index((None, .., ..)),
        &[2, 3, 4],
    );
    assert_eq!(got.to_vec::<f32>(), want.to_vec::<f32>());
    let idx: T = vmap(
        vmap(|_v: T| lax::axis_index(("i", "j")))
            .axis_name("j")
            .as_fn(),
    )
    .axis_name("i")
    .call(x);
    assert_eq!(idx.to_vec::<i32>(), (0..6).collect::<Vec<i32>>());
}

#[test]
fn an_unbound_axis_name_panics_naming_the_bound_ones_and_the_line() {
    let x = jnp::ones(&[3, 2]);
    let msg = panics::message(|| {
        let _: T = vmap(|v: T| lax::psum(&v, "j"))
            .axis_name("i")
            .call(x.clone());
    });
    assert!(msg.contains("psum: unbound axis name \"j\""), "{msg}");
    assert!(msg.contains("\"i\" (size 3)"), "{msg}");
    assert!(msg.contains("tests/collectives/main.rs"), "{msg}");
    let msg = panics::message(|| {
        make_jaxpr(|v: T| lax::all_gather(&v, "i", 0, false), x.clone());
    });
    assert!(
        msg.contains("all_gather: unbound axis name \"i\": no axis is bound"),
        "{msg}"
    );
}

#[test]
fn chunking_over_a_collective_s_axis_is_refused() {
    let x = jnp::ones(&[6, 2]);
    let msg = panics::message(|| {
        let _: T = vmap(|v: T| &v - lax::pmean(&v, "i"))
            .axis_name("i")
            .chunk_size(2)
            .call(x.clone());
    });
    assert!(
        msg.contains("psum") && msg.contains("needs the whole axis"),
        "{msg}"
    );
    // A collective over the enclosing map's axis chunks fine.
    let x = jnp::arange(12.0).reshape(&[3, 2, 2]);
    let inner = vmap(|v: T| &v - lax::pmean(&v, "i"))
        .axis_name("j")
        .chunk_size(1);
    let y: T = vmap(inner.as_fn()).axis_name("i").call(x.clone());
    let want = &x - jnp::mean(&x, 0).index((None, .., ..));
    assert_eq!(y.to_vec::<f32>(), want.to_vec::<f32>());
}

#[test]
fn bad_parameters_panic_at_trace_time() {
    let x = jnp::ones(&[3, 2]);
    let msg = panics::message(|| {
        let _: T = vmap(|v: T| lax::ppermute(&v, "i", &[(0, 1), (1, 1)]))
            .axis_name("i")
            .call(x.clone());
    });
    assert!(
        msg.contains("ppermute: perm sends to member 1 twice"),
        "{msg}"
    );
    let msg = panics::message(|| {
        let _: T = vmap(|v: T| lax::all_to_all(&v, "i", 0, 0, false))
            .axis_name("i")
            .call(x.clone());
    });
    assert!(
        msg.contains("all_to_all: untiled, split_axis 0 of f32[2] must have the axis size 3"),
        "{msg}"
    );
    let msg = panics::message(|| {
        let _: T = vmap(|v: T| lax::psum_scatter(&v, "i", 0, true))
            .axis_name("i")
            .call(x.clone());
    });
    assert!(
        msg.contains("reduce_scatter: dimension 0 of size 2 does not split among 3"),
        "{msg}"
    );
}
