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

/// Products `a[.., i, t] b[.., t, j]` (batched over the leading dimension or not).
fn matmuls(batched: bool, map: DotMap, op: ReduceOp, axes: &[usize]) -> DotReduce {
    let b = if batched { vec![0] } else { vec![] };
    params((vec![2], vec![1]), (b.clone(), b), map, op, axes)
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
    let p = matmuls(false, DotMap::Abs, ReduceOp::Sum, &[1, 3]);
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
    let p = matmuls(true, DotMap::Square, ReduceOp::Sum, &[2]);
    check(&[3, 600, 4], &[3, 4, 5], p);
    let bad = matmuls(true, DotMap::Abs, ReduceOp::Sum, &[0]);
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

#[test]
fn f64_operands_and_copied_operands() {
    let to64 = |a: &Array| crate::prims::elementwise::convert(a, DType::F64);
    // The right operand's free dimensions (0, 2) are not one strided walk: it is copied.
    let (a, b) = (to64(&ramp(&[40, 6, 30], 7)), to64(&ramp(&[5, 30, 9], 8)));
    let p = matmuls(false, DotMap::Abs, ReduceOp::Sum, &[1, 3]);
    let got = dot_reduce(&a, &b, &p);
    assert_eq!(got.dtype(), DType::F64);
    let want = unfused(&a, &b, &p).to_f64_vec();
    for (g, w) in got.to_f64_vec().iter().zip(&want) {
        assert!((g - w).abs() <= 1e-12 * w.abs().max(1.0), "{g} against {w}");
    }
}

#[test]
fn products_of_no_terms_and_empty_batches() {
    let p = params(
        (vec![1], vec![0]),
        (vec![], vec![]),
        DotMap::Identity,
        ReduceOp::Max,
        &[1],
    );
    let zeros = dot_reduce(&ramp(&[5, 0], 1), &ramp(&[0, 7], 2), &p);
    assert_eq!(
        (zeros.shape(), zeros.to_f64_vec()),
        (&[5][..], vec![0.0; 5])
    );
    let batched = matmuls(true, DotMap::Abs, ReduceOp::Sum, &[2]);
    let empty = dot_reduce(&ramp(&[0, 3, 4], 1), &ramp(&[0, 4, 5], 2), &batched);
    assert_eq!(empty.shape(), &[0, 3]);
}
