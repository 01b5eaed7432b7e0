//! Memory per device: the compiled plan of a map over devices shows each device's plan
//! (its rows, peak, shared operands, largest buffer and its line), and a limit on each
//! device (`set_device_memory_limit`, `OXLA_DEVICE_MEMORY`) that one device's plan exceeds
//! makes the call return `Error::OutOfMemory` naming that device and a chunk size that fits
//! there, before anything runs, its inputs intact; called eagerly, such a map panics as an
//! eager operation out of memory does, before anything runs. A binary of its own: the
//! limit is the process's (and its tests take turns with it).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use oxla::numpy as jnp;
use oxla::{debug, jit, memory, random, vmap, Error, Tensor};

type T = Tensor;

/// A per-example program whose plan grows with the examples: a sorted outer product
/// (the sort's result is a buffer of its own), counted by a callback when it runs.
fn per_example(runs: Arc<AtomicUsize>) -> impl Fn(T) -> T + Clone {
    move |v: T| {
        let runs = runs.clone();
        debug::callback(
            move |_: T| {
                runs.fetch_add(1, Ordering::Relaxed);
            },
            v.clone(),
        );
        jnp::sort(&(v.index((.., None)) * v.index((None, ..))), None).max(None)
    }
}

/// The process's limit, for one test at a time.
fn limit_turn() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn a_device_over_its_limit_is_named_with_a_chunk_size_that_fits_there() {
    let _turn = limit_turn();
    oxla::set_num_devices(2);
    let x = random::normal(&random::key(0), &[3, 256]);
    let runs = Arc::new(AtomicUsize::new(0));
    let f = per_example(runs.clone());
    let g = f.clone();
    let mapped = jit(move |x: T| vmap(g.clone()).devices(2).call(x));
    let plan = mapped.lower(&x).compile().memory_analysis().clone();
    // 3 rows over 2 devices: 2 and 1.
    let rows: Vec<usize> = plan.devices.iter().map(|d| d.rows).collect();
    assert_eq!(rows, vec![2, 1], "{plan}");
    let (two, one) = (plan.devices[0].peak_bytes, plan.devices[1].peak_bytes);
    assert!(two > one + 200_000, "{plan}");
    let shown = plan.to_string();
    assert!(shown.contains("device 0   2 rows"), "{shown}");
    assert!(shown.contains("device_memory.rs"), "{shown}");
    let largest = plan.devices[0].largest.clone().expect("a largest buffer");
    assert_eq!(largest.aval.shape.to_vec(), vec![2, 256, 256], "{plan}");

    // A limit between the 1-row and the 2-row plans.
    memory::set_device_memory_limit(Some((one + two) / 2));
    let err = mapped
        .call(x.clone())
        .expect_err("device 0 is over its limit");
    memory::set_device_memory_limit(None);
    let Error::OutOfMemory {
        device,
        needed,
        limit,
        fitting_chunk_size,
        ..
    } = &err
    else {
        panic!("expected OutOfMemory, got {err:?}")
    };
    assert_eq!(*device, Some(0), "{err}");
    assert_eq!(*needed, two, "{err}");
    assert_eq!(*limit, Some((one + two) / 2), "{err}");
    assert_eq!(*fitting_chunk_size, Some(1), "{err}");
    let text = err.to_string();
    assert!(text.starts_with("out of memory on device 0:"), "{text}");
    assert!(text.contains("chunks of 1"), "{text}");
    assert_eq!(runs.load(Ordering::Relaxed), 0, "nothing ran");

    // The advice holds, and the inputs are intact.
    let chunked = jit(move |x: T| vmap(f.clone()).devices(2).chunk_size(1).call(x));
    memory::set_device_memory_limit(Some((one + two) / 2));
    let got = chunked.call(x.clone());
    memory::set_device_memory_limit(None);
    let want: T = vmap(per_example(Arc::new(AtomicUsize::new(0)))).call(x.clone());
    assert_eq!(
        got.expect("fits in chunks of 1").to_vec::<f32>(),
        want.to_vec::<f32>()
    );
    assert_eq!(runs.load(Ordering::Relaxed), 3);
}

#[test]
fn an_eager_map_over_a_device_limit_panics_naming_the_device_before_it_runs() {
    let _turn = limit_turn();
    oxla::set_num_devices(2);
    let x = random::normal(&random::key(1), &[3, 256]);
    let before = x.to_vec::<f32>();
    let runs = Arc::new(AtomicUsize::new(0));
    let f = per_example(runs.clone());
    let g = f.clone();
    let plan = jit(move |x: T| vmap(g.clone()).devices(2).call(x))
        .lower(&x)
        .compile()
        .memory_analysis()
        .clone();
    let (two, one) = (plan.devices[0].peak_bytes, plan.devices[1].peak_bytes);
    memory::set_device_memory_limit(Some((one + two) / 2));
    let eager = f.clone();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _: T = vmap(eager).devices(2).call(x.clone());
    }));
    let pmapped = f.clone();
    let caught_pmap = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // Two examples on each device: the 2-row plan.
        let pairs = jnp::concatenate(&[x.index(..2), x.index(..2)], 0).reshape(&[2, 2, 256]);
        let _: T = oxla::pmap(move |b: T| vmap(pmapped.clone()).call(b)).call(pairs);
    }));
    memory::set_device_memory_limit(None);
    let text = |c: std::thread::Result<()>| -> String {
        let payload = c.expect_err("a device is over its limit");
        payload
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default()
    };
    let text_vmap = text(caught);
    assert!(
        text_vmap.starts_with("out of memory on device 0:"),
        "{text_vmap}"
    );
    assert!(text_vmap.contains("chunks of 1"), "{text_vmap}");
    assert!(text_vmap.contains("device_memory.rs"), "{text_vmap}");
    let text_pmap = text(caught_pmap);
    assert!(
        text_pmap.starts_with("out of memory on device"),
        "{text_pmap}"
    );
    assert_eq!(runs.load(Ordering::Relaxed), 0, "nothing ran");
    assert_eq!(x.to_vec::<f32>(), before, "the inputs are intact");
    // Without the limit the same call runs.
    let got: T = vmap(f).devices(2).call(x.clone());
    let want: T = vmap(per_example(Arc::new(AtomicUsize::new(0)))).call(x);
    assert_eq!(got.to_vec::<f32>(), want.to_vec::<f32>());
    assert_eq!(runs.load(Ordering::Relaxed), 3);
}

#[test]
fn a_budget_no_example_fits_names_the_device() {
    let _turn = limit_turn();
    oxla::set_num_devices(2);
    let x = jnp::ones(&[5, 256]);
    let f = per_example(Arc::new(AtomicUsize::new(0)));
    let err = vmap(f)
        .devices(2)
        .memory_budget(10_000)
        .call(x)
        .expect_err("no example fits");
    assert!(
        matches!(
            err,
            Error::OutOfMemory {
                device: Some(0),
                ..
            }
        ),
        "{err:?}"
    );
}
