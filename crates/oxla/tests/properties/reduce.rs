//! Reductions (`src/prims/reduce.rs`): sums, maxima and minima over any axes, `argmax`,
//! `argmin` and `cumsum`, against loops.

use std::panic::AssertUnwindSafe;
use std::slice::from_ref;

use oxla::numpy as jnp;
use oxla::prims::{ArgOp, ReduceOp};
use oxla::{lax, make_jaxpr, DType, Tensor};
use proptest::prelude::*;
use proptest::sample::{select, subsequence};

use crate::support::{
    config, drop_axes, expect, expect_close, expect_values, flat, indices, jit, lines_along, numel,
    shape_s, tensor, Rng, Vals, CASES,
};

/// A tensor and a random list of its axes (each possibly negative).
fn with_axes(dtype: DType, v: Vals) -> BoxedStrategy<(Tensor, Vec<isize>)> {
    shape_s(4, 4)
        .prop_flat_map(move |s| {
            let r = s.len();
            (
                tensor(dtype, s, v),
                subsequence((0..r).collect::<Vec<usize>>(), 0..=r).prop_shuffle(),
                prop::collection::vec(any::<bool>(), r),
            )
        })
        .prop_map(|(x, axes, neg)| {
            let r = x.ndim() as isize;
            let axes = axes
                .into_iter()
                .map(|a| if neg[a] { a as isize - r } else { a as isize })
                .collect();
            (x, axes)
        })
        .boxed()
}

/// Reduces `vals` of `shape` over `axes` with `f` from `init`; returns the kept-dims shape.
fn reduce_ref(
    vals: &[f64],
    shape: &[usize],
    axes: &[usize],
    init: f64,
    f: impl Fn(f64, f64) -> f64,
) -> (Vec<f64>, Vec<usize>) {
    let kept: Vec<usize> = (0..shape.len())
        .map(|d| if axes.contains(&d) { 1 } else { shape[d] })
        .collect();
    let mut acc = vec![init; numel(&kept)];
    for idx in indices(shape) {
        let o: Vec<usize> = idx
            .iter()
            .enumerate()
            .map(|(d, &i)| if axes.contains(&d) { 0 } else { i })
            .collect();
        let k = flat(&o, &kept);
        acc[k] = f(acc[k], vals[flat(&idx, shape)]);
    }
    (acc, kept)
}

/// How a reduction combines its accumulator with an element.
type Combine = fn(f64, f64) -> f64;

fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

fn nan_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

