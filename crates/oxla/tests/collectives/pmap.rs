//! `pmap` and `shard_map` on 3 CPU devices (maps over 1, 2 or 3 of them): every collective
//! equals its `vmap(f).axis_name` value (mapped and unmapped operands, any mapped axis),
//! and the map composes with `jit`, `grad`, `jvp` and `vmap` on either side.

use oxla::numpy as jnp;
use oxla::{grad, jit, jvp, lax, pmap, random, shard_map, vmap, Tensor};
use proptest::prelude::*;

use crate::ops::op_for;
use crate::{close, panics};

type T = Tensor;

/// Every test of this binary that maps over devices runs with 3 of them.
pub(crate) fn devices() {
    oxla::set_num_devices(3);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// `pmap(f).axis_name("i") == vmap(f).axis_name("i")` for every collective, tiled or
    /// not, on a mapped operand at any axis and on an unmapped one.
    #[test]
    fn pmap_equals_vmap(
        n in 1usize..=3,
        mut shape in prop::collection::vec(1usize..4, 1..=3),
        pick in any::<u32>(),
        seed in any::<u32>(),
    ) {
        devices();
        let op = op_for(pick, n, &mut shape);
        let at = pick as usize % (shape.len() + 1);
        let mut full = shape.clone();
        full.insert(at, n);
        let x = random::normal(&random::key(seed as i64), &full);
        let c = random::normal(&random::key(seed as i64 + 1), &shape);
        let f = |(v, c): (T, T)| (op.apply(&v), op.apply(&c));
        let axes = (at as i32, None::<i32>);
        let (a, b): (T, T) = vmap(f).axis_name("i").in_axes(axes).call((x.clone(), c.clone()));
        let (pa, pb): (T, T) = pmap(f).axis_name("i").in_axes(axes).call((x.clone(), c.clone()));
        let what = format!("{op:?} n={n} at={at}");
        close(&pa, &a, 1e-6, &what)?;
        close(&pb, &b, 1e-6, &what)?;
        let (ja, jb): (T, T) = jit(|(x, c): (T, T)| pmap(f).axis_name("i").in_axes(axes).call((x, c)))
            .call((x, c))
            .unwrap();
        close(&ja, &a, 1e-6, &format!("{what}: jit(pmap)"))?;
        close(&jb, &b, 1e-6, &format!("{what}: jit(pmap), unmapped"))?;
    }
}

#[test]
fn gradients_through_pmap() {
    devices();
    let x = random::normal(&random::key(1), &[3, 4]);
    let f = |v: T| jnp::sin(&v) * lax::psum(&(&v * &v), "i") + lax::pmax(&v, "i");
    let total_v = |x: T| jnp::sum(vmap(f).axis_name("i").call(x), None);
    let total_p = |x: T| jnp::sum(pmap(f).axis_name("i").call(x), None);
    let gv = grad(total_v).call(x.clone());
    let gp = grad(total_p).call(x.clone());
    close(&gp, &gv, 1e-5, "grad(pmap)").unwrap();
    // Inside the map, as JAX's per-device gradients.
    let inside_v: T = vmap(|v: T| grad(|v: T| jnp::sum(f(v), None)).call(v))
        .axis_name("i")
        .call(x.clone());
    let inside_p: T = pmap(|v: T| grad(|v: T| jnp::sum(f(v), None)).call(v))
        .axis_name("i")
        .call(x.clone());
    close(&inside_p, &inside_v, 1e-5, "pmap(grad)").unwrap();
    // Forward mode.
    let t = random::normal(&random::key(2), &[3, 4]);
    let (_, tv) = jvp(|x: T| vmap(f).axis_name("i").call(x), x.clone(), t.clone());
    let (_, tp) = jvp(|x: T| pmap(f).axis_name("i").call(x), x.clone(), t);
    close(&tp, &tv, 1e-5, "jvp(pmap)").unwrap();
    // An unmapped operand and a result the same on every device.
    let w = random::normal(&random::key(3), &[4]);
    let g = |(v, w): (T, T)| (&v * &w, lax::psum(&(&v * &w), "i"));
    let loss_v = |w: T| {
        let (a, b): (T, T) = vmap(g)
            .axis_name("i")
            .in_axes((0, None::<i32>))
            .out_axes((0, None::<i32>))
            .call((x.clone(), w));
        jnp::sum(jnp::sin(&a), None) + jnp::sum(&(&b * &b), None)
    };
    let loss_p = |w: T| {
        let (a, b): (T, T) = pmap(g)
            .axis_name("i")
            .in_axes((0, None::<i32>))
            .out_axes((0, None::<i32>))
            .call((x.clone(), w));
        jnp::sum(jnp::sin(&a), None) + jnp::sum(&(&b * &b), None)
    };
    close(
        &grad(loss_p).call(w.clone()),
        &grad(loss_v).call(w),
        1e-5,
        "grad of unmapped",
    )
    .unwrap();
}

