//! Automatic differentiation: finite differences, the seed, composition with vmap, higher
//! order, and JAX's conventions at non-differentiable points.

#[path = "../examples/seeds/mod.rs"]
mod seeds;

use oxla::numpy::{self as jnp, s};
use oxla::{
    grad, hessian, jacfwd, jacrev, jvp, lax, random, value_and_grad, vjp, vmap, DType, Tensor,
};

fn f64s(v: &Tensor) -> Vec<f64> {
    v.array().to_f64_vec()
}

fn assert_close(got: &Tensor, want: &Tensor, tol: f64, what: &str) {
    assert_eq!(got.shape(), want.shape(), "{what}: shapes");
    for (i, (a, b)) in f64s(got).iter().zip(f64s(want)).enumerate() {
        assert!(
            (a - b).abs() <= tol * (1.0 + b.abs()),
            "{what}[{i}]: {a} vs {b}"
        );
    }
}

type F = fn(&Tensor) -> Tensor;

/// Functions of one f64 tensor of shape [3, 4], each exercising one primitive family.
fn cases() -> Vec<(&'static str, F)> {
    vec![
        ("neg_exp", |x| -jnp::exp(x)),
        ("log_log1p", |x| {
            jnp::log(&(x * x + 1.0)) + jnp::log1p(&jnp::abs(x))
        }),
        ("sin_cos_tanh", |x| jnp::sin(x) * jnp::cos(x) + jnp::tanh(x)),
        ("logistic", |x| oxla::nn::sigmoid(x)),
        ("sqrt_rsqrt", |x| {
            jnp::sqrt(&(x * x + 1.0)) + lax::rsqrt(&(x * x + 2.0))
        }),
        ("erf_inv", |x| lax::erf_inv(&(jnp::tanh(x) * 0.5))),
        ("abs", |x| jnp::abs(&(x + 0.3))),
        ("integer_pow", |x| jnp::power(x, 3) + jnp::power(x, 2)),
        ("pow", |x| {
            jnp::power(jnp::abs(x) + 0.5, &(jnp::sin(x) + 2.0))
        }),
        ("add_sub_mul_div", |x| (x + 1.0) * (x - 2.0) / (x * x + 1.5)),
        ("max_min", |x| {
            jnp::maximum(x, &(x * 0.5 + 0.1)) + jnp::minimum(x, 0.2)
        }),
        ("rem", |x| lax::rem(&(x * 3.0), &(jnp::abs(x) + 1.7))),
        ("select", |x| jnp::where_(jnp::greater(x, 0.1), x * x, -x)),
        ("broadcast", |x| {
            x.index((.., None, ..)) * x.index((None, .., ..))
        }),
        ("reshape_transpose", |x| x.reshape(&[4, 3]).t() * x),
        ("rev_slice", |x| {
            x.index((s(None, None, -1), s(Some(1), None, 2)))
        }),
        ("squeeze", |x| {
            jnp::squeeze(&x.index((0..1, ..)), None) * 3.0
        }),
        ("pad", |x| {
            lax::pad(x, &(x.sum(None) * 0.1), &[(1, -1, 1), (-1, 2, 0)])
        }),
        ("concatenate", |x| jnp::concatenate(&[x.clone(), x * x], 1)),
        ("reduce_sum", |x| x.sum(0) * x.sum(None)),
        ("reduce_max_min", |x| jnp::max_keepdims(x, 1) * x + x.min(0)),
        ("cumsum", |x| jnp::cumsum(&(x * x), Some(1))),
        ("dot_general", |x| {
            jnp::matmul(x, &x.t()) + jnp::matmul(&x.t(), x).sum(None)
        }),
        ("batched_dot", |x| {
            let a = x.reshape(&[2, 2, 3]);
            jnp::matmul(&a, &a.transpose(&[0, 2, 1]))
        }),
        ("gather", |x| {
            x.index((jnp::array(&[2i32, 0, 2], &[3]), ..)) * 2.0
        }),
        ("dynamic_slice", |x| {
            lax::dynamic_slice(x, &[Tensor::scalar(1i32), Tensor::scalar(2i32)], &[2, 2])
        }),
        ("dynamic_update_slice", |x| {
            let u = x.index((..2, ..2)) * x.index((1.., 2..));
            lax::dynamic_update_slice(x, &u, &[Tensor::scalar(1i32), Tensor::scalar(1i32)])
        }),
        ("scatter_add", |x| {
            use oxla::prims::{GatherMode, ScatterDims};
            let idx = jnp::array(&[1i32, 1, 0], &[3, 1]);
            let upd = x.index(..3) * x.index(..3);
            let dims = ScatterDims {
                update_window_dims: vec![1],
                inserted_window_dims: vec![0],
                scatter_dims_to_operand_dims: vec![0],
                ..ScatterDims::default()
            };
            lax::scatter_add(x, &idx, &upd, dims, GatherMode::FillOrDrop)
        }),
        ("sort", |x| jnp::sort(&(x * 3.0), Some(1))),
        ("log_softmax", |x| oxla::nn::log_softmax(x, -1)),
        ("softmax", |x| oxla::nn::softmax(&(x * 2.0), 0)),
        ("norm", |x| jnp::linalg::norm(x, 1)),
        ("reduce_prod", |x| {
            jnp::prod_keepdims(x, 1) * jnp::prod(&x.index((.., 1..)), 0)
        }),
    ]
}

