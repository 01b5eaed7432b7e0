//! vmap: the seed programs, in_axes/out_axes trees, nesting, closures, and bad input.

#[path = "../examples/seeds/mod.rs"]
mod seeds;

use oxla::{make_jaxpr, numpy as jnp, random, vmap, Tensor};

#[test]
fn seed_004_vmap_jaxpr_prints_exactly_as_jax() {
    let j = make_jaxpr(
        |x: Tensor| vmap(seeds::outer_sum).call(x).unwrap(),
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
            .call((ids.clone(), lattice.clone()))
            .unwrap();
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
        let r: Tensor = vmap(f)
            .in_axes((0, None))
            .call((ids.clone(), ones))
            .unwrap();
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
        .call((x.clone(), y.clone()))
        .unwrap();
    assert_eq!(prod.shape(), &[4, 3]);
    assert_eq!(dot.shape(), &[3]);
    for i in 0..3i32 {
        let (p, d) = f((x.index(i), y.index((.., i))));
        assert_eq!(prod.index((.., i)).to_vec::<f32>(), p.to_vec::<f32>());
        assert_eq!(dot.index(i).to_vec::<f32>(), d.to_vec::<f32>());
    }
}

#[test]
fn nested_vmaps_and_closures_over_outer_tracers() {
    let xs = random::normal(&random::key(4), &[3]);
    let ys = random::normal(&random::key(5), &[4]);
    let outer = |x: Tensor| vmap(|y: Tensor| &x * y).call(ys.clone()).unwrap();
    let r: Tensor = vmap(outer).call(xs.clone()).unwrap();
    let want = jnp::multiply(xs.index((.., None)), ys.index((None, ..)));
    assert_eq!(r.to_vec::<f32>(), want.to_vec::<f32>());
    // Depth three.
    let z = random::normal(&random::key(6), &[2, 3, 4]);
    let f = |v: Tensor| jnp::exp(&v) * 2.0;
    let r: Tensor = vmap(|a: Tensor| vmap(|b: Tensor| vmap(f).call(b).unwrap()).call(a).unwrap())
        .call(z.clone())
        .unwrap();
    assert_eq!(r.to_vec::<f32>(), f(z).to_vec::<f32>());
}

#[test]
fn tuple_prefixes_axis_size_and_unmapped_outputs() {
    let params = (Tensor::scalar(2.0f32), Tensor::scalar(1.0f32));
    let xs = jnp::linspace(0.0, 1.0, 5);
    let ys = &xs * 2.5 + 0.5;
    let se = |(p, x, y): ((Tensor, Tensor), Tensor, Tensor)| seeds::squared_error(&p, &x, &y);
    let r: Tensor = vmap(se)
        .in_axes((None, 0, 0))
        .call((params, xs, ys))
        .unwrap();
    assert_eq!(
        r.to_vec::<f32>(),
        vec![0.25, 0.140625, 0.0625, 0.015625, 0.0]
    );
    let c = jnp::arange(3.0);
    let r: Tensor = vmap(|c: Tensor| c * 2.0)
        .in_axes(None)
        .axis_size(4)
        .call(c)
        .unwrap();
    assert_eq!(r.shape(), &[4, 3]);
}

#[test]
#[should_panic(
    expected = "mapped axes must all have one size, but argument leaf 0 has size 3 along axis 0, argument leaf 1 has size 4 along axis 0"
)]
fn disagreeing_sizes_panic() {
    let _: Tensor = vmap(|(a, b): (Tensor, Tensor)| a + b)
        .call((jnp::ones(&[3]), jnp::ones(&[4])))
        .unwrap();
}

#[test]
#[should_panic(expected = "in_axes 2 is out of range for argument leaf 0 of shape [3, 4]")]
fn axis_out_of_range_panics() {
    let _: Tensor = vmap(|a: Tensor| a)
        .in_axes(2)
        .call(jnp::ones(&[3, 4]))
        .unwrap();
}

#[test]
#[should_panic(expected = "in_axes (0, None, 0) does not match the tree (*, *)")]
fn mismatched_in_axes_tree_panics() {
    let _: Tensor = vmap(|(a, b): (Tensor, Tensor)| a + b)
        .in_axes((0, None, 0))
        .call((jnp::ones(&[3]), jnp::ones(&[3])))
        .unwrap();
}

#[test]
#[should_panic(expected = "give .axis_size(n)")]
fn all_none_without_axis_size_panics() {
    let _: Tensor = vmap(|a: Tensor| a)
        .in_axes(None)
        .call(jnp::ones(&[3]))
        .unwrap();
}
