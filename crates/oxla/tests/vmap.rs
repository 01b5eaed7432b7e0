//! vmap: the seed programs, in_axes/out_axes trees, nesting, closures, and bad input.

#[path = "../examples/seeds/mod.rs"]
mod seeds;

use oxla::{lax, make_jaxpr, numpy as jnp, random, vmap, Tensor};

#[test]
fn seed_004_vmap_jaxpr_prints_exactly_as_jax() {
    let j = make_jaxpr(
        |x: Tensor| vmap(seeds::outer_sum).call(x),
        jnp::ones(&[10, 100]),
    );
    assert_eq!(
        j.to_string(),
        "{ lambda ; a:f32[10,100]. let
    b:f32[10,100,1] = broadcast_in_dim[
      broadcast_dimensions=(0, 1)
      shape=(10, 100, 1)
    ] a
    c:f32[10,1,100] = broadcast_in_dim[
      broadcast_dimensions=(0, 2)
      shape=(10, 1, 100)
    ] a
    d:f32[10,100,100] = mul b c
    e:f32[10] = reduce_sum[axes=(1, 2)] d
  in (e,) }"
    );
}

#[test]
fn seed_004_memory_tests_vmapped_over_lattice_ids() {
    let n = 6;
    let lattice = random::uniform(&random::key(1), &[n, n, n, 19]);
    let ids = jnp::arange((n * n * n) as i32);
    for variant in [1, 2] {
        let f = |(id, v): (Tensor, Tensor)| seeds::memory_test(&id, &v, variant);
        let batched: Tensor = vmap(f)
            .in_axes((0, None))
            .call((ids.clone(), lattice.clone()));
        assert_eq!(batched.shape(), &[n * n * n]);
        let got = batched.to_vec::<f32>();
        for id in [0usize, 1, 7, 100, 215] {
            let one = f((Tensor::scalar(id as i32), lattice.clone())).to_vec::<f32>()[0];
            assert!(
                (got[id] - one).abs() <= 1e-4 * one.abs(),
                "id {id}: {} vs {one}",
                got[id]
            );
        }
        let ones = jnp::ones(&[n, n, n, 19]);
        let r: Tensor = vmap(f).in_axes((0, None)).call((ids.clone(), ones));
        assert!(r
            .to_vec::<f32>()
            .iter()
            .all(|&v| v == 513.0 * variant as f32));
    }
}

#[test]
fn vmap_matches_a_loop_for_mixed_axes_and_out_axes() {
    let x = random::normal(&random::key(2), &[3, 4]);
    let y = random::normal(&random::key(3), &[4, 3]);
    let f = |(a, b): (Tensor, Tensor)| (&a * &b, jnp::dot(&a, &b));
    // Rows of x against columns of y; the products stacked along axis 1.
    let (prod, dot): (Tensor, Tensor) = vmap(f)
        .in_axes((0, 1))
        .out_axes((1, 0))
        .call((x.clone(), y.clone()));
    assert_eq!(prod.shape(), &[4, 3]);
    assert_eq!(dot.shape(), &[3]);
    for i in 0..3i32 {
        let (p, d) = f((x.index(i), y.index((.., i))));
        assert_eq!(prod.index((.., i)).to_vec::<f32>(), p.to_vec::<f32>());
        // The batched contraction may sum in another order than the single one.
        let (got, want) = (dot.index(i).item(), d.item());
        assert!(
            (got - want).abs() <= 1e-5 * want.abs().max(1.0),
            "{got} vs {want}"
        );
    }
}