#[test]
fn jvp_and_vjp_match_finite_differences_for_every_primitive_family() {
    let x = random::normal_dtype(&random::key(0), &[3, 4], DType::F64);
    for (seed, (name, f)) in cases().into_iter().enumerate() {
        let v = random::normal_dtype(&random::key(seed as i64 + 10), &[3, 4], DType::F64);
        let eps = 1e-6;
        let fd = (f(&(&x + &v * eps)) - f(&(&x - &v * eps))) / (2.0 * eps);
        let (y, t) = jvp(|x: Tensor| f(&x), x.clone(), v.clone());
        assert_close(&y, &f(&x), 1e-12, name);
        assert_close(&t, &fd, 1e-5, &format!("{name} jvp"));
        // <u, J v> = <J^T u, v>
        let u = random::normal_dtype(&random::key(seed as i64 + 100), y.shape(), DType::F64);
        let (_, pullback) = vjp(|x: Tensor| f(&x), x.clone());
        let jtu = pullback.call(u.clone());
        let lhs = (&u * &t).sum(None).item();
        let rhs = (&jtu * &v).sum(None).item();
        assert!(
            (lhs - rhs).abs() <= 1e-8 * (1.0 + lhs.abs()),
            "{name} vjp: {lhs} vs {rhs}"
        );
    }
}

#[test]
fn seed_002_per_example_and_mean_gradients() {
    let params = (Tensor::scalar(2.0f32), Tensor::scalar(1.0f32));
    let xs = jnp::linspace(0.0, 1.0, 5);
    let ys = &xs * 2.5 + 0.5;
    let se = |(p, x, y): ((Tensor, Tensor), Tensor, Tensor)| seeds::squared_error(&p, &x, &y);
    let per_example: (Tensor, Tensor) = vmap(|a| grad(se).call(a)).in_axes((None, 0, 0)).call((
        params.clone(),
        xs.clone(),
        ys.clone(),
    ));
    assert_eq!(per_example.0.shape(), &[5]);
    // d/dw (w x + b - y)^2 = 2 (w x + b - y) x; d/db = 2 (w x + b - y)
    let r = &xs * 2.0 + 1.0 - &ys;
    assert_close(&per_example.0, &(&r * 2.0 * &xs), 1e-6, "dw");
    assert_close(&per_example.1, &(&r * 2.0), 1e-6, "db");
    let mean_loss = |(p, x, y): ((Tensor, Tensor), Tensor, Tensor)| -> Tensor {
        let l: Tensor = vmap(se).in_axes((None, 0, 0)).call((p, x, y));
        l.mean(None)
    };
    let mean: (Tensor, Tensor) = grad(mean_loss).call((params, xs, ys));
    assert!(jnp::allclose(&mean.0, &per_example.0.mean(None)).to_vec::<bool>()[0]);
    assert!(jnp::allclose(&mean.1, &per_example.1.mean(None)).to_vec::<bool>()[0]);
}

