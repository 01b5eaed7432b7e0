//! The collectives of a `pmap` across processes, under MPI: run with two ranks of two
//! devices each,
//!
//! ```text
//! cargo build --features mpi --example mpi_check
//! mpirun -np 2 target/debug/examples/mpi_check
//! ```
//!
//! Each rank maps over its two devices; the axis is the four devices of both ranks, rank
//! by rank. Every collective that crosses processes (`psum`, `pmean`, `pmax`, `pmin`,
//! `all_gather` stacked and tiled along either dimension, `axis_index`), integers, `jit`,
//! a data-parallel gradient (`pmean` of per-device gradients) and a gradient through the
//! `pmap` itself are checked against their values computed on every rank from the whole
//! data; so are `shard_map` over every rank's devices, the collectives that move blocks
//! between ranks (`psum_scatter`, `ppermute`, `all_to_all`, the gradient of a gather),
//! sums of other dtypes, NaN in a maximum and a minimum, an out-of-memory error on one
//! rank that every rank returns, and `vmap(f).devices` over every rank's devices
//! (`spanning.rs`). With `OXLA_MPI_MAX_COUNT=1`, every message across the ranks is split
//! into pieces of one element.
//! With `--mismatch`, the ranks reach different collectives; with `--timeout`, the last
//! rank comes late; with `--big` (two or more ranks of one device, 4.3 GB of memory each,
//! run by hand), a gather past MPI's count of 2^31 - 1 goes in rounds, each rank printing
//! whether its result is right. Otherwise the closing line, from rank 0, counts the
//! checks of every rank: `N passed, N failed`; the exit status is 1 when one failed.

mod spanning;

use oxla::numpy as jnp;
use oxla::{grad, lax, pmap, shard_map, Tensor};

type T = Tensor;

/// Device `g`'s data (of the four): three numbers depending on `g`.
fn data(g: usize) -> T {
    let g = g as f32;
    jnp::array(&[g, 10.0 - 2.0 * g, g * g], &[3])
}

