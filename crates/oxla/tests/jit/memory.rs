//! Memory plans: the analysis names the largest buffer and its line, results take the
//! buffers of values that die, kernels reuse their buffers, `explain` plans what cannot run,
//! and the planned peak matches the measured one.

use oxla::memory::BufferKind;
use oxla::{jit, lax, numpy as jnp, random, Tensor};

use crate::rss::{peak_rss, reset_peak_rss};
use crate::seeds;

#[test]
fn memory_analysis_names_the_largest_buffer_and_its_line() {
    let line = line!() + 2;
    let f = |x: Tensor| {
        let a = x.index((.., None)) * x.index((None, ..));
        let b = jnp::matmul(&a, &a);
        jnp::exp(&b).sum(None)
    };
    let c = jit(f).lower(&jnp::ones(&[100])).compile();
    let m = c.memory_analysis();
    assert_eq!(m.argument_bytes, 400);
    assert_eq!(m.output_bytes, 4);
    // The outer product feeds a matmul, so it is stored; exp and the sum fuse.
    assert_eq!(m.temp_bytes, 2 * 100 * 100 * 4, "{m}");
    // The step at the peak adds its working memory (the product's packed panels).
    assert_eq!(m.peak_bytes, 400 + 2 * 40000 + m.scratch_bytes, "{m}");
    let top = &m.largest[0];
    assert_eq!((top.bytes, top.kind), (40000, BufferKind::Temporary));
    assert!(
        top.source
            .is_some_and(|s| (line..=line + 1).contains(&s.line())),
        "{m}"
    );
    let text = m.to_string();
    assert!(text.contains("tests/jit/memory.rs:"), "{text}");
}

#[test]
fn cosine_affinities_hold_the_images_and_the_result_alone() {
    // Seed 000's cosine mode: the normalised images are never stored; the product of the
    // images themselves is scaled by the norms in place.
    let imgs = random::normal(&random::key(2), &[800, 20, 20]);
    let c = jit(|x: Tensor| seeds::affinity_cosine(&x))
        .lower(&imgs)
        .compile();
    let m = c.memory_analysis();
    let (images, result) = (800 * 400 * 4, 800 * 800 * 4);
    assert_eq!((m.argument_bytes, m.output_bytes), (images, result), "{m}");
    // The product is the result's buffer, scaled in place; beside them only the norms.
    assert_eq!(m.in_place_results, 1, "{m}");
    assert!(
        m.peak_bytes <= images + result + 16 * 800 * 4 + m.scratch_bytes,
        "{m}"
    );
    let (got, want) = (c.call(imgs.clone()).unwrap(), seeds::affinity_cosine(&imgs));
    for (a, b) in got.to_vec::<f32>().iter().zip(want.to_vec::<f32>()) {
        assert!((a - b).abs() <= 1e-5, "{a} against {b}");
    }
}

#[test]
fn results_take_the_buffers_of_values_that_die() {
    let f = |x: Tensor| {
        let a = jnp::matmul(&x, &x);
        let b = jnp::matmul(&a, &x);
        // `b` lives on, so `c` takes `a`'s buffer, freed the step before.
        let c = &b + 1.0;
        let s = jnp::sort(&c, -1);
        // `b`, `c` and `s` are read where the result is written and die here: the result
        // takes one of their buffers.
        jnp::exp(&(&c * 0.01)) + s + b
    };
    let x = random::normal(&random::key(9), &[64, 64]) * 0.1;
    let c = jit(f).lower(&x).compile();
    let m = c.memory_analysis();
    assert_eq!((m.in_place_results, m.reused_buffers), (1, 1), "{m}");
    // At most the argument and three 64x64 values are ever live.
    assert!(m.peak_bytes <= 4 * 64 * 64 * 4 + m.scratch_bytes, "{m}");
    assert!(
        m.to_string()
            .contains("1 results in place, 1 in freed buffers"),
        "{m}"
    );
    let want = f(x.clone()).to_vec::<f32>();
    for _ in 0..2 {
        let got = c.call(x.clone()).unwrap().to_vec::<f32>();
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() <= 1e-5 * (1.0 + w.abs()), "{g} vs {w}");
        }
    }
    // The argument itself is never overwritten.
    assert_eq!(
        x.to_vec::<f32>(),
        (random::normal(&random::key(9), &[64, 64]) * 0.1).to_vec::<f32>()
    );
}

#[test]
fn a_kernel_that_picks_its_in_place_operand_whole_leaves_it_as_it_is() {
    // `a` dies in the kernel, which writes its result over it; a predicate uniform over
    // the kernel's lanes picks `a` itself, read where the result is written.
    let f = |(x, c): (Tensor, Tensor)| {
        let a = jnp::matmul(&x, &x);
        lax::select_n(&c, &[&a * 2.0, a])
    };
    let x = random::normal(&random::key(3), &[64, 64]);
    let a = jnp::matmul(&x, &x).to_vec::<f32>();
    for pick in [false, true] {
        let args = (x.clone(), Tensor::from_vec(vec![pick], &[]));
        let c = jit(f).lower(&args).compile();
        assert_eq!(c.memory_analysis().in_place_results, 1);
        let got = c.call(args).unwrap().to_vec::<f32>();
        let scale = if pick { 1.0 } else { 2.0 };
        for (g, w) in got.iter().zip(&a) {
            assert!(
                (g - scale * w).abs() <= 1e-4 * (1.0 + w.abs()),
                "{g} vs {w}"
            );
        }
    }
}