#[test]
fn argnums_has_aux_and_value_and_grad() {
    let f = |(a, b, c): (Tensor, Tensor, Tensor)| (&a * &b * 3.0 + &c).sum(None);
    let args = (
        Tensor::scalar(2.0f32),
        Tensor::scalar(5.0f32),
        Tensor::scalar(1.0f32),
    );
    let (ga, gc): (Tensor, Tensor) = grad(f).argnums((0, 2)).call(args.clone());
    assert_eq!((ga.item(), gc.item()), (15.0, 1.0));
    let (v, gb): (Tensor, Tensor) = value_and_grad(f).argnums(1).call(args.clone());
    assert_eq!((v.item(), gb.item()), (31.0, 6.0));
    let g = |x: Tensor| ((&x * &x).sum(None), x.clone() * 10.0);
    let (dx, aux): (Tensor, Tensor) = grad(g).has_aux().call(Tensor::scalar(3.0f32));
    assert_eq!((dx.item(), aux.item()), (6.0, 30.0));
    let ((v, aux), dx): ((Tensor, Tensor), Tensor) =
        value_and_grad(g).has_aux().call(Tensor::scalar(3.0f32));
    assert_eq!((v.item(), aux.item(), dx.item()), (9.0, 30.0, 6.0));
}

#[test]
fn higher_order_and_hessian_of_rosenbrock() {
    let d2: Tensor = grad(|x: Tensor| -> Tensor { grad(|y: Tensor| jnp::sin(&y) * &y).call(x) })
        .call(Tensor::scalar(0.7f64));
    // d2/dx2 x sin x = 2 cos x - x sin x
    let want = 2.0 * 0.7f64.cos() - 0.7 * 0.7f64.sin();
    assert!((d2.item() - want).abs() < 1e-12);
    let rosen = |x: Tensor| {
        let a = x.index(1..);
        let b = x.index(..-1);
        ((&a - &b * &b) * (&a - &b * &b) * 100.0 + (1.0 - &b) * (1.0 - &b)).sum(None)
    };
    let x = Tensor::from_vec(vec![1.2f64, 0.8, -0.5], &[3]);
    let h = hessian(rosen).call(x.clone());
    let hv = h.to_vec::<f64>();
    // Analytic Hessian of the 3-d Rosenbrock function.
    let (x0, x1, x2) = (1.2, 0.8, -0.5);
    let want = [
        1200.0 * x0 * x0 - 400.0 * x1 + 2.0,
        -400.0 * x0,
        0.0,
        -400.0 * x0,
        200.0 + 1200.0 * x1 * x1 - 400.0 * x2 + 2.0,
        -400.0 * x1,
        0.0,
        -400.0 * x1,
        200.0,
    ];
    for (a, b) in hv.iter().zip(want) {
        assert!((a - b).abs() < 1e-9 * (1.0 + b.abs()), "{hv:?}");
    }
    let jj = jacfwd(|x: Tensor| jacrev(rosen).call(x)).call(x.clone());
    assert_eq!(jj.to_vec::<f64>(), hv);
}