fn main() {
    let mpi = oxla::distributed::initialize();
    if std::env::args().any(|a| a == "--big") {
        oxla::set_num_devices(1);
        big(mpi.rank(), mpi.size());
        return;
    }
    oxla::set_num_devices(2);
    let (rank, ranks) = (mpi.rank(), mpi.size());
    let local = oxla::local_device_count();
    if std::env::args().any(|a| a == "--mismatch") {
        mismatch(local);
        return;
    }
    if std::env::args().any(|a| a == "--timeout") {
        late(rank, local);
        return;
    }
    let all: Vec<T> = (0..ranks * local).map(data).collect();
    let mine = jnp::stack(&all[rank * local..(rank + 1) * local], 0);
    let every = jnp::stack(&all, 0);
    let mut results: Vec<(&str, bool)> = vec![];
    let mut check = |what: &'static str, got: T, want: T| {
        let same = got.shape() == want.shape()
            && got
                .array()
                .to_f64_vec()
                .iter()
                .zip(want.array().to_f64_vec())
                .all(|(a, b)| (a - b).abs() <= 1e-5 * (1.0 + b.abs()) || a.is_nan() && b.is_nan());
        if !same {
            eprintln!("rank {rank}: {what}: got {got}, want {want}");
        }
        results.push((what, same));
    };
    check(
        "device and process counts",
        jnp::array(
            &[oxla::device_count() as f32, oxla::process_count() as f32],
            &[2],
        ),
        jnp::array(&[(ranks * local) as f32, ranks as f32], &[2]),
    );
    let each = |t: T| jnp::stack(&vec![t; local], 0);
    let run = |f: fn(&T) -> T| -> T { pmap(move |v: T| f(&v)).axis_name("i").call(mine.clone()) };
    check("psum", run(|v| lax::psum(v, "i")), each(every.sum(0)));
    check(
        "pmean",
        run(|v| lax::pmean(v, "i")),
        each(jnp::mean(&every, 0)),
    );
    check(
        "pmax",
        run(|v| lax::pmax(v, "i")),
        each(jnp::max(&every, 0)),
    );
    check(
        "pmin",
        run(|v| lax::pmin(v, "i")),
        each(jnp::min(&every, 0)),
    );
    check(
        "all_gather",
        run(|v| lax::all_gather(v, "i", 0, false)),
        each(every.clone()),
    );
    check(
        "all_gather tiled",
        run(|v| lax::all_gather(v, "i", 0, true)),
        each(every.reshape(&[-1])),
    );
    check(
        "axis_index",
        run(|v| lax::axis_index("i").astype(v.dtype()) + v * 0.0),
        jnp::stack(
            &(0..local)
                .map(|d| jnp::full(&[3], (rank * local + d) as f64))
                .collect::<Vec<_>>(),
            0,
        ),
    );
    // Data-parallel descent: each device's gradient of its loss, averaged over all.
    let w = jnp::array(&[0.5f32, -1.0, 2.0], &[3]);
    let loss = |(w, x): (T, T)| jnp::sum(jnp::tanh(&(&w * &x)), None);
    let step: T = pmap(move |x: T| lax::pmean(&grad(loss).call((w.clone(), x)), "i"))
        .axis_name("i")
        .call(mine.clone());
    let w2 = jnp::array(&[0.5f32, -1.0, 2.0], &[3]);
    let want = (0..ranks * local)
        .map(|g| grad(loss).call((w2.clone(), data(g))))
        .fold(jnp::zeros(&[3]), |a, b| a + b)
        / (ranks * local) as f64;
    check("pmean of gradients", step, each(want));

    // A gradient through the pmap: its result the same on every device (out_axes None),
    // the weights unmapped, so their cotangent sums over every rank's devices.
    let total = move |(w, xs): (T, T)| -> T {
        pmap(|(w, x): (T, T)| lax::pmean(&jnp::sum(jnp::tanh(&(&w * &x)), None), "i"))
            .axis_name("i")
            .in_axes((None::<i32>, 0))
            .out_axes(None::<i32>)
            .call((w, xs))
    };
    let w = jnp::array(&[0.5f32, -1.0, 2.0], &[3]);
    let g = grad(total).call((w.clone(), mine.clone()));
    let whole = |w: T| jnp::mean(jnp::tanh(&(&w * &every)).sum(1), None);
    check("grad through pmap, out_axes None", g, grad(whole).call(w));
    // Gathers along a later dimension of a 2-D operand, stacked and tiled; integers; jit.
    let pairs = |t: &T| jnp::stack(&[t.clone(), t * 2.0], 0);
    let mine2 = jnp::stack(
        &(0..local)
            .map(|d| pairs(&all[rank * local + d]))
            .collect::<Vec<_>>(),
        0,
    );
    let every2 = jnp::stack(&all.iter().map(pairs).collect::<Vec<_>>(), 1);
    let gather = |axis: usize, tiled: bool| -> T {
        pmap(move |v: T| lax::all_gather(&v, "i", axis, tiled))
            .axis_name("i")
            .call(mine2.clone())
    };
    check("all_gather at 1", gather(1, false), each(every2.clone()));
    check(
        "all_gather at 1, tiled",
        gather(1, true),
        each(every2.reshape(&[2, -1])),
    );
    let ints: T = oxla::jit(|x: T| {
        pmap(|v: T| lax::psum(&v.astype(oxla::DType::I32), "i"))
            .axis_name("i")
            .call(x)
    })
    .call(mine.clone())
    .expect("fits");
    check(
        "jit(pmap(psum)) of int32",
        ints.astype(oxla::DType::F32),
        each(
            every
                .astype(oxla::DType::I32)
                .sum(0)
                .astype(oxla::DType::F32),
        ),
    );

    // Blocks between processes: psum_scatter, a ring ppermute, all_to_all, and the
    // gradient of a gather (a psum_scatter of its cotangent).
    let devices = ranks * local;
    let quad = |g: usize| {
        let g = g as f32;
        jnp::array(&[g, 2.0 * g + 1.0, 10.0 - g, g * g], &[4])
    };
    let quads: Vec<T> = (0..devices).map(quad).collect();
    let mine4 = jnp::stack(&quads[rank * local..(rank + 1) * local], 0);
    let every4 = jnp::stack(&quads, 0);
    let ours = |f: &dyn Fn(usize) -> T| -> T {
        jnp::stack(
            &(rank * local..(rank + 1) * local)
                .map(f)
                .collect::<Vec<_>>(),
            0,
        )
    };
    let on = |f: fn(T) -> T| -> T { pmap(f).axis_name("i").call(mine4.clone()) };
    let total = every4.sum(0);
    check(
        "psum_scatter",
        on(|v| lax::psum_scatter(&v, "i", 0, false)),
        ours(&|g| total.index(g as i64)),
    );
    check(
        "psum_scatter tiled",
        on(|v| lax::psum_scatter(&v, "i", 0, true)),
        ours(&|g| total.index(g as i64..g as i64 + 1)),
    );
    let ring: Vec<(usize, usize)> = (0..devices).map(|k| (k, (k + 1) % devices)).collect();
    let ring_f = pmap(move |v: T| lax::ppermute(&v, "i", &ring)).axis_name("i");
    check(
        "ppermute ring",
        ring_f.call(mine4.clone()),
        ours(&|g| quads[(g + devices - 1) % devices].clone()),
    );
    let half: Vec<(usize, usize)> = vec![(0, 3), (3, 1)];
    let half_f = pmap(move |v: T| lax::ppermute(&v, "i", &half)).axis_name("i");
    check(
        "ppermute partial",
        half_f.call(mine4.clone()),
        ours(&|g| match g {
            3 => quads[0].clone(),
            1 => quads[3].clone(),
            _ => jnp::zeros(&[4]),
        }),
    );
    check(
        "all_to_all",
        on(|v| lax::all_to_all(&v, "i", 0, 0, false)),
        ours(&|g| every4.index((.., g as i64))),
    );
    let w16 = jnp::arange(16.0).reshape(&[16]);
    let gathered_grad = pmap(move |v: T| {
        let w = w16.clone();
        grad(move |v: T| jnp::sum(lax::all_gather(&v, "i", 0, true) * &w, None)).call(v)
    })
    .axis_name("i");
    check(
        "grad of all_gather",
        gathered_grad.call(mine4.clone()),
        ours(&|g| jnp::arange(16.0).index(4 * g as i64..4 * g as i64 + 4) * devices as f64),
    );
    // shard_map over every rank's devices: each rank passes its part and gets its part.
    let flat = mine.reshape(&[-1]);
    let sm_total: T = shard_map(|b: T| lax::psum(&b.sum(None), "i"))
        .axis_name("i")
        .out_specs(None::<i32>)
        .call(flat.clone());
    check("shard_map psum", sm_total, every.sum(None));
    let sm_blocks: T = shard_map(|b: T| &b * lax::axis_index("i").astype(b.dtype()))
        .axis_name("i")
        .call(flat);
    let scaled = |g: usize| data(g) * g as f64;
    check(
        "shard_map blocks",
        sm_blocks,
        jnp::concatenate(
            &(rank * local..(rank + 1) * local)
                .map(scaled)
                .collect::<Vec<_>>(),
            0,
        ),
    );
    // Every dtype's sum, and NaN in a maximum and a minimum.
    for dtype in [
        oxla::DType::I16,
        oxla::DType::U64,
        oxla::DType::F16,
        oxla::DType::BF16,
        oxla::DType::F64,
    ] {
        let sum = pmap(move |v: T| lax::psum(&v.astype(dtype), "i").astype(oxla::DType::F32))
            .axis_name("i")
            .call(mine4.clone());
        let name: &'static str = Box::leak(format!("psum of {dtype:?}").into_boxed_str());
        check(name, sum, ours(&|_| total.clone()));
    }
    let with_nan = |g: usize| {
        let v = quad(g);
        if g == devices - 1 {
            v * jnp::array(&[1.0f32, f32::NAN, 1.0, 1.0], &[4])
        } else {
            v
        }
    };
    let nans = jnp::stack(
        &(rank * local..(rank + 1) * local)
            .map(with_nan)
            .collect::<Vec<_>>(),
        0,
    );
    let every_nan = jnp::stack(&(0..devices).map(with_nan).collect::<Vec<_>>(), 0);
    let pmax_nan = pmap(|v: T| lax::pmax(&v, "i"))
        .axis_name("i")
        .call(nans.clone());
    check(
        "pmax with NaN",
        pmax_nan,
        ours(&|_| jnp::max(&every_nan, 0)),
    );
    let pmin_nan = pmap(|v: T| lax::pmin(&v, "i")).axis_name("i").call(nans);
    check(
        "pmin with NaN",
        pmin_nan,
        ours(&|_| jnp::min(&every_nan, 0)),
    );
    // An out-of-memory on one rank is the error on every rank, before anything runs.
    let doubled = oxla::jit(|x: T| {
        pmap(|v: T| lax::psum(&(v * 2.0), "i"))
            .axis_name("i")
            .call(x)
    });
    if rank == ranks - 1 {
        oxla::memory::set_device_memory_limit(Some(8));
    }
    let verdict = doubled.call(mine4.clone());
    oxla::memory::set_device_memory_limit(None);
    let device = match verdict {
        Err(oxla::Error::OutOfMemory {
            device: Some(d), ..
        }) => d as f32,
        _ => -1.0,
    };
    check(
        "out of memory on the last rank, on every rank",
        jnp::array(&[device], &[1]),
        jnp::array(&[((ranks - 1) * local) as f32], &[1]),
    );
    spanning::checks(devices, &mut check);

    let failed = results.iter().filter(|(_, ok)| !ok).count();
    let counts = jnp::array(&[(results.len() - failed) as f32, failed as f32], &[1, 2]);
    let counts = jnp::concatenate(&vec![counts; local], 0);
    let totals: T = pmap(|c: T| lax::psum(&c, "i")).axis_name("i").call(counts);
    let totals = totals.index(0).to_vec::<f32>();
    let (passed, failed) = (totals[0] as usize / local, totals[1] as usize / local);
    if rank == 0 {
        println!("{passed} passed, {failed} failed");
    }
    drop(mpi);
    if failed > 0 {
        std::process::exit(1);
    }
}