#[test]
fn nested_vmaps_and_closures_over_outer_tracers() {
    let xs = random::normal(&random::key(4), &[3]);
    let ys = random::normal(&random::key(5), &[4]);
    let outer = |x: Tensor| vmap(|y: Tensor| &x * y).call(ys.clone());
    let r: Tensor = vmap(outer).call(xs.clone());
    let want = jnp::multiply(xs.index((.., None)), ys.index((None, ..)));
    assert_eq!(r.to_vec::<f32>(), want.to_vec::<f32>());
    // Depth three.
    let z = random::normal(&random::key(6), &[2, 3, 4]);
    let f = |v: Tensor| jnp::exp(&v) * 2.0;
    let r: Tensor = vmap(|a: Tensor| vmap(|b: Tensor| vmap(f).call(b)).call(a)).call(z.clone());
    assert_eq!(r.to_vec::<f32>(), f(z).to_vec::<f32>());
}

#[test]
fn tuple_prefixes_axis_size_and_unmapped_outputs() {
    let params = (Tensor::scalar(2.0f32), Tensor::scalar(1.0f32));
    let xs = jnp::linspace(0.0, 1.0, 5);
    let ys = &xs * 2.5 + 0.5;
    let se = |(p, x, y): ((Tensor, Tensor), Tensor, Tensor)| seeds::squared_error(&p, &x, &y);
    let r: Tensor = vmap(se).in_axes((None, 0, 0)).call((params, xs, ys));
    assert_eq!(
        r.to_vec::<f32>(),
        vec![0.25, 0.140625, 0.0625, 0.015625, 0.0]
    );
    let c = jnp::arange(3.0);
    let r: Tensor = vmap(|c: Tensor| c * 2.0).in_axes(None).axis_size(4).call(c);
    assert_eq!(r.shape(), &[4, 3]);
}

#[test]
#[should_panic(
    expected = "mapped axes must all have one size, but argument leaf 0 has size 3 along axis 0, argument leaf 1 has size 4 along axis 0"
)]
fn disagreeing_sizes_panic() {
    let _: Tensor = vmap(|(a, b): (Tensor, Tensor)| a + b).call((jnp::ones(&[3]), jnp::ones(&[4])));
}

#[test]
#[should_panic(expected = "in_axes 2 is out of range for argument leaf 0 of shape [3, 4]")]
fn axis_out_of_range_panics() {
    let _: Tensor = vmap(|a: Tensor| a).in_axes(2).call(jnp::ones(&[3, 4]));
}

#[test]
#[should_panic(expected = "in_axes (0, None, 0) does not match the tree (*, *)")]
fn mismatched_in_axes_tree_panics() {
    let _: Tensor = vmap(|(a, b): (Tensor, Tensor)| a + b)
        .in_axes((0, None, 0))
        .call((jnp::ones(&[3]), jnp::ones(&[3])));
}

#[test]
#[should_panic(expected = "give .axis_size(n)")]
fn all_none_without_axis_size_panics() {
    let _: Tensor = vmap(|a: Tensor| a).in_axes(None).call(jnp::ones(&[3]));
}

/// The `i`th slice of `xs` along `axis` (`None`: `xs` itself, unmapped).
fn take(xs: &Tensor, axis: Option<usize>, i: usize) -> Tensor {
    let Some(axis) = axis else {
        return xs.clone();
    };
    let mut start = vec![0; xs.ndim()];
    let mut limit = xs.shape().to_vec();
    start[axis] = i;
    limit[axis] = i + 1;
    lax::squeeze(&lax::slice(xs, &start, &limit, None), &[axis])
}

/// `x` (per-example shape `shape`) with a mapped axis of size `n` at `axis`, or as is.
fn batched(shape: &[usize], axis: Option<usize>, n: usize, seed: i64) -> Tensor {
    let mut full = shape.to_vec();
    if let Some(a) = axis {
        full.insert(a, n);
    }
    random::normal(&random::key(seed), &full)
}

/// Every placement (`None` or an axis) of a mapped axis in an operand of per-example rank `r`.
fn placements(r: usize) -> Vec<Option<usize>> {
    std::iter::once(None).chain((0..=r).map(Some)).collect()
}

