//! jit: compile cache, ahead-of-time lowering, simplification, memory plans, composition.

mod rss;
#[path = "../examples/seeds/mod.rs"]
mod seeds;

use oxla::memory::BufferKind;
use oxla::prims::{GatherDims, GatherMode};
use oxla::{grad, jit, lax, make_jaxpr, numpy as jnp, random, vmap, DType, Tensor};
use rss::{peak_rss, reset_peak_rss};

#[test]
fn jit_matches_eager_and_caches_by_avals() {
    let f = jit(|x: Tensor| (jnp::exp(&x) * 2.0 + jnp::sin(&x)).sum(0));
    for shape in [[3usize, 4], [3, 4], [5, 2]] {
        let x = random::normal(&random::key(shape[1] as i64), &shape);
        let eager = (jnp::exp(&x) * 2.0 + jnp::sin(&x)).sum(0);
        assert_eq!(f.call(x).unwrap().to_vec::<f32>(), eager.to_vec::<f32>());
    }
    assert_eq!(f.cache_size(), 2);
}

#[test]
fn seed_programs_compile_and_agree_with_eager() {
    let n = 6;
    let lattice = random::uniform(&random::key(1), &[n, n, n, 19]);
    let ids = jnp::arange((n * n * n) as i32);
    for variant in [1, 2] {
        let batched = seeds::memory_test_batched(variant);
        let eager = batched((ids.clone(), lattice.clone()));
        let compiled = jit(batched).call((ids.clone(), lattice.clone())).unwrap();
        let (e, c) = (eager.to_vec::<f32>(), compiled.to_vec::<f32>());
        for (a, b) in e.iter().zip(&c) {
            assert!((a - b).abs() <= 1e-4 * a.abs(), "{a} vs {b}");
        }
    }
}

#[test]
fn simplification_removes_the_multiply_by_ones_and_the_size_2_broadcast() {
    let body = |(id, v): (Tensor, Tensor)| seeds::memory_test(&id, &v, 2);
    let lattice = jnp::zeros(&[6, 6, 6, 19]);
    let c = jit(body)
        .lower(&(Tensor::scalar(0i32), lattice))
        .unwrap()
        .compile()
        .unwrap();
    let text = c.jaxpr().to_string();
    assert!(!text.contains("f32[3,3,3,19,2]"), "{text}");
    assert!(text.contains("reduce_sum[axes=(0, 1, 2, 3)]"), "{text}");
    assert!(
        text.contains("mul fe 2.0:f32[]") || text.contains("2.0:f32[]"),
        "{text}"
    );
}

#[test]
fn memory_analysis_names_the_largest_buffer_and_its_line() {
    let line = line!() + 2;
    let f = |x: Tensor| {
        let a = x.index((.., None)) * x.index((None, ..));
        let b = jnp::matmul(&a, &a);
        jnp::exp(&b).sum(None)
    };
    let c = jit(f).lower(&jnp::ones(&[100])).unwrap().compile().unwrap();
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
    assert!(text.contains("tests/jit.rs:"), "{text}");
}

#[test]
fn fusion_reports_each_kernels_schedule() {
    // A row sum of exp: one kernel, its schedule fixed when the program is compiled.
    let f = jit(|x: Tensor| jnp::exp(&x).sum(1));
    let c = f.lower(&jnp::ones(&[64, 300])).unwrap().compile().unwrap();
    let steps = c.fusion();
    assert_eq!(steps.len(), 1, "{steps:?}");
    let schedule = steps[0].schedule.as_deref().expect("a kernel's schedule");
    assert!(
        schedule.starts_with("loops [64, 300], reducing [1]"),
        "{schedule}"
    );
    assert!(schedule.contains("in blocks of 300 lanes"), "{schedule}");
    // A step that runs alone has none.
    let g = jit(|(a, b): (Tensor, Tensor)| a.matmul(&b));
    let m = jnp::ones(&[8, 8]);
    let c = g.lower(&(m.clone(), m)).unwrap().compile().unwrap();
    assert!(c.fusion().iter().all(|s| s.fused || s.schedule.is_none()));
}

