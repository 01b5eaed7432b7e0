//! Kernels that walk several rows of a short innermost loop per block: reductions over
//! positions of a few features (a bias gradient), their rows combined at the end, and
//! transposes whose rows lie apart in the input (a per-example layout change); each
//! against sums and copies in plain Rust.

use oxla::{jit, numpy as jnp, random, Tensor};

/// `f32[shape]` of normal values.
fn data(seed: i64, shape: &[usize]) -> Tensor {
    random::normal(&random::key(seed), shape)
}

/// The schedule of the program's only kernel.
fn schedule(f: impl Fn(Tensor) -> Tensor + 'static, x: &Tensor) -> String {
    let c = jit(f).lower(x).compile();
    let steps = c.fusion();
    assert_eq!(steps.len(), 1, "{steps:?}");
    steps[0].schedule.clone().expect("a kernel's schedule")
}

#[test]
fn a_sum_over_positions_of_a_few_features_walks_rows_of_the_positions() {
    // [examples, positions, features] summed over positions: the features are the lanes,
    // several positions to a block, each accumulated apart and combined at the end.
    for (n, p, e) in [(5, 300, 8), (3, 784, 16), (4, 97, 3), (2, 40, 4)] {
        let x = data(0, &[n, p, e]);
        let y = data(1, &[n, p, e]);
        let f = |x: Tensor| (&x * (&x - 1.0)).sum(1);
        let s = schedule(f, &x);
        assert!(s.contains("rows of loop 1"), "({n}, {p}, {e}): {s}");
        let g = jit(|(x, y): (Tensor, Tensor)| ((&x * (&y - 1.0)).sum(1), x.max(1), y.min(1)));
        let (sum, max, min) = g.call((x.clone(), y.clone())).unwrap();
        let (xs, ys) = (x.to_vec::<f32>(), y.to_vec::<f32>());
        let at = |i: usize, q: usize, c: usize| (i * p + q) * e + c;
        for i in 0..n {
            for c in 0..e {
                let want: f64 = (0..p)
                    .map(|q| xs[at(i, q, c)] as f64 * (ys[at(i, q, c)] as f64 - 1.0))
                    .sum();
                let got = sum.to_vec::<f32>()[i * e + c] as f64;
                assert!(
                    (got - want).abs() <= 1e-4 * (1.0 + want.abs()),
                    "{got} vs {want}"
                );
                let hi = (0..p).map(|q| xs[at(i, q, c)]).fold(f32::MIN, f32::max);
                let lo = (0..p).map(|q| ys[at(i, q, c)]).fold(f32::MAX, f32::min);
                assert_eq!(max.to_vec::<f32>()[i * e + c], hi);
                assert_eq!(min.to_vec::<f32>()[i * e + c], lo);
            }
        }
    }
}

#[test]
fn a_sum_over_two_loops_walks_rows_of_the_inner_one() {
    // Summed over examples and positions (a bias gradient of a batch): rows of positions,
    // accumulated across examples too.
    let (n, p, e) = (6, 50, 8);
    let x = data(2, &[n, p, e]);
    let f = |x: Tensor| (&x * 2.0).sum(vec![0, 1]);
    let s = schedule(f, &x);
    assert!(s.contains("rows of loop"), "{s}");
    let got = jit(f).call(x.clone()).unwrap().to_vec::<f32>();
    let xs = x.to_vec::<f32>();
    for c in 0..e {
        let want: f64 = (0..n * p).map(|q| 2.0 * xs[q * e + c] as f64).sum();
        assert!((got[c] as f64 - want).abs() <= 1e-4 * (1.0 + want.abs()));
    }
}

#[test]
fn a_short_reduced_loop_is_not_walked_in_rows() {
    // Five positions: one at a time (the sums are those of the schedule before rows).
    let x = data(3, &[40, 5, 8]);
    let f = |x: Tensor| (&x * 3.0).sum(1);
    assert!(!schedule(f, &x).contains("rows"));
    let got = jit(f).call(x.clone()).unwrap().to_vec::<f32>();
    for (g, w) in got.iter().zip(f(x).to_vec::<f32>()) {
        assert!((g - w).abs() <= 1e-5 * (1.0 + w.abs()), "{g} vs {w}");
    }
    // A row sum of five: folded across the lanes as an eager sum folds a run, bit for bit.
    let x = data(5, &[3, 5]);
    let f = |x: Tensor| x.sum(1);
    let got = jit(f).call(x.clone()).unwrap().to_vec::<f32>();
    assert_eq!(got, f(x).to_vec::<f32>());
}

#[test]
fn transposed_rows_are_copied_from_where_they_lie() {
    // [n, m, e] to [m, n, e]: every block gathers rows of e elements apart in the input, of
    // the common vector widths and others.
    for e in [4, 8, 16, 5, 1] {
        let (n, m) = (37, 29);
        let x = data(4, &[n, m, e]);
        let f = |x: Tensor| jnp::transpose(&x + 1.0, [1, 0, 2]);
        let got = jit(f).call(x.clone()).unwrap();
        assert_eq!(got.shape(), [m, n, e]);
        let (xs, got) = (x.to_vec::<f32>(), got.to_vec::<f32>());
        for i in 0..n {
            for j in 0..m {
                for c in 0..e {
                    assert_eq!(got[(j * n + i) * e + c], xs[(i * m + j) * e + c] + 1.0);
                }
            }
        }
    }
}
