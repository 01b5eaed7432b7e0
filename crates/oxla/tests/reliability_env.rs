//! `OXLA_NUM_THREADS`, `OXLA_MEMORY_LIMIT` and `OXLA_ENABLE_X64`: a value that is not a
//! thread count, a size or a switch panics at its first use with a message naming it and
//! what is accepted, and the accepted spellings take effect. The environment is the process's, so each case runs in
//! a child process of this test binary.

use oxla::{jit, memory, numpy as jnp, Tensor};

/// Runs this binary's `child` test with `vars` set; returns whether it succeeded and what
/// it wrote on stdout and stderr.
fn run_child(case: &str, vars: &[(&str, &str)]) -> (bool, String) {
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "child", "--nocapture", "--test-threads=1"])
        .env("OXLA_ENV_CHILD", case)
        .env_remove("OXLA_NUM_THREADS")
        .env_remove("OXLA_MEMORY_LIMIT")
        .env_remove("OXLA_ENABLE_X64")
        .env_remove("RAYON_NUM_THREADS");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("runs the child");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// A compiled call (the first use of both variables), then what the child reports.
#[test]
fn child() {
    let Ok(case) = std::env::var("OXLA_ENV_CHILD") else {
        return;
    };
    let r = jit(|x: Tensor| &x * 2.0)
        .call(jnp::ones(&[4]))
        .expect("fits");
    assert_eq!(r.astype(oxla::DType::F32).to_vec::<f32>(), vec![2.0; 4]);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "CHILD {case} limit={:?} threads={} cores={cores} x64={} arange={}",
        memory::memory_limit(),
        rayon::current_num_threads(),
        oxla::config::x64_enabled(),
        jnp::arange(2).dtype()
    );
}

#[test]
fn bad_values_panic_naming_the_variable_the_value_and_what_is_accepted() {
    for (var, value, expected) in [
        (
            "OXLA_NUM_THREADS",
            "four",
            "OXLA_NUM_THREADS=\"four\" is not a thread count (not a whole number): set it to a \
             whole number of threads from 1 up, such as 4",
        ),
        (
            "OXLA_NUM_THREADS",
            "0",
            "OXLA_NUM_THREADS=\"0\" is not a thread count (0 threads cannot run anything)",
        ),
        (
            "OXLA_MEMORY_LIMIT",
            "0.5",
            "OXLA_MEMORY_LIMIT=\"0.5\" is not a memory size (less than one byte): write a \
             number of bytes with an optional unit, such as 2GiB, 2Gi, 512MiB, 2GB, 2G",
        ),
        (
            "OXLA_MEMORY_LIMIT",
            "2 gigs",
            "OXLA_MEMORY_LIMIT=\"2 gigs\" is not a memory size (unknown unit \"gigs\")",
        ),
        (
            "OXLA_MEMORY_LIMIT",
            "0",
            "OXLA_MEMORY_LIMIT=\"0\" would refuse every compiled call",
        ),
    ] {
        let (ok, text) = run_child("bad", &[(var, value)]);
        assert!(!ok, "{var}={value:?} was accepted:\n{text}");
        assert!(
            text.contains(expected),
            "{var}={value:?}: expected the message {expected:?}, got:\n{text}"
        );
    }
}

#[test]
fn sizes_in_binary_and_decimal_units_set_the_limit() {
    for (value, bytes) in [
        ("2Gi", 2usize << 30),
        ("2GiB", 2 << 30),
        ("2G", 2_000_000_000),
        ("2e9", 2_000_000_000),
        ("512MB", 512_000_000),
        ("512Mi", 512 << 20),
    ] {
        let (ok, text) = run_child("size", &[("OXLA_MEMORY_LIMIT", value)]);
        assert!(ok, "OXLA_MEMORY_LIMIT={value:?} failed:\n{text}");
        let want = format!("CHILD size limit=Some({bytes})");
        assert!(
            text.contains(&want),
            "{value:?}: expected {want:?} in:\n{text}"
        );
        assert!(!text.contains("ignoring"), "{text}");
    }
}

#[test]
fn more_threads_than_cores_run_as_many_as_cores_and_say_so() {
    let (ok, text) = run_child("many", &[("OXLA_NUM_THREADS", "1000")]);
    assert!(ok, "{text}");
    let line = text
        .lines()
        .find_map(|l| l.find("CHILD many").map(|i| &l[i..]))
        .unwrap_or_else(|| panic!("no report in:\n{text}"));
    let num = |key: &str| -> usize {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(key))
            .and_then(|v| v.parse().ok())
            .expect("a number")
    };
    assert_eq!(num("threads="), num("cores=").min(1000), "{line}");
    assert!(
        text.contains("OXLA_NUM_THREADS=\"1000\" asks for more threads than the"),
        "{text}"
    );
    let (ok, text) = run_child("one", &[("OXLA_NUM_THREADS", "1")]);
    assert!(ok && text.contains("threads=1 "), "{text}");
}

#[test]
fn oxla_enable_x64_sets_the_default_dtypes() {
    let (ok, text) = run_child("x64", &[("OXLA_ENABLE_X64", "1")]);
    assert!(ok && text.contains("x64=true arange=int64"), "{text}");
    let (ok, text) = run_child("x32", &[("OXLA_ENABLE_X64", "0")]);
    assert!(ok && text.contains("x64=false arange=int32"), "{text}");
    let (ok, text) = run_child("bad", &[("OXLA_ENABLE_X64", "yes")]);
    assert!(
        !ok && text.contains("OXLA_ENABLE_X64=\"yes\" is not a switch: set it to 1"),
        "{text}"
    );
}
