//! Seed 000's third answer as its author wrote it: the image blocks spread over devices
//! with `pmap`, the images padded to a multiple of the device count and reshaped by hand;
//! then the oxla way, `vmap(..).devices(d)`, which splits any number of images over the
//! devices in blocks as even as they can be, with no padding and no reshapes.
//!
//! ```text
//! OXLA_NUM_DEVICES=2 cargo run --release --example pmap_affinity -- --n 2000
//! OXLA_NUM_DEVICES=2 OXLA_NUM_THREADS=2 target/release/examples/pmap_affinity --n 2000
//! ```
//!
//! With `--mpi` (built with `--features mpi`), the seed's program runs across the ranks of
//! `mpirun`, as a JAX multi-process program: every rank draws the same images, pads and
//! reshapes them for every rank's devices, passes its own devices' blocks to the `pmap`,
//! and gets its own rows of the affinities; then the oxla way across the ranks,
//! `vmap(..).devices(device_count())`, where every rank passes every image and gets every
//! row, having computed its devices' blocks. Each rank checks both against one device:
//!
//! ```text
//! cargo build --release --features mpi --example pmap_affinity
//! OXLA_NUM_THREADS=1 mpirun -np 2 target/release/examples/pmap_affinity --mpi --n 2000
//! ```
//!
//! The whole program is jitted, as a JAX user jits it: the padding and reshapes fuse, and
//! the `pmap` is one step. Each device computes the L1 affinities of its blocks against every image
//! (`vmap(vmap(aff))` inside the `pmap`, compiled once and fused, so no pair-sized
//! intermediate exists); the images are one unmapped operand that the devices share rather
//! than copy. The result is checked against the same affinities on one device
//! (`jit(vmap(vmap(aff)))`, no devices), which it must equal exactly, and both are timed
//! (medians of `--repeat` calls).

#[path = "cli/mod.rs"]
mod cli;

use std::time::{Duration, Instant};

use clap::Parser;
use cli::{median, peak_rss_mib};
use oxla::{jit, numpy as jnp, pmap, random, vmap, Tensor};

/// `-sum(abs(x - y))`: the affinity of two images.
fn compute_affinity(x: &Tensor, y: &Tensor) -> Tensor {
    -jnp::sum(jnp::abs(&(x - y)), None)
}

/// The affinities of one block of images against all of them.
fn block_vs_all_affinity(block: Tensor, all_imgs: &Tensor) -> Tensor {
    let all = all_imgs.clone();
    vmap(move |x: Tensor| vmap(|y: Tensor| compute_affinity(&x, &y)).call(all.clone())).call(block)
}

/// Seed 000's `compute_affinities_multi_device`: pad the blocks to a multiple of the
/// device count, reshape to one row of blocks per device, `pmap`, reshape back, unpad.
/// Across processes (`--mpi`), as a JAX multi-process program, each process passes the
/// `pmap` its own devices' rows and gets its own rows of the affinities (padding included).
fn compute_affinities_multi_device(imgs: &Tensor, block_size: usize) -> Tensor {
    let n = imgs.shape()[0];
    let size = imgs.shape()[1];
    let (devices, local) = (oxla::device_count(), oxla::local_device_count());
    let num_blocks = n.div_ceil(block_size);
    let pad_blocks = num_blocks + (devices - num_blocks % devices) % devices;
    let padded = jnp::pad(
        imgs,
        &[(0, pad_blocks * block_size - n), (0, 0), (0, 0)],
        0.0,
    );
    let device_blocks = padded.reshape(&[devices as isize, -1, size as isize, size as isize]);
    let first = (oxla::process_index() * local) as isize;
    let mine = if devices == local {
        device_blocks
    } else {
        device_blocks.index(first..first + local as isize)
    };
    let all = imgs.clone();
    let device_affinities: Tensor =
        pmap(move |block: Tensor| block_vs_all_affinity(block, &all)).call(mine);
    let rows = device_affinities.reshape(&[-1, n as isize]);
    if devices == local {
        rows.index(..n as isize)
    } else {
        rows
    }
}

/// The oxla way: the same affinities, the images split over `devices` devices by `vmap`
/// itself (every rank's, rank by rank, when they pass this process's).
fn compute_affinities_on_devices(imgs: &Tensor, devices: usize) -> Tensor {
    let all = imgs.clone();
    vmap(move |x: Tensor| vmap(|y: Tensor| compute_affinity(&x, &y)).call(all.clone()))
        .devices(devices)
        .call(imgs.clone())
}

/// Seed 000's pmap program on `OXLA_NUM_DEVICES` devices, beside the one-device `vmap`.
#[derive(Parser)]
struct Args {
    /// Images.
    #[arg(long, default_value_t = 2000)]
    n: usize,
    /// Side of each image, in pixels.
    #[arg(long, default_value_t = 100)]
    size: usize,
    /// Images per block, as in the seed.
    #[arg(long, default_value_t = 100)]
    block_size: usize,
    /// Timed calls of each program.
    #[arg(long, default_value_t = 3)]
    repeat: usize,
    /// Across the ranks of `mpirun` (built with `--features mpi`).
    #[arg(long)]
    mpi: bool,
}

