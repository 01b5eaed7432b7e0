//! The workloads: each one's oxla side (run here), its JAX script and how to read what the
//! script prints. Sizes are those of `shared/jax-reference/README.md`; `--quick` shrinks
//! the long ones.

use std::time::Instant;

use oxla::{grad, jit, numpy as jnp, random, vmap, Tensor};

use crate::limits::{affinity_work, lattice_work, mlp_work, prodl1_work, spd_work, Work};
use crate::measure::{
    field, parse_affinity, parse_first, parse_lbm, parse_pegrad, parse_steady, rss,
};
use crate::{cnn, deep, seeds, surface};

pub use crate::measure::{Measure, Unit};

/// A workload: its name, the target ratio (or time), its oxla side and its JAX side.
pub struct Workload {
    pub name: &'static str,
    pub about: &'static str,
    pub target: &'static str,
    pub unit: Unit,
    /// Runs the oxla side (`quick`: smaller sizes) and measures it.
    pub oxla: fn(bool) -> Measure,
    /// The JAX script and its arguments.
    pub jax: fn(bool) -> (&'static str, Vec<String>),
    /// Reads the script's output.
    pub parse: fn(&str) -> Option<Measure>,
    /// The least work it needs, for the limit column.
    pub work: fn(bool) -> Work,
}

pub static WORKLOADS: &[Workload] = &[
    Workload {
        name: "lattice-v1",
        about: "seed 004, 3x3x3 gather over N^3 x 19, N=200 (quick 100)",
        target: "0.1",
        unit: Unit::Seconds,
        oxla: |q| lattice(1, q),
        jax: |q| ("lbm.py", args(&[lattice_n(q), 1])),
        parse: parse_lbm,
        work: |q| lattice_work(lattice_n(q)),
    },
    Workload {
        name: "lattice-v2",
        about: "seed 004 with the size-2 axis",
        target: "0.1",
        unit: Unit::Seconds,
        oxla: |q| lattice(2, q),
        jax: |q| ("lbm.py", args(&[lattice_n(q), 2])),
        parse: parse_lbm,
        work: |q| lattice_work(lattice_n(q)),
    },
    Workload {
        name: "matmul",
        about: "seed 000, inner-product affinities, N=10000 (quick 2000) 100x100 images",
        target: "1.0",
        unit: Unit::Seconds,
        oxla: |q| affinity(Mode::Matmul, q),
        jax: |q| ("affinity.py", affinity_args(q, "matmul")),
        parse: parse_affinity,
        work: |q| affinity_work(affinity_n(q, "matmul"), 2.0),
    },
    Workload {
        name: "cosine",
        about: "seed 000, cosine affinities",
        target: "0.3",
        unit: Unit::Seconds,
        oxla: |q| affinity(Mode::Cosine, q),
        jax: |q| ("affinity.py", affinity_args(q, "cosine")),
        parse: parse_affinity,
        work: |q| affinity_work(affinity_n(q, "cosine"), 2.0),
    },
    Workload {
        name: "l1block",
        about: "seed 000, -sum|a-b| by blocked vmap, N=2000 (quick 500), block 100",
        target: "0.3",
        unit: Unit::Seconds,
        oxla: |q| affinity(Mode::L1Block, q),
        jax: |q| ("affinity.py", affinity_args(q, "l1block")),
        parse: parse_affinity,
        work: |q| affinity_work(affinity_n(q, "l1block"), 3.0),
    },
    Workload {
        name: "prodl1",
        about: "seed 000, -sum|a @ b| per pair by vmap(vmap), N=2000 (quick 500) 32x32 images",
        target: "0.35",
        unit: Unit::Seconds,
        oxla: |q| affinity(Mode::ProdL1, q),
        jax: |q| ("affinity.py", prodl1_args(q)),
        parse: parse_affinity,
        work: |q| prodl1_work(affinity_n(q, "prodl1")),
    },
    Workload {
        name: "pergrad-256",
        about: "seed 002, per-example gradients of a 784-256-10 MLP, batch 256",
        target: "0.2",
        unit: Unit::Seconds,
        oxla: |_| grads(true, 256),
        jax: |_| {
            (
                "pegrad.py",
                args(&[256]).into_iter().chain(["mlp".into()]).collect(),
            )
        },
        parse: |t| parse_pegrad(t, "per_example"),
        work: |_| mlp_work(256, true),
    },
    Workload {
        name: "pergrad-2048",
        about: "the same, batch 2048 (quick 512)",
        target: "0.2",
        unit: Unit::Seconds,
        oxla: |q| grads(true, big_batch(q)),
        jax: |q| ("pegrad.py", pegrad_args(big_batch(q))),
        parse: |t| parse_pegrad(t, "per_example"),
        work: |q| mlp_work(big_batch(q), true),
    },
    Workload {
        name: "meangrad-2048",
        about: "mean gradient of the same MLP, batch 2048 (quick 512)",
        target: "1.0",
        unit: Unit::Seconds,
        oxla: |q| grads(false, big_batch(q)),
        jax: |q| ("pegrad.py", pegrad_args(big_batch(q))),
        parse: |t| parse_pegrad(t, "mean"),
        work: |q| mlp_work(big_batch(q), false),
    },
    Workload {
        name: "pergrad-2048-vj",
        about: "per-example gradients as vmap(jit(grad(loss))): jit inside an eager vmap",
        target: "0.2",
        unit: Unit::Seconds,
        oxla: |q| grads_inside(true, big_batch(q)),
        jax: |q| ("pegrad.py", orders_args(big_batch(q))),
        parse: |t| parse_pegrad(t, "vj_per_example"),
        work: |q| mlp_work(big_batch(q), true),
    },
    Workload {
        name: "meangrad-2048-gj",
        about: "mean gradient as grad(jit(mean loss)): jit inside an eager grad",
        target: "1.0",
        unit: Unit::Seconds,
        oxla: |q| grads_inside(false, big_batch(q)),
        jax: |q| ("pegrad.py", orders_args(big_batch(q))),
        parse: |t| parse_pegrad(t, "gj_mean"),
        work: |q| mlp_work(big_batch(q), false),
    },
    Workload {
        name: "dispatch",
        about: "a call of a jitted x * y + 1 on f32[4]",
        target: "1 µs",
        unit: Unit::Micros,
        oxla: |_| dispatch(),
        jax: |_| ("dispatch.py", vec![]),
        parse: |t| Some(Measure::new(field(t, "dispatch_us")? * 1e-6, None)),
        work: |_| Work::default(),
    },
    Workload {
        name: "first-call",
        about: "trace, compile and run x * y + 1 the first time",
        target: "2 ms",
        unit: Unit::Seconds,
        oxla: |_| first_call(),
        jax: |_| ("dispatch.py", vec![]),
        parse: |t| Some(Measure::new(field(t, "compile_first_ms")? * 1e-3, None)),
        work: |_| Work::default(),
    },
    Workload {
        name: "deep-first",
        about: "jit(grad) of a 200-layer tanh MLP (width 64, batch 32): the first call",
        target: "0.5",
        unit: Unit::Seconds,
        oxla: deep::deep_first,
        jax: |q| ("deep.py", args(&deep::deep_sizes(q))),
        parse: |t| parse_first(t, "deep"),
        work: |_| Work::default(),
    },
    Workload {
        name: "deep-steady",
        about: "the same, a call once compiled",
        target: "0.9",
        unit: Unit::Seconds,
        oxla: deep::deep_steady,
        jax: |q| ("deep.py", args(&deep::deep_sizes(q))),
        parse: |t| parse_steady(t, "deep"),
        work: deep::deep_work,
    },
    Workload {
        name: "rnn-grad",
        about: "gradient of a 1000-step (quick 200) tanh RNN through lax.scan, batch 16, 32 -> 128",
        target: "0.5",
        unit: Unit::Seconds,
        oxla: surface::rnn,
        jax: |q| ("rnn.py", args(&surface::rnn_sizes(q))),
        parse: |t| parse_steady(t, "rnn"),
        work: surface::rnn_work,
    },
    Workload {
        name: "rfft2",
        about: "jit(jnp.fft.rfft2) of 256 (quick 32) f32 images 512x512",
        target: "1.0",
        unit: Unit::Seconds,
        oxla: surface::rfft2,
        jax: |q| ("fft.py", args(&surface::rfft2_sizes(q))),
        parse: |t| parse_steady(t, "rfft2"),
        work: surface::rfft2_work,
    },
    Workload {
        name: "cnn-pegrad",
        about:
            "per-example gradients of a CNN (3x3 convs 1 -> 8 -> 16, 28x28), batch 256 (quick 64)",
        target: "0.5",
        unit: Unit::Seconds,
        oxla: cnn::cnn_grad,
        jax: |q| {
            (
                "cnn.py",
                vec!["per_example".into(), cnn::cnn_batch(q).to_string()],
            )
        },
        parse: |t| parse_steady(t, "cnn"),
        work: cnn::cnn_work,
    },
    Workload {
        name: "conv-3x3",
        about: "a 3x3 SAME convolution, NHWC 256x28x28x32 (quick batch 64), 32 -> 32",
        target: "1.0",
        unit: Unit::Seconds,
        oxla: cnn::conv3x3,
        jax: |q| {
            let mut a = vec!["conv".to_string()];
            a.extend(args(&cnn::conv_sizes(q)));
            ("cnn.py", a)
        },
        parse: |t| parse_steady(t, "conv"),
        work: cnn::conv_work,
    },
    Workload {
        name: "normal-20m",
        about: "random.normal of 2000x100x100 (quick 500), eagerly: seed 000's images",
        target: "0.5",
        unit: Unit::Seconds,
        oxla: |q| surface::normals(false, q),
        jax: |q| ("draws.py", args(&[surface::draws_n(q)])),
        parse: |t| parse_steady(t, "normal_eager"),
        work: |q| Work::bytes(4e4 * surface::draws_n(q) as f64),
    },
    Workload {
        name: "normal-20m-jit",
        about: "the same draw under jit",
        target: "0.5",
        unit: Unit::Seconds,
        oxla: |q| surface::normals(true, q),
        jax: |q| ("draws.py", args(&[surface::draws_n(q)])),
        parse: |t| parse_steady(t, "normal_jit"),
        work: |q| Work::bytes(4e4 * surface::draws_n(q) as f64),
    },
    Workload {
        name: "spd-solve",
        about: "jit(vmap(cholesky and solve)) of 1000 SPD 64x64 matrices (quick 200)",
        target: "1.0",
        unit: Unit::Seconds,
        oxla: |q| spd_solve(spd_batch(q)),
        jax: |q| ("linalg.py", args(&[spd_batch(q), 64])),
        parse: |t| {
            Some(Measure {
                rss_mib: rss(t),
                ..Measure::new(field(t, "steady_ms")? * 1e-3, field(t, "checksum"))
            })
        },
        work: |q| spd_work(spd_batch(q)),
    },
];

fn args(v: &[usize]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

fn lattice_n(quick: bool) -> usize {
    if quick {
        100
    } else {
        200
    }
}

fn affinity_n(quick: bool, mode: &str) -> usize {
    match (quick, mode) {
        (false, "l1block" | "prodl1") => 2000,
        (true, "l1block" | "prodl1") => 500,
        (false, _) => 10000,
        (true, _) => 2000,
    }
}

fn affinity_args(quick: bool, mode: &str) -> Vec<String> {
    let n = affinity_n(quick, mode).to_string();
    vec![n, "100".into(), mode.into(), "100".into()]
}

/// Seed 000's prodl1 over 32 x 32 images, rows mapped 100 at a time by JAX's script.
fn prodl1_args(quick: bool) -> Vec<String> {
    let n = affinity_n(quick, "prodl1").to_string();
    vec![n, "32".into(), "prodl1".into(), "100".into()]
}

fn big_batch(quick: bool) -> usize {
    if quick {
        512
    } else {
        2048
    }
}

fn pegrad_args(b: usize) -> Vec<String> {
    vec![b.to_string(), "mlp".into()]
}

/// `pegrad.py`'s arguments for the other orders of `jit` and the transforms.
fn orders_args(b: usize) -> Vec<String> {
    vec![b.to_string(), "mlp".into(), "orders".into()]
}

/// Seconds `f` takes.
pub fn seconds<O>(f: impl FnOnce() -> O) -> (f64, O) {
    let t = Instant::now();
    let o = f();
    (t.elapsed().as_secs_f64(), o)
}

/// Times `n` calls of `f` as JAX's scripts run them, `out = f()` then
/// `for _ in range(n): out = f()`: each result stays alive until the next call has
/// returned, so a large result needs a second buffer in the first timed call, as in
/// Python. `first` is the untimed call's result. Returns the seconds per call and the last
/// result.
pub fn per_call<O>(n: usize, first: O, mut f: impl FnMut() -> O) -> (f64, O) {
    let mut out = first;
    let (s, ()) = seconds(|| {
        for _ in 0..n {
            out = f();
        }
    });
    (s / n as f64, out)
}

fn lattice(variant: usize, quick: bool) -> Measure {
    let n = lattice_n(quick);
    let args = (jnp::arange((n * n * n) as i32), jnp::ones(&[n, n, n, 19]));
    let f = jit(seeds::memory_test_batched(variant));
    let first = f.call(args.clone()).expect("compiles");
    // As JAX's script does: the second call, compiled and warm.
    let (s, r) = per_call(1, first, || f.call(args.clone()).expect("runs"));
    Measure::new(s, Some(r.max(None).item()))
}

enum Mode {
    Matmul,
    Cosine,
    L1Block,
    ProdL1,
}

fn affinity(mode: Mode, quick: bool) -> Measure {
    let name = match mode {
        Mode::Matmul => "matmul",
        Mode::Cosine => "cosine",
        Mode::L1Block => "l1block",
        Mode::ProdL1 => "prodl1",
    };
    let n = affinity_n(quick, name);
    let side = if let Mode::ProdL1 = mode { 32 } else { 100 };
    let imgs = random::normal(&random::key(0), &[n, side, side]);
    let block = 100;
    let block_vs_all = jit(|(blk, all): (Tensor, Tensor)| {
        vmap(move |x: Tensor| {
            let row = vmap(move |y: Tensor| seeds::neg_l1(&x, &y));
            row.call(all.clone())
        })
        .call(blk)
    });
    let inner = jit(|x: Tensor| seeds::affinity_matmul(&x));
    let cosine = jit(|x: Tensor| seeds::affinity_cosine(&x));
    // vmap(vmap(aff, in_axes=(None, 0)))(imgs, imgs), unchunked: the products are reduced
    // as they are made.
    let prodl1 = jit(|x: Tensor| {
        let all = x.clone();
        vmap(move |a: Tensor| vmap(move |b: Tensor| seeds::neg_prod_l1(&a, &b)).call(all.clone()))
            .call(x)
    });
    let run = || match mode {
        Mode::Matmul => inner.call(imgs.clone()).expect("runs"),
        Mode::Cosine => cosine.call(imgs.clone()).expect("runs"),
        Mode::ProdL1 => prodl1.call(imgs.clone()).expect("runs"),
        Mode::L1Block => {
            let rows: Vec<Tensor> = (0..n)
                .step_by(block)
                .map(|i| {
                    let blk = imgs.index(i..i + block);
                    block_vs_all.call((blk, imgs.clone())).expect("runs")
                })
                .collect();
            jnp::concatenate(&rows, 0)
        }
    };
    let first = run();
    let (s, r) = per_call(1, first, run);
    let corner = r.index((0..4, 0..4)).sum(None).item();
    Measure::new(s, Some(corner))
}

fn grads(per_example: bool, batch: usize) -> Measure {
    let f = if per_example {
        seeds::per_example_grads()
    } else {
        seeds::mean_grad()
    };
    steps(batch, |a| f.call(a).expect("runs"))
}

/// The same gradients with `jit` inside the eager transform: `vmap(jit(grad(loss)))` and
/// `grad(jit(mean_loss))`.
fn grads_inside(per_example: bool, batch: usize) -> Measure {
    type Data = (seeds::Params, Tensor, Tensor);
    let inner = jit(grad(seeds::mlp_loss).as_fn());
    let mean_loss = jit(|a: Data| {
        vmap(seeds::mlp_loss)
            .in_axes((None, 0, 0))
            .call(a)
            .mean(None)
    });
    if per_example {
        steps(batch, |a: Data| {
            vmap(|a| inner.call(a).expect("runs"))
                .in_axes((None, 0, 0))
                .call(a)
        })
    } else {
        steps(batch, |a: Data| {
            grad(|a| mean_loss.call(a).expect("runs")).call(a)
        })
    }
}

/// The steady time of `step` on the MLP's data: one call first, then twenty timed
/// together, each result alive until the next replaces it, as in JAX's script.
fn steps(batch: usize, step: impl Fn((seeds::Params, Tensor, Tensor)) -> seeds::Params) -> Measure {
    let data = seeds::mlp_data(batch);
    let first = step(data.clone());
    let (s, _) = per_call(20, first, || step(data.clone()));
    Measure::new(s, None)
}

fn tiny((x, y): (Tensor, Tensor)) -> Tensor {
    &x * &y + 1.0
}

fn dispatch() -> Measure {
    let (x, y) = (jnp::ones(&[4]), jnp::ones(&[4]));
    let f = jit(tiny);
    // The script drops its first result; `r` exists only from the first timed call.
    f.call((x.clone(), y.clone())).expect("compiles");
    let (s, _) = per_call(20_000, None, || {
        Some(f.call((x.clone(), y.clone())).expect("runs"))
    });
    Measure::new(s, None)
}

fn first_call() -> Measure {
    let (x, y) = (jnp::ones(&[4]), jnp::ones(&[4]));
    let (s, _) = seconds(|| jit(tiny).call((x, y)).expect("runs"));
    Measure::new(s, None)
}

fn spd_batch(quick: bool) -> usize {
    if quick {
        200
    } else {
        1000
    }
}

/// As the JAX script: `A A^T / n + I` from normal draws, then the Cholesky factor and the
/// solution of `A x = b` for every matrix, ten calls timed together.
fn spd_solve(batch: usize) -> Measure {
    let n = 64;
    let a = random::normal(&random::key(0), &[batch, n, n]);
    let spd = jnp::matmul(&a, a.transpose([0, 2, 1])) / n as f64 + jnp::eye(n);
    let b = random::normal(&random::key(1), &[batch, n]);
    let f = jit(|(m, v): (Tensor, Tensor)| {
        vmap(|(m, v): (Tensor, Tensor)| (jnp::linalg::cholesky(&m), jnp::linalg::solve(&m, &v)))
            .call((m, v))
    });
    let first = f.call((spd.clone(), b.clone())).expect("compiles");
    let (s, (l, x)) = per_call(10, first, || {
        f.call((spd.clone(), b.clone())).expect("runs")
    });
    let checksum = l.sum(None).item() + x.sum(None).item();
    Measure::new(s, Some(checksum))
}