#[test]
fn small_kernels_reuse_their_lane_buffers_across_calls() {
    // Small kernels run on the calling thread and keep their lane buffers from one call to
    // the next: nothing of one call (views of its inputs, a select's pick, a reduction's
    // running values) may show in the next.
    let f = |(x, c): (Tensor, Tensor)| {
        let picked = lax::select_n(&c, &[&x * 2.0, &x + 1.0]);
        (picked.sum(1), jnp::max(&x, 0))
    };
    let g = jit(f);
    for i in 0..6 {
        let x = random::normal(&random::key(i), &[3, 5 + i as usize % 2]);
        let c = Tensor::from_vec(vec![i % 3 == 0], &[]);
        let (got, want) = (g.call((x.clone(), c.clone())).unwrap(), f((x, c)));
        assert_eq!(got.0.to_vec::<f32>(), want.0.to_vec::<f32>(), "call {i}");
        assert_eq!(got.1.to_vec::<f32>(), want.1.to_vec::<f32>(), "call {i}");
    }
}

#[test]
fn explain_plans_a_call_too_large_to_run() {
    // 100,000 x 100,000 f32 products, sorted: 40 GB, planned without allocating them.
    let line = line!() + 1;
    let f = |x: Tensor| jnp::sort(&(x.index((.., None)) * x.index((None, ..))), None);
    let plan = oxla::explain(f, &jnp::ones(&[100_000]));
    let top = &plan.largest[0];
    assert_eq!(top.bytes, 40_000_000_000);
    assert!(plan.peak_bytes >= 80_000_000_000, "{plan}");
    assert!(top.source.is_some_and(|s| s.line() == line), "{plan}");
    assert!(plan.to_string().contains("f32[10000000000]"), "{plan}");
}

/// Runs one program (in a child process started by the test below) and prints its planned
/// peak beyond its arguments, and the measured growth of peak RSS while it runs.
fn memory_child(program: &str) {
    fn measure<A: oxla::Tree, O: oxla::Tree, F: Fn(A) -> O>(f: F, args: A) -> (usize, usize) {
        let c = jit(f).lower(&args).compile();
        let m = c.memory_analysis().clone();
        // Buffers held from building the arguments would be released during the call.
        oxla::memory::release_held();
        let before = reset_peak_rss();
        c.call(args).unwrap();
        (m.peak_bytes - m.argument_bytes, peak_rss() - before)
    }
    let (planned, measured) = match program {
        "lattice" => {
            let n = 60;
            let f = seeds::memory_test_batched(2);
            let args = (jnp::arange((n * n * n) as i32), jnp::ones(&[n, n, n, 19]));
            measure(f, args)
        }
        "matmuls" => {
            let f = |x: Tensor| jnp::matmul(jnp::matmul(&x, &x), jnp::tanh(&x)).sum(None);
            measure(f, random::normal(&random::key(0), &[2000, 2000]))
        }
        _ => {
            // Stored intermediates: a sort and a cumsum run alone, so their inputs exist.
            let f = |x: Tensor| {
                let s = jnp::sort(&(jnp::exp(&x) * 2.0), 0);
                jnp::cumsum(&s, 0) + jnp::sin(&x)
            };
            measure(f, random::normal(&random::key(1), &[4_000_000]))
        }
    };
    println!("\nOXLA_MEMORY planned={planned} measured={measured}");
}

#[test]
fn planned_peak_matches_measured_rss() {
    if let Ok(program) = std::env::var("OXLA_MEMORY_CHILD") {
        memory_child(&program);
        return;
    }
    for program in ["lattice", "matmuls", "stored"] {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "memory::planned_peak_matches_measured_rss",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("OXLA_MEMORY_CHILD", program)
            .env("OXLA_NUM_THREADS", "1")
            .output()
            .expect("runs the child");
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text
            .lines()
            .find_map(|l| l.find("OXLA_MEMORY").map(|i| &l[i..]))
            .unwrap_or_else(|| panic!("child for {program} printed: {text}"));
        let num = |key: &str| -> f64 {
            line.split_whitespace()
                .find_map(|w| w.strip_prefix(key))
                .and_then(|v| v.parse().ok())
                .expect("a number")
        };
        let (planned, measured) = (num("planned="), num("measured="));
        let slack = 0.1 * planned + 64.0 * 1024.0 * 1024.0;
        assert!(
            (measured - planned).abs() <= slack,
            "{program}: planned {planned} bytes, measured {measured} bytes of peak RSS growth"
        );
        println!("{program}: planned {planned:.0} B, measured {measured:.0} B");
    }
}

#[test]
fn leading_rows_sliced_for_a_step_of_their_own_are_shared_not_copied() {
    // The rows feed a sort, so they are stored: as rows of the argument's buffer.
    let x = jnp::arange(24.0).reshape(&[2, 3, 4]) * -1.0;
    let f = |x: Tensor| jnp::sort(x.index(1..2).reshape(&[3, 4]), Some(-1));
    let c = jit(f).lower(&x).compile();
    let m = c.memory_analysis();
    assert_eq!(m.temp_bytes, 0, "{m}");
    assert_eq!(
        c.call(x.clone()).unwrap().to_vec::<f32>(),
        f(x.clone()).to_vec::<f32>()
    );
    // Rows of a temporary extend its life in the plan; a strided or inner slice is copied.
    let g = |x: Tensor| {
        let y = jnp::sort(&x, Some(0));
        (
            jnp::sort(y.index(0..1), Some(-1)),
            jnp::sort(y.index((.., 1..3)), Some(-1)),
        )
    };
    let c = jit(g).lower(&x).compile();
    let m = c.memory_analysis();
    assert_eq!(m.temp_bytes, 24 * 4 + 2 * 2 * 4 * 4, "{m}");
    let (a, b) = c.call(x.clone()).unwrap();
    let (want_a, want_b) = g(x);
    assert_eq!(a.to_vec::<f32>(), want_a.to_vec::<f32>());
    assert_eq!(b.to_vec::<f32>(), want_b.to_vec::<f32>());
}
