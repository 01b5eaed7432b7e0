//! Compiling: the cache by avals, ahead-of-time lowering, the seed programs, simplification,
//! composition with `vmap` and `grad`, and the avals a compiled program accepts.

use oxla::{eval_jaxpr, grad, jit, make_jaxpr, numpy as jnp, random, vmap, Tensor};

use crate::seeds;

#[test]
fn jit_matches_eager_and_caches_by_avals() {
    let f = jit(|x: Tensor| (jnp::exp(&x) * 2.0 + jnp::sin(&x)).sum(0));
    for shape in [[3usize, 4], [3, 4], [5, 2]] {
        let x = random::normal(&random::key(shape[1] as i64), &shape);
        let eager = (jnp::exp(&x) * 2.0 + jnp::sin(&x)).sum(0);
        assert_eq!(f.call(x).unwrap().to_vec::<f32>(), eager.to_vec::<f32>());
    }
    assert_eq!(f.cache_size(), 2);
}

#[test]
fn seed_programs_compile_and_agree_with_eager() {
    let n = 6;
    let lattice = random::uniform(&random::key(1), &[n, n, n, 19]);
    let ids = jnp::arange((n * n * n) as i32);
    for variant in [1, 2] {
        let batched = seeds::memory_test_batched(variant);
        let eager = batched((ids.clone(), lattice.clone()));
        let compiled = jit(batched).call((ids.clone(), lattice.clone())).unwrap();
        let (e, c) = (eager.to_vec::<f32>(), compiled.to_vec::<f32>());
        for (a, b) in e.iter().zip(&c) {
            assert!((a - b).abs() <= 1e-4 * a.abs(), "{a} vs {b}");
        }
    }
}

#[test]
fn simplification_removes_the_multiply_by_ones_and_the_size_2_broadcast() {
    let body = |(id, v): (Tensor, Tensor)| seeds::memory_test(&id, &v, 2);
    let lattice = jnp::zeros(&[6, 6, 6, 19]);
    let c = jit(body).lower(&(Tensor::scalar(0i32), lattice)).compile();
    let text = c.jaxpr().to_string();
    assert!(!text.contains("f32[3,3,3,19,2]"), "{text}");
    assert!(text.contains("reduce_sum[axes=(0, 1, 2, 3)]"), "{text}");
    assert!(
        text.contains("mul fe 2.0:f32[]") || text.contains("2.0:f32[]"),
        "{text}"
    );
}

#[test]
fn jit_composes_with_vmap_and_grad_in_any_order() {
    let se = |(p, x, y): ((Tensor, Tensor), Tensor, Tensor)| seeds::squared_error(&p, &x, &y);
    let params = (Tensor::scalar(2.0f32), Tensor::scalar(1.0f32));
    let xs = jnp::linspace(0.0, 1.0, 5);
    let ys = &xs * 2.5 + 0.5;
    let per_example = |a: ((Tensor, Tensor), Tensor, Tensor)| -> (Tensor, Tensor) {
        vmap(|a| grad(se).call(a)).in_axes((None, 0, 0)).call(a)
    };
    let want = per_example((params.clone(), xs.clone(), ys.clone()));
    let got = jit(per_example)
        .call((params.clone(), xs.clone(), ys.clone()))
        .unwrap();
    assert_eq!(got.0.to_vec::<f32>(), want.0.to_vec::<f32>());
    assert_eq!(got.1.to_vec::<f32>(), want.1.to_vec::<f32>());
    // vmap(jit(f)) and grad(jit(f)) stage f into the outer transform.
    let jf = jit(se);
    let v: Tensor = vmap(|a| jf.call(a).unwrap()).in_axes((None, 0, 0)).call((
        params.clone(),
        xs.clone(),
        ys.clone(),
    ));
    assert_eq!(
        v.to_vec::<f32>(),
        vec![0.25, 0.140625, 0.0625, 0.015625, 0.0]
    );
    let g: (Tensor, Tensor) =
        grad(|a| jf.call(a).unwrap()).call((params.clone(), xs.index(1), ys.index(1)));
    assert_eq!((g.0.item(), g.1.item()), (0.1875, 0.75));
    // Traced, a jit is one call of the program, as JAX's `jit` primitive.
    let args = (params, xs, ys);
    let a = make_jaxpr(|a| jit(per_example).call(a).unwrap(), args.clone());
    let b = make_jaxpr(per_example, args.clone());
    assert_eq!(a.jaxpr.eqns.len(), 1, "{a}");
    assert_eq!(a.jaxpr.eqns[0].prim.name(), "jit", "{a}");
    let leaves = oxla::Tree::leaves(&args);
    let (got, want) = (eval_jaxpr(&a, &leaves), eval_jaxpr(&b, &leaves));
    for (g, w) in got.iter().zip(&want) {
        for (a, b) in g.to_vec::<f32>().iter().zip(w.to_vec::<f32>()) {
            assert!((a - b).abs() <= 1e-6 * (1.0 + b.abs()), "{a} against {b}");
        }
    }
}

#[test]
#[should_panic(expected = "compiled for arguments (f32[3]) but called with (f32[4])")]
fn compiled_programs_check_their_avals() {
    let c = jit(|x: Tensor| x * 2.0).lower(&jnp::ones(&[3])).compile();
    let _ = c.call(jnp::ones(&[4]));
}

#[test]
fn a_transposed_matmul_operand_is_folded_into_the_contraction() {
    let f = |x: Tensor| jnp::matmul(&x, x.t());
    let x = random::normal(&random::key(5), &[30, 50]);
    let c = jit(f).lower(&x).compile();
    let text = c.jaxpr().to_string();
    assert!(!text.contains("transpose"), "{text}");
    assert!(
        text.contains("dimension_numbers=(([1], [1]), ([], []))"),
        "{text}"
    );
    let (got, want) = (c.call(x.clone()).unwrap(), f(x));
    for (a, b) in got.to_vec::<f32>().iter().zip(want.to_vec::<f32>()) {
        assert!((a - b).abs() <= 1e-4 * (1.0 + b.abs()), "{a} vs {b}");
    }
}
