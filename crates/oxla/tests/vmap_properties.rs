//! Property: `vmap(f)(xs)` equals stacking `f(x_i)`, for every primitive family, over random
//! shapes, mapped axes and out axes.

use oxla::numpy::{self as jnp, s};
use oxla::prims::{GatherMode, ScatterDims};
use oxla::{jit, lax, random, vmap, DType, Tensor};
use proptest::prelude::*;

type F = fn(&Tensor) -> Tensor;

/// Per-example functions of one f32 tensor of rank >= 1, one or more per primitive family.
fn unary_cases() -> Vec<(&'static str, F)> {
    vec![
        ("exp", |x| jnp::exp(x)),
        ("log1p_abs", |x| jnp::log1p(&jnp::abs(x))),
        ("sin_cos", |x| jnp::sin(x) * jnp::cos(x)),
        ("tanh", |x| jnp::tanh(x)),
        ("sigmoid", |x| oxla::nn::sigmoid(x)),
        ("sqrt_abs", |x| jnp::sqrt(&jnp::abs(x))),
        ("rsqrt", |x| lax::rsqrt(&(jnp::abs(x) + 1.0))),
        ("neg_sign_floor", |x| -jnp::sign(x) + jnp::floor(x)),
        ("erf_inv", |x| lax::erf_inv(&jnp::tanh(x))),
        ("integer_pow", |x| jnp::power(x, 3)),
        ("pow", |x| jnp::power(jnp::abs(x) + 0.5, 1.5f32)),
        ("int_ops", |x| {
            let i = (x * 10.0).astype(DType::I32);
            (jnp::remainder(&i, 3) + jnp::floor_divide(&i, -4)).astype(DType::F32)
        }),
        ("where", |x| jnp::where_(jnp::greater(x, 0.0), x, x * 0.1)),
        ("is_finite", |x| {
            lax::is_finite(&jnp::log(x)).astype(DType::F32)
        }),
        ("scalar_mix", |x| (x.sum(None) - x) * 2.0),
        ("bitcast", |x| {
            let b = lax::bitcast_convert_type(x, DType::U32);
            lax::bitcast_convert_type(
                &lax::shift_right_logical(&b, &Tensor::scalar(1u32)),
                DType::F32,
            )
        }),
        ("broadcast_in_dim", |x| {
            x.index((.., None)) * x.index((None, ..))
        }),
        ("broadcast_to", |x| {
            let mut shape = vec![2];
            shape.extend_from_slice(x.shape());
            jnp::broadcast_to(x, &shape)
        }),
        ("reshape", |x| x.ravel().reshape(&[-1, 1])),
        ("transpose", |x| x.t()),
        ("rev_slice", |x| x.index(s(None, None, -1))),
        ("strided_slice", |x| x.index(s(Some(0), None, 2))),
        ("squeeze_expand", |x| {
            jnp::squeeze(&jnp::expand_dims(x, 0), Some(&[0]))
        }),
        ("pad", |x| {
            let cfg: Vec<(i64, i64, i64)> = (0..x.ndim()).map(|_| (1, -1, 1)).collect();
            lax::pad(x, &Tensor::scalar(7.0f32), &cfg)
        }),
        ("concatenate", |x| {
            jnp::concatenate(&[x.clone(), jnp::ones(x.shape()), x * 2.0], 0)
        }),
        ("stack", |x| {
            jnp::stack(&[x.clone(), jnp::zeros(x.shape())], -1)
        }),
        ("sum_axis0", |x| x.sum(0)),
        ("max_keepdims", |x| jnp::max_keepdims(x, -1)),
        ("min_all", |x| x.min(None)),
        ("mean", |x| x.mean(0)),
        ("argmax", |x| jnp::argmax(x, Some(0)).astype(DType::F32)),
        ("argmin_flat", |x| jnp::argmin(x, None).astype(DType::F32)),
        ("cumsum", |x| jnp::cumsum(x, Some(-1))),
        ("sort", |x| jnp::sort(x, Some(0))),
        ("matmul_unmapped", |x| {
            let k = x.shape()[x.ndim() - 1];
            let w = jnp::arange((k * 3) as i32)
                .reshape(&[k, 3])
                .astype(DType::F32);
            jnp::matmul(x, &w)
        }),
        ("matmul_self", |x| {
            let m = x.reshape(&[x.shape()[0] as isize, -1]);
            jnp::matmul(&m, &m.t())
        }),
        ("gather_const_idx", |x| {
            let idx = jnp::array(&[0i32, -1, 0], &[3]);
            x.index(&idx)
        }),
        ("gather_computed_idx", |x| {
            let n = x.shape()[0] as i32;
            let i = jnp::argmax(x, Some(0)).ravel().index(..1);
            x.index(jnp::remainder(i + 1, n))
        }),
        ("dynamic_slice", |x| {
            let i = jnp::argmax(&x.ravel(), None);
            let mut sizes = x.shape().to_vec();
            sizes[0] = 1;
            let mut starts = vec![jnp::remainder(i, x.shape()[0] as i32)];
            starts.extend((1..x.ndim()).map(|_| Tensor::scalar(0i32)));
            lax::dynamic_slice(x, &starts, &sizes)
        }),
        ("dynamic_update_slice", |x| {
            let i = jnp::argmin(&x.ravel(), None);
            let mut ushape = x.shape().to_vec();
            ushape[0] = 1;
            let u = jnp::full(&ushape, 9.0f32) + x.index(..1);
            let mut starts = vec![jnp::remainder(i, x.shape()[0] as i32)];
            starts.extend((1..x.ndim()).map(|_| Tensor::scalar(0i32)));
            lax::dynamic_update_slice(x, &u, &starts)
        }),
        ("scatter_add", |x| {
            let n = x.shape()[0] as i32;
            let first = jnp::argmax(x, Some(0)).ravel().index(..1);
            let both = jnp::concatenate(&[first.clone(), first + 1], 0);
            let idx = jnp::remainder(both, n).reshape(&[2, 1]);
            let mut ushape = vec![2];
            ushape.extend_from_slice(&x.shape()[1..]);
            let upd = jnp::ones(&ushape);
            let window: Vec<usize> = (1..x.ndim()).collect();
            let dims = ScatterDims {
                update_window_dims: window,
                inserted_window_dims: vec![0],
                scatter_dims_to_operand_dims: vec![0],
                ..ScatterDims::default()
            };
            lax::scatter_add(x, &idx, &upd, dims, GatherMode::FillOrDrop)
        }),
        ("threefry", |x| {
            let bits = lax::bitcast_convert_type(x, DType::U32);
            let (a, b) =
                lax::threefry2x32(&Tensor::scalar(1u32), &Tensor::scalar(2u32), &bits, &bits);
            lax::shift_right_logical(&lax::xor(&a, &b), &Tensor::scalar(16u32)).astype(DType::F32)
        }),
    ]
}

