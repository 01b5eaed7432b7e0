//! Shape primitives (`src/prims/shape.rs`) and their numpy spellings: `reshape`,
//! `transpose`, `squeeze`, `expand_dims`, `broadcast_in_dim`, `slice`, `iota`,
//! `bitcast_convert_type`, `rev`, `pad`, `concatenate` and `stack`.

use std::fmt::Debug;
use std::slice::from_ref;

use oxla::numpy as jnp;
use oxla::{lax, DType, Tensor};
use proptest::prelude::*;
use proptest::sample::select;

use crate::support::{
    arr, assert_bitwise, config, drop_axes, expect_gathered, expect_values, flat, indices,
    iota_tensor, jit, same_v, shape_dtype, shape_s, values, Rng, Vals, CASES, V,
};

/// A shape of as many elements: `shape`'s dimensions permuted, neighbours merged, 1s added.
fn regroup(rng: &mut Rng, shape: &[usize]) -> Vec<usize> {
    let dims: Vec<usize> = rng.perm(shape.len()).iter().map(|&p| shape[p]).collect();
    let mut out: Vec<usize> = Vec::new();
    for d in dims {
        match out.last_mut() {
            Some(last) if rng.coin() => *last *= d,
            _ => out.push(d),
        }
    }
    for _ in 0..rng.below(3) {
        let at = rng.below(out.len() + 1);
        out.insert(at, 1);
    }
    out
}

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn reshape(shape in shape_s(4, 4), dtype in shape_dtype(), seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let x = iota_tensor(dtype, &shape);
        let new = regroup(&mut rng, &shape);
        let all: Vec<usize> = (0..x.size()).collect();
        let got = jit(|a| lax::reshape(&a[0], &new), from_ref(&x));
        expect_gathered(&got, &x, &all, &new, &new);
        // numpy's reshape, with -1 where it is unambiguous.
        let mut spec: Vec<isize> = new.iter().map(|&d| d as isize).collect();
        if !new.is_empty() {
            let k = rng.below(new.len());
            let others: usize = new.iter().enumerate().filter(|&(i, _)| i != k).map(|(_, d)| d).product();
            if others != 0 {
                spec[k] = -1;
            }
        }
        let got = jit(|a| a[0].reshape(&spec), from_ref(&x));
        expect_gathered(&got, &x, &all, &new, &spec);
        let got = jit(|a| a[0].ravel(), from_ref(&x));
        expect_gathered(&got, &x, &all, &[x.size()], &"ravel");
    }

    #[test]
    fn transpose(
        shape in shape_s(4, 4),
        dtype in shape_dtype(),
        seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let x = iota_tensor(dtype, &shape);
        let r = shape.len();
        let perm = rng.perm(r);
        let out: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
        let src: Vec<usize> = indices(&out)
            .iter()
            .map(|o| {
                let mut i = vec![0; r];
                for (k, &p) in perm.iter().enumerate() {
                    i[p] = o[k];
                }
                flat(&i, &shape)
            })
            .collect();
        let got = jit(|a| lax::transpose(&a[0], &perm), from_ref(&x));
        expect_gathered(&got, &x, &src, &out, &perm);
        let axes: Vec<isize> = perm
            .iter()
            .map(|&p| if rng.coin() { p as isize - r as isize } else { p as isize })
            .collect();
        let got = jit(|a| a[0].transpose(&axes), from_ref(&x));
        expect_gathered(&got, &x, &src, &out, &axes);
        // `.t()` reverses the dimensions.
        let rev: Vec<usize> = (0..r).rev().collect();
        let got = jit(|a| a[0].t(), from_ref(&x));
        let want = lax::transpose(&x, &rev);
        assert_bitwise(&got, &want, &".t()");
    }

    #[test]
    fn squeeze_and_expand_dims(
        base in shape_s(3, 4),
        ones in 0usize..=2,
        dtype in shape_dtype(),
        seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let mut shape = base.clone();
        for _ in 0..ones {
            let at = rng.below(shape.len() + 1);
            shape.insert(at, 1);
        }
        let x = iota_tensor(dtype, &shape);
        let r = shape.len();
        let all: Vec<usize> = (0..x.size()).collect();
        let unit: Vec<usize> = (0..r).filter(|&d| shape[d] == 1).collect();
        let chosen: Vec<usize> = unit.iter().copied().filter(|_| rng.coin()).collect();
        let squeezed = drop_axes(&shape, &chosen);
        let got = jit(|a| lax::squeeze(&a[0], &chosen), from_ref(&x));
        expect_gathered(&got, &x, &all, &squeezed, &chosen);
        let neg: Vec<isize> = chosen
            .iter()
            .map(|&d| if rng.coin() { d as isize - r as isize } else { d as isize })
            .collect();
        let got = jit(|a| jnp::squeeze(&a[0], &neg[..]), from_ref(&x));
        expect_gathered(&got, &x, &all, &squeezed, &neg);
        let got = jit(|a| jnp::squeeze(&a[0], None), from_ref(&x));
        expect_gathered(&got, &x, &all, &drop_axes(&shape, &unit), &"all");
        // expand_dims at every position, counted from either end.
        for at in -(r as isize + 1)..=r as isize {
            let got = jit(|a| jnp::expand_dims(&a[0], at), from_ref(&x));
            let mut want = shape.clone();
            want.insert(at.rem_euclid(r as isize + 1) as usize, 1);
            expect_gathered(&got, &x, &all, &want, &at);
        }
    }

    #[test]
    fn broadcast_in_dim(
        op_shape in shape_s(3, 3),
        extra in 0usize..=2,
        dtype in shape_dtype(),
        seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let x = iota_tensor(dtype, &op_shape);
        let r = op_shape.len();
        let out_rank = r + extra;
        let dims = rng.choose(out_rank, r);
        let mut out: Vec<usize> = (0..out_rank).map(|_| rng.below(4)).collect();
        for (i, &d) in dims.iter().enumerate() {
            out[d] = if op_shape[i] == 1 && rng.coin() { rng.below(4) } else { op_shape[i] };
        }
        let src: Vec<usize> = indices(&out)
            .iter()
            .map(|o| {
                let i: Vec<usize> = dims
                    .iter()
                    .enumerate()
                    .map(|(k, &d)| if op_shape[k] == 1 { 0 } else { o[d] })
                    .collect();
                flat(&i, &op_shape)
            })
            .collect();
        let got = jit(|a| lax::broadcast_in_dim(&a[0], &out, &dims), from_ref(&x));
        expect_gathered(&got, &x, &src, &out, &(&out, &dims));
        // numpy's broadcast_to aligns trailing dimensions.
        if dims == (extra..out_rank).collect::<Vec<_>>() {
            let got = jit(|a| jnp::broadcast_to(&a[0], &out), from_ref(&x));
            expect_gathered(&got, &x, &src, &out, &"broadcast_to");
        }
    }

    #[test]
    fn slice_with_strides(shape in shape_s(4, 5), dtype in shape_dtype(), seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let x = iota_tensor(dtype, &shape);
        let r = shape.len();
        let start: Vec<usize> = shape.iter().map(|&n| rng.below(n + 1)).collect();
        let limit: Vec<usize> =
            (0..r).map(|d| start[d] + rng.below(shape[d] - start[d] + 1)).collect();
        let steps: Vec<usize> = (0..r).map(|_| 1 + rng.below(3)).collect();
        let unit = rng.coin();
        let steps_used: Vec<usize> = if unit { vec![1; r] } else { steps.clone() };
        let out: Vec<usize> =
            (0..r).map(|d| (limit[d] - start[d]).div_ceil(steps_used[d])).collect();
        let src: Vec<usize> = indices(&out)
            .iter()
            .map(|o| {
                let i: Vec<usize> = (0..r).map(|d| start[d] + o[d] * steps_used[d]).collect();
                flat(&i, &shape)
            })
            .collect();
        let got = jit(
            |a| lax::slice(&a[0], &start, &limit, if unit { None } else { Some(&steps) }),
            from_ref(&x),
        );
        expect_gathered(&got, &x, &src, &out, &(&start, &limit, &steps_used));
    }

    #[test]
    fn iota(
        shape in shape_s(4, 4).prop_filter("rank >= 1", |s| !s.is_empty()),
        dim in any::<prop::sample::Index>(),
        dtype in select(vec![DType::I32, DType::U32, DType::F32, DType::F64]),
    ) {
        let d = dim.index(shape.len());
        let got = jit(|_| lax::iota(dtype, &shape, d), &[]);
        let want: Vec<Option<f64>> = indices(&shape).iter().map(|i| Some(i[d] as f64)).collect();
        expect_values(&got, dtype, &want, &shape, &d);
    }

    #[test]
    fn bitcast_convert_type(x in select(vec![DType::I32, DType::U32, DType::F32])
                                .prop_flat_map(|d| arr(d, Vals::Wide))) {
        let bytes = x.array().as_bytes().to_vec();
        for to in [DType::I32, DType::U32, DType::F32] {
            let got = jit(|a| lax::bitcast_convert_type(&a[0], to), from_ref(&x));
            prop_assert_eq!(got.dtype(), to);
            prop_assert_eq!(got.shape(), x.shape());
            prop_assert!(got.array().as_bytes() == &bytes[..], "bits kept from {} to {}", x.dtype(), to);
        }
    }

    #[test]
    fn rev(shape in shape_s(4, 4), dtype in shape_dtype(), seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let x = iota_tensor(dtype, &shape);
        let dims = rng.subset(shape.len());
        let src: Vec<usize> = indices(&shape)
            .iter()
            .map(|o| {
                let i: Vec<usize> = o
                    .iter()
                    .enumerate()
                    .map(|(d, &i)| if dims.contains(&d) { shape[d] - 1 - i } else { i })
                    .collect();
                flat(&i, &shape)
            })
            .collect();
        let got = jit(|a| lax::rev(&a[0], &dims), from_ref(&x));
        expect_gathered(&got, &x, &src, &shape, &dims);
    }

    #[test]
    fn pad(shape in shape_s(3, 4), dtype in shape_dtype(), seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let x = iota_tensor(dtype, &shape);
        let fill = Tensor::scalar(7.0f32).astype(dtype);
        let config: Vec<(i64, i64, i64)> = shape
            .iter()
            .map(|&n| {
                let n = n as i64;
                let (lo, mut hi, int) = (rng.range(-3, 3), rng.range(-3, 3), rng.range(0, 2));
                let size = lo + hi + n + int * (n - 1).max(0);
                if size < 0 {
                    hi -= size;
                }
                (lo, hi, int)
            })
            .collect();
        let out: Vec<usize> = shape
            .iter()
            .zip(&config)
            .map(|(&n, &(lo, hi, int))| (lo + hi + n as i64 + int * (n as i64 - 1).max(0)) as usize)
            .collect();
        // The reference: output position p holds operand element (p - lo) / (interior + 1)
        // when that divides exactly and lies in range, else the padding value.
        let xv = values(&x);
        let want: Vec<V> = indices(&out)
            .iter()
            .map(|o| {
                let mut i = Vec::new();
                for (d, &(lo, _, int)) in config.iter().enumerate() {
                    let j = o[d] as i64 - lo;
                    if j < 0 || j % (int + 1) != 0 || j / (int + 1) >= shape[d] as i64 {
                        return values(&fill)[0];
                    }
                    i.push((j / (int + 1)) as usize);
                }
                xv[flat(&i, &shape)]
            })
            .collect();
        let got = jit(|a| lax::pad(&a[0], &a[1], &config), &[x.clone(), fill.clone()]);
        prop_assert_eq!(got.shape(), &out[..]);
        let g = values(&got);
        for (i, (&a, &b)) in g.iter().zip(&want).enumerate() {
            prop_assert!(same_v(a, b), "element {}: {:?} vs {:?}, config {:?}", i, a, b, config);
        }
        // numpy's pad: non-negative (before, after) widths, no interior.
        let widths: Vec<(usize, usize)> = shape.iter().map(|_| (rng.below(3), rng.below(3))).collect();
        let cfg: Vec<(i64, i64, i64)> = widths.iter().map(|&(b, a)| (b as i64, a as i64, 0)).collect();
        if !shape.is_empty() {
            let got = jit(|a| jnp::pad(&a[0], &widths, 7), from_ref(&x));
            assert_bitwise(&got, &lax::pad(&x, &fill, &cfg), &widths);
        }
    }

    #[test]
    fn concatenate(
        base in shape_s(3, 3).prop_filter("rank >= 1", |s| !s.is_empty()),
        dtype in shape_dtype(),
        count in 1usize..=3,
        seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let r = base.len();
        let axis = rng.below(r);
        let parts: Vec<Tensor> = (0..count)
            .map(|_| {
                let mut s = base.clone();
                s[axis] = rng.below(4);
                rng.tensor(dtype, &s)
            })
            .collect();
        let mut out = base.clone();
        out[axis] = parts.iter().map(|p| p.shape()[axis]).sum();
        // The reference: along `axis`, walk into the part that holds each position.
        let pv: Vec<Vec<V>> = parts.iter().map(values).collect();
        let want: Vec<V> = indices(&out)
            .iter()
            .map(|o| {
                let mut k = o[axis];
                let mut which = 0;
                while k >= parts[which].shape()[axis] {
                    k -= parts[which].shape()[axis];
                    which += 1;
                }
                let mut i = o.clone();
                i[axis] = k;
                pv[which][flat(&i, parts[which].shape())]
            })
            .collect();
        let check_got = |got: &Tensor, ctx: &dyn Debug| {
            assert_eq!(got.shape(), &out[..], "{ctx:?}");
            for (i, (&a, &b)) in values(got).iter().zip(&want).enumerate() {
                assert!(same_v(a, b), "{ctx:?}: element {i}: {a:?} vs {b:?}");
            }
        };
        let got = jit(|a| lax::concatenate(a, axis), &parts);
        check_got(&got, &axis);
        let neg = axis as isize - r as isize;
        let got = jit(|a| jnp::concatenate(a, neg), &parts);
        check_got(&got, &neg);
        // stack = concatenate of expand_dims.
        let same: Vec<Tensor> = (0..count).map(|_| rng.tensor(dtype, &base)).collect();
        let at = rng.below(r + 1);
        let got = jit(|a| jnp::stack(a, at as isize), &same);
        let expanded: Vec<Tensor> = same.iter().map(|t| jnp::expand_dims(t, at as isize)).collect();
        assert_bitwise(&got, &lax::concatenate(&expanded, at), &"stack");
    }
}
