//! Mistakes only a trace makes (reading a tracer's value, a tracer escaping its trace),
//! messages that name the caller's line, and an interpreter left usable after a panic.

use oxla::numpy as jnp;
use oxla::{eval_jaxpr, lax, make_jaxpr, DType, Tensor};

use crate::m23;
use crate::panics::{assert_mentions, message};

#[test]
#[should_panic(expected = "a tracer of aval f32[3] has no concrete value")]
fn reading_the_value_of_a_tracer() {
    make_jaxpr(|x: Tensor| &x * x.item(), jnp::ones(&[3]));
}

#[test]
fn messages_name_the_callers_line() {
    let (a, b, m) = (jnp::ones(&[3]), jnp::ones(&[4]), m23());
    // numpy functions and operators.
    let (line, msg) = (line!(), message(|| jnp::add(&a, &b)));
    assert_mentions(&msg, line, &["add", "f32[3]", "f32[4]"]);
    let (line, msg) = (line!(), message(|| &a - &b));
    assert_mentions(&msg, line, &["subtract", "f32[3]", "f32[4]"]);
    let (line, msg) = (line!(), message(|| m.sum(5)));
    assert_mentions(&msg, line, &["sum", "axis 5"]);
    let (line, msg) = (line!(), message(|| jnp::mean(&m, 5)));
    assert_mentions(&msg, line, &["mean", "axis 5"]);
    let (line, msg) = (line!(), message(|| m.index((0, 5))));
    assert_mentions(&msg, line, &["index", "[2, 3]"]);
    let (line, msg) = (line!(), message(|| m.reshape(&[5])));
    assert_mentions(&msg, line, &["reshape", "[2, 3]", "[5]"]);
    let (line, msg) = (line!(), message(|| jnp::matmul(&m, &m)));
    assert_mentions(&msg, line, &["matmul", "[2, 3]"]);
    let (line, msg) = (line!(), message(|| m.transpose([0, 2])));
    assert_mentions(&msg, line, &["transpose", "axis 2"]);
    let (line, msg) = (line!(), message(|| jnp::squeeze(&m, [-3])));
    assert_mentions(&msg, line, &["squeeze", "axis -3"]);
    let (line, msg) = (line!(), message(|| m.index(jnp::ones(&[2]))));
    assert_mentions(&msg, line, &["index", "float32"]);
    let (i2, i3) = (jnp::arange(2), jnp::arange(3));
    let (line, msg) = (line!(), message(|| m.index((&i2, &i3))));
    assert_mentions(&msg, line, &["index arrays of shapes [2], [3]"]);
    let (line, msg) = (line!(), message(|| jnp::remainder(&a, &b)));
    assert_mentions(&msg, line, &["remainder", "f32[3]", "f32[4]"]);
    // lax functions: the primitive, the operand avals, the line.
    let (line, msg) = (line!(), message(|| lax::add(&a, &b)));
    assert_mentions(&msg, line, &["add", "operands: (f32[3], f32[4])"]);
    let (line, msg) = (line!(), message(|| lax::exp(&jnp::arange(3))));
    assert_mentions(&msg, line, &["exp", "i32[3]"]);
    let f = |x: &Tensor| lax::dot_general(x, x, (&[1], &[1]), (&[], &[0]), None);
    let (line, msg) = (line!(), message(|| f(&m)));
    assert_mentions(&msg, line - 1, &["dot_general", "f32[2,3]"]);
    // Inside make_jaxpr: the line inside the traced function.
    let sum5 = |x: Tensor| x.sum(5);
    let (line, msg) = (line!(), message(|| make_jaxpr(sum5, m.clone())));
    assert_mentions(&msg, line - 1, &["sum", "axis 5"]);
    let plus_b = |x: Tensor| &x + &b;
    let (line, msg) = (line!(), message(|| make_jaxpr(plus_b, a.clone())));
    assert_mentions(&msg, line - 1, &["add", "f32[3]", "f32[4]"]);
    let neg_bool = |x: Tensor| lax::neg(&x.astype(DType::Bool));
    let (line, msg) = (line!(), message(|| make_jaxpr(neg_bool, a.clone())));
    assert_mentions(&msg, line - 1, &["neg", "bool[3]"]);
}

