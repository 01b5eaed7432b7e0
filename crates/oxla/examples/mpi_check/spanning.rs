//! `vmap(f).devices(d)` over every rank's devices: every rank passes the whole batch and
//! gets the whole result, each computing its devices' blocks, which are uneven here (7
//! examples over 4 devices: 2, 2, 2, 1); the collectives over the vmap's axis see the
//! whole batch across the ranks.

use oxla::numpy as jnp;
use oxla::{grad, jit, lax, vmap, Tensor};

type T = Tensor;

/// The examples: `n` rows of three numbers.
fn batch(n: usize) -> T {
    let rows: Vec<T> = (0..n)
        .map(|e| {
            let e = e as f32;
            jnp::array(&[e, 5.0 - 1.5 * e, e * e - 3.0], &[3])
        })
        .collect();
    jnp::stack(&rows, 0)
}

/// Runs every check, reporting each to `check(name, got, want)`.
pub fn checks(devices: usize, check: &mut dyn FnMut(&'static str, T, T)) {
    let n = 7;
    let xs = batch(n);
    let centred: T = vmap(|x: T| &x - lax::pmean(&x, "i"))
        .axis_name("i")
        .devices(devices)
        .call(xs.clone());
    check(
        "vmap.devices across ranks: x - pmean",
        centred,
        &xs - jnp::mean(&xs, 0),
    );
    let plain: T = vmap(|x: T| jnp::tanh(&x) * 2.0)
        .devices(devices)
        .call(xs.clone());
    check(
        "vmap.devices across ranks, unnamed",
        plain,
        jnp::tanh(&xs) * 2.0,
    );
    let gathered: T = vmap(|x: T| lax::all_gather(&x, "i", 0, false) - &x)
        .axis_name("i")
        .devices(devices)
        .call(xs.clone());
    let every = jnp::stack(&vec![xs.clone(); n], 0);
    check(
        "vmap.devices across ranks: uneven all_gather",
        gathered,
        &every - xs.reshape(&[n as i64, 1, 3]),
    );
    let index: T = vmap(|x: T| lax::axis_index("i").astype(x.dtype()) + x.sum(None) * 0.0)
        .axis_name("i")
        .devices(devices)
        .call(xs.clone());
    check(
        "vmap.devices across ranks: axis_index",
        index,
        jnp::arange(n as f64),
    );
    let square = jnp::arange((n * n) as f64).reshape(&[n as i64, n as i64]);
    let scattered: T = vmap(|x: T| lax::psum_scatter(&x, "i", 0, false))
        .axis_name("i")
        .devices(devices)
        .call(square.clone());
    check(
        "vmap.devices across ranks: psum_scatter",
        scattered,
        square.sum(0),
    );
    let maxed: T = vmap(|x: T| lax::pmax(&x, "i") - lax::pmin(&x, "i"))
        .axis_name("i")
        .devices(devices)
        .call(xs.clone());
    let range = jnp::max(&xs, 0) - jnp::min(&xs, 0);
    check(
        "vmap.devices across ranks: pmax - pmin",
        maxed,
        jnp::stack(&vec![range; n], 0),
    );
    // Under jit, with an unmapped operand shared by the devices.
    let w = jnp::array(&[0.5f32, -1.0, 2.0], &[3]);
    let scaled = jit(move |(w, xs): (T, T)| -> T {
        vmap(|(w, x): (T, T)| &w * &x / lax::psum(&x.sum(None), "i"))
            .axis_name("i")
            .in_axes((None::<i32>, 0))
            .devices(devices)
            .call((w, xs))
    })
    .call((w.clone(), xs.clone()))
    .expect("fits");
    check(
        "jit(vmap.devices) across ranks, unmapped weights",
        scaled,
        &w * &xs / xs.sum(None),
    );
    // A gradient through the map: the weights' cotangent sums over every rank's devices.
    let loss = move |(w, xs): (T, T)| -> T {
        let per: T = vmap(|(w, x): (T, T)| jnp::sum(jnp::tanh(&(&w * &x)), None))
            .in_axes((None::<i32>, 0))
            .devices(devices)
            .call((w, xs));
        per.sum(None)
    };
    let whole = |(w, xs): (T, T)| jnp::sum(jnp::tanh(&(&w * &xs)), None);
    check(
        "grad through vmap.devices across ranks",
        grad(loss).call((w.clone(), xs.clone())),
        grad(whole).call((w.clone(), xs.clone())),
    );
    // Each device's block in chunks under a budget of its own.
    let budgeted: T = vmap(|x: T| jnp::exp(&x) - 1.0)
        .devices(devices)
        .memory_budget(1 << 20)
        .call(xs.clone())
        .expect("fits the budget");
    check(
        "vmap.devices across ranks, memory_budget",
        budgeted,
        jnp::exp(&xs) - 1.0,
    );
}
