//! Fused kernels: broadcasts, gathers and index arithmetic stay virtual, reductions fold
//! into them, rows are walked several to a block, and outer and pairwise products are
//! fused instead of calling `gemm`; each against eager execution or a loop.

use oxla::prims::{GatherDims, GatherMode};
use oxla::{jit, lax, numpy as jnp, random, vmap, DType, Tensor};

use crate::seeds;

#[test]
fn fusion_keeps_broadcasts_gathers_and_index_arithmetic_virtual() {
    // Seed 004's f: two broadcasts, a multiply and the sum are one kernel over the input.
    let c = jit(seeds::outer_sum).lower(&jnp::ones(&[100])).compile();
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
    let c = jit(batched).lower(&args).compile();
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
        let c = jit(f).lower(&x).compile();
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
        let c = jit(f).lower(&(a.clone(), b.clone())).compile();
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
            vmap(move |b: Tensor| aff(a.clone(), b)).call(all)
        })
        .call(x)
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
                    vmap(move |b: Tensor| f(a.clone(), b)).call(y)
                })
                .call(x)
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
fn fusion_reports_each_kernels_schedule() {
    // A row sum of exp: one kernel, its schedule fixed when the program is compiled.
    let f = jit(|x: Tensor| jnp::exp(&x).sum(1));
    let c = f.lower(&jnp::ones(&[64, 300])).compile();
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
    let c = g.lower(&(m.clone(), m)).compile();
    assert!(c.fusion().iter().all(|s| s.fused || s.schedule.is_none()));
}

#[test]
fn a_gather_that_fills_reads_computed_indices_from_a_buffer() {
    // A fill-or-drop gather runs alone, so its indices, computed by a fused kernel, must
    // be stored like every lone primitive's operands.
    let dims = GatherDims {
        offset_dims: vec![],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        ..GatherDims::default()
    };
    let f = move |(x, i): (Tensor, Tensor)| {
        let i = &i * 2 + 1;
        lax::gather(&x, &i, dims.clone(), &[1], GatherMode::FillOrDrop)
    };
    let x = jnp::arange(6.0);
    let i = Tensor::from_vec(vec![0i32, 1, 2, 3], &[4, 1]);
    let eager = f((x.clone(), i.clone()));
    let compiled = jit(f).call((x, i)).unwrap();
    let bits = |t: &Tensor| {
        t.to_vec::<f32>()
            .iter()
            .map(|v| v.to_bits())
            .collect::<Vec<_>>()
    };
    assert_eq!(bits(&compiled), bits(&eager));
    assert_eq!(compiled.to_vec::<f32>()[..3], [1.0, 3.0, 5.0]);
    assert!(
        compiled.to_vec::<f32>()[3].is_nan(),
        "index 7 is out of bounds: filled"
    );
}
