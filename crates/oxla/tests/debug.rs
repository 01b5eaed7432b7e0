//! `debug::print!`, `debug::callback` and `disable_jit`: the lines printed, and their order,
//! eagerly and under `jit`, `vmap` (chunked too), `grad` and the loops; the orders are
//! those `jax.debug.print` gives in JAX 0.10.2. Expected lines format eager tensors with
//! their `Display`, so they check what is printed and when, whatever the array format.

use std::sync::{Arc, Mutex};

use oxla::{debug, disable_jit, grad, jit, jvp, lax, make_jaxpr, numpy as jnp, vmap, Tensor};

fn vec1(v: &[f32]) -> Tensor {
    jnp::array(v, &[v.len()])
}

/// The lines `printing` writes for one example `x`, computed eagerly.
fn printed(x: &[f32]) -> String {
    let x = vec1(x);
    format!("x = {x}\nx = {x}, y = {}\n", jnp::sin(&x))
}

/// `x` printed, then `sin(x)` printed with it: the function of JAX's examples.
fn printing(x: Tensor) -> Tensor {
    debug::print!("x = {}", x);
    let y = jnp::sin(&x);
    debug::print!("x = {}, y = {}", x, y);
    y.sum(None)
}

#[test]
fn eager_prints_at_once() {
    let (_, out) = debug::capture(|| {
        debug::print!("hello");
        let x = vec1(&[1.0, 2.0]);
        debug::print!("x = {}", x);
        debug::print!("{} and {}", x.sum(None), &x * 2.0);
        debug::print!(
            "{b} after {a}, {a} again",
            a = x.sum(None),
            b = Tensor::scalar(4.0f32)
        );
    });
    let x = vec1(&[1.0, 2.0]);
    let twice = &x * 2.0;
    assert_eq!(
        out,
        format!("hello\nx = {x}\n3.0 and {twice}\n4.0 after 3.0, 3.0 again\n")
    );
}

#[test]
fn jit_prints_every_call_with_the_values_of_that_call() {
    let f = jit(printing);
    let (_, out) = debug::capture(|| {
        f.call(vec1(&[0.0, 1.0, 2.0])).unwrap();
        f.call(vec1(&[3.0, 4.0, 5.0])).unwrap();
    });
    assert_eq!(f.cache_size(), 1);
    assert_eq!(out, printed(&[0.0, 1.0, 2.0]) + &printed(&[3.0, 4.0, 5.0]));
}

#[test]
fn a_print_whose_values_nothing_else_reads_survives_the_simplifier() {
    // The program's only effect is the print: its result is the argument itself, the
    // printed value is dead code, and a print of a constant could be folded.
    let f = jit(|x: Tensor| {
        debug::print!("twice: {}", &x * 2.0);
        debug::print!("constant: {}", Tensor::scalar(1.0f32) + 1.0);
        x
    });
    let (_, out) = debug::capture(|| f.call(vec1(&[1.0, 2.0])).unwrap());
    assert_eq!(
        out,
        format!("twice: {}\nconstant: 2.0\n", vec1(&[2.0, 4.0]))
    );
    let c = f.lower(&vec1(&[1.0, 2.0])).compile();
    let prims: Vec<&str> = c
        .fusion()
        .iter()
        .flat_map(|s| s.primitives.clone())
        .collect();
    assert_eq!(prims.iter().filter(|&&p| p == "debug_print").count(), 2);
}

#[test]
fn a_large_program_prints_to_its_callers_sink() {
    // Planned over 1 MiB, the program's steps run on a thread of the pool, which writes
    // to the sink of the thread that called it.
    let f = jit(|x: Tensor| {
        let y = jnp::exp(&x);
        debug::print!("sum = {}", y.sum(None));
        y * 2.0
    });
    let x = jnp::zeros(&[1 << 20]);
    let (_, out) = debug::capture(|| f.call(x.clone()).unwrap());
    assert_eq!(out, "sum = 1.048576e+06\n", "as jnp.sum prints");
    let c = f.lower(&x).compile();
    assert!(c.memory_analysis().peak_bytes >= 1 << 20);
}

#[test]
fn equal_prints_are_not_merged() {
    let show = |x: &Tensor| debug::print!("{}", x);
    let f = jit(move |x: Tensor| {
        show(&x);
        show(&x);
        x
    });
    let (_, out) = debug::capture(|| f.call(Tensor::scalar(7.0f32)).unwrap());
    assert_eq!(out, "7.0\n7.0\n");
}