/// `vmap(f)` over operands mapped at `axes` against stacking `f` of each example.
fn check_against_loop(
    name: &str,
    f: impl Fn(Vec<Tensor>) -> Tensor,
    shapes: &[&[usize]],
    axes: &[Option<usize>],
    prep: impl Fn(usize, Tensor) -> Tensor,
) {
    let n = 3;
    let args: Vec<Tensor> = shapes
        .iter()
        .zip(axes)
        .enumerate()
        .map(|(k, (s, a))| prep(k, batched(s, *a, n, 10 + k as i64)))
        .collect();
    let in_axes: Vec<Option<i32>> = axes.iter().map(|a| a.map(|a| a as i32)).collect();
    let got: Tensor = vmap(&f).in_axes(in_axes).call(args.clone());
    let looped: Vec<Tensor> = (0..n)
        .map(|i| f(args.iter().zip(axes).map(|(x, a)| take(x, *a, i)).collect()))
        .collect();
    let want = jnp::stack(&looped, 0);
    assert_eq!(got.shape(), want.shape(), "{name} {axes:?}");
    let (g, w) = (got.array().to_f64_vec(), want.array().to_f64_vec());
    let ok = g
        .iter()
        .zip(&w)
        .all(|(g, w)| (g - w).abs() <= 1e-5 * (1.0 + w.abs()));
    assert!(ok, "{name} {axes:?}\n got {got}\nwant {want}");
}

#[test]
fn multi_operand_rules_match_a_loop_for_every_axis_placement() {
    let as_bool = |k: usize, t: Tensor| if k == 0 { jnp::greater(&t, 0.0) } else { t };
    let keep = |_: usize, t: Tensor| t;
    let select = |a: Vec<Tensor>| lax::select_n(&a[0], &a[1..]);
    for (which, case) in [(&[][..], &[][..]), (&[], &[2, 3]), (&[2, 3], &[2, 3])] {
        for wa in placements(which.len()) {
            for ta in placements(case.len()) {
                for fa in placements(case.len()) {
                    let axes = [wa, ta, fa];
                    if axes.iter().all(Option::is_none) {
                        continue;
                    }
                    check_against_loop("select_n", select, &[which, case, case], &axes, as_bool);
                }
            }
        }
    }
    // lhs f32[2,3,4] x rhs f32[2,4,5], batch ([0], [0]), contracting ([2], [1]); and a
    // product without batch dimensions.
    let dot = |a: Vec<Tensor>| lax::dot_general(&a[0], &a[1], (&[2], &[1]), (&[0], &[0]), None);
    let outer = |a: Vec<Tensor>| lax::dot_general(&a[0], &a[1], (&[0], &[1]), (&[], &[]), None);
    for la in placements(3) {
        for ra in placements(3) {
            if la.is_some() || ra.is_some() {
                check_against_loop(
                    "dot_general",
                    dot,
                    &[&[2, 3, 4], &[2, 4, 5]],
                    &[la, ra],
                    keep,
                );
                check_against_loop(
                    "dot_outer",
                    outer,
                    &[&[4, 3, 2], &[5, 4, 2]],
                    &[la, ra],
                    keep,
                );
            }
        }
    }
    let transpose = |a: Vec<Tensor>| lax::transpose(&a[0], &[2, 0, 1]);
    for xa in placements(3).into_iter().skip(1) {
        check_against_loop("transpose", transpose, &[&[2, 3, 4]], &[xa], keep);
    }
    // Elementwise with per-example ranks 0 and 2, mapped or not.
    let add = |a: Vec<Tensor>| lax::add(&a[0], &a[1]);
    for (xs, ys) in [(&[2, 3][..], &[2, 3][..]), (&[], &[2, 3]), (&[2, 3], &[])] {
        for xa in placements(xs.len()) {
            for ya in placements(ys.len()) {
                if xa.is_some() || ya.is_some() {
                    check_against_loop("add", add, &[xs, ys], &[xa, ya], keep);
                }
            }
        }
    }
}
