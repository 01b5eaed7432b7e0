//! The workloads of the JAX surface (issue 18): programs that reach past the seeds for
//! `lax.scan`, convolutions, linear algebra and FFTs; and random draws (issue 20).

use oxla::{grad, jit, lax, numpy as jnp, random, Tensor};

use crate::limits::Work;
use crate::workloads::{per_call, Measure};

/// The RNN's sizes: steps, batch, input and hidden widths (`quick`: 200 steps).
pub fn rnn_sizes(quick: bool) -> [usize; 4] {
    [if quick { 200 } else { 1000 }, 16, 32, 128]
}

type Rnn = (Tensor, Tensor, Tensor);

/// The mean over steps of `sum(h * h)`, for `h = tanh(h @ wh + x @ wx + b)` scanned over `xs`.
fn rnn_loss(((wh, wx, b), xs): (Rnn, Tensor)) -> Tensor {
    let batch = xs.shape()[1];
    let hidden = wh.shape()[0];
    let step = move |(h, x): (Tensor, Tensor)| {
        let h = jnp::tanh(jnp::matmul(&h, &wh) + jnp::matmul(&x, &wx) + &b);
        let y = jnp::sum(&h * &h, None);
        (h, y)
    };
    let (_, ys): (Tensor, Tensor) = lax::scan(step, jnp::zeros(&[batch, hidden]), xs).call();
    jnp::mean(ys, None)
}

/// `jit(grad(loss))` of the RNN, as `bench/jax/rnn.py`: ten calls after the first, timed
/// together; the checksum is the sum of the gradient of `wh`.
pub fn rnn(quick: bool) -> Measure {
    let [t, b, d, h] = rnn_sizes(quick);
    let keys = random::split(&random::key(0), 3);
    let params = (
        random::normal(&keys.index(0), &[h, h]) * (1.0 / (h as f64).sqrt()),
        random::normal(&keys.index(1), &[d, h]) * (1.0 / (d as f64).sqrt()),
        jnp::zeros(&[h]),
    );
    let xs = random::normal(&keys.index(2), &[t, b, d]);
    let g = jit(|(p, xs): (Rnn, Tensor)| grad(rnn_loss).call((p, xs)));
    let first = g.call((params.clone(), xs.clone())).expect("compiles");
    let (s, last) = per_call(10, first, || {
        g.call((params.clone(), xs.clone())).expect("runs")
    });
    Measure::new(s, Some(jnp::sum(&last.0, None).item()))
}

/// The RNN's gradient: per example and step, a forward pass (two flops per weight) and a
/// backward one (two per weight for its gradient, two more per recurrent weight for the
/// state's; the inputs are not differentiated), the inputs read.
pub fn rnn_work(quick: bool) -> Work {
    let [t, b, d, h] = rnn_sizes(quick).map(|v| v as f64);
    Work::flops(t * b * (6.0 * h * h + 4.0 * d * h)).and_bytes(4.0 * t * b * d)
}

/// A real 2-D FFT: `2.5 N^2 log2(N^2)` flops per image, the images read and the half
/// spectra written (complex64).
pub fn rfft2_work(quick: bool) -> Work {
    let [b, n] = rfft2_sizes(quick).map(|v| v as f64);
    let flops = 2.5 * b * n * n * (n * n).log2();
    Work::flops(flops).and_bytes(4.0 * b * n * n + 8.0 * b * n * (n / 2.0 + 1.0))
}

/// The FFT workload's sizes: images and their side (`quick`: 32 images).
pub fn rfft2_sizes(quick: bool) -> [usize; 2] {
    [if quick { 32 } else { 256 }, 512]
}

/// `jit(jnp.fft.rfft2)` of a batch of f32 images, as `bench/jax/fft.py`: ten calls after
/// the first, timed together; the checksum is the sum of the real parts.
pub fn rfft2(quick: bool) -> Measure {
    let [b, n] = rfft2_sizes(quick);
    let x = random::normal(&random::key(0), &[b, n, n]);
    let f = jit(|x: Tensor| jnp::fft::rfft2(&x, None, [-2, -1], None));
    let first = f.call(x.clone()).expect("compiles");
    let (s, last) = per_call(10, first, || f.call(x.clone()).expect("runs"));
    Measure::new(s, Some(jnp::sum(jnp::real(&last), None).item()))
}

/// How many 100x100 images of normals the draw rows make: 2000 (20M values, seed 000's
/// images at N=2000), `quick` 500.
pub fn draws_n(quick: bool) -> usize {
    if quick {
        500
    } else {
        2000
    }
}

/// `random.normal(key, [n, 100, 100])`, eagerly or under `jit`, as `bench/jax/draws.py`:
/// ten draws after the first, timed together; the checksum is the sum of the values.
pub fn normals(jitted: bool, quick: bool) -> Measure {
    let shape = [draws_n(quick), 100, 100];
    let key = random::key(0);
    let f = jit(move |k: Tensor| random::normal(&k, &shape));
    let draw = || {
        if jitted {
            f.call(key.clone()).expect("runs")
        } else {
            random::normal(&key, &shape)
        }
    };
    let first = draw();
    let (s, last) = per_call(10, first, draw);
    let checksum = last.to_vec::<f32>().iter().map(|&v| v as f64).sum();
    Measure::new(s, Some(checksum))
}
