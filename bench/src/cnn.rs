//! The convolution workloads of the JAX surface (issue 18): per-example gradients of a
//! small CNN, and one 3x3 convolution, beside `bench/jax/cnn.py`.

use oxla::{grad, jit, lax, nn, numpy as jnp, random, vmap, Tensor};

use crate::limits::Work;
use crate::workloads::{per_call, Measure};

const NHWC: (&str, &str, &str) = ("NHWC", "HWIO", "NHWC");

/// The CNN's batch (`quick`: 64).
pub fn cnn_batch(quick: bool) -> usize {
    if quick {
        64
    } else {
        256
    }
}

type Cnn = (Tensor, Tensor, Tensor, Tensor, Tensor, Tensor);

fn conv(x: &Tensor, w: &Tensor, stride: usize) -> Tensor {
    lax::conv_general_dilated(
        x,
        w,
        &[stride, stride],
        "SAME",
        None,
        None,
        NHWC,
        1,
        1,
        None,
    )
}

/// One example's loss: two 3x3 convolutions (1 -> 8, then 8 -> 16 with stride 2) with tanh,
/// the mean over positions, a dense layer to 10 logits and cross-entropy.
fn cnn_loss(((w1, b1, w2, b2, w3, b3), x, y): (Cnn, Tensor, Tensor)) -> Tensor {
    let x = jnp::reshape(&x, &[1, 28, 28, 1]);
    let h = jnp::tanh(conv(&x, &w1, 1) + &b1);
    let h = jnp::tanh(conv(&h, &w2, 2) + &b2);
    let f = jnp::mean(jnp::reshape(&h, &[196, 16]), 0);
    let logits = jnp::matmul(&f, &w3) + &b3;
    -jnp::sum(&y * &nn::log_softmax(logits, -1), None)
}

/// The parameters and data, from the same threefry keys as the JAX script.
fn cnn_data(batch: usize) -> (Cnn, Tensor, Tensor) {
    let k = random::split(&random::key(0), 4);
    let params = (
        random::normal(&k.index(0), &[3, 3, 1, 8]) * (1.0 / 3.0),
        jnp::zeros(&[8]),
        random::normal(&k.index(1), &[3, 3, 8, 16]) * (1.0 / 72f64.sqrt()),
        jnp::zeros(&[16]),
        random::normal(&k.index(2), &[16, 10]) * 0.25,
        jnp::zeros(&[10]),
    );
    let x = random::normal(&k.index(3), &[batch, 28, 28, 1]);
    let labels = jnp::remainder(jnp::arange(batch as i32), 10i32);
    (params, x, nn::one_hot(labels, 10))
}

/// `jit(vmap(grad(loss), in_axes=(None, 0, 0)))` of the CNN, as `cnn.py per_example`:
/// twenty calls after the first, timed together; the checksum is the sum of the second
/// kernel's per-example gradients.
pub fn cnn_grad(quick: bool) -> Measure {
    let data = cnn_data(cnn_batch(quick));
    let f =
        jit(|a: (Cnn, Tensor, Tensor)| vmap(grad(cnn_loss).as_fn()).in_axes((None, 0, 0)).call(a));
    let first = f.call(data.clone()).expect("compiles");
    let (s, last) = per_call(20, first, || f.call(data.clone()).expect("runs"));
    Measure::new(s, Some(jnp::sum(&last.2, None).item()))
}

/// The CNN's per-example gradients: the forward pass's flops (the 3x3 convolutions
/// 1 -> 8 on 28x28 and 8 -> 16 on 14x14, the dense layer) three times, but twice for the
/// first convolution (its input, the image, is not differentiated); the images read and
/// every example's gradients written.
pub fn cnn_work(quick: bool) -> Work {
    let b = cnn_batch(quick) as f64;
    let first = 2.0 * 28.0 * 28.0 * 9.0 * 8.0;
    let rest = 2.0 * (14.0 * 14.0 * 9.0 * 8.0 * 16.0 + 160.0);
    let weights = (72 + 8 + 1152 + 16 + 160 + 10) as f64;
    Work::flops(b * (2.0 * first + 3.0 * rest)).and_bytes(4.0 * b * (784.0 + weights))
}

/// One 3x3 convolution, `C -> C` channels, SAME: its multiply-adds, input and result.
pub fn conv_work(quick: bool) -> Work {
    let [b, s, c] = conv_sizes(quick).map(|v| v as f64);
    Work::flops(2.0 * b * s * s * 9.0 * c * c).and_bytes(8.0 * b * s * s * c)
}

/// The 3x3 convolution's sizes: batch (`quick`: 64), side, channels in and out.
pub fn conv_sizes(quick: bool) -> [usize; 3] {
    [if quick { 64 } else { 256 }, 28, 32]
}

/// `jit` of one 3x3 `SAME` convolution, NHWC, as `cnn.py conv`: twenty calls after the
/// first; the checksum is the sum of the result.
pub fn conv3x3(quick: bool) -> Measure {
    let [b, s, c] = conv_sizes(quick);
    let k = random::split(&random::key(1), 2);
    let x = random::normal(&k.index(0), &[b, s, s, c]);
    let w = random::normal(&k.index(1), &[3, 3, c, c]) * (1.0 / (9.0 * c as f64).sqrt());
    let f = jit(|(x, w): (Tensor, Tensor)| conv(&x, &w, 1));
    let first = f.call((x.clone(), w.clone())).expect("compiles");
    let (secs, last) = per_call(20, first, || f.call((x.clone(), w.clone())).expect("runs"));
    Measure::new(secs, Some(jnp::sum(&last, None).item()))
}