/// The `i`th slice of `xs` along `axis`.
fn take(xs: &Tensor, axis: usize, i: usize) -> Tensor {
    let mut start = vec![0; xs.ndim()];
    let mut limit = xs.shape().to_vec();
    start[axis] = i;
    limit[axis] = i + 1;
    lax::squeeze(&lax::slice(xs, &start, &limit, None), &[axis])
}

fn close(a: &Tensor, b: &Tensor) -> bool {
    let (x, y) = (a.array().to_f64_vec(), b.array().to_f64_vec());
    a.shape() == b.shape()
        && x.iter()
            .zip(&y)
            .all(|(x, y)| (x.is_nan() && y.is_nan()) || (x - y).abs() <= 1e-4 * (1.0 + y.abs()))
}

fn shape_and_axis() -> impl Strategy<Value = (Vec<usize>, usize, usize, u32)> {
    (
        prop::collection::vec(1usize..4, 1..=2),
        1usize..4,
        any::<u32>(),
    )
        .prop_flat_map(|(shape, n, seed)| {
            let r = shape.len();
            (Just(shape), Just(n), 0..=r, Just(seed))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn vmap_equals_the_loop((shape, n, axis, seed) in shape_and_axis()) {
        let mut full = shape.clone();
        full.insert(axis, n);
        let xs = random::normal(&random::key(seed as i64), &full);
        for (name, f) in unary_cases() {
            let batched: Tensor = vmap(|x: Tensor| f(&x)).in_axes(axis).call(xs.clone());
            let looped: Vec<Tensor> = (0..n).map(|i| f(&take(&xs, axis, i))).collect();
            let want = jnp::stack(&looped, 0);
            prop_assert!(close(&batched, &want), "{name}: shape {shape:?} axis {axis} n {n}\n got {batched}\nwant {want}");
            let compiled = jit(|x: Tensor| -> Tensor { vmap(|x: Tensor| f(&x)).in_axes(axis).call(x) })
                .call(xs.clone())
                .unwrap();
            prop_assert!(close(&compiled, &want), "{name} (jit): shape {shape:?} axis {axis} n {n}\n got {compiled}\nwant {want}");
        }
    }

    #[test]
    fn chunked_vmap_equals_the_loop(
        (shape, n, axis, seed) in shape_and_axis(),
        chunk in 1usize..9,
    ) {
        let mut full = shape.clone();
        full.insert(axis, n);
        let xs = random::normal(&random::key(seed as i64), &full);
        for (name, f) in unary_cases() {
            let looped: Vec<Tensor> = (0..n).map(|i| f(&take(&xs, axis, i))).collect();
            let want = jnp::stack(&looped, 0);
            let v = || vmap(|x: Tensor| f(&x)).in_axes(axis).chunk_size(chunk);
            let eager: Tensor = v().call(xs.clone());
            prop_assert!(close(&eager, &want), "{name}: shape {shape:?} axis {axis} n {n} chunk {chunk}\n got {eager}\nwant {want}");
            let compiled = jit(|x: Tensor| -> Tensor { v().call(x) }).call(xs.clone()).unwrap();
            prop_assert!(close(&compiled, &want), "{name} (jit): shape {shape:?} axis {axis} n {n} chunk {chunk}");
        }
    }

    #[test]
    fn vmap_with_an_unmapped_operand_and_out_axes((shape, n, axis, seed) in shape_and_axis()) {
        let mut full = shape.clone();
        full.insert(axis, n);
        let xs = random::normal(&random::key(seed as i64), &full);
        let c = random::normal(&random::key(seed as i64 + 1), &shape);
        let f = |(x, c): (Tensor, Tensor)| (jnp::maximum(&x, &c) * &c, (x * 3.0).sum(None));
        let (a, b): (Tensor, Tensor) = vmap(f)
            .in_axes((axis, None))
            .out_axes((-1, 0))
            .call((xs.clone(), c.clone()));
        for i in 0..n {
            let (ai, bi) = f((take(&xs, axis, i), c.clone()));
            prop_assert!(close(&take(&a, a.ndim() - 1, i), &ai));
            prop_assert!(close(&b.index(i as i32), &bi));
        }
    }
}
