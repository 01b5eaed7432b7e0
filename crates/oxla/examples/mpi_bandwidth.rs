//! The bandwidth of `psum` across MPI ranks (one device each), from 8 bytes to 64 MiB of
//! `f32` per rank, beside the `mpi` crate's own `all_reduce_into` on the same buffers:
//!
//! ```text
//! cargo build --release --features mpi --example mpi_bandwidth
//! mpirun -np 2 target/release/examples/mpi_bandwidth
//! ```
//!
//! Each row is the median of several calls of a jitted `pmap(|x| psum(x, "i"))` (its
//! operand `[1, n]`, its result gathered from the one device) and of a bare
//! `all_reduce_into` of `n` floats into a separate buffer. The bandwidth counts one rank's
//! operand bytes per second, as MPI benchmarks count an all-reduce.

#[path = "cli/mod.rs"]
mod cli;

use std::time::{Duration, Instant};

use cli::median;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives};
use oxla::{jit, lax, numpy as jnp, pmap, Tensor};

fn timed(runs: usize, mut f: impl FnMut()) -> Duration {
    let world = SimpleCommunicator::world();
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            world.barrier();
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    median(&mut times)
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
    let mut bytes = 8usize;
    while bytes <= 64 << 20 {
        let n = bytes / 4;
        let x = jnp::ones(&[1, n]);
        let f = jit(|x: Tensor| -> Tensor {
            pmap(|v: Tensor| lax::psum(&v, "i")).axis_name("i").call(x)
        });
        f.call(x.clone()).expect("fits");
        let runs = if bytes < 1 << 20 { 100 } else { 7 };
        let t = timed(runs, || {
            f.call(x.clone()).expect("fits");
        });
        let send = vec![1.0f32; n];
        let mut recv = vec![0.0f32; n];
        let raw = timed(runs, || {
            world.all_reduce_into(&send[..], &mut recv[..], SystemOperation::sum());
        });
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
        bytes *= 4;
    }
}