#[test]
fn make_jaxpr_prints_the_debug_print_equation_as_jax() {
    let j = make_jaxpr(
        |x: Tensor| {
            debug::print!("x = {}", x);
            debug::print!("hello");
            x
        },
        Tensor::scalar(1.0f32),
    );
    // Laid out as JAX lays it out (its Python-only parameters left out), the trailing
    // space of an equation without operands included.
    assert_eq!(
        j.to_string(),
        "\
{ lambda ; a:f32[]. let
    debug_print[
      fmt=x = {}
      has_placeholders=True
      ordered=False
      partitioned=False
    ] a
    debug_print[
      fmt=hello
      has_placeholders=False
      ordered=False
      partitioned=False
    ] 
  in (a,) }"
    );
}

#[test]
fn make_jaxpr_prints_the_debug_callback_equation() {
    fn note(_: Tensor) {}
    let j = make_jaxpr(
        |x: Tensor| {
            debug::callback(note, x.clone());
            x
        },
        Tensor::scalar(1.0f32),
    );
    assert_eq!(
        j.to_string(),
        "\
{ lambda ; a:f32[]. let
    debug_callback[
      callback=<function debug::make_jaxpr_prints_the_debug_callback_equation::note>
      effect=Debug
      partitioned=False
    ] a
  in (a,) }"
    );
}

#[test]
fn vmap_prints_one_line_per_example_in_order() {
    let xs = jnp::arange(6.0).reshape(&[2, 3]);
    // Each print once per example: the first print's lines, then the second's.
    let (a, b) = (printed(&[0.0, 1.0, 2.0]), printed(&[3.0, 4.0, 5.0]));
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    let expected = format!("{}\n{}\n{}\n{}\n", a[0], b[0], a[1], b[1]);
    let (_, eager) = debug::capture(|| vmap(printing).call(xs.clone()));
    assert_eq!(eager, expected);
    let f = jit(|xs: Tensor| vmap(printing).call(xs));
    let (_, jitted) = debug::capture(|| f.call(xs.clone()).unwrap());
    assert_eq!(jitted, expected);
}

#[test]
fn vmap_prints_unmapped_operands_whole_and_nested_vmaps_inner_axis_first() {
    let f = |x: Tensor, y: Tensor| {
        debug::print!("{} {}", x, y);
        x
    };
    let (_, out) = debug::capture(|| {
        vmap(move |(x, y): (Tensor, Tensor)| f(x, y))
            .in_axes((Some(0), None))
            .call((vec1(&[0.0, 1.0]), Tensor::scalar(5.0f32)))
    });
    assert_eq!(out, "0.0 5.0\n1.0 5.0\n");
    let g = |x: Tensor| {
        debug::print!("{}", x);
        x
    };
    let inner = move |row: Tensor| vmap(g).call(row);
    let (_, out) = debug::capture(|| vmap(inner).call(jnp::arange(4.0).reshape(&[2, 2])));
    // As JAX: the inner vmap unbatches first, so example (i, j) prints in the order of j,
    // then i.
    assert_eq!(out, "0.0\n2.0\n1.0\n3.0\n");
}

#[test]
fn chunked_vmap_prints_every_example_in_order() {
    let g = |x: Tensor| {
        debug::print!("{}", x);
        &x * 2.0
    };
    let xs = jnp::arange(5.0);
    let (y, out): (Tensor, String) = debug::capture(|| vmap(g).chunk_size(2).call(xs.clone()));
    assert_eq!(out, "0.0\n1.0\n2.0\n3.0\n4.0\n");
    assert_eq!(y.to_vec::<f32>(), vec![0.0, 2.0, 4.0, 6.0, 8.0]);
    let f = jit(move |xs: Tensor| vmap(g).chunk_size(2).call(xs));
    let (_, out) = debug::capture(|| f.call(xs.clone()).unwrap());
    assert_eq!(out, "0.0\n1.0\n2.0\n3.0\n4.0\n");
    // Under grad each chunk is recomputed on the backward pass, which does not print.
    let loss = move |xs: Tensor| vmap(g).chunk_size(2).call(xs).sum(None);
    let (dx, out) = debug::capture(|| grad(loss).call::<_, Tensor>(xs.clone()));
    assert_eq!(out, "0.0\n1.0\n2.0\n3.0\n4.0\n");
    assert_eq!(dx.to_vec::<f32>(), vec![2.0; 5]);
}

