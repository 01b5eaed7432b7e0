//! Chunked `vmap` never answers silently wrong or over budget: an output that truly does
//! not depend on the mapped arguments may have `out_axes` `None` chunked or not (and its
//! gradient is the unchunked one), a mapped one is refused either way (tests/errors/);
//! a `memory_budget` that one example at a time does not fit is `Err(OutOfMemory)` naming
//! the budget and what one example needs, before anything runs.

use approx::assert_abs_diff_eq;
use oxla::{grad, numpy as jnp, random, vmap, Error, Tensor};

fn close(a: &Tensor, b: &Tensor) {
    assert_eq!(a.shape(), b.shape());
    for (x, y) in a.to_vec::<f32>().iter().zip(b.to_vec::<f32>()) {
        assert_abs_diff_eq!(*x, y, epsilon = 1e-4 * (1.0 + y.abs()));
    }
}

fn normal(seed: i64, shape: &[usize]) -> Tensor {
    random::normal(&random::key(seed), shape)
}

/// Per example `x * w`, and `2 * sum(w)` and a captured constant's square, which do not
/// depend on `x`.
fn scaled((x, w): (Tensor, Tensor)) -> (Tensor, Tensor, Tensor) {
    let c = Tensor::from_vec(vec![1.0f32, -2.0, 3.0], &[3]);
    (&x * &w, w.sum(None) * 2.0, &c * &c)
}

/// How to run `scaled` over a batch.
#[derive(Clone, Copy, Debug)]
enum Run {
    Whole,
    Chunk(usize),
    Budget(usize),
}

/// Whole, in chunks of 1, 2 and 3 (a remainder), and under a budget.
const RUNS: [Run; 5] = [
    Run::Whole,
    Run::Chunk(1),
    Run::Chunk(2),
    Run::Chunk(3),
    Run::Budget(1 << 20),
];

/// `scaled` over the rows of `xs`, `w` unmapped, its last two outputs with `out_axes` `None`.
fn run(how: Run, args: (Tensor, Tensor)) -> (Tensor, Tensor, Tensor) {
    let v = vmap(scaled).in_axes((0, None)).out_axes((0, None, None));
    match how {
        Run::Whole => v.call(args),
        Run::Chunk(k) => v.chunk_size(k).call(args),
        Run::Budget(b) => v.memory_budget(b).call(args).unwrap(),
    }
}

#[test]
fn an_unmapped_output_with_out_axes_none_is_returned_once_chunked_or_not() {
    let xs = normal(0, &[5, 3]);
    let w = normal(1, &[3]);
    for how in RUNS {
        let (ys, s, c2) = run(how, (xs.clone(), w.clone()));
        close(&ys, &(&xs * &w));
        assert_eq!(s.shape(), &[] as &[usize], "{how:?}");
        assert_abs_diff_eq!(s.item(), 2.0 * w.sum(None).item(), epsilon = 1e-5);
        assert_eq!(c2.to_vec::<f32>(), vec![1.0, 4.0, 9.0], "{how:?}");
    }
}

#[test]
fn the_gradient_through_an_unmapped_output_is_the_unchunked_one() {
    let xs = normal(2, &[7, 3]);
    let w = normal(3, &[3]);
    // d/dw [sum(xs * w) + 3 * (2 * sum(w))] = the sum of the rows of xs, plus 6.
    let want = &xs.sum(0) + 6.0;
    for how in RUNS {
        let loss = |args: (Tensor, Tensor)| {
            let (ys, s, _) = run(how, args);
            ys.sum(None) + s * 3.0
        };
        let g: Tensor = grad(loss).argnums(1).call((xs.clone(), w.clone()));
        assert_eq!(g.shape(), &[3], "{how:?}");
        close(&g, &want);
    }
}

#[test]
fn a_budget_below_one_example_is_out_of_memory_naming_the_budget() {
    // One example holds its 64 x 64 product (16 KiB); the 8 examples' argument is 128 KiB.
    let xs = normal(4, &[8, 64, 64]);
    let f = |x: Tensor| jnp::abs(&x.matmul(&x)).sum(None);
    let want: Tensor = vmap(f).call(xs.clone());
    let budget = 4096;
    let call = || vmap(f).memory_budget(budget).call::<_, Tensor>(xs.clone());
    let (line, r) = (line!() - 1, call());
    let err = r.expect_err("a budget of 4 KiB cannot hold even the argument");
    let msg = err.to_string();
    let Error::OutOfMemory { needed, limit, .. } = err else {
        panic!("expected OutOfMemory, got {msg}")
    };
    assert_eq!(limit, Some(budget));
    assert!(needed > 128 << 10, "{msg}");
    for part in [
        "memory_budget(4096)",
        &format!("tests/reliability_vmap.rs:{line}:"),
        "one example",
        "of arguments",
    ] {
        assert!(msg.contains(part), "{msg:?} does not mention {part:?}");
    }
    // Nothing ran: the argument is intact. At exactly what one example needs, it runs.
    assert_eq!(xs.shape(), &[8, 64, 64]);
    let got: Tensor = vmap(f).memory_budget(needed).call(xs.clone()).unwrap();
    close(&got, &want);
    let err = vmap(f)
        .memory_budget(needed - 1)
        .call::<_, Tensor>(xs.clone());
    assert!(matches!(err, Err(Error::OutOfMemory { .. })));
}

#[test]
fn a_budget_below_one_example_under_grad_is_out_of_memory_too() {
    let xs = normal(5, &[6, 32, 32]);
    let f = |x: Tensor| jnp::abs(&x.matmul(&x)).sum(None);
    let loss = |xs: Tensor| -> Tensor {
        let r = vmap(f).memory_budget(1024).call::<_, Tensor>(xs);
        assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{r:?}");
        r.unwrap_or_else(|_| jnp::zeros(&[6])).sum(None)
    };
    let g: Tensor = grad(loss).call(xs);
    assert_eq!(g.shape(), &[6, 32, 32]);
}
