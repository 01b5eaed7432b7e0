//! A scan whose rows never mix runs one loop per band of the batch's rows, one band per
//! thread: an RNN's loss, its gradient (a forward and a reverse loop) and a vmapped scan
//! give in a pool of several threads what they give in a pool of one, where the loop runs
//! whole, and a step whose rows mix gives the same in both.

use oxla::{grad, jit, lax, numpy as jnp, random, vmap, Tensor};

fn in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
    pool.expect("a pool").install(f)
}

fn normal(k: i64, shape: &[usize]) -> Tensor {
    random::normal(&random::key(k), shape)
}

fn close(a: &Tensor, b: &Tensor) {
    assert_eq!(a.shape(), b.shape());
    for (x, y) in a.to_vec::<f32>().iter().zip(b.to_vec::<f32>()) {
        assert!((x - y).abs() <= 1e-5 * (1.0 + y.abs()), "{x} against {y}");
    }
}

type Rnn = (Tensor, Tensor, Tensor);

/// The mean over steps of `sum(h * h)` (over the batch when `mix`, a sum the step takes
/// itself, or after the loop otherwise).
fn loss(((wh, wx, b), xs): (Rnn, Tensor), mix: bool) -> Tensor {
    let [_, batch, _] = xs.shape()[..] else {
        unreachable!("xs is [steps, batch, input]")
    };
    let step = move |(h, x): (Tensor, Tensor)| {
        let h = jnp::tanh(jnp::matmul(&h, &wh) + jnp::matmul(&x, &wx) + &b);
        let y = if mix {
            jnp::sum(&h * &h, None)
        } else {
            jnp::sum(&h * &h, 1)
        };
        (h, y)
    };
    let (_, ys): (Tensor, Tensor) = lax::scan(step, jnp::zeros(&[batch, 48]), xs).call();
    jnp::mean(ys, None)
}

fn params() -> Rnn {
    (
        normal(1, &[48, 48]) * 0.15,
        normal(2, &[16, 48]) * 0.25,
        normal(3, &[48]) * 0.1,
    )
}

#[test]
fn an_rnn_and_its_gradient_are_the_same_in_bands() {
    for batch in [8, 13] {
        for mix in [false, true] {
            let args = (params(), normal(4, &[200, batch, 16]));
            let run = |threads: usize| {
                in_pool(threads, || {
                    let value = jit(move |a: (Rnn, Tensor)| loss(a, mix));
                    let g = jit(move |a: (Rnn, Tensor)| grad(move |a| loss(a, mix)).call(a));
                    let v = value.call(args.clone()).expect("runs");
                    let (gh, gx, gb) = g.call(args.clone()).expect("runs");
                    [v, gh, gx, gb]
                })
            };
            let whole = run(1);
            for threads in [2, 3] {
                for (a, b) in run(threads).iter().zip(&whole) {
                    close(a, b);
                }
            }
        }
    }
}

#[test]
fn a_vmapped_scan_is_the_same_in_bands_and_as_a_loop_of_scans() {
    let (wh, wx, b) = params();
    let one = move |xs: Tensor| {
        let step = |(h, x): (Tensor, Tensor)| {
            let h = jnp::tanh(jnp::matmul(&h, &wh) + jnp::matmul(&x, &wx) + &b);
            (h.clone(), h)
        };
        lax::scan(step, jnp::zeros(&[48]), xs).call::<Tensor>().1
    };
    let xs = normal(5, &[12, 300, 16]);
    let banded = in_pool(2, || vmap(&one).call(xs.clone()));
    let looped: Vec<Tensor> = (0..12).map(|i| one(xs.index(i))).collect();
    close(&banded, &jnp::stack(&looped, 0));
}
