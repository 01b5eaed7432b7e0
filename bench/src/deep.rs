//! A deep program: `jit(grad(loss))` of a tanh MLP of 200 layers of width 64 at batch 32
//! (`bench/jax/deep.py`), where small products and the dispatch between steps are the
//! cost: its first call (trace, compile, run) and its steady state.

use oxla::{grad, jit, numpy as jnp, random, Tensor};

use crate::limits::Work;
use crate::workloads::{per_call, seconds, Measure};

/// Layers, width and batch (the same sizes with `--quick`: the program is small).
pub fn deep_sizes(_quick: bool) -> [usize; 3] {
    [200, 64, 32]
}

type Layers = Vec<(Tensor, Tensor)>;

fn loss((params, x): (Layers, Tensor)) -> Tensor {
    let mut h = x;
    for (w, b) in &params {
        h = jnp::tanh(h.matmul(w) + b);
    }
    jnp::mean(&(&h * &h), None)
}

/// The weights and input JAX's script draws: layer `i`'s weight from the `i`-th of
/// `layers + 1` split keys, scaled by `1/sqrt(width)`; zero biases; the input from the last.
fn data() -> (Layers, Tensor) {
    let [l, w, b] = deep_sizes(false);
    let keys = random::split(&random::key(0), l + 1);
    let params = (0..l)
        .map(|i| {
            let scale = 1.0 / (w as f64).sqrt();
            (
                random::normal(&keys.index(i), &[w, w]) * scale,
                jnp::zeros(&[w]),
            )
        })
        .collect();
    (params, random::normal(&keys.index(l), &[b, w]))
}

/// The first call of the jitted gradient: tracing, compiling and running it.
pub fn deep_first(_quick: bool) -> Measure {
    let args = data();
    let g = jit(|a: (Layers, Tensor)| grad(loss).call(a));
    let (s, out) = seconds(|| g.call(args).expect("runs"));
    Measure::new(s, Some(jnp::sum(&out[0].0, None).item()))
}

/// A call of the jitted gradient once compiled: 200 calls timed together, as JAX's
/// script times them.
pub fn deep_steady(_quick: bool) -> Measure {
    let args = data();
    let g = jit(|a: (Layers, Tensor)| grad(loss).call(a));
    let first = g.call(args.clone()).expect("compiles");
    let (s, out) = per_call(200, first, || g.call(args.clone()).expect("runs"));
    Measure::new(s, Some(jnp::sum(&out[0].0, None).item()))
}

/// Per layer, a forward product (two flops per weight and example) and two backward
/// ones (the weight's gradient and the input's); the weights read and their gradients
/// written.
pub fn deep_work(quick: bool) -> Work {
    let [l, w, b] = deep_sizes(quick).map(|v| v as f64);
    Work::flops(6.0 * l * b * w * w).and_bytes(8.0 * l * (w * w + w))
}
