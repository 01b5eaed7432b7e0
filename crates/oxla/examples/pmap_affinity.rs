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
fn compute_affinities_multi_device(imgs: &Tensor, block_size: usize) -> Tensor {
    let n = imgs.shape()[0];
    let size = imgs.shape()[1];
    let devices = oxla::local_device_count();
    let num_blocks = n.div_ceil(block_size);
    let pad_blocks = num_blocks + (devices - num_blocks % devices) % devices;
    let padded = jnp::pad(
        imgs,
        &[(0, pad_blocks * block_size - n), (0, 0), (0, 0)],
        0.0,
    );
    let device_blocks = padded.reshape(&[devices as isize, -1, size as isize, size as isize]);
    let all = imgs.clone();
    let device_affinities: Tensor =
        pmap(move |block: Tensor| block_vs_all_affinity(block, &all)).call(device_blocks);
    device_affinities
        .reshape(&[-1, n as isize])
        .index(..n as isize)
}

/// The oxla way: the same affinities, the images split over the devices by `vmap` itself.
fn compute_affinities_on_devices(imgs: &Tensor) -> Tensor {
    let all = imgs.clone();
    vmap(move |x: Tensor| vmap(|y: Tensor| compute_affinity(&x, &y)).call(all.clone()))
        .devices(oxla::local_device_count())
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
    let split = jit(|imgs: Tensor| compute_affinities_on_devices(&imgs));
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