#[test]
fn vmap_and_pmap_nest_with_collectives_over_both_names() {
    devices();
    let x = random::normal(&random::key(4), &[3, 2, 4]);
    let f = |v: T| {
        lax::psum(&v, ("i", "j")) - lax::pmean(&v, "j") * lax::axis_index("i").astype(v.dtype())
    };
    let want: T = vmap(vmap(f).axis_name("j").as_fn())
        .axis_name("i")
        .call(x.clone());
    let inner_vmap: T = pmap(vmap(f).axis_name("j").as_fn())
        .axis_name("i")
        .call(x.clone());
    close(&inner_vmap, &want, 1e-5, "pmap(vmap)").unwrap();
    let outer_vmap: T = vmap(pmap(f).axis_name("i").as_fn())
        .axis_name("j")
        .in_axes(1)
        .out_axes(1)
        .call(x.clone());
    close(&outer_vmap, &want, 1e-5, "vmap(pmap)").unwrap();
    let jitted: T = pmap(|v: T| jit(|v: T| lax::psum(&v, "i")).call(v).unwrap())
        .axis_name("i")
        .call(x.clone());
    close(
        &jitted,
        &vmap(|v: T| lax::psum(&v, "i")).axis_name("i").call(x),
        1e-6,
        "pmap(jit)",
    )
    .unwrap();
}

#[test]
fn shard_map_blocks() {
    devices();
    let x = jnp::arange(12.0).reshape(&[6, 2]);
    let f = |b: T| &b - lax::pmean(&b.mean(0), "i");
    let got: T = shard_map(f).axis_name("i").call(x.clone());
    let want = &x - x.mean(0);
    assert_eq!(got.to_vec::<f32>(), want.to_vec::<f32>());
    let total: T = shard_map(|b: T| lax::psum(&b.sum(None), "i"))
        .axis_name("i")
        .devices(2)
        .out_specs(None::<i32>)
        .call(x.clone());
    assert_eq!(total.item(), 66.0);
    let msg = panics::message(|| {
        let _: T = shard_map(|b: T| b)
            .axis_name("i")
            .in_specs(1)
            .call(x.clone());
    });
    assert!(msg.contains("does not divide evenly"), "{msg}");
}

/// `out_specs(None)` on a result that varies over the axis is refused (JAX's `check_vma`),
/// unless the check is off; results made the same by a collective, or from whole
/// arguments, pass, also through a nested `jit`.
#[test]
fn shard_map_refuses_a_varying_result_said_to_be_the_same() {
    devices();
    let x = jnp::arange(12.0);
    let same = |f: fn(T) -> T, check: bool| -> T {
        shard_map(f)
            .axis_name("i")
            .devices(2)
            .out_specs(None::<i32>)
            .check_vma(check)
            .call(x.clone())
    };
    for varying in [
        (|b: T| b.sum(None)) as fn(T) -> T,
        |b: T| lax::axis_index("i").astype(oxla::DType::F32) + b.sum(None) * 0.0,
        |b: T| lax::ppermute(&b.sum(None), "i", &[(0, 1), (1, 0)]),
    ] {
        let msg = panics::message(|| {
            same(varying, true);
        });
        assert!(
            msg.contains("varies over the axis") && msg.contains("pmap.rs"),
            "{msg}"
        );
    }
    // Unchecked: device 0's block sum.
    assert_eq!(same(|b: T| b.sum(None), false).item(), 15.0);
    let psum_twice = |b: T| {
        jit(|b: T| lax::psum(&b.sum(None), "i"))
            .call(b)
            .expect("runs")
            * 2.0
    };
    for (reduced, want) in [
        ((|b: T| lax::pmax(&b.max(None), "i")) as fn(T) -> T, 11.0),
        // An untiled all_gather of one scalar per device, stacked.
        (
            |b: T| lax::all_gather(&b.sum(None), "i", 0, false).sum(None),
            66.0,
        ),
        (psum_twice, 132.0),
    ] {
        assert_eq!(same(reduced, true).item(), want);
    }
    // A whole argument is the same on every device.
    let whole: (T, T) = shard_map(|(b, w): (T, T)| (b * 2.0, w.sum(None)))
        .axis_name("i")
        .devices(2)
        .in_specs((0, None::<i32>))
        .out_specs((0, None::<i32>))
        .call((x.clone(), x.clone()));
    assert_eq!(whole.1.item(), 66.0);
}

#[test]
fn a_mapped_size_past_the_device_count_panics() {
    devices();
    let msg = panics::message(|| {
        let _: T = pmap(|v: T| v).call(jnp::ones(&[4, 2]));
    });
    assert!(
        msg.contains("pmap: the mapped axis has size 4, which requires 4 devices, but only 3"),
        "{msg}"
    );
    assert!(msg.contains("tests/collectives/pmap.rs"), "{msg}");
}

