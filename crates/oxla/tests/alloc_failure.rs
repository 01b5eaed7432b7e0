//! A buffer the system refuses to allocate is an error, not the end of the process: a
//! compiled call returns `Error::OutOfMemory` naming the bytes and its plan, an eager
//! operation panics (unwinding) at the user's line; either way the inputs are intact and
//! the next call works. In its own process: the calls ask the system for 100 GB.

use std::panic::{catch_unwind, AssertUnwindSafe};

use oxla::{jit, memory, numpy as jnp, Error, Tensor};

/// 100 GB, or 1 TB where the machine's memory and swap come near 100 GB: a size the kernel
/// refuses outright (Linux's default overcommit heuristic refuses one allocation larger
/// than memory and swap together), so the test never commits it.
fn refused_bytes() -> Option<usize> {
    let overcommit = std::fs::read_to_string("/proc/sys/vm/overcommit_memory").ok()?;
    if overcommit.trim() == "1" {
        // Every allocation succeeds until its pages are touched: nothing to test here.
        eprintln!("vm.overcommit_memory = 1: the system refuses no allocation; skipped");
        return None;
    }
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib = |key: &str| -> usize {
        info.lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
            .unwrap_or(0)
    };
    let have = (kib("MemTotal:") + kib("SwapTotal:")) * 1024;
    Some(if have < 50_000_000_000 {
        100_000_000_000
    } else {
        1 << 40
    })
}

#[test]
fn a_100_gb_call_without_a_limit_is_out_of_memory_and_the_next_call_works() {
    let Some(bytes) = refused_bytes() else { return };
    memory::set_memory_limit(None);
    let n = bytes / 4;
    let line = line!() + 1;
    let huge = jit(move |x: Tensor| jnp::broadcast_to(&x, &[n]) * 2.0 + 1.0);
    let x = Tensor::from_vec(vec![3.0f32], &[1]);
    let err = huge
        .call(x.clone())
        .expect_err("the system refuses the result");
    let Error::OutOfMemory {
        needed,
        limit,
        refused,
        ref largest,
        ..
    } = err
    else {
        panic!("{err}")
    };
    assert_eq!(refused, Some(bytes), "{err}");
    assert_eq!(limit, None);
    // The argument, the result and the kernel's lane buffers (under 1 MiB).
    assert!(
        needed >= bytes + 4 && needed < bytes + 4 + (1 << 20),
        "{err}"
    );
    let big = largest.as_deref().expect("a largest buffer");
    assert_eq!((big.dtype, &big.shape[..]), ("f32", &[n][..]), "{err}");
    let at = big.source.expect("the user's line");
    assert_eq!((at.file(), at.line()), (file!(), line), "{err}");
    let text = err.to_string();
    assert!(
        text.starts_with(&format!(
            "out of memory: the system refused an allocation of {}",
            memory::format_bytes(bytes)
        )),
        "{text}"
    );
    assert!(text.contains("no memory limit set"), "{text}");
    // The process lives, the input is intact, and calls go on working: the same function
    // on a small shape, and another one.
    assert_eq!(x.to_vec::<f32>(), vec![3.0]);
    let small = jit(|x: Tensor| jnp::broadcast_to(&x, &[4]) * 2.0 + 1.0);
    assert_eq!(small.call(x.clone()).unwrap().to_vec::<f32>(), vec![7.0; 4]);
    let err = huge.call(x.clone()).expect_err("again");
    assert!(matches!(
        err,
        Error::OutOfMemory {
            refused: Some(_),
            ..
        }
    ));
    assert_eq!(
        jit(|x: Tensor| &x - 1.0)
            .call(x.clone())
            .unwrap()
            .to_vec::<f32>(),
        vec![2.0]
    );
    // Under a limit the plan (its bytes counted without wrapping) is refused before it runs.
    memory::set_memory_limit(Some(1 << 30));
    let err = huge.call(x).expect_err("over the limit");
    memory::set_memory_limit(None);
    assert!(
        matches!(err, Error::OutOfMemory { limit: Some(l), refused: None, needed, .. }
            if l == 1 << 30 && needed >= bytes + 4 && needed < bytes + 4 + (1 << 20)),
        "{err}"
    );
}

#[test]
fn a_refused_eager_allocation_panics_at_the_users_line() {
    let Some(bytes) = refused_bytes() else { return };
    memory::set_memory_limit(None);
    let x = jnp::ones(&[3]);
    let line = line!() + 1;
    let caught = catch_unwind(|| jnp::zeros(&[bytes / 4]));
    let msg = panic_message(caught.expect_err("the system refuses the array"));
    assert!(
        msg.starts_with("broadcast_in_dim: memory allocation of"),
        "{msg}"
    );
    assert!(msg.contains(&format!("{bytes} bytes failed")), "{msg}");
    assert!(msg.contains(&format!("alloc_failure.rs:{line}")), "{msg}");
    // An eager loop, whose body runs as a compiled program, refuses the same way.
    let line = line!() + 2;
    let ys = AssertUnwindSafe(|| {
        oxla::control::scan(
            |(c, r): (Tensor, Tensor)| (c, jnp::broadcast_to(&r, &[bytes / 8])),
            jnp::zeros(&[]),
            x.clone(),
        )
    });
    let msg = panic_message(catch_unwind(ys).expect_err("refused inside the loop"));
    assert!(msg.contains("bytes failed"), "{msg}");
    assert!(msg.contains(&format!("alloc_failure.rs:{line}")), "{msg}");
    assert_eq!((&x + 1.0).to_vec::<f32>(), vec![2.0; 3]);
    // Array's own constructors panic the same way rather than abort.
    let caught = catch_unwind(|| oxla::Array::zeros(oxla::DType::F32, &[bytes / 4]));
    let msg = panic_message(caught.expect_err("refused"));
    assert!(msg.contains(&format!("{bytes} bytes failed")), "{msg}");
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic without a message".into())
}
