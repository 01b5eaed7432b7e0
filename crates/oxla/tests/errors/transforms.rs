//! Mistakes in transforms, control flow, random keys and builders name the user's line: the
//! call that made the mistake, not a line inside oxla.

use oxla::numpy::{self as jnp, s};
use oxla::{eval_jaxpr, grad, jit, lax, make_jaxpr, random, value_and_grad, vmap, DType, Tensor};

use crate::m23;
use crate::panics::{assert_mentions, message};

#[test]
fn vmap_in_axes_out_of_range() {
    let bad = || vmap(|x: Tensor| x).in_axes(2).call::<_, Tensor>(m23());
    let (line, msg) = (line!() - 1, message(bad));
    assert_mentions(&msg, line, &["vmap", "in_axes 2", "[2, 3]"]);
    let bad = || vmap(|x: Tensor| x).in_axes((0, 0)).call::<_, Tensor>(m23());
    let (line, msg) = (line!() - 1, message(bad));
    assert_mentions(&msg, line, &["vmap", "in_axes (0, 0)", "does not match"]);
}

#[test]
fn a_transform_passed_on_with_as_fn_names_the_as_fn_line() {
    // The inner vmap's axis is out of range for the outer's examples (rank 1 each).
    let inner = vmap(|x: Tensor| x).in_axes(1).as_fn();
    let line = line!() - 1;
    let msg = message(|| vmap(inner).call::<Tensor, Tensor>(m23()));
    assert_mentions(&msg, line, &["vmap", "in_axes 1", "[3]"]);
    // A gradient of a function whose output is not a scalar.
    let g = grad(|x: Tensor| &x * 2.0).as_fn();
    let line = line!() - 1;
    let msg = message(|| vmap(g).call::<Tensor, Tensor>(m23()));
    assert_mentions(&msg, line, &["grad requires a scalar", "f32[3]"]);
}

#[test]
fn a_named_vmap_axis_is_named_in_its_errors() {
    let bad = || {
        vmap(|(a, b): (Tensor, Tensor)| &a + &b)
            .axis_name("batch")
            .call::<_, Tensor>((m23(), jnp::ones(&[3, 3])))
    };
    let (line, msg) = (line!() - 2, message(bad));
    assert_mentions(
        &msg,
        line,
        &["vmap (axis_name \"batch\")", "must all have one size"],
    );
}

#[test]
fn what_a_transform_binds_is_recorded_at_the_users_line() {
    // vmap's own moveaxis (out_axes 1) and grad's seed are the user's equations.
    let f = |x: Tensor| vmap(|r: Tensor| r.sin()).out_axes(1).call(x);
    let line = line!() - 1;
    let jaxpr = make_jaxpr(f, m23());
    for e in &jaxpr.jaxpr.eqns {
        assert_eq!(
            (e.source.file(), e.source.line()),
            (file!(), line),
            "{jaxpr}"
        );
    }
}

#[test]
fn vmap_out_axes_none_of_a_mapped_output() {
    let f = vmap(|x: Tensor| &x * 2.0).out_axes(None);
    let (line, msg) = (line!(), message(|| f.call::<_, Tensor>(m23())));
    assert_mentions(
        &msg,
        line,
        &["vmap has mapped output but out_axes is None", "f32[3]"],
    );
}

#[test]
fn vmap_out_axes_none_of_a_mapped_output_chunked() {
    let f = vmap(|x: Tensor| &x * 2.0).out_axes(None);
    let chunked = || f.clone().chunk_size(1).call::<_, Tensor>(m23());
    let (line, msg) = (line!() - 1, message(chunked));
    assert_mentions(&msg, line, &["vmap has mapped output but out_axes is None"]);
    let budgeted = || f.memory_budget(1 << 20).call::<_, Tensor>(m23());
    let (line, msg) = (line!() - 1, message(budgeted));
    assert_mentions(&msg, line, &["vmap has mapped output but out_axes is None"]);
}

#[test]
fn vmap_out_axes_none_of_a_mapped_output_chunked_under_grad() {
    let loss = |x: Tensor| {
        let f = vmap(|r: Tensor| &r * &r).out_axes(None).chunk_size(1);
        let y: Tensor = f.call(x);
        y.sum(None)
    };
    let line = line!() - 3;
    let msg = message(|| grad(loss).call::<_, Tensor>(m23()));
    assert_mentions(&msg, line, &["vmap has mapped output but out_axes is None"]);
}

#[test]
fn vmap_out_axes_out_of_range() {
    let f = vmap(|x: Tensor| x.sum(None)).out_axes(2);
    let (line, msg) = (line!(), message(|| f.call::<_, Tensor>(m23())));
    assert_mentions(&msg, line, &["vmap", "out_axes 2", "rank 1"]);
    let chunked = || f.chunk_size(1).call::<_, Tensor>(m23());
    let (line, msg) = (line!() - 1, message(chunked));
    assert_mentions(&msg, line, &["vmap", "out_axes 2", "rank 1"]);
}