fn time(repeat: usize, f: impl Fn() -> Tensor) -> (Tensor, Duration) {
    let mut times = Vec::new();
    let mut out = None;
    for _ in 0..repeat.max(1) {
        let t = Instant::now();
        out = Some(f());
        times.push(t.elapsed());
    }
    (out.expect("ran"), median(&mut times))
}

fn main() {
    let cli = Args::parse();
    let (n, size) = (cli.n, cli.size);
    if cli.mpi {
        across_processes(&cli);
        return;
    }
    let draw = jit(move |k: Tensor| random::normal(&k, &[n, size, size]));
    let imgs = draw.call(random::key(0)).expect("draws");
    println!(
        "{n} images of {size}x{size} over {} devices, blocks of {}",
        oxla::local_device_count(),
        cli.block_size
    );
    let block_size = cli.block_size;
    let multi = jit(move |imgs: Tensor| compute_affinities_multi_device(&imgs, block_size));
    let (spread, t_devices) = time(cli.repeat, || multi.call(imgs.clone()).expect("fits"));
    let devices = oxla::local_device_count();
    let split = jit(move |imgs: Tensor| compute_affinities_on_devices(&imgs, devices));
    let (oxla_way, t_split) = time(cli.repeat, || split.call(imgs.clone()).expect("fits"));
    let one_device = jit(|imgs: Tensor| block_vs_all_affinity(imgs.clone(), &imgs));
    let (whole, t_vmap) = time(cli.repeat, || one_device.call(imgs.clone()).expect("fits"));
    let same = spread.to_vec::<f32>() == whole.to_vec::<f32>();
    let same_split = oxla_way.to_vec::<f32>() == whole.to_vec::<f32>();
    println!(
        "pmap over devices (padded): {:.3} s; vmap(..).devices (no padding): {:.3} s; vmap on \
         one device: {:.3} s; results identical: {same}, {same_split}; peak RSS {} MiB",
        t_devices.as_secs_f64(),
        t_split.as_secs_f64(),
        t_vmap.as_secs_f64(),
        peak_rss_mib()
    );
    assert!(same, "the devices' affinities differ from one device's");
    assert!(
        same_split,
        "vmap(..).devices's affinities differ from one device's"
    );
}

/// The seed's program across the ranks of `mpirun`: each rank's rows, timed, then checked
/// against the same rows on one device.
#[cfg(feature = "mpi")]
fn across_processes(cli: &Args) {
    let mpi = oxla::distributed::initialize();
    let (n, size, block_size) = (cli.n, cli.size, cli.block_size);
    let draw = jit(move |k: Tensor| random::normal(&k, &[n, size, size]));
    let imgs = draw.call(random::key(0)).expect("draws");
    let multi = jit(move |imgs: Tensor| compute_affinities_multi_device(&imgs, block_size));
    let (rows, t) = time(cli.repeat, || multi.call(imgs.clone()).expect("fits"));
    // Peak memory of the seed's program, before the oxla way and the check.
    let rss = peak_rss_mib();
    let devices = oxla::device_count();
    let split = jit(move |imgs: Tensor| compute_affinities_on_devices(&imgs, devices));
    let (every, t_split) = time(cli.repeat, || split.call(imgs.clone()).expect("fits"));
    let rss_split = peak_rss_mib();
    let local = oxla::local_device_count();
    let per_device = rows.shape()[0] / local;
    let first = mpi.rank() * local * per_device;
    let real = rows.shape()[0].min(n.saturating_sub(first));
    let one_device = jit(|imgs: Tensor| block_vs_all_affinity(imgs.clone(), &imgs));
    let whole = one_device.call(imgs.clone()).expect("fits");
    let want = whole.index(first as isize..(first + real) as isize);
    let same = rows.index(..real as isize).to_vec::<f32>() == want.to_vec::<f32>();
    let same_split = every.to_vec::<f32>() == whole.to_vec::<f32>();
    println!(
        "rank {} of {}: rows {first}..{} of {n} on {local} device(s): pmap across processes \
         {:.3} s; identical to one device: {same}; peak RSS {rss} MiB (images {} MiB, these \
         rows {} MiB); vmap(..).devices({devices}), every row: {:.3} s; identical: \
         {same_split}; peak RSS {rss_split} MiB",
        mpi.rank(),
        mpi.size(),
        first + real,
        t.as_secs_f64(),
        imgs.array().nbytes() >> 20,
        rows.array().nbytes() >> 20,
        t_split.as_secs_f64(),
    );
    assert!(
        same,
        "rank {}: the rows differ from one device's",
        mpi.rank()
    );
    assert!(
        same_split,
        "rank {}: vmap(..).devices's affinities differ from one device's",
        mpi.rank()
    );
}

#[cfg(not(feature = "mpi"))]
fn across_processes(_: &Args) {
    eprintln!("--mpi: build the example with --features mpi");
    std::process::exit(2);
}
