//! `jit` under eager transforms: one staged call, transformed as a whole, traced and
//! compiled once.

use std::cell::Cell;

use crate::numpy as jnp;
use crate::{grad, jit, jvp, make_jaxpr, random, vmap, Tensor};

fn assert_close(got: &Tensor, want: &Tensor) {
    assert_eq!(got.shape(), want.shape());
    for (g, w) in got.to_vec::<f32>().iter().zip(want.to_vec::<f32>()) {
        assert!((g - w).abs() <= 1e-5 * (1.0 + w.abs()), "{g} against {w}");
    }
}

fn loss((w, x): (Tensor, Tensor)) -> Tensor {
    jnp::tanh(x.matmul(&w)).sum(None)
}

#[test]
fn a_traced_jit_is_one_call_named_after_its_function() {
    let w = random::normal(&random::key(0), &[4, 3]);
    let x = random::normal(&random::key(1), &[4]);
    let j = make_jaxpr(|a| jit(loss).call(a).unwrap(), (w.clone(), x.clone()));
    assert_eq!(j.jaxpr.eqns.len(), 1, "{j}");
    let text = j.to_string();
    assert!(
        text.contains("c:f32[] = jit[\n      jaxpr={ lambda"),
        "{text}"
    );
    assert!(text.contains("name=loss"), "{text}");
    let lambda = make_jaxpr(|x: Tensor| jit(|x: Tensor| x * 2.0).call(x).unwrap(), x);
    assert!(lambda.to_string().contains("name=<lambda>"), "{lambda}");
}

#[test]
fn vmap_of_jit_is_one_compiled_call_traced_once() {
    let traced = Cell::new(0);
    let f = jit(|(w, x): (Tensor, Tensor)| {
        traced.set(traced.get() + 1);
        jnp::tanh(x.matmul(&w))
    });
    let w = random::normal(&random::key(0), &[8, 5]);
    let xs = random::normal(&random::key(1), &[6, 8]);
    let batched = vmap(|a| f.call(a).unwrap()).in_axes((None, 0));
    let want = jnp::tanh(xs.matmul(&w));
    for _ in 0..3 {
        let got: Tensor = batched.call((w.clone(), xs.clone()));
        assert_close(&got, &want);
    }
    assert_eq!(traced.get(), 1, "f traced once for its signature");
    // Traced, the batched function is one call of the batched body.
    let inner = make_jaxpr(|a| batched.call(a), (w, xs));
    assert!(inner.to_string().contains("f32[6,5] = jit["), "{inner}");
}

#[test]
fn grad_and_jvp_of_jit_match_those_of_the_function() {
    let w = random::normal(&random::key(2), &[6, 3]);
    let x = random::normal(&random::key(3), &[6]);
    let jf = jit(loss);
    let staged = |a| jf.call(a).unwrap();
    let (gw, gx): (Tensor, Tensor) = grad(staged).argnums([0, 1]).call((w.clone(), x.clone()));
    let (ww, wx): (Tensor, Tensor) = grad(loss).argnums([0, 1]).call((w.clone(), x.clone()));
    assert_close(&gw, &ww);
    assert_close(&gx, &wx);
    let tangents = (jnp::ones_like(&w), jnp::zeros_like(&x));
    let (p, t) = jvp(staged, (w.clone(), x.clone()), tangents.clone());
    let (wp, wt) = jvp(loss, (w.clone(), x.clone()), tangents);
    assert_close(&p, &wp);
    assert_close(&t, &wt);
    // Per-example gradients, in both orders of vmap and grad around the call.
    let xs = random::normal(&random::key(4), &[5, 6]);
    let per: Tensor = vmap(|a| grad(staged).call(a))
        .in_axes((None, 0))
        .call((w.clone(), xs.clone()));
    let want: Tensor = vmap(|a| grad(loss).call(a))
        .in_axes((None, 0))
        .call((w, xs));
    assert_close(&per, &want);
}

#[test]
fn grad_of_jit_runs_the_forward_pass_once() {
    let w = random::normal(&random::key(7), &[6, 3]);
    let x = random::normal(&random::key(8), &[6]);
    let jf = jit(loss);
    let j = make_jaxpr(|a| grad(|a| jf.call(a).unwrap()).call(a), (w, x));
    // The forward half returns the loss and the residuals; the backward half reads them
    // and the cotangent, and never calls tanh again.
    assert_eq!(
        j.jaxpr
            .eqns
            .iter()
            .filter(|e| e.prim.name() == "jit")
            .count(),
        2,
        "{j}"
    );
    let text = j.to_string();
    assert_eq!(text.matches("tanh").count(), 1, "{text}");
}

#[test]
fn a_function_capturing_a_tracer_is_traced_into_the_trace_around_it() {
    let xs = jnp::arange(4.0);
    let ys: Tensor = vmap(|x: Tensor| {
        let scaled = jit(|y: Tensor| &y * &x);
        scaled.call(jnp::ones(&[3])).unwrap().sum(None)
    })
    .call(xs);
    assert_eq!(ys.to_vec::<f32>(), vec![0.0, 3.0, 6.0, 9.0]);
}

#[test]
fn a_program_being_compiled_inlines_the_calls_staged_in_it() {
    let w = random::normal(&random::key(5), &[8, 5]);
    let xs = random::normal(&random::key(6), &[6, 8]);
    let staged = make_jaxpr(
        |a| {
            vmap(|a| jit(loss).call(a).unwrap())
                .in_axes((None, 0))
                .call(a)
        },
        (w.clone(), xs.clone()),
    );
    assert!(staged.to_string().contains("jit["), "{staged}");
    let compiled = jit(|a: (Tensor, Tensor)| {
        let leaves = crate::Tree::leaves(&a);
        crate::eval_jaxpr(&staged, &leaves).remove(0)
    })
    .lower(&(w.clone(), xs.clone()))
    .compile();
    assert!(
        !compiled.jaxpr().to_string().contains("jit["),
        "{}",
        compiled.jaxpr()
    );
    let want: Tensor = vmap(loss).in_axes((None, 0)).call((w.clone(), xs.clone()));
    assert_close(&compiled.call((w, xs)).unwrap(), &want);
}

#[test]
fn a_call_traced_under_a_named_axis_is_kept_per_axis_size() {
    let f = jit(|v: Tensor| crate::lax::pmean(&v, "i"));
    let mean = |n: usize| -> Tensor {
        let xs = jnp::arange(n as f64 * 2.0).reshape(&[n, 2]);
        vmap(|v| f.call(v).unwrap()).axis_name("i").call(xs)
    };
    assert_eq!(mean(3).to_vec::<f32>(), [2.0, 3.0].repeat(3));
    assert_eq!(mean(4).to_vec::<f32>(), [3.0, 4.0].repeat(4));
}

#[test]
fn call_names_are_function_names_or_lambda() {
    use super::call_name;
    assert_eq!(call_name::<fn(Tensor) -> Tensor>(), "<lambda>");
    assert_eq!(call_name::<Box<dyn Fn(Tensor) -> Tensor>>(), "<lambda>");
    fn named<T>(x: T) -> T {
        x
    }
    fn name_of<F>(_: &F) -> String {
        call_name::<F>()
    }
    assert_eq!(name_of(&named::<Tensor>), "named");
    assert_eq!(name_of(&|x: Tensor| x), "<lambda>");
}
