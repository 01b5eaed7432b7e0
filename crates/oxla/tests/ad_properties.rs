//! Property: for every differentiable primitive, over random shapes, jvp matches central
//! finite differences (f64) and the vjp is its transpose: <u, J v> = <J^T u, v>.

use oxla::numpy::{self as jnp, s};
use oxla::prims::{GatherMode, ScatterDims};
use oxla::{jit, jvp, lax, random, vjp, DType, Tensor};
use proptest::prelude::*;

type F = fn(&Tensor) -> Tensor;

fn first(x: &Tensor) -> usize {
    x.shape()[0]
}

/// Functions of one f64 tensor of any shape of rank >= 1, one per primitive family.
fn cases() -> Vec<(&'static str, F)> {
    vec![
        ("exp_log", |x| jnp::exp(x) + jnp::log(&(x * x + 1.0))),
        ("log1p_sin_cos", |x| {
            jnp::log1p(jnp::abs(x)) + jnp::sin(x) * jnp::cos(x)
        }),
        ("tanh_logistic", |x| jnp::tanh(x) + oxla::nn::sigmoid(x)),
        ("sqrt_rsqrt", |x| {
            jnp::sqrt(&(x * x + 1.0)) * lax::rsqrt(&(x * x + 2.0))
        }),
        ("erf_inv", |x| lax::erf_inv(&(jnp::tanh(x) * 0.5))),
        ("abs_pow", |x| {
            jnp::abs(&(x + 0.3)) + jnp::power(jnp::abs(x) + 0.5, 1.7)
        }),
        ("integer_pow", |x| jnp::power(x, 3) - jnp::power(x, 2)),
        ("arith", |x| (x + 1.0) * (x - 2.0) / (x * x + 1.5)),
        ("max_min", |x| {
            jnp::maximum(x, &(x * 0.5 + 0.1)) + jnp::minimum(x, 0.2)
        }),
        ("rem", |x| lax::rem(&(x * 3.0), &(jnp::abs(x) + 1.7))),
        ("where", |x| jnp::where_(jnp::greater(x, 0.1), x * x, -x)),
        ("broadcast", |x| {
            x.index((None, ..)) * x.index((.., None)).sum(None)
        }),
        ("reshape_transpose", |x| {
            x.ravel().reshape(&[-1, 1]) * 2.0 + x.t().sum(None)
        }),
        ("rev_slice", |x| {
            x.index(s(None, None, -1)) + x.index(s(None, None, 2)).sum(None)
        }),
        ("pad", |x| {
            let cfg: Vec<(i64, i64, i64)> = (0..x.ndim()).map(|_| (1, -1, 1)).collect();
            lax::pad(x, &(x.sum(None) * 0.1), &cfg)
        }),
        ("concatenate", |x| jnp::concatenate(&[x.clone(), x * x], 0)),
        ("reductions", |x| {
            x.sum(0) * x.max(None) + x.min(-1).sum(None) + x.mean(None)
        }),
        ("cumsum", |x| jnp::cumsum(&(x * x), -1)),
        ("dot_general", |x| {
            let m = x.reshape(&[first(x) as isize, -1]);
            jnp::matmul(&m, m.t()) + jnp::matmul(m.t(), &m).sum(None)
        }),
        ("gather", |x| {
            let idx = jnp::array(&[0i32, first(x) as i32 - 1, 0], &[3]);
            x.index(&idx) * 2.0
        }),
        ("dynamic_slice", |x| {
            let mut starts = vec![Tensor::scalar(first(x) as i32 - 1)];
            starts.extend((1..x.ndim()).map(|_| Tensor::scalar(0i32)));
            let mut sizes = x.shape().to_vec();
            sizes[0] = 1;
            lax::dynamic_slice(x, &starts, &sizes) * x.sum(None)
        }),
        ("dynamic_update_slice", |x| {
            let u = x.index(..1) * x.index(..1);
            let mut starts = vec![Tensor::scalar(first(x) as i32 - 1)];
            starts.extend((1..x.ndim()).map(|_| Tensor::scalar(0i32)));
            lax::dynamic_update_slice(x, &u, &starts)
        }),
        ("scatter_add", |x| {
            let idx = jnp::array(&[0i32, first(x) as i32 - 1, 0], &[3, 1]);
            let upd = jnp::concatenate(&[x.index(..1), x.index(..1) * 3.0, x.index(..1)], 0);
            let dims = ScatterDims {
                update_window_dims: (1..x.ndim()).collect(),
                inserted_window_dims: vec![0],
                scatter_dims_to_operand_dims: vec![0],
                ..ScatterDims::default()
            };
            lax::scatter_add(x, &idx, &upd, dims, GatherMode::FillOrDrop)
        }),
        ("sort", |x| jnp::sort(&(x * 3.0), 0)),
        ("log_softmax", |x| oxla::nn::log_softmax(x, -1)),
        ("norm", |x| jnp::linalg::norm(x, 0)),
    ]
}

fn shapes() -> impl Strategy<Value = (Vec<usize>, u32)> {
    (prop::collection::vec(1usize..4, 1..=3), any::<u32>())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn jvp_matches_finite_differences_and_vjp_is_its_transpose((shape, seed) in shapes()) {
        let key = |k: i64| random::key(seed as i64 * 131 + k);
        let x = random::normal_dtype(&key(0), &shape, DType::F64);
        for (i, (name, f)) in cases().into_iter().enumerate() {
            let v = random::normal_dtype(&key(i as i64 + 1), &shape, DType::F64);
            let eps = 1e-6;
            let fd = (f(&(&x + &v * eps)) - f(&(&x - &v * eps))) / (2.0 * eps);
            let (y, t) = jvp(|x: Tensor| f(&x), x.clone(), v.clone());
            // The same derivative compiled: jit equals eager.
            let compiled = jit(|(x, v): (Tensor, Tensor)| jvp(|x: Tensor| f(&x), x, v).1)
                .call((x.clone(), v.clone()))
                .unwrap();
            for (a, b) in compiled.array().to_f64_vec().iter().zip(t.array().to_f64_vec()) {
                prop_assert!((a - b).abs() <= 1e-9 * (1.0 + b.abs()), "{name} {shape:?}: jit {a} vs eager {b}");
            }
            let (tv, fdv) = (t.array().to_f64_vec(), fd.array().to_f64_vec());
            for (a, b) in tv.iter().zip(&fdv) {
                prop_assert!((a - b).abs() <= 1e-5 * (1.0 + b.abs()), "{name} {shape:?}: jvp {a} vs fd {b}");
            }
            let u = random::normal_dtype(&key(i as i64 + 100), y.shape(), DType::F64);
            let (_, pullback) = vjp(|x: Tensor| f(&x), x.clone());
            let jtu = pullback.call(u.clone());
            let lhs = (&u * &t).sum(None).item();
            let rhs = (&jtu * &v).sum(None).item();
            prop_assert!((lhs - rhs).abs() <= 1e-8 * (1.0 + lhs.abs()), "{name} {shape:?}: {lhs} vs {rhs}");
        }
    }
}