#[test]
fn vmap_chunk_size_zero() {
    let (line, msg) = (line!(), message(|| vmap(|x: Tensor| x).chunk_size(0)));
    assert_mentions(&msg, line, &["vmap", "chunk_size", "0"]);
}

#[test]
fn lax_map_batch_size_zero() {
    let bad = || lax::map(|x: Tensor| x, m23()).batch_size(0);
    let (line, msg) = (line!() - 1, message(bad));
    assert_mentions(&msg, line, &["lax::map", "batch_size", "0"]);
}

#[test]
fn compiled_call_with_other_shapes() {
    let c = jit(|x: Tensor| &x * 2.0).lower(&m23()).compile();
    let (line, msg) = (line!(), message(|| c.call(jnp::ones(&[3]))));
    assert_mentions(
        &msg,
        line,
        &["compiled for arguments (f32[2,3])", "(f32[3])"],
    );
    let (line, msg) = (line!(), message(|| c.profile(jnp::ones(&[3]))));
    assert_mentions(
        &msg,
        line,
        &["compiled for arguments (f32[2,3])", "(f32[3])"],
    );
}

/// A tracer of a finished `make_jaxpr`, leaked by its closure.
fn leaked_tracer() -> Tensor {
    let mut leaked = None;
    make_jaxpr(
        |t: Tensor| {
            leaked = Some(t.clone());
            t
        },
        jnp::ones(&[3]),
    );
    leaked.expect("the closure ran")
}

#[test]
fn an_escaped_tracer_used_in_a_later_trace() {
    let leaked = leaked_tracer();
    let f = |t: Tensor| &t + &leaked;
    let (line, msg) = (line!() - 1, message(|| make_jaxpr(f, jnp::ones(&[3]))));
    assert_mentions(&msg, line, &["add", "f32[3]", "escaped"]);
}

#[test]
fn an_escaped_tracer_returned_from_a_later_trace() {
    let leaked = leaked_tracer();
    let bad = || make_jaxpr(|_: Tensor| leaked.clone(), m23());
    let (line, msg) = (line!() - 1, message(bad));
    assert_mentions(&msg, line, &["f32[3]", "escaped"]);
}

#[test]
fn grad_argnums_minus_one_is_the_last_argument() {
    let f = |(a, b, c): (Tensor, Tensor, Tensor)| (&a * &b * &c).sum(None);
    let args = (
        jnp::full(&[2], 2.0),
        jnp::full(&[2], 3.0),
        jnp::full(&[2], 5.0),
    );
    let gc: Tensor = grad(f).argnums(-1).call(args.clone());
    assert_eq!(gc.to_vec::<f32>(), vec![6.0, 6.0]);
    let (ga, gb): (Tensor, Tensor) = grad(f).argnums((-3, -2)).call(args.clone());
    assert_eq!(ga.to_vec::<f32>(), vec![15.0, 15.0]);
    assert_eq!(gb.to_vec::<f32>(), vec![10.0, 10.0]);
    let (v, gc): (Tensor, Tensor) = value_and_grad(f).argnums(-1).call(args.clone());
    assert_eq!((v.item(), gc.to_vec::<f32>()), (60.0, vec![6.0, 6.0]));
    // A function of one argument: -1 is that argument.
    let g: Tensor = grad(|x: Tensor| (&x * &x).sum(None))
        .argnums(-1)
        .call(jnp::full(&[2], 3.0));
    assert_eq!(g.to_vec::<f32>(), vec![6.0, 6.0]);
}

#[test]
fn grad_argnums_out_of_range() {
    let f = |(a, b): (Tensor, Tensor)| (&a * &b).sum(None);
    let args = (jnp::ones(&[2]), jnp::ones(&[2]));
    let g = grad(f).argnums(-3);
    let (line, msg) = (line!(), message(|| g.call::<_, Tensor>(args.clone())));
    assert_mentions(&msg, line, &["grad", "argnums -3", "2 arguments"]);
    let g = grad(f).argnums(2);
    let (line, msg) = (line!(), message(|| g.call::<_, Tensor>(args.clone())));
    assert_mentions(&msg, line, &["grad", "argnums 2", "2 arguments"]);
}

#[test]
fn scan_over_a_scalar() {
    let step = |(c, x): (Tensor, Tensor)| (&c + &x, x);
    let (x0, x1) = (Tensor::scalar(0.0f32), Tensor::scalar(1.0f32));
    let bad = || lax::scan(step, x0.clone(), x1.clone()).call();
    let (line, msg) = (line!() - 1, message(bad));
    assert_mentions(&msg, line, &["scan", "leading axis"]);
}