fn reduction_dtype() -> impl Strategy<Value = DType> {
    select(vec![
        DType::F32,
        DType::I32,
        DType::F64,
        DType::U32,
        DType::Bool,
    ])
}

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn sum_max_min(
        (x, axes) in reduction_dtype().prop_flat_map(|d| with_axes(d, Vals::Exact)),
        all in any::<bool>(),
        nan_at in any::<prop::sample::Index>(),
    ) {
        // A NaN somewhere exercises its propagation (floats only).
        let x = if x.dtype().is_float() && x.size() > 0 {
            let mut v = x.array().to_f64_vec();
            let at = nan_at.index(v.len());
            v[at] = f64::NAN;
            let t = Tensor::from_vec(v, x.shape());
            t.astype(x.dtype())
        } else {
            x
        };
        let r = x.ndim();
        let ax: Vec<usize> = if all {
            (0..r).collect()
        } else {
            axes.iter().map(|&a| a.rem_euclid(r.max(1) as isize) as usize).collect()
        };
        let vals = x.array().to_f64_vec();
        let dtype = x.dtype();
        let (lo, hi) = match dtype {
            DType::Bool => (0.0, 1.0),
            DType::I32 => (i32::MIN as f64, i32::MAX as f64),
            DType::U32 => (0.0, u32::MAX as f64),
            _ => (f64::NEG_INFINITY, f64::INFINITY),
        };
        // Sums of bools count in int32; max and min keep the dtype.
        let sum_dtype = if dtype == DType::Bool { DType::I32 } else { dtype };
        let cases: [(&str, f64, Combine); 3] =
            [("sum", 0.0, |a, b| a + b), ("max", lo, nan_max), ("min", hi, nan_min)];
        // jnp.max and jnp.min over an empty axis raise in JAX, and panic in oxla
        // (tests/jax_semantics/); only the sum has an identity to compare.
        let empty = ax.iter().any(|&d| x.shape()[d] == 0);
        for (name, init, f) in cases {
            if empty && name != "sum" {
                continue;
            }
            let (want, kept) = reduce_ref(&vals, x.shape(), &ax, init, f);
            let want: Vec<Option<f64>> = want.into_iter().map(Some).collect();
            for keepdims in [false, true] {
                let run = |a: &[Tensor]| -> Tensor {
                    let t = &a[0];
                    match (name, keepdims, all) {
                        ("sum", false, false) => jnp::sum(t, &axes[..]),
                        ("sum", true, false) => jnp::sum(t, jnp::keepdims(&axes[..])),
                        ("max", false, false) => jnp::max(t, &axes[..]),
                        ("max", true, false) => jnp::max(t, jnp::keepdims(&axes[..])),
                        ("min", false, false) => jnp::min(t, &axes[..]),
                        ("min", true, false) => jnp::min(t, jnp::keepdims(&axes[..])),
                        ("sum", false, true) => t.sum(None),
                        ("sum", true, true) => t.sum(jnp::keepdims(None)),
                        ("max", false, true) => t.max(None),
                        ("max", true, true) => jnp::max(t, jnp::keepdims(None)),
                        ("min", false, true) => t.min(None),
                        _ => jnp::min(t, jnp::keepdims(None)),
                    }
                };
                let got = jit(run, from_ref(&x));
                let shape = if keepdims { kept.clone() } else { drop_axes(x.shape(), &ax) };
                let d = if name == "sum" { sum_dtype } else { dtype };
                expect_values(&got, d, &want, &shape, &(name, keepdims, &axes, x.shape()));
            }
        }
        // The primitive itself, over sorted axes.
        let mut sorted = ax.clone();
        sorted.sort_unstable();
        let op = if dtype == DType::Bool { ReduceOp::Or } else { ReduceOp::Sum };
        let got = jit(|a| lax::reduce(&a[0], op, &sorted), from_ref(&x));
        let (want, _) = reduce_ref(&vals, x.shape(), &ax, 0.0, |a, b| a + b);
        let want: Vec<Option<f64>> =
            want.into_iter().map(|v| Some(if op == ReduceOp::Or { v.min(1.0) } else { v })).collect();
        expect_values(&got, dtype, &want, &drop_axes(x.shape(), &ax), &op);
    }

    #[test]
    fn argmax_argmin(
        shape in shape_s(4, 4),
        dtype in select(vec![DType::F32, DType::I32, DType::F64, DType::U32, DType::Bool]),
        axis in any::<prop::sample::Index>(),
        flatten in any::<bool>(),
        negative in any::<bool>(),
        seed in any::<u64>(),
    ) {
        // Few distinct values, so ties are common; NaNs win (the first one).
        let mut rng = Rng(seed);
        let n = numel(&shape);
        let v: Vec<f64> = (0..n)
            .map(|_| if dtype.is_float() && rng.below(12) == 0 {
                f64::NAN
            } else {
                rng.range(0, 3) as f64
            })
            .collect();
        let x = Tensor::from_vec(v, &shape).astype(dtype);
        let v = x.array().to_f64_vec();
        let r = shape.len();
        let (at, ax) = if flatten || r == 0 {
            (None, None)
        } else {
            let a = axis.index(r);
            (Some(if negative { a as isize - r as isize } else { a as isize }), Some(a))
        };
        let len = match ax {
            Some(a) => shape[a],
            None => n,
        };
        if len == 0 {
            // JAX: "argmin and argmax require non-empty reduced dimension".
            let eager = std::panic::catch_unwind(AssertUnwindSafe(|| jnp::argmax(&x, at)));
            prop_assert!(eager.is_err(), "argmax over an empty axis must be an error");
            let traced = std::panic::catch_unwind(AssertUnwindSafe(|| {
                make_jaxpr(|t: Tensor| jnp::argmin(&t, at), x.clone())
            }));
            prop_assert!(traced.is_err(), "argmin over an empty axis must be an error");
            return Ok(());
        }
        for op in [ArgOp::Max, ArgOp::Min] {
            // The reference: the first extremum (a NaN, if any) along each line.
            let (lines, out_shape) = match ax {
                None => (vec![(0..n).collect::<Vec<usize>>()], vec![]),
                Some(a) => (lines_along(&shape, a), drop_axes(&shape, &[a])),
            };
            let want: Vec<i32> = lines
                .iter()
                .map(|line: &Vec<usize>| {
                    let mut best = 0;
                    for (k, &p) in line.iter().enumerate() {
                        let (b, c) = (v[line[best]], v[p]);
                        if b.is_nan() {
                            break;
                        }
                        let better = if op == ArgOp::Max { c > b } else { c < b };
                        if c.is_nan() || better {
                            best = k;
                        }
                    }
                    best as i32
                })
                .collect();
            let got = jit(
                |a| match op {
                    ArgOp::Max => jnp::argmax(&a[0], at),
                    ArgOp::Min => jnp::argmin(&a[0], at),
                },
                from_ref(&x),
            );
            expect(&got, &want, &out_shape, &(op, at));
            let kept = jit(
                |a| match op {
                    ArgOp::Max => jnp::argmax(&a[0], jnp::keepdims(at)),
                    ArgOp::Min => jnp::argmin(&a[0], jnp::keepdims(at)),
                },
                from_ref(&x),
            );
            let kept_shape: Vec<usize> = match ax {
                None => vec![1; r],
                Some(a) => (0..r).map(|d| if d == a { 1 } else { shape[d] }).collect(),
            };
            expect(&kept, &want, &kept_shape, &(op, at, "keepdims"));
        }
    }

    #[test]
    fn cumsum(
        (x, axes) in select(vec![DType::F32, DType::I32, DType::Bool])
            .prop_flat_map(|d| with_axes(d, Vals::Exact)),
        reverse in any::<bool>(),
    ) {
        let vals = x.array().to_f64_vec();
        let shape = x.shape().to_vec();
        let out_dtype = if x.dtype() == DType::Bool { DType::I32 } else { x.dtype() };
        // The reference: running sums along `axis`, from the end if `reverse`.
        let run_ref = |axis: usize, reverse: bool| -> Vec<Option<f64>> {
            let mut out = vec![None; vals.len()];
            for idx in indices(&shape) {
                let k = idx[axis];
                let range: Vec<usize> =
                    if reverse { (k..shape[axis]).collect() } else { (0..=k).collect() };
                let s: f64 = range
                    .iter()
                    .map(|&j| {
                        let mut i = idx.clone();
                        i[axis] = j;
                        vals[flat(&i, &shape)]
                    })
                    .sum();
                out[flat(&idx, &shape)] = Some(s);
            }
            out
        };
        if let Some(&a) = axes.first() {
            let axis = a.rem_euclid(shape.len() as isize) as usize;
            let got = jit(|t| jnp::cumsum(&t[0], a), from_ref(&x));
            expect_values(&got, out_dtype, &run_ref(axis, false), &shape, &a);
            if x.dtype() != DType::Bool {
                let got = jit(|t| lax::cumsum(&t[0], axis, reverse), from_ref(&x));
                expect_values(&got, out_dtype, &run_ref(axis, reverse), &shape, &(axis, reverse));
            }
        }
        // Flattened.
        let got = jit(|t| jnp::cumsum(&t[0], None), from_ref(&x));
        let mut acc = 0.0;
        let want: Vec<Option<f64>> = vals.iter().map(|v| { acc += v; Some(acc) }).collect();
        expect_values(&got, out_dtype, &want, &[vals.len()], &"flat");
    }

    #[test]
    fn sums_over_the_rows_of_a_matrix_agree_with_loops(
        (a, r, c) in (1usize..=2, 1usize..=300, 1usize..=1100),
        seed in any::<u64>(),
    ) {
        // A reduced loop outside the vector loop: each block of lanes folds whole rows,
        // more than one block when a row is longer than 1024. Grid values sum exactly.
        let mut rng = Rng(seed);
        let x = rng.tensor(DType::F32, &[a, r, c]);
        let xv = x.to_vec::<f32>();
        let at = |i: usize, j: usize, k: usize| xv[(i * r + j) * c + k] as f64;
        let col = |i: usize, k: usize, f: fn(f64, f64) -> f64, id: f64| {
            (0..r).fold(id, |s, j| f(s, at(i, j, k)))
        };
        let cols = |f: fn(f64, f64) -> f64, id: f64| -> Vec<f64> {
            (0..a).flat_map(|i| (0..c).map(move |k| (i, k))).map(|(i, k)| col(i, k, f, id)).collect()
        };
        let sum = jit(|t| t[0].sum(1), from_ref(&x));
        let max = jit(|t| t[0].max(1), from_ref(&x));
        let ctx = (a, r, c);
        expect_close(&sum, &cols(|s, v| s + v, 0.0), &vec![0.0; a * c], &[a, c], 0.0, &ctx);
        let neg_inf = f64::NEG_INFINITY;
        expect_close(&max, &cols(f64::max, neg_inf), &vec![0.0; a * c], &[a, c], 0.0, &ctx);
        let total: Vec<f64> = (0..c).map(|k| (0..a).map(|i| col(i, k, |s, v| s + v, 0.0)).sum()).collect();
        let both = jit(|t| t[0].sum((0, 1)), from_ref(&x));
        expect_close(&both, &total, &vec![0.0; c], &[c], 0.0, &ctx);
    }
}
