//! Tracing: make_jaxpr's text, source lines, closure conversion, and the reference evaluator.

#[path = "../examples/seeds/mod.rs"]
mod seeds;

use oxla::core::{trace, Atom};
use oxla::{eval_jaxpr, make_jaxpr, numpy as jnp, Tensor, Tree};

#[test]
fn seed_004_jaxpr_prints_exactly_as_jax() {
    let j = make_jaxpr(seeds::outer_sum, jnp::ones(&[100]));
    assert_eq!(
        j.to_string(),
        "{ lambda ; a:f32[100]. let
    b:f32[100,1] = broadcast_in_dim[broadcast_dimensions=(0,) shape=(100, 1)] a
    c:f32[1,100] = broadcast_in_dim[broadcast_dimensions=(1,) shape=(1, 100)] a
    d:f32[100,100] = mul b c
    e:f32[] = reduce_sum[axes=(0, 1)] d
  in (e,) }"
    );
}

#[test]
fn short_jaxprs_print_on_one_line_and_literals_show_dtypes() {
    let j = make_jaxpr(|x: Tensor| &x * 2.0, jnp::ones(&[3, 4]));
    assert_eq!(
        j.to_string(),
        "{ lambda ; a:f32[3,4]. let b:f32[3,4] = mul a 2.0:f32[] in (b,) }"
    );
    let j = make_jaxpr(
        |(a, b): (Tensor, Tensor)| (a.clone(), &a + &b),
        (jnp::ones(&[2]), jnp::ones(&[2])),
    );
    assert_eq!(
        j.to_string(),
        "{ lambda ; a:f32[2] b:f32[2]. let c:f32[2] = add a b in (a, c) }"
    );
}

#[test]
fn source_info_names_the_users_line() {
    let line = line!() + 1;
    let j = make_jaxpr(|x: Tensor| jnp::exp(&x).sum(None), jnp::ones(&[3]));
    let text = j.pretty().source_info(true).to_string();
    let here = format!("tests/tracing.rs:{line}:");
    assert_eq!(text.matches(&here).count(), 2, "{text}");
    assert!(j.jaxpr.eqns.iter().all(|e| e.source.line() == line));
}

#[test]
fn concrete_arrays_become_constvars_and_scalars_literals() {
    let c = jnp::array(&[1.0f32, 2.0, 3.0], &[3]);
    let j = make_jaxpr(|x: Tensor| &x * &c + 1.0, jnp::ones(&[3]));
    assert_eq!(j.jaxpr.constvars.len(), 1);
    assert_eq!(j.consts.len(), 1);
    assert!(matches!(j.jaxpr.eqns[1].inputs[1], Atom::Lit(_)));
    assert!(j
        .to_string()
        .starts_with("{ lambda a:f32[3]; b:f32[3]. let"));
    let out = eval_jaxpr(&j, &[jnp::ones(&[3])]);
    assert_eq!(out[0].to_vec::<f32>(), vec![2.0, 3.0, 4.0]);
}

#[test]
fn closures_over_outer_tracers_are_closure_converted() {
    // The inner function captures `x`, a tracer of the outer trace: it becomes a constvar
    // of the inner jaxpr whose value is that tracer, and inlining works.
    let outer = |x: Tensor| {
        let inner = |y: Tensor| &y * &x;
        let (j, _) = trace(inner, &x);
        assert_eq!(j.jaxpr.constvars.len(), 1);
        assert_eq!(j.consts[0].is_tracer(), x.is_tracer());
        eval_jaxpr(&j, &[&x + 1.0]).pop().unwrap()
    };
    let j = make_jaxpr(outer, jnp::ones(&[2]));
    assert_eq!(
        j.to_string(),
        "{ lambda ; a:f32[2]. let b:f32[2] = add a 1.0:f32[]; c:f32[2] = mul b a in (c,) }"
    );
    let x = jnp::array(&[1.0f32, 2.0], &[2]);
    assert_eq!(outer(x.clone()).to_vec::<f32>(), vec![2.0, 6.0]);
    assert_eq!(eval_jaxpr(&j, &[x])[0].to_vec::<f32>(), vec![2.0, 6.0]);
}

#[test]
fn the_evaluator_reproduces_eager_results_of_the_seeds() {
    let lattice = oxla::random::uniform(&oxla::random::key(3), &[6, 6, 6, 19]);
    for id in [0, 37, 215] {
        let id = Tensor::scalar(id);
        for variant in [1, 2] {
            let f = |(i, v): (Tensor, Tensor)| seeds::memory_test(&i, &v, variant);
            let eager = f((id.clone(), lattice.clone()));
            let j = make_jaxpr(f, (id.clone(), lattice.clone()));
            let evaluated = eval_jaxpr(&j, &[id.clone(), lattice.clone()]);
            assert_eq!(eager.to_vec::<f32>(), evaluated[0].to_vec::<f32>());
        }
    }
}

#[test]
fn trees_flatten_to_jaxpr_inputs_and_outputs() {
    let f = |(p, xs): ((Tensor, Tensor), Vec<Tensor>)| {
        let (w, b) = p;
        xs.iter().map(|x| &w * x + &b).collect::<Vec<_>>()
    };
    let args = (
        (Tensor::scalar(2.0f32), Tensor::scalar(1.0f32)),
        vec![jnp::ones(&[2]), jnp::zeros(&[2])],
    );
    assert_eq!(args.leaves().len(), 4);
    let j = make_jaxpr(f, args.clone());
    assert_eq!(j.jaxpr.invars.len(), 4);
    assert_eq!(j.jaxpr.outvars.len(), 2);
    let out = eval_jaxpr(&j, &args.leaves());
    assert_eq!(out[0].to_vec::<f32>(), vec![3.0, 3.0]);
    assert_eq!(out[1].to_vec::<f32>(), vec![1.0, 1.0]);
}

#[test]
fn creation_inside_a_trace_stages_primitives() {
    let j = make_jaxpr(
        |x: Tensor| &x + jnp::ones(&[3]) + jnp::arange(3.0),
        jnp::zeros(&[3]),
    );
    let text = j.to_string();
    assert!(
        text.contains("broadcast_in_dim[broadcast_dimensions=() shape=(3,)] 1.0:f32[]"),
        "{text}"
    );
    assert!(
        text.contains("iota[dimension=0 dtype=float32 shape=(3,)]"),
        "{text}"
    );
    assert!(j.jaxpr.constvars.is_empty());
}
