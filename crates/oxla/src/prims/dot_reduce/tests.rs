//! The reduced product against the product reduced, over maps, reductions and layouts.

use super::*;
use crate::array::Array;

fn ramp(shape: &[usize], seed: u64) -> Array {
    let n: usize = shape.iter().product();
    let v: Vec<f32> = (0..n)
        .map(|i| {
            let x = (i as u64).wrapping_mul(2654435761).wrapping_add(seed * 97) % 1000;
            x as f32 / 250.0 - 2.0
        })
        .collect();
    Array::from_vec(v, shape)
}

fn check(l: &[usize], r: &[usize], p: DotReduce) {
    let (a, b) = (ramp(l, 1), ramp(r, 2));
    let got = dot_reduce(&a, &b, &p).to_f64_vec();
    let want = unfused(&a, &b, &p).to_f64_vec();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert!(
            (g - w).abs() <= 1e-4 * w.abs().max(1.0),
            "{p:?}: {g} against {w}"
        );
    }
}

fn params(c: Dims, b: Dims, map: DotMap, op: ReduceOp, axes: &[usize]) -> DotReduce {
    DotReduce {
        contracting: c,
        batch: b,
        map,
        op,
        axes: axes.to_vec(),
    }
}

#[test]
fn pairwise_abs_sums_match_the_product_reduced() {
    // Seed 000's prodl1: a[i] @ b[j] per pair, |.| summed over each 8 x 8 product.
    let p = params(
        (vec![2], vec![1]),
        (vec![], vec![]),
        DotMap::Abs,
        ReduceOp::Sum,
        &[1, 3],
    );
    check(&[70, 8, 8], &[70, 8, 8], p);
}

#[test]
fn every_map_and_reduction_over_leading_or_trailing_free_dimensions() {
    for map in [DotMap::Identity, DotMap::Abs, DotMap::Square] {
        for op in [ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min] {
            for axes in [&[0][..], &[1], &[0, 2], &[2, 3], &[0, 1, 2, 3]] {
                let p = params((vec![2], vec![0]), (vec![], vec![]), map, op, axes);
                check(&[9, 300, 5], &[5, 7, 40], p);
            }
        }
    }
}

#[test]
fn batched_products_reduce_free_dimensions_only() {
    let p = params(
        (vec![2], vec![1]),
        (vec![0], vec![0]),
        DotMap::Square,
        ReduceOp::Sum,
        &[2],
    );
    check(&[3, 600, 4], &[3, 4, 5], p);
    let bad = params(
        (vec![2], vec![1]),
        (vec![0], vec![0]),
        DotMap::Abs,
        ReduceOp::Sum,
        &[0],
    );
    let err = dot_reduce_rule(
        &bad,
        &[
            Aval::new(DType::F32, &[3, 6, 4]),
            Aval::new(DType::F32, &[3, 4, 5]),
        ],
    );
    assert!(err.unwrap_err().contains("free dimensions"));
}

#[test]
fn results_do_not_depend_on_the_threads() {
    let p = params(
        (vec![1], vec![1]),
        (vec![], vec![]),
        DotMap::Abs,
        ReduceOp::Sum,
        &[1],
    );
    let (a, b) = (ramp(&[1000, 33], 3), ramp(&[700, 33], 4));
    let many = dot_reduce(&a, &b, &p).to_f64_vec();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let one = pool.install(|| dot_reduce(&a, &b, &p).to_f64_vec());
    assert_eq!(many, one);
}

#[test]
fn nan_survives_a_maximum() {
    let mut v = ramp(&[20, 3], 5).to_f64_vec();
    v[7] = f64::NAN;
    let a = Array::from_vec(v.iter().map(|&x| x as f32).collect(), &[20, 3]);
    let b = ramp(&[3, 4], 6);
    let p = params(
        (vec![1], vec![0]),
        (vec![], vec![]),
        DotMap::Identity,
        ReduceOp::Max,
        &[0],
    );
    let got = dot_reduce(&a, &b, &p).to_f64_vec();
    assert!(got.iter().all(|x| x.is_nan()));
}