#[test]
fn grad_prints_the_primal_values_once() {
    let expected = printed(&[0.0, 1.0, 2.0]);
    let x = jnp::arange(3.0);
    let (g, out) = debug::capture(|| grad(printing).call::<_, Tensor>(x.clone()));
    assert_eq!(out, expected);
    assert_eq!(g.to_vec::<f32>(), jnp::cos(&x).to_vec::<f32>());
    let f = jit(|x: Tensor| grad(printing).call::<_, Tensor>(x));
    let (_, out) = debug::capture(|| f.call(x.clone()).unwrap());
    assert_eq!(out, expected);
}

#[test]
fn jvp_prints_the_primals_only() {
    let g = |x: Tensor| {
        debug::print!("{}", x);
        &x * 3.0
    };
    let ((y, t), out) = debug::capture(|| jvp(g, Tensor::scalar(1.0f32), Tensor::scalar(2.0f32)));
    assert_eq!(out, "1.0\n");
    assert_eq!((y.item(), t.item()), (3.0, 6.0));
}

/// The scan body of JAX's example: prints the carry and the slice.
fn body((c, x): (Tensor, Tensor)) -> (Tensor, Tensor) {
    debug::print!("c={} x={}", c, x);
    (&c * &x, c)
}

#[test]
fn scan_prints_at_every_step_eagerly_and_under_jit() {
    let expected = "c=1.0 x=1.0\nc=1.0 x=2.0\nc=2.0 x=3.0\n";
    let xs = vec1(&[1.0, 2.0, 3.0]);
    let run = |xs: Tensor| lax::scan(body, Tensor::scalar(1.0f32), xs).call().0;
    let (_, out) = debug::capture(|| run(xs.clone()));
    assert_eq!(out, expected);
    let (_, out) = debug::capture(|| jit(run).call(xs.clone()).unwrap());
    assert_eq!(out, expected);
    // Under grad: the forward pass's steps only, as JAX (the backward pass recomputes the
    // steps without printing).
    let (g, out) = debug::capture(|| grad(run).call::<_, Tensor>(xs.clone()));
    assert_eq!(out, expected);
    assert_eq!(g.to_vec::<f32>(), vec![6.0, 3.0, 2.0]);
}

#[test]
fn a_jitted_step_prints_on_the_forward_pass_only() {
    // The step is a `jit` call under the eager scan and grad: the backward pass, which
    // recomputes the steps, prints nothing, and neither do later calls that reuse the
    // transformed calls.
    let expected = "c=1.0 x=1.0\nc=1.0 x=2.0\nc=2.0 x=3.0\n";
    let step = jit(body);
    let run = |xs: Tensor| {
        let s = |a: (Tensor, Tensor)| step.call(a).unwrap();
        lax::scan(s, Tensor::scalar(1.0f32), xs).call().0
    };
    let xs = vec1(&[1.0, 2.0, 3.0]);
    for _ in 0..2 {
        let (g, out) = debug::capture(|| grad(run).call::<_, Tensor>(xs.clone()));
        assert_eq!(out, expected);
        assert_eq!(g.to_vec::<f32>(), vec![6.0, 3.0, 2.0]);
        let (_, out) = debug::capture(|| run(xs.clone()));
        assert_eq!(out, expected);
    }
    let grad_of_call = |x: Tensor| grad(|x: Tensor| jit(printing).call(x).unwrap()).call(x);
    let (_, out) = debug::capture(|| grad_of_call(jnp::arange(3.0)));
    assert_eq!(out, printed(&[0.0, 1.0, 2.0]));
}

#[test]
fn vmap_of_scan_prints_each_step_per_example() {
    let run = |xs: Tensor| lax::scan(body, Tensor::scalar(1.0f32), xs).call().0;
    let (_, out) = debug::capture(|| vmap(run).call(jnp::arange(4.0).reshape(&[2, 2])));
    assert_eq!(out, "c=1.0 x=0.0\nc=1.0 x=2.0\nc=0.0 x=1.0\nc=2.0 x=3.0\n");
}