/// Rank 0's devices at a `psum`, the others' at a `pmax` of the same operand.
fn mismatch(local: usize) {
    let x = jnp::ones(&[local, 3]);
    let _: T = pmap(|v: T| {
        let first = lax::axis_index("i").lt(local as i32);
        lax::cond(
            &first,
            |v: T| lax::psum(&v, "i"),
            |v: T| lax::pmax(&v, "i"),
            v,
        )
    })
    .axis_name("i")
    .call(x);
}

/// The last rank comes to its `psum` 30 s late: with `OXLA_COLLECTIVE_TIMEOUT` below that,
/// the others say where they wait and abort every rank.
fn late(rank: usize, local: usize) {
    if rank + 1 == oxla::process_count() {
        std::thread::sleep(std::time::Duration::from_secs(30));
    }
    let x = jnp::ones(&[local, 3]);
    let _: T = pmap(|v: T| lax::psum(&v, "i")).axis_name("i").call(x);
}

/// A tiled `all_gather` whose result, 2^31 + 2^22 bytes over two ranks, passes what one
/// MPI call counts: each rank's block of bytes is its rank, and every block of the result
/// must hold its rank's.
fn big(rank: usize, ranks: usize) {
    assert!(
        ranks >= 2,
        "--big gathers across ranks: run it with mpirun -np 2"
    );
    let per = ((1usize << 31) + (1 << 22)) / ranks;
    let x = jnp::broadcast_to(jnp::array(&[rank as u8], &[1, 1]), &[1, per]);
    let gathered: T = pmap(|v: T| lax::all_gather(&v, "i", 0, true))
        .axis_name("i")
        .call(x);
    let blocks = gathered.reshape(&[ranks as i64, per as i64]);
    let (lo, hi) = (jnp::min(&blocks, 1), jnp::max(&blocks, 1));
    let want: Vec<f32> = (0..ranks).map(|r| r as f32).collect();
    let ok = lo.astype(oxla::DType::F32).to_vec::<f32>() == want
        && hi.astype(oxla::DType::F32).to_vec::<f32>() == want;
    println!(
        "rank {rank}: all_gather of {} bytes in all: {}",
        per * ranks,
        if ok { "passed" } else { "FAILED" }
    );
    assert!(ok, "rank {rank}: a block of the big gather is wrong");
}