#[test]
fn fusion_keeps_broadcasts_gathers_and_index_arithmetic_virtual() {
    // Seed 004's f: two broadcasts, a multiply and the sum are one kernel over the input.
    let c = jit(seeds::outer_sum)
        .lower(&jnp::ones(&[100]))
        .unwrap()
        .compile()
        .unwrap();
    let steps = c.fusion();
    assert_eq!(steps.len(), 1, "{steps:?}");
    assert!(steps[0].fused);
    assert_eq!(
        steps[0].primitives,
        ["reduce_sum", "mul", "broadcast_in_dim", "broadcast_in_dim"]
    );
    assert_eq!(c.memory_analysis().temp_bytes, 0);
    // Seed 004's lattice program: the index computations and the 3x3x3x19 gather fuse into
    // the sum; nothing of size N^3 x 513 exists.
    let n = 8;
    let batched = seeds::memory_test_batched(2);
    let args = (jnp::arange((n * n * n) as i32), jnp::ones(&[n, n, n, 19]));
    let c = jit(batched).lower(&args).unwrap().compile().unwrap();
    let m = c.memory_analysis();
    assert!(m.temp_bytes <= 2 * n * n * n * 4, "{m}\n{:?}", c.fusion());
    let gather = c
        .fusion()
        .into_iter()
        .find(|s| s.primitives.contains(&"gather"));
    // The gather, the sum over the neighbourhood and the final `* 2` are one kernel.
    assert!(gather.is_some_and(|s| s.fused && s.primitives[..2] == ["mul", "reduce_sum"]));
    // The sum over each cell's 19 values is taken once, before the gather: the one
    // temporary is the N^3 cell sums.
    assert_eq!(m.temp_bytes, n * n * n * 4, "{m}");
    let out = c.call(args).unwrap();
    assert!(out.to_vec::<f32>().iter().all(|&v| v == 1026.0));
}

#[test]
fn a_reduction_over_whole_gathered_windows_reduces_the_operand_first() {
    let x = random::normal(&random::key(3), &[6, 5, 4]);
    let idx = Tensor::from_vec(vec![0i32, 5, 2, 2, 3, 1, 4], &[7, 1]);
    let dims = GatherDims {
        offset_dims: vec![1, 2],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        ..GatherDims::default()
    };
    let cases: [(&str, &[i32], bool); 6] = [
        ("sum", &[2], true),
        ("sum", &[1, 2], true),
        ("max", &[1], true),
        ("min", &[0, 2], true),
        // Reducing the gathered dimension alone leaves the windows to gather.
        ("sum", &[0], false),
        ("max", &[0], false),
    ];
    for (op, axes, rewritten) in cases {
        let f = |x: Tensor| {
            let g = lax::gather(&x, &idx, dims.clone(), &[1, 5, 4], GatherMode::Clip);
            match op {
                "sum" => jnp::sum(&g, axes),
                "max" => jnp::max(&g, axes),
                _ => jnp::min(&g, axes),
            }
        };
        let want = f(x.clone()).to_vec::<f32>();
        let c = jit(f).lower(&x).unwrap().compile().unwrap();
        let got = c.call(x.clone()).unwrap().to_vec::<f32>();
        for (g, w) in got.iter().zip(&want) {
            assert!(
                (g - w).abs() <= 1e-5 * (1.0 + w.abs()),
                "{op} {axes:?}: {g} vs {w}"
            );
        }
        let first = c.jaxpr().jaxpr.eqns[0].prim.name();
        assert_eq!(
            first.starts_with("reduce_"),
            rewritten,
            "{op} {axes:?}: {}",
            c.jaxpr()
        );
    }
}

