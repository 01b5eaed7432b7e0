//! The process-wide memory limit (`memory::set_memory_limit`, `OXLA_MEMORY_LIMIT`): a call
//! whose plan cannot fit fails with `Error::OutOfMemory` before running. One test in its
//! own process, since the limit is global.

use oxla::memory::{self, parse_bytes};
use oxla::{jit, numpy as jnp, random, vmap, Error, Tensor};

#[test]
fn a_plan_over_the_limit_fails_before_running_and_names_its_largest_buffer() {
    let line = line!() + 2;
    let f = |x: Tensor| {
        let table = x.index((.., None)) * x.index((None, ..));
        jnp::sort(&table, Some(-1)).sum(None)
    };
    let x = random::normal(&random::key(7), &[2000]);
    let before = x.to_vec::<f32>();
    let want = f(x.clone()).item();
    let compiled = jit(f);
    // Two 2000 x 2000 f32 tables (16 MB each) at the peak.
    memory::set_memory_limit(Some(20 << 20));
    let err = compiled.call(x.clone()).expect_err("over the limit");
    let Error::OutOfMemory {
        needed,
        limit,
        ref largest,
        ..
    } = err
    else {
        panic!("{err}")
    };
    assert_eq!(limit, Some(20 << 20));
    assert!(needed > 20 << 20 && needed < 40 << 20, "{err}");
    // The largest buffer is data: its aval, kind, primitive and the user's line.
    let big = largest.as_deref().expect("a largest buffer");
    assert_eq!(
        (big.dtype, &big.shape[..]),
        ("f32", &[2000, 2000][..]),
        "{err}"
    );
    assert_eq!(big.bytes, 16_000_000);
    assert_eq!(big.kind, memory::BufferKind::Temporary, "{err}");
    let at = big.source.expect("the user's line");
    assert_eq!((at.file(), at.line()), (file!(), line), "{err}");
    assert!(big.equation.is_some() && !big.primitive.is_empty(), "{err}");
    assert!(err.to_string().contains(&big.to_string()), "{err}");
    let text = err.to_string();
    assert!(
        text.starts_with("out of memory: the call needs 30.5"),
        "{text}"
    );
    // Nothing ran: the input is intact, and with room the same call works.
    assert_eq!(x.to_vec::<f32>(), before);
    assert_eq!(memory::memory_limit(), Some(20 << 20));
    memory::set_memory_limit(Some(64 << 20));
    let got = compiled.call(x.clone()).expect("fits").item();
    assert!(
        (got - want).abs() <= 1e-3 * want.abs().max(1.0),
        "{got} vs {want}"
    );
    chunk_advice_fits();
    memory::set_memory_limit(None);
    assert_eq!(memory::memory_limit(), None);
}

/// Advice is given only where it is true. An unchunked `vmap` leaves no mapped axis in the
/// program, so its error names no `vmap`. A chunked one over the limit names a chunk size
/// that its plan, made again at that size, shows to fit; so chunked, the call fits and
/// agrees.
fn chunk_advice_fits() {
    let f = |x: Tensor| {
        let table = x.index((.., None)) * x.index((None, ..));
        jnp::sort(&table, Some(-1)).index((.., -1)).sum(None)
    };
    let xs = random::normal(&random::key(8), &[64, 200]);
    memory::set_memory_limit(None);
    let want: Tensor = vmap(f).call(xs.clone());
    // Two 64 x 200 x 200 f32 tables (10 MB each) at the peak, in 4 MiB.
    let limit = 4 << 20;
    memory::set_memory_limit(Some(limit));
    let err = jit(|xs: Tensor| -> Tensor { vmap(f).call(xs) })
        .call(xs.clone())
        .expect_err("over the limit");
    let Error::OutOfMemory { ref advice, .. } = err else {
        panic!("{err}")
    };
    assert!(advice.is_empty(), "{err}");
    assert!(!err.to_string().contains("vmap"), "{err}");
    // Chunked in one chunk of 64: the map is over the limit, and the error says how it fits.
    let line = line!() + 1;
    let whole = jit(|xs: Tensor| -> Tensor { vmap(f).chunk_size(64).call(xs) });
    let err = whole.call(xs.clone()).expect_err("over the limit");
    let Error::OutOfMemory {
        fitting_chunk_size, ..
    } = err
    else {
        panic!("{err}")
    };
    let text = err.to_string();
    assert!(
        text.contains(&format!("chunked map at {}:{line}:", file!())),
        "{text}"
    );
    let k: usize = text
        .split("chunk_size(")
        .nth(1)
        .and_then(|t| t.split(')').next())
        .and_then(|k| k.parse().ok())
        .unwrap_or_else(|| panic!("no chunk size in: {text}"));
    assert!((1..64).contains(&k), "{text}");
    assert_eq!(fitting_chunk_size, Some(k), "the advice is data too");
    let fitted = jit(move |xs: Tensor| -> Tensor { vmap(f).chunk_size(k).call(xs) });
    let plan = fitted.lower(&xs).compile();
    assert!(plan.memory_analysis().peak_bytes <= limit);
    assert!(
        text.contains(&format!(
            "the call needs {}",
            memory::format_bytes(plan.memory_analysis().peak_bytes)
        )),
        "{text}"
    );
    let got = fitted.call(xs).expect("the advised chunk size fits");
    for (a, b) in got.to_vec::<f32>().iter().zip(want.to_vec::<f32>()) {
        assert!((a - b).abs() <= 1e-4 * b.abs().max(1.0), "{a} vs {b}");
    }
}

#[test]
fn sizes_read_as_people_write_them() {
    assert_eq!(parse_bytes("2GiB"), Some(2 << 30));
    assert_eq!(parse_bytes("1.5 KiB"), Some(1536));
    assert_eq!(parse_bytes("500MB"), Some(500_000_000));
    assert_eq!(parse_bytes("1e9"), Some(1_000_000_000));
    assert_eq!(parse_bytes(" 4096 "), Some(4096));
    assert_eq!(parse_bytes("640k"), Some(640_000));
    assert_eq!(parse_bytes("lots"), None);
    assert_eq!(parse_bytes("-1GB"), None);
    assert_eq!(parse_bytes("3 parsecs"), None);
}

#[test]
fn the_environment_sets_the_limit() {
    if std::env::var("OXLA_TEST_CHILD").is_err() {
        // Run this test again in a process that starts with the variable set.
        let status = std::process::Command::new(std::env::current_exe().expect("test binary"))
            .args([
                "--exact",
                "the_environment_sets_the_limit",
                "--test-threads=1",
            ])
            .env("OXLA_MEMORY_LIMIT", "1MiB")
            .env("OXLA_TEST_CHILD", "1")
            .status()
            .expect("runs");
        assert!(status.success());
        return;
    }
    assert_eq!(memory::memory_limit(), Some(1 << 20));
    let f = jit(|x: Tensor| jnp::sort(&(x.index((.., None)) * x.index((None, ..))), None));
    assert!(matches!(
        f.call(jnp::ones(&[1000])),
        Err(Error::OutOfMemory { .. })
    ));
    memory::set_memory_limit(None);
    assert!(f.call(jnp::ones(&[1000])).is_ok());
}