#[test]
fn maps_called_from_a_pool_and_from_several_threads_at_once_agree() {
    devices();
    // From outside every pool each device's body is a job on its pool; from a rayon
    // worker, a thread of its own per device; calls from several threads take turns.
    let x = jnp::arange(6.0).reshape(&[3, 2]);
    let want: T = vmap(|v: T| lax::psum(&v, "i"))
        .axis_name("i")
        .call(x.clone());
    let call = |x: T| -> T { pmap(|v: T| lax::psum(&v, "i")).axis_name("i").call(x) };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("a pool");
    let from_pool = pool.install(|| call(x.clone()));
    assert_eq!(from_pool.to_vec::<f32>(), want.to_vec::<f32>());
    let many: Vec<T> = std::thread::scope(|s| {
        let calls: Vec<_> = (0..4).map(|_| s.spawn(|| call(x.clone()))).collect();
        calls
            .into_iter()
            .map(|h| h.join().expect("a call"))
            .collect()
    });
    for got in many {
        assert_eq!(got.to_vec::<f32>(), want.to_vec::<f32>());
    }
}

#[test]
fn a_failing_device_fails_the_call_without_hanging() {
    devices();
    // Device 1's body fails (a host callback panics there): its panic ends the call, and
    // the others, waiting at the psum, leave it.
    let x = jnp::arange(3.0);
    let msg = panics::message(|| {
        let _: T = pmap(|v: T| {
            oxla::debug::callback(
                |i: T| assert!(i.item() != 1.0, "device 1 fails"),
                lax::axis_index("i"),
            );
            lax::psum(&v, "i")
        })
        .axis_name("i")
        .call(x.clone());
    });
    assert!(msg.contains("device 1 fails"), "{msg}");
    assert!(
        !msg.contains("left"),
        "the echo was reported instead of the failure: {msg}"
    );
}

#[test]
fn a_device_that_skips_a_collective_fails_the_call_without_hanging() {
    devices();
    // Device 0 loops once, device 1 twice: at its second pmean, device 1 waits for a
    // device that has finished.
    let x = jnp::zeros(&[2]);
    let msg = panics::message(|| {
        let _: T = pmap(|v: T| {
            lax::while_loop(
                |c: T| c.lt(lax::axis_index("i").astype(c.dtype()) + 1.0),
                |c: T| &c + lax::pmean(&jnp::ones(&[]), "i"),
                v,
            )
        })
        .axis_name("i")
        .call(x.clone());
    });
    assert!(
        msg.contains("device 1 waits at") && msg.contains("device 0 finished without reaching it"),
        "{msg}"
    );
}

#[test]
fn a_pmap_s_axis_shadows_an_enclosing_vmap_s() {
    devices();
    let x = random::normal(&random::key(5), &[2, 3, 4]);
    let inner = pmap(|v: T| lax::psum(&v, "i")).axis_name("i");
    let got: T = vmap(inner.as_fn()).axis_name("i").call(x.clone());
    let want = jnp::broadcast_to(x.sum(1).index((.., None, ..)), &[2, 3, 4]);
    close(&got, &want, 1e-6, "vmap(pmap) with one name").unwrap();
}

#[test]
fn a_loop_of_constants_holding_a_collective_is_not_folded() {
    devices();
    let x = jnp::arange(2.0);
    let got: T = pmap(|v: T| {
        let c = lax::fori_loop(0, 2, |(_, c): (T, T)| lax::psum(&c, "i"), jnp::ones(&[]));
        &v * c
    })
    .axis_name("i")
    .call(x);
    assert_eq!(got.to_vec::<f32>(), vec![0.0, 4.0]);
}

#[test]
fn chunked_maps_and_budgets_inside_each_device() {
    devices();
    let x = random::normal(&random::key(6), &[2, 6, 3]);
    let f = |v: T| jnp::sum(&(&v * &v), None) + lax::psum(&v.sum(None), "i");
    let want: T = vmap(vmap(f).axis_name("j").as_fn())
        .axis_name("i")
        .call(x.clone());
    let chunked: T = pmap(vmap(f).chunk_size(4).as_fn())
        .axis_name("i")
        .call(x.clone());
    close(&chunked, &want, 1e-5, "pmap(vmap.chunk_size)").unwrap();
    let budget = |b: T| -> T { vmap(f).memory_budget(1 << 20).call(b).expect("fits") };
    let budgeted: T = pmap(budget).axis_name("i").call(x);
    close(&budgeted, &want, 1e-5, "pmap(vmap.memory_budget)").unwrap();
}

#[test]
fn mismatched_collectives_fail_naming_both_lines() {
    devices();
    // Device 0 takes the branch with a psum, device 1 the one with a pmax.
    let x = jnp::arange(2.0);
    let msg = panics::message(|| {
        let _: T = pmap(|v: T| {
            let first = lax::axis_index("i").eq(0);
            lax::cond(
                &first,
                |v: T| lax::psum(&v, "i"),
                |v: T| lax::pmax(&v, "i"),
                v,
            )
        })
        .axis_name("i")
        .call(x.clone());
    });
    assert!(msg.contains("devices disagree on the collective"), "{msg}");
    // Both collectives' lines, one after the other.
    let at: Vec<usize> = msg
        .split("tests/collectives/pmap.rs:")
        .skip(1)
        .map(|rest| rest.split(':').next().unwrap_or("").parse().unwrap_or(0))
        .collect();
    assert_eq!(at.len(), 2, "{msg}");
    assert_eq!(at[1], at[0] + 1, "{msg}");
}