#[test]
fn a_panic_inside_make_jaxpr_leaves_the_interpreter_usable() {
    let x = jnp::arange(3.0);
    for _ in 0..3 {
        let msg = message(|| make_jaxpr(|t: Tensor| jnp::add(&t, jnp::ones(&[4])), x.clone()));
        assert!(msg.contains("cannot be broadcast"), "{msg}");
        assert!(!oxla::core::is_tracing(), "the failed trace was popped");
        // Eager operations run eagerly again.
        let y = &x * 2.0 + 1.0;
        assert!(!y.is_tracer());
        assert_eq!(y.to_vec::<f32>(), vec![1.0, 3.0, 5.0]);
        // make_jaxpr works again, from a fresh trace.
        let j = make_jaxpr(|t: Tensor| &t * 2.0, x.clone());
        assert_eq!(
            j.to_string(),
            "{ lambda ; a:f32[3]. let b:f32[3] = mul a 2.0:f32[] in (b,) }"
        );
        assert_eq!(
            eval_jaxpr(&j, std::slice::from_ref(&x))[0].to_vec::<f32>(),
            vec![0.0, 2.0, 4.0]
        );
    }
}

#[test]
fn a_panic_in_an_inner_trace_caught_inside_an_outer_one() {
    let x = jnp::arange(3.0);
    let j = make_jaxpr(
        |t: Tensor| {
            let msg = message(|| {
                make_jaxpr(
                    |u: Tensor| {
                        let _ = &u * 3.0;
                        u.reshape(&[2])
                    },
                    t.clone(),
                )
            });
            assert!(msg.contains("reshape"), "{msg}");
            assert!(oxla::core::is_tracing(), "the outer trace is still open");
            &t + 1.0
        },
        x.clone(),
    );
    // The inner trace's equations stay out of the outer jaxpr.
    assert_eq!(
        j.to_string(),
        "{ lambda ; a:f32[3]. let b:f32[3] = add a 1.0:f32[] in (b,) }"
    );
    assert!(!oxla::core::is_tracing());
}

#[test]
fn a_panic_inside_a_numpy_function_does_not_pin_later_lines() {
    let x = jnp::arange(3.0);
    // numpy functions pin their caller's line while they run; a panic must release it.
    let _ = message(|| make_jaxpr(|t: Tensor| t.sum(7), x.clone()));
    let _ = message(|| x.index((0, 0)));
    let j = make_jaxpr(|t: Tensor| lax::neg(&t), x.clone());
    let line = line!() - 1;
    let text = j.pretty().source_info(true).to_string();
    assert!(
        text.contains(&format!("tests/errors/tracing.rs:{line}")),
        "{text}"
    );
}

#[test]
fn a_tracer_that_escaped_its_trace_is_an_error_eagerly() {
    let mut leaked = None;
    make_jaxpr(
        |t: Tensor| {
            leaked = Some(t.clone());
            t
        },
        jnp::ones(&[3]),
    );
    let leaked = leaked.expect("the closure ran");
    let (line, msg) = (line!(), message(|| lax::neg(&leaked)));
    assert_mentions(&msg, line, &["neg", "tracer whose trace has ended"]);
}

#[test]
fn a_tracer_that_escaped_its_trace_is_an_error_in_a_later_trace() {
    let mut leaked = None;
    make_jaxpr(
        |t: Tensor| {
            leaked = Some(t.clone());
            t
        },
        jnp::ones(&[3]),
    );
    let leaked = leaked.expect("the closure ran");
    let msg = message(|| make_jaxpr(|t: Tensor| &t + &leaked, jnp::ones(&[3])));
    assert!(msg.contains("tracer"), "{msg}");
}