#[test]
fn scan_length_disagrees_with_xs_or_is_missing() {
    let step = |(c, x): (Tensor, Tensor)| (&c + &x, x);
    let (c0, xs) = (Tensor::scalar(0.0f32), jnp::ones(&[3]));
    let bad = || lax::scan(step, c0.clone(), xs.clone()).length(4).call();
    let (line, msg) = (line!() - 1, message(bad));
    assert_mentions(&msg, line, &["scan", "`length` argument of 4", "sizes [3]"]);
    let none = |(c, ()): (Tensor, ())| (c.clone(), c);
    let bad = || lax::scan(none, c0.clone(), ()).call::<Tensor>();
    let (line, msg) = (line!() - 1, message(bad));
    assert_mentions(&msg, line, &["scan", "no values to scan over", "length"]);
}

#[test]
fn eval_jaxpr_of_the_wrong_arguments() {
    let j = make_jaxpr(|x: Tensor| &x * 2.0, m23());
    let (line, msg) = (line!(), message(|| eval_jaxpr(&j, &[])));
    assert_mentions(&msg, line, &["eval_jaxpr", "0 arguments for 1 inputs"]);
    let (line, msg) = (line!(), message(|| eval_jaxpr(&j, &[jnp::ones(&[3])])));
    assert_mentions(&msg, line, &["eval_jaxpr", "f32[3]", "f32[2,3]"]);
}

#[test]
fn a_malformed_prng_key() {
    let bad = jnp::ones(&[2]);
    let (line, msg) = (line!(), message(|| random::normal(&bad, &[3])));
    assert_mentions(&msg, line, &["PRNG key", "f32[2]"]);
    let split = || random::split(&jnp::arange(3).astype(DType::U32), 2);
    let (line, msg) = (line!() - 1, message(split));
    assert_mentions(&msg, line, &["PRNG key", "u32[3]"]);
    let (line, msg) = (line!(), message(|| random::fold_in(&bad, 1)));
    assert_mentions(&msg, line, &["PRNG key", "f32[2]"]);
    let key = random::key(0);
    let int = || random::uniform_range(&key, &[3], 0.0, 1.0, DType::I32);
    let (line, msg) = (line!() - 1, message(int));
    assert_mentions(&msg, line, &["uniform", "int32"]);
}

#[test]
fn a_slice_step_of_zero() {
    let (line, msg) = (line!(), message(|| s(None, None, 0)));
    assert_mentions(&msg, line, &["slice step cannot be zero"]);
}

#[test]
fn ix_of_a_matrix() {
    let (line, msg) = (line!(), message(|| jnp::ix_(&[jnp::arange(2), m23()])));
    assert_mentions(&msg, line, &["ix_", "one-dimensional", "[2, 3]"]);
}

#[test]
fn numpy_constructors_of_bad_arguments() {
    let (line, msg) = (line!(), message(|| jnp::arange_step(0.0, 1.0, 0.0)));
    assert_mentions(&msg, line, &["arange_step", "step"]);
    let (line, msg) = (line!(), message(|| jnp::concatenate(&[], 0)));
    assert_mentions(&msg, line, &["concatenate", "at least one"]);
    let (line, msg) = (line!(), message(|| jnp::stack(&[], 0)));
    assert_mentions(&msg, line, &["stack", "at least one"]);
    let bad = || Tensor::from_vec(vec![1.0f32, 2.0], &[3]);
    let (line, msg) = (line!() - 1, message(bad));
    assert_mentions(&msg, line, &["from_vec", "2 elements", "[3]"]);
    let (line, msg) = (line!(), message(|| m23().item()));
    assert_mentions(&msg, line, &["item()", "[2, 3]"]);
    let (line, msg) = (line!(), message(|| m23().to_vec::<i32>()));
    assert_mentions(&msg, line, &["int32", "float32"]);
}

#[test]
fn reading_the_value_of_a_tracer_names_the_line() {
    let f = |x: Tensor| &x * x.item();
    let (line, msg) = (line!() - 1, message(|| make_jaxpr(f, jnp::ones(&[3]))));
    assert_mentions(
        &msg,
        line,
        &["a tracer of aval f32[3] has no concrete value"],
    );
}

#[test]
fn grad_of_a_while_loop() {
    let below_10 = |x: Tensor| jnp::less(x.sum(None), 10.0);
    let f = |x: Tensor| lax::while_loop(below_10, |x: Tensor| &x * 2.0, x).sum(None);
    let line = line!() - 1;
    let msg = message(|| grad(f).call::<_, Tensor>(jnp::ones(&[2])));
    assert_mentions(&msg, line, &["while_loop", "fori_loop"]);
}