#[test]
fn while_loop_and_cond_print_the_steps_and_branch_taken() {
    let count = |n: i32| {
        lax::while_loop(
            move |c: Tensor| jnp::less(&c, n),
            |c: Tensor| {
                debug::print!("w {}", c);
                c + 1
            },
            Tensor::scalar(0i32),
        )
    };
    let (_, out) = debug::capture(|| count(3));
    assert_eq!(out, "w 0\nw 1\nw 2\n");
    let (_, out) = debug::capture(|| jit(move |_: Tensor| count(2)).call(Tensor::scalar(0i32)));
    assert_eq!(out, "w 0\nw 1\n");
    // A mapped predicate: the body runs on every lane while any continues, a finished
    // lane's carry kept, as JAX prints it.
    let upto = |n: Tensor| {
        lax::while_loop(
            move |c: Tensor| jnp::less(&c, &n),
            |c: Tensor| {
                debug::print!("w {}", c);
                c + 1
            },
            Tensor::scalar(0i32),
        )
    };
    let (_, out) = debug::capture(|| vmap(upto).call(jnp::array(&[1i32, 3], &[2])));
    assert_eq!(out, "w 0\nw 0\nw 1\nw 1\nw 1\nw 2\n");
    let branch = |p: Tensor, x: Tensor| {
        lax::cond(
            &p,
            |x: Tensor| {
                debug::print!("T {}", x);
                x
            },
            |x: Tensor| {
                debug::print!("F {}", x);
                x
            },
            x,
        )
    };
    let (_, out) = debug::capture(|| {
        jit(move |(p, x): (Tensor, Tensor)| branch(p, x))
            .call((Tensor::scalar(true), Tensor::scalar(1.0f32)))
            .unwrap()
    });
    assert_eq!(out, "T 1.0\n");
    // A mapped predicate runs both branches on every example, as JAX: false first.
    let (_, out) = debug::capture(|| {
        vmap(move |(p, x): (Tensor, Tensor)| branch(p, x))
            .call((jnp::array(&[true, false], &[2]), vec1(&[0.0, 1.0])))
    });
    assert_eq!(out, "F 0.0\nF 1.0\nT 0.0\nT 1.0\n");
}

#[test]
fn disable_jit_runs_the_function_eagerly() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let f = jit(move |x: Tensor| {
        log.lock().unwrap().push(x.is_tracer());
        jnp::sin(&x) * 2.0
    });
    let x = vec1(&[0.5, 1.0]);
    let eager = disable_jit(|| f.call(x.clone())).unwrap();
    assert_eq!(*seen.lock().unwrap(), vec![false]);
    assert_eq!(f.cache_size(), 0);
    // Nested transforms still transform: grad and vmap trace as usual inside.
    let g =
        disable_jit(|| grad(|x: Tensor| f.call(x).unwrap().sum(None)).call::<_, Tensor>(x.clone()));
    assert_eq!(*seen.lock().unwrap(), vec![false, true]);
    assert_eq!(g.to_vec::<f32>(), (jnp::cos(&x) * 2.0).to_vec::<f32>());
    let compiled = f.call(x.clone()).unwrap();
    assert_eq!(f.cache_size(), 1);
    assert_eq!(eager.to_vec::<f32>(), compiled.to_vec::<f32>());
}

#[test]
fn disable_jit_is_restored_after_a_panic() {
    let caught = std::panic::catch_unwind(|| disable_jit(|| panic!("inside")));
    assert!(caught.is_err());
    let f = jit(|x: Tensor| {
        assert!(x.is_tracer(), "jit is enabled again");
        x
    });
    f.call(Tensor::scalar(1.0f32)).unwrap();
    assert_eq!(f.cache_size(), 1);
}

#[test]
fn callback_gets_concrete_values_per_example_and_per_call() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let f = move |x: Tensor| {
        let log = log.clone();
        debug::callback(
            move |(a, b): (Tensor, Tensor)| {
                assert!(!a.is_tracer());
                log.lock().unwrap().push((a.to_vec::<f32>(), b.item()));
            },
            (x.clone(), x.sum(None)),
        );
        x
    };
    let xs = jnp::arange(4.0).reshape(&[2, 2]);
    jit(f.clone()).call(xs.clone()).unwrap();
    vmap(f).call(xs);
    assert_eq!(
        *seen.lock().unwrap(),
        vec![
            (vec![0.0, 1.0, 2.0, 3.0], 6.0),
            (vec![0.0, 1.0], 1.0),
            (vec![2.0, 3.0], 5.0),
        ]
    );
}