#[test]
fn jacobians_of_a_vector_function_and_their_composition_with_vmap() {
    let f = |x: Tensor| jnp::concatenate(&[jnp::sin(&x) * x.sum(None), x.index(..2) * 3.0], 0);
    let x = Tensor::from_vec(vec![0.1f64, 0.5, -0.3], &[3]);
    let jr = jacrev(f).call(x.clone());
    let jf = jacfwd(f).call(x.clone());
    assert_eq!(jr.shape(), &[5, 3]);
    assert_close(&jr, &jf, 1e-12, "jacrev vs jacfwd");
    let xs = random::normal_dtype(&random::key(9), &[4, 3], DType::F64);
    let batched: Tensor = vmap(|x: Tensor| jacrev(f).call(x)).call(xs.clone());
    for i in 0..4i32 {
        assert_close(
            &batched.index(i),
            &jacrev(f).call(xs.index(i)),
            1e-12,
            "vmap(jacrev)",
        );
    }
    let vf = |x: Tensor| -> Tensor { vmap(f).call(x) };
    let jv = jacrev(vf).call(xs.clone());
    assert_eq!(jv.shape(), &[4, 5, 4, 3]);
    assert_close(
        &jv.index((1, .., 1, ..)),
        &jacrev(f).call(xs.index(1)),
        1e-12,
        "jacrev(vmap)",
    );
    assert_eq!(jv.index((1, .., 2, ..)).sum(None).item(), 0.0);
}

#[test]
fn jax_conventions_at_non_differentiable_points() {
    let d = |f: fn(Tensor) -> Tensor, x: f32| -> f32 {
        let g: Tensor = grad(f).call(Tensor::scalar(x));
        g.item() as f32
    };
    assert_eq!(d(|x| jnp::abs(&x), 0.0), 1.0);
    assert_eq!(d(|x| jnp::maximum(&x, 1.0), 1.0), 0.5);
    assert_eq!(d(|x| jnp::sign(&x) * 2.0, 0.5), 0.0);
    assert_eq!(d(|x| jnp::sqrt(&x), 4.0), 0.25);
    let ties = Tensor::from_vec(vec![3.0f32, 1.0, 3.0], &[3]);
    let g: Tensor = grad(|x: Tensor| x.max(None)).call(ties);
    assert_eq!(g.to_vec::<f32>(), vec![0.5, 0.0, 0.5]);
    // Conversions between float types carry tangents; to integers they stop them.
    let (_, t) = jvp(
        |x: Tensor| x.astype(DType::F32) * 2.0,
        Tensor::scalar(1.5f64),
        Tensor::scalar(0.25f64),
    );
    assert_eq!((t.dtype(), t.item()), (DType::F32, 0.5));
    let (_, t) = jvp(
        |x: Tensor| x.astype(DType::I32),
        Tensor::scalar(1.5f32),
        Tensor::scalar(1.0f32),
    );
    assert_eq!(t.item(), 0.0);
    // Integer inputs carry zero tangents through jvp and vjp.
    let f = |(x, n): (Tensor, Tensor)| &x * n.astype(DType::F32);
    let (_, t) = jvp(
        f,
        (Tensor::scalar(2.0f32), Tensor::scalar(3i32)),
        (Tensor::scalar(1.0f32), Tensor::scalar(7i32)),
    );
    assert_eq!(t.item(), 3.0);
    let (_, pb) = vjp(f, (Tensor::scalar(2.0f32), Tensor::scalar(3i32)));
    let (gx, gn) = pb.call(Tensor::scalar(1.0f32));
    assert_eq!((gx.item(), gn.item()), (3.0, 0.0));
}

#[test]
#[should_panic(
    expected = "grad requires floating-point inputs, but argument 0 has a leaf of dtype int32"
)]
fn differentiating_an_integer_argument_panics() {
    let _: Tensor = grad(|x: Tensor| x.astype(DType::F32).sum(None)).call(Tensor::scalar(1i32));
}

#[test]
#[should_panic(expected = "grad requires a scalar floating-point output, got f32[3]")]
fn grad_of_a_vector_output_panics() {
    let _: Tensor = grad(|x: Tensor| x * 2.0).call(jnp::ones(&[3]));
}

