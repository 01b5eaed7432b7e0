//! The bandwidth of `psum` across CPU devices, from 8 bytes to 256 MiB of `f32` per
//! device, beside a `memcpy` of the same bytes on one thread.
//!
//! ```text
//! OXLA_NUM_DEVICES=2 cargo run --release --example psum_bandwidth
//! OXLA_NUM_DEVICES=2 target/release/examples/psum_bandwidth 1048576 500   # one size
//! ```
//!
//! Each row is the median of several jitted `pmap(|x| psum(x, "i"))` calls. The bandwidth
//! counts the bytes of one device's operand per second, as MPI benchmarks count an
//! all-reduce.

#[path = "cli/mod.rs"]
mod cli;

use std::time::{Duration, Instant};

use cli::median;
use oxla::{jit, lax, numpy as jnp, pmap, Tensor};

fn timed(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    median(&mut times)
}

fn main() {
    let devices = oxla::local_device_count();
    println!("psum over {devices} devices (f32, bytes per device)");
    println!(
        "{:>10} {:>12} {:>10} {:>12} {:>10}",
        "bytes", "psum", "GB/s", "memcpy", "GB/s"
    );
    // `psum_bandwidth [BYTES [CALLS]]`: one size only, as many calls (to profile it).
    let (only, calls) = cli::one_size();
    for bytes in cli::BANDWIDTH_SIZES {
        if only.is_some_and(|b| b != bytes) {
            continue;
        }
        let n = bytes / 4;
        let x = jnp::ones(&[devices, n]);
        let f = jit(|x: Tensor| -> Tensor {
            pmap(|v: Tensor| lax::psum(&v, "i")).axis_name("i").call(x)
        });
        f.call(x.clone()).expect("fits");
        let runs = calls.unwrap_or(if bytes < 1 << 20 { 200 } else { 5 });
        let t = timed(runs, || {
            f.call(x.clone()).expect("fits");
        });
        let src = vec![1u8; bytes];
        let mut dst = vec![0u8; bytes];
        let c = timed(runs, || {
            dst.copy_from_slice(std::hint::black_box(&src));
            std::hint::black_box(&dst);
        });
        let rate = |d: Duration| bytes as f64 / d.as_secs_f64() / 1e9;
        println!(
            "{bytes:>10} {:>10.1}µs {:>10.2} {:>10.1}µs {:>10.2}",
            t.as_secs_f64() * 1e6,
            rate(t),
            c.as_secs_f64() * 1e6,
            rate(c)
        );
    }
}
