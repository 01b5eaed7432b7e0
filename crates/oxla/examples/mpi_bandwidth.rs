//! The bandwidth of `psum` across MPI ranks (one device each), from 8 bytes to 256 MiB of
//! `f32` per rank, beside the `mpi` crate's own `all_reduce_into` on the same buffers:
//!
//! ```text
//! cargo build --release --features mpi --example mpi_bandwidth
//! mpirun -np 2 target/release/examples/mpi_bandwidth [BYTES [CALLS]]
//! ```
//!
//! Each row is the median of several calls, alternating, of a jitted
//! `pmap(|x| psum(x, "i"))` (its operand `[1, n]`, its result gathered from the one
//! device) and of a bare `all_reduce_into` of `n` floats into a separate buffer. The
//! bandwidth counts one rank's operand bytes per second, as MPI benchmarks count an
//! all-reduce.

#[path = "cli/mod.rs"]
mod cli;

use std::time::{Duration, Instant};

use cli::median;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives};
use oxla::{jit, lax, numpy as jnp, pmap, Tensor};

/// The medians of `runs` timed calls of `a` and of `b`, alternating, each after a barrier:
/// drift in the machine's state weighs on both alike.
fn timed(runs: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> (Duration, Duration) {
    let world = SimpleCommunicator::world();
    let once = |f: &mut dyn FnMut()| {
        world.barrier();
        let t = Instant::now();
        f();
        t.elapsed()
    };
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        ta.push(once(&mut a));
        tb.push(once(&mut b));
    }
    (median(&mut ta), median(&mut tb))
}

fn main() {
    let mpi = oxla::distributed::initialize();
    oxla::set_num_devices(1);
    let world = SimpleCommunicator::world();
    if mpi.rank() == 0 {
        println!(
            "psum over {} ranks of 1 device (f32, bytes per rank)",
            world.size()
        );
        println!(
            "{:>10} {:>12} {:>8} {:>12} {:>8} {:>6}",
            "bytes", "oxla psum", "GB/s", "raw mpi", "GB/s", "ratio"
        );
    }
    // `mpi_bandwidth [BYTES [CALLS]]`: one size only, as many calls (to profile it).
    let (only, calls) = cli::one_size();
    for bytes in cli::BANDWIDTH_SIZES {
        if only.is_some_and(|b| b != bytes) {
            continue;
        }
        let n = bytes / 4;
        let x = jnp::ones(&[1, n]);
        let f = jit(|x: Tensor| -> Tensor {
            pmap(|v: Tensor| lax::psum(&v, "i")).axis_name("i").call(x)
        });
        f.call(x.clone()).expect("fits");
        let runs = calls.unwrap_or(if bytes < 1 << 20 { 100 } else { 7 });
        let send = vec![1.0f32; n];
        let mut recv = vec![0.0f32; n];
        let (t, raw) = timed(
            runs,
            || {
                f.call(x.clone()).expect("fits");
            },
            || world.all_reduce_into(&send[..], &mut recv[..], SystemOperation::sum()),
        );
        let rate = |d: Duration| bytes as f64 / d.as_secs_f64() / 1e9;
        if mpi.rank() == 0 {
            println!(
                "{bytes:>10} {:>10.1}µs {:>8.2} {:>10.1}µs {:>8.2} {:>6.2}",
                t.as_secs_f64() * 1e6,
                rate(t),
                raw.as_secs_f64() * 1e6,
                rate(raw),
                raw.as_secs_f64() / t.as_secs_f64()
            );
        }
    }
}
