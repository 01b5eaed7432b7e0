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
//! data. The closing line, from rank 0, counts the checks of every rank:
//! `N passed, N failed`; the exit status is 1 when one failed.

use oxla::numpy as jnp;
use oxla::{grad, lax, pmap, Tensor};

type T = Tensor;

/// Device `g`'s data (of the four): three numbers depending on `g`.
fn data(g: usize) -> T {
    let g = g as f32;
    jnp::array(&[g, 10.0 - 2.0 * g, g * g], &[3])
}

fn main() {
    let mpi = oxla::distributed::initialize();
    oxla::set_num_devices(2);
    let (rank, ranks) = (mpi.rank(), mpi.size());
    let local = oxla::local_device_count();
    if std::env::args().any(|a| a == "--mismatch") {
        mismatch(local);
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
                .all(|(a, b)| (a - b).abs() <= 1e-5 * (1.0 + b.abs()));
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
