//! `sort` (`src/prims/sort.rs`) and `jnp.sort`: a stable sort by one or two keys, signed
//! zeros equal and NaNs last, along any axis or flattened.

use std::slice::from_ref;

use oxla::numpy as jnp;
use oxla::{lax, Tensor};
use proptest::prelude::*;

use crate::support::{config, expect, jit, jit_many, lines_along, numel, shape_s, Rng, CASES};

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn sort_is_a_stable_sort(
        shape in shape_s(4, 4),
        axis in any::<prop::sample::Index>(),
        seed in any::<u64>(),
    ) {
        // Few distinct keys (signed zeros and NaNs included), so stability matters.
        let mut rng = Rng(seed);
        let n = numel(&shape);
        let choices = [0.0f32, -0.0, 1.0, -1.0, 2.5, f32::NAN, f32::INFINITY, f32::NEG_INFINITY];
        let keys: Vec<f32> = (0..n).map(|_| choices[rng.below(choices.len())]).collect();
        let keys2: Vec<i32> = (0..n).map(|_| rng.range(0, 2) as i32).collect();
        let x = Tensor::from_vec(keys.clone(), &shape);
        let k2 = Tensor::from_vec(keys2.clone(), &shape);
        let pos = Tensor::from_vec((0..n as i32).collect::<Vec<i32>>(), &shape);
        // The reference: a stable sort by (key, key2) with -0.0 == 0.0 and NaNs last.
        let by_key = |p: usize, q: usize| -> std::cmp::Ordering {
            let (a, b) = (keys[p], keys[q]);
            match (a.is_nan(), b.is_nan()) {
                (false, false) => a.partial_cmp(&b).expect("not NaN"),
                (x, y) => x.cmp(&y),
            }
        };
        let order = |line: &[usize], two_keys: bool| -> Vec<usize> {
            let mut v = line.to_vec();
            v.sort_by(|&p, &q| {
                let o = by_key(p, q);
                if two_keys { o.then(keys2[p].cmp(&keys2[q])) } else { o }
            });
            v
        };
        if !shape.is_empty() {
            let dim = axis.index(shape.len());
            for two_keys in [false, true] {
                let outs = jit_many(
                    |a| {
                        if two_keys {
                            lax::sort(&[a[0].clone(), a[1].clone(), a[2].clone()], dim, 2)
                        } else {
                            lax::sort(&[a[0].clone(), a[2].clone()], dim, 1)
                        }
                    },
                    &[x.clone(), k2.clone(), pos.clone()],
                );
                let mut want_keys = vec![0.0f32; n];
                let mut want_pos = vec![0i32; n];
                for line in lines_along(&shape, dim) {
                    for (slot, src) in line.iter().zip(order(&line, two_keys)) {
                        want_keys[*slot] = keys[src];
                        want_pos[*slot] = src as i32;
                    }
                }
                expect(&outs[0], &want_keys, &shape, &(dim, two_keys));
                expect(outs.last().unwrap(), &want_pos, &shape, &(dim, two_keys, "positions"));
            }
            let got = jit(|a| jnp::sort(&a[0], Some(dim as isize - shape.len() as isize)),
                          from_ref(&x));
            let mut want = vec![0.0f32; n];
            for line in lines_along(&shape, dim) {
                for (slot, src) in line.iter().zip(order(&line, false)) {
                    want[*slot] = keys[src];
                }
            }
            expect(&got, &want, &shape, &"jnp.sort");
        }
        let got = jit(|a| jnp::sort(&a[0], None), from_ref(&x));
        let want: Vec<f32> = order(&(0..n).collect::<Vec<_>>(), false)
            .into_iter()
            .map(|p| keys[p])
            .collect();
        expect(&got, &want, &[n], &"flattened");
    }
}