#[test]
fn grad_under_make_jaxpr_stages_the_backward_pass() {
    let se = |(p, x, y): ((Tensor, Tensor), Tensor, Tensor)| seeds::squared_error(&p, &x, &y);
    let f = |(p, x, y): ((Tensor, Tensor), Tensor, Tensor)| -> (Tensor, Tensor) {
        vmap(|a| grad(se).call(a))
            .in_axes((None, 0, 0))
            .call((p, x, y))
    };
    let s = Tensor::scalar(1.0f32);
    let j = oxla::make_jaxpr(f, ((s.clone(), s), jnp::ones(&[5]), jnp::ones(&[5])));
    let text = j.to_string();
    assert!(
        text.starts_with("{ lambda ; a:f32[] b:f32[] c:f32[5] d:f32[5]. let"),
        "{text}"
    );
    assert!(text.contains("integer_pow[y=2]"), "{text}");
    assert_eq!(j.jaxpr.outvars.len(), 2);
    assert_eq!(j.jaxpr.out_avals()[0].shape.as_slice(), &[5]);
}

#[test]
fn grad_of_prod_is_the_product_of_the_others_even_at_zeros() {
    let x = jnp::array(&[2.0f32, 0.0, 3.0, 5.0, 0.5], &[5]);
    let g: Tensor = grad(|x: Tensor| jnp::prod(&x, None)).call(x.clone());
    assert_eq!(g.to_vec::<f32>(), vec![0.0, 15.0, 0.0, 0.0, 0.0]);
    let x = jnp::array(&[2.0f32, 1.5, 3.0, 5.0, 0.5], &[5]);
    let (_, t) = jvp(|x: Tensor| jnp::prod(&x, None), x.clone(), jnp::ones(&[5]));
    // d/dt prod(x + t) at 0 = sum of the products of the others.
    let want: f32 = [
        1.5 * 3.0 * 5.0 * 0.5,
        2.0 * 3.0 * 5.0 * 0.5,
        2.0 * 1.5 * 5.0 * 0.5,
    ]
    .iter()
    .sum::<f32>()
        + 2.0 * 1.5 * 3.0 * 0.5
        + 2.0 * 1.5 * 3.0 * 5.0;
    assert_eq!(t.item() as f32, want);
}

#[test]
fn stop_gradient_is_a_constant_to_every_transform() {
    let x = jnp::array(&[1.0f64, -2.0, 3.0], &[3]);
    // d/dx sum(x^2 * sg(x)) = 2 x sg(x).
    let f = |x: Tensor| (&x * &x * lax::stop_gradient(&x)).sum(None);
    let g = grad(f).call(x.clone());
    assert_eq!(f64s(&g), vec![2.0, 8.0, 18.0]);
    let (y, t) = jvp(
        |x: Tensor| lax::stop_gradient(&(&x * 2.0)),
        x.clone(),
        jnp::ones_like(&x),
    );
    assert_eq!(f64s(&y), vec![2.0, -4.0, 6.0]);
    assert_eq!(f64s(&t), vec![0.0; 3]);
    // Per-example gradients, and under jit, where it compiles away.
    let per = vmap(|x: Tensor| grad(f).call(x)).call(x.reshape(&[3, 1]));
    assert_eq!(f64s(&per), vec![2.0, 8.0, 18.0]);
    let j = oxla::jit(|x: Tensor| grad(f).call(x));
    assert_eq!(f64s(&j.call(x.clone()).unwrap()), vec![2.0, 8.0, 18.0]);
    let c = j.lower(&x).compile();
    assert!(!c.jaxpr().to_string().contains("stop_gradient"));
    let staged = oxla::make_jaxpr(|x: Tensor| lax::stop_gradient(&x), x);
    assert!(staged.to_string().contains("stop_gradient"), "{staged}");
}
