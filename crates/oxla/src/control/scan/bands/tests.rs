//! A scan run in bands gives what the one loop gives, forward and in reverse, with a carry
//! stacked beside its output, a whole carry, a whole stacked result and uneven bands.

use std::sync::OnceLock;

use super::super::ScanSpec;
use crate::array::Array;
use crate::core::{make_jaxpr, Tensor};
use crate::{numpy as jnp, random};

fn in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
    pool.expect("a pool").install(f)
}

/// A scan of a step of `(h [rows, 16], i [], x [rows, 8], c [], w [16, 16], v [8, 16])`:
/// carries `h` and the counter `i`, slices `x` and the scalar `c`, stacks the new `h`,
/// the `h` before the step, a row sum and the counter.
fn spec(rows: usize, length: usize, reverse: bool) -> (ScanSpec, Vec<Array>) {
    let normal = |k: i64, s: &[usize]| random::normal(&random::key(k), s);
    let step = |(h, i, x, c, w, v): (Tensor, Tensor, Tensor, Tensor, Tensor, Tensor)| {
        let n = jnp::tanh(jnp::matmul(&h, &w) + jnp::matmul(&x, &v) * &c);
        vec![n.clone(), &i + 1i32, n.clone(), h, jnp::sum(&n, 1), i]
    };
    let operands = [
        normal(1, &[rows, 16]),
        Tensor::scalar(0i32),
        normal(2, &[length, rows, 8]),
        normal(3, &[length]),
        normal(4, &[16, 16]) * 0.3,
        normal(5, &[8, 16]) * 0.3,
    ];
    let slice = |t: &Tensor| jnp::zeros(&t.shape()[1..]).astype(t.dtype());
    let traced = make_jaxpr(
        step,
        (
            operands[0].clone(),
            operands[1].clone(),
            slice(&operands[2]),
            slice(&operands[3]),
            operands[4].clone(),
            operands[5].clone(),
        ),
    );
    let spec = ScanSpec {
        body: traced,
        num_carry: 2,
        num_xs: 2,
        length,
        reverse,
        unroll: 1,
        compiled: OnceLock::new(),
        layout: OnceLock::new(),
        bands: Default::default(),
    };
    (spec, operands.iter().map(|t| t.array().clone()).collect())
}

#[test]
fn bands_give_what_one_loop_gives() {
    for (rows, threads) in [(8, 2), (13, 2), (13, 3), (16, 2)] {
        for reverse in [false, true] {
            let (spec, ins) = spec(rows, 600, reverse);
            let whole = in_pool(1, || {
                assert!(spec.bands().is_none());
                spec.run(&ins)
            });
            let banded = in_pool(threads, || {
                let bands = spec.bands().expect("rows never mix");
                assert_eq!(bands.len(), threads);
                assert_eq!(bands.iter().map(|b| b.rows).sum::<usize>(), rows);
                spec.run(&ins)
            });
            assert_eq!(whole.len(), banded.len());
            for (a, b) in whole.iter().zip(&banded) {
                assert_eq!(a.shape(), b.shape(), "{rows} rows, {threads} threads");
                assert_eq!(a.as_bytes(), b.as_bytes(), "{rows} rows, {threads} threads");
            }
        }
    }
}

#[test]
fn a_short_loop_or_a_small_batch_runs_whole() {
    in_pool(2, || {
        assert!(spec(8, 4, false).0.bands().is_none());
        assert!(spec(7, 600, false).0.bands().is_none());
    });
}