#[test]
fn results_take_the_buffers_of_values_that_die() {
    let f = |x: Tensor| {
        let a = jnp::matmul(&x, &x);
        let b = jnp::matmul(&a, &x);
        // `b` lives on, so `c` takes `a`'s buffer, freed the step before.
        let c = &b + 1.0;
        let s = jnp::sort(&c, Some(-1));
        // `b`, `c` and `s` are read where the result is written and die here: the result
        // takes one of their buffers.
        jnp::exp(&(&c * 0.01)) + s + b
    };
    let x = random::normal(&random::key(9), &[64, 64]) * 0.1;
    let c = jit(f).lower(&x).unwrap().compile().unwrap();
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
        let c = jit(f).lower(&args).unwrap().compile().unwrap();
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
fn kernels_walking_several_rows_per_block_agree_with_eager() {
    // A vector loop of a few hundred lanes makes a kernel walk groups of rows per block:
    // rows of 200 lanes in groups of 5, 301 rows leaving a partial last group.
    let key = |i| random::key(i);
    let x = random::normal(&key(5), &[301, 200]);
    let b = random::normal(&key(6), &[200]);
    let y = random::normal(&key(7), &[200, 301]);
    let z = random::normal(&key(8), &[50, 500]);
    let w = random::normal(&key(9), &[200, 200]);
    let (y3, x3) = (
        random::normal(&key(10), &[3, 5, 256]),
        random::normal(&key(11), &[3, 256]),
    );
    let never = Tensor::from_vec(vec![false], &[]);
    let (s, q) = (
        random::normal(&key(12), &[301]),
        random::normal(&key(13), &[301, 10]),
    );
    type F = fn(&[Tensor]) -> Tensor;
    let cases: [(&str, F); 12] = [
        // b is tiled across the rows of a block.
        ("bias", |a| jnp::tanh(&(&a[0] + &a[1]))),
        // Rows of a transposed operand lie apart.
        ("transposed operand", |a| a[2].t() + &a[1]),
        // Rows of the result lie apart.
        ("transposed result", |a| (&a[3] * 2.0).t()),
        ("iota", |a| {
            let iota = jnp::arange(200 * 301).reshape(&[200, 301]).t();
            &a[0] * &jnp::arange(200).astype(DType::F32) + iota.astype(DType::F32)
        }),
        ("select", |a| {
            jnp::where_(jnp::greater(&a[0], 0.0), &a[0], &a[1])
        }),
        // The product dies in the kernel, which writes over it.
        ("in place", |a| {
            jnp::exp(&(jnp::matmul(&a[0], &a[4]) * 0.01 + &a[1]))
        }),
        // A node of a middle loop, evaluated for a full group of rows (4 + 1 here).
        ("middle loop", |a| &a[5] + &a[6].reshape(&[3, 1, 256])),
        // One value stored for every lane, in rows that lie apart.
        ("uniform", |a| {
            lax::select_n(&a[7], &[jnp::zeros(&[500, 50]), a[3].t()])
        }),
        // A value per row, repeated along it: loaded, and computed from a load.
        ("per row", |a| {
            &a[0] * jnp::exp(&a[8]).reshape(&[301, 1]) + &a[1]
        }),
        // Rows of 10 lanes, a block of 102 of them, with values per row.
        ("short rows", |a| {
            jnp::exp(&(&a[9] - a[8].reshape(&[301, 1]))) * a[8].reshape(&[301, 1])
        }),
        ("iota per row", |a| {
            &a[9] + jnp::arange(301).astype(DType::F32).reshape(&[301, 1])
        }),
        // Per-row values from two buffers, picked by a range test per row.
        ("concatenated per row", |a| {
            let halves = [a[8].index(0..100), a[8].index(100..301)];
            &a[9] * jnp::concatenate(&halves, 0).reshape(&[301, 1])
        }),
    ];
    let args = vec![x, b, y, z, w, y3, x3, never, s, q];
    for (name, f) in cases {
        let got = jit(|a: Vec<Tensor>| f(&a)).call(args.clone()).unwrap();
        let want = f(&args);
        assert_eq!(got.shape(), want.shape(), "{name}");
        for (g, w) in got.to_vec::<f32>().iter().zip(want.to_vec::<f32>()) {
            assert!(
                (g - w).abs() <= 1e-5 * (1.0 + w.abs()),
                "{name}: {g} vs {w}"
            );
        }
    }
}

#[test]
fn outer_products_fuse_instead_of_calling_gemm() {
    // Batch dimension last in the lhs, a size-1 contraction, an f64 result type.
    let a = random::normal(&random::key(11), &[5, 1, 7]);
    let b = random::normal(&random::key(12), &[7, 1, 3]);
    let cases: [(&[usize], &[usize], Option<DType>); 3] = [
        (&[], &[], None),
        (&[1], &[1], None),
        (&[1], &[1], Some(DType::F64)),
    ];
    for (lc, rc, ty) in cases {
        let f = |(a, b): (Tensor, Tensor)| lax::dot_general(&a, &b, (lc, rc), (&[2], &[0]), ty);
        let want = f((a.clone(), b.clone()));
        let c = jit(f)
            .lower(&(a.clone(), b.clone()))
            .unwrap()
            .compile()
            .unwrap();
        let steps = c.fusion();
        assert!(
            steps
                .iter()
                .all(|s| s.fused && !s.primitives.contains(&"dot_general")),
            "{steps:?}"
        );
        let got = c.call((a.clone(), b.clone())).unwrap();
        assert_eq!((got.shape(), got.dtype()), (want.shape(), want.dtype()));
        let (g, w) = (got.astype(DType::F64), want.astype(DType::F64));
        for (g, w) in g.to_vec::<f64>().iter().zip(w.to_vec::<f64>()) {
            assert!(
                (g - w).abs() <= 1e-6 * (1.0 + w.abs()),
                "{lc:?} {ty:?}: {g} vs {w}"
            );
        }
    }
}

#[test]
fn pairwise_l1_affinities_tile_and_agree_with_a_loop() {
    // 200 rows of 2000: the rows of the second operand (1.6 MB) do not stay in cache
    // across the first's, so the kernel walks tiles of the first inside the second.
    let (n, d) = (200, 2000);
    let x = random::normal(&random::key(21), &[n, d]);
    let aff = |a: Tensor, b: Tensor| -jnp::sum(&jnp::abs(&(a - b)), None::<i32>);
    let pairwise = |x: Tensor| {
        let all = x.clone();
        vmap(move |a: Tensor| {
            let all = all.clone();
            vmap(move |b: Tensor| aff(a.clone(), b)).call(all).unwrap()
        })
        .call(x)
        .unwrap()
    };
    let got = jit(pairwise).call(x.clone()).unwrap().to_vec::<f32>();
    let v = x.to_vec::<f32>();
    for (i, j) in [(0, 0), (0, 199), (57, 3), (128, 130), (199, 64)] {
        let want: f64 = -(0..d)
            .map(|k| (v[i * d + k] as f64 - v[j * d + k] as f64).abs())
            .sum::<f64>();
        let g = got[i * n + j] as f64;
        assert!(
            (g - want).abs() <= 1e-4 * want.abs(),
            "({i}, {j}): {g} vs {want}"
        );
    }
}

#[test]
fn pairwise_sums_of_every_kind_agree_with_a_loop() {
    // Row counts that are not multiples of 4 and row lengths that are not multiples of 16
    // exercise the micro-kernel's edges.
    for (n, m, d) in [(7, 5, 37), (13, 9, 100), (4, 8, 16)] {
        let x = random::normal(&random::key(n as i64), &[n, d]);
        let y = random::normal(&random::key(m as i64 + 100), &[m, d]);
        type Pair = fn(Tensor, Tensor) -> Tensor;
        type Scalar = fn(f64, f64) -> f64;
        let kinds: [(&str, Pair, Scalar); 4] = [
            (
                "l1",
                |a, b| -jnp::sum(&jnp::abs(&(a - b)), None::<i32>),
                |u, v| -(u - v).abs(),
            ),
            (
                "l2 pow",
                |a, b| jnp::sum(&lax::integer_pow(&(a - b), 2), None::<i32>),
                |u, v| (u - v) * (u - v),
            ),
            (
                "l2 mul",
                |a, b| {
                    let e = a - b;
                    jnp::sum(&(&e * &e), None::<i32>)
                },
                |u, v| (u - v) * (u - v),
            ),
            ("dot", |a, b| jnp::sum(&(a * b), None::<i32>), |u, v| u * v),
        ];
        for (name, f, g) in kinds {
            let pairwise = move |(x, y): (Tensor, Tensor)| {
                vmap(move |a: Tensor| {
                    let y = y.clone();
                    vmap(move |b: Tensor| f(a.clone(), b)).call(y).unwrap()
                })
                .call(x)
                .unwrap()
            };
            let got = jit(pairwise)
                .call((x.clone(), y.clone()))
                .unwrap()
                .to_vec::<f32>();
            let (u, v) = (x.to_vec::<f32>(), y.to_vec::<f32>());
            for i in 0..n {
                for j in 0..m {
                    let want: f64 = (0..d)
                        .map(|k| g(u[i * d + k] as f64, v[j * d + k] as f64))
                        .sum();
                    let got = got[i * m + j] as f64;
                    assert!(
                        (got - want).abs() <= 1e-4 * (1.0 + want.abs()),
                        "{name} ({n}, {m}, {d}) [{i}, {j}]: {got} vs {want}"
                    );
                }
            }
        }
    }
}

#[test]
fn explain_plans_a_call_too_large_to_run() {
    // 100,000 x 100,000 f32 products, sorted: 40 GB, planned without allocating them.
    let line = line!() + 1;
    let f = |x: Tensor| jnp::sort(&(x.index((.., None)) * x.index((None, ..))), None);
    let plan = oxla::explain(f, &jnp::ones(&[100_000])).unwrap();
    let top = &plan.largest[0];
    assert_eq!(top.bytes, 40_000_000_000);
    assert!(plan.peak_bytes >= 80_000_000_000, "{plan}");
    assert!(top.source.is_some_and(|s| s.line() == line), "{plan}");
    assert!(plan.to_string().contains("f32[10000000000]"), "{plan}");
}

#[test]
fn jit_composes_with_vmap_and_grad_in_any_order() {
    let se = |(p, x, y): ((Tensor, Tensor), Tensor, Tensor)| seeds::squared_error(&p, &x, &y);
    let params = (Tensor::scalar(2.0f32), Tensor::scalar(1.0f32));
    let xs = jnp::linspace(0.0, 1.0, 5);
    let ys = &xs * 2.5 + 0.5;
    let per_example = |a: ((Tensor, Tensor), Tensor, Tensor)| -> (Tensor, Tensor) {
        vmap(|a| grad(se).call(a).unwrap())
            .in_axes((None, 0, 0))
            .call(a)
            .unwrap()
    };
    let want = per_example((params.clone(), xs.clone(), ys.clone()));
    let got = jit(per_example)
        .call((params.clone(), xs.clone(), ys.clone()))
        .unwrap();
    assert_eq!(got.0.to_vec::<f32>(), want.0.to_vec::<f32>());
    assert_eq!(got.1.to_vec::<f32>(), want.1.to_vec::<f32>());
    // vmap(jit(f)) and grad(jit(f)) stage f into the outer transform.
    let jf = jit(se);
    let v: Tensor = vmap(|a| jf.call(a).unwrap())
        .in_axes((None, 0, 0))
        .call((params.clone(), xs.clone(), ys.clone()))
        .unwrap();
    assert_eq!(
        v.to_vec::<f32>(),
        vec![0.25, 0.140625, 0.0625, 0.015625, 0.0]
    );
    let g: (Tensor, Tensor) = grad(|a| jf.call(a).unwrap())
        .call((params.clone(), xs.index(1), ys.index(1)))
        .unwrap();
    assert_eq!((g.0.item(), g.1.item()), (0.1875, 0.75));
    // The same program whichever order jit and vmap come in.
    let a = make_jaxpr(
        |a| jit(per_example).call(a).unwrap(),
        (params.clone(), xs.clone(), ys.clone()),
    );
    let b = make_jaxpr(per_example, (params, xs, ys));
    assert_eq!(a.to_string(), b.to_string());
}

#[test]
#[should_panic(expected = "compiled for arguments (f32[3]) but called with (f32[4])")]
fn compiled_programs_check_their_avals() {
    let c = jit(|x: Tensor| x * 2.0)
        .lower(&jnp::ones(&[3]))
        .unwrap()
        .compile()
        .unwrap();
    let _ = c.call(jnp::ones(&[4]));
}

/// Runs one program (in a child process started by the test below) and prints its planned
/// peak beyond its arguments, and the measured growth of peak RSS while it runs.
fn memory_child(program: &str) {
    fn measure<A: oxla::Tree, O: oxla::Tree, F: Fn(A) -> O>(f: F, args: A) -> (usize, usize) {
        let c = jit(f).lower(&args).unwrap().compile().unwrap();
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
            let f = |x: Tensor| jnp::matmul(&jnp::matmul(&x, &x), &jnp::tanh(&x)).sum(None);
            measure(f, random::normal(&random::key(0), &[2000, 2000]))
        }
        _ => {
            // Stored intermediates: a sort and a cumsum run alone, so their inputs exist.
            let f = |x: Tensor| {
                let s = jnp::sort(&(jnp::exp(&x) * 2.0), Some(0));
                jnp::cumsum(&s, Some(0)) + jnp::sin(&x)
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
                "planned_peak_matches_measured_rss",
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
fn a_transposed_matmul_operand_is_folded_into_the_contraction() {
    let f = |x: Tensor| jnp::matmul(&x, &x.t());
    let x = random::normal(&random::key(5), &[30, 50]);
    let c = jit(f).lower(&x).unwrap().compile().unwrap();
    let text = c.jaxpr().to_string();
    assert!(!text.contains("transpose"), "{text}");
    assert!(
        text.contains("dimension_numbers=(([1], [1]), ([], []))"),
        "{text}"
    );
    let (got, want) = (c.call(x.clone()).unwrap(), f(x));
    for (a, b) in got.to_vec::<f32>().iter().zip(want.to_vec::<f32>()) {
        assert!((a - b).abs() <= 1e-4 * (1.0 + b.abs()), "{a} vs {b}");
    }
}
