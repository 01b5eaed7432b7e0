//! The transforms on the new dtypes: `vmap` against a loop and `jit` against eager for
//! integer and 16-bit float programs, and `grad` of 16-bit float inputs against finite
//! differences (loose tolerances: the 16-bit types hold about 3 significant digits).

use oxla::{grad, jit, jnp, vmap, DType, Tensor};

/// Integers 0..n of `d`, shifted and scaled into a small range.
fn data(d: DType, n: usize) -> Tensor {
    let v: Vec<f32> = (0..n).map(|i| ((i * 7) % 11) as f32 - 3.0).collect();
    Tensor::from_vec(v, &[n]).astype(d)
}

/// The new dtypes and the two defaults, `i32` and `f32`.
fn dtypes() -> impl Iterator<Item = DType> {
    crate::new_dtypes().chain([DType::I32, DType::F32])
}

/// A program mixing arithmetic, a comparison, a select, a cast and a reduction.
fn program(x: Tensor) -> Tensor {
    let y = &x * &x + &x * 3;
    let big = jnp::greater(&y, &x);
    let z = jnp::where_(&big, &y, &(&x - 1));
    (z.sum(None) + z.max(None)).astype(DType::F32)
}

fn same(a: &Tensor, b: &Tensor, what: &str) {
    assert_eq!(a.dtype(), b.dtype(), "{what}");
    assert_eq!(a.shape(), b.shape(), "{what}");
    assert_eq!(a.to_vec::<f32>(), b.to_vec::<f32>(), "{what}");
}

#[test]
fn jit_matches_eager_on_every_dtype() {
    for d in dtypes() {
        let x = data(d, 37);
        let eager = program(x.clone());
        let jitted = jit(program).call(x).unwrap();
        same(&jitted, &eager, &format!("{d}"));
    }
}

#[test]
fn vmap_matches_a_loop_on_every_dtype() {
    for d in dtypes() {
        let xs = data(d, 4 * 9).reshape(&[4, 9]);
        let batched = vmap(program).call(xs.clone());
        let rows: Vec<Tensor> = (0..4).map(|i| program(xs.index(i))).collect();
        let looped = jnp::stack(&rows, 0);
        same(&batched, &looped, &format!("{d}"));
        let jitted = jit(|x: Tensor| vmap(program).call(x)).call(xs).unwrap();
        same(&jitted, &looped, &format!("{d} (jit)"));
    }
}

#[test]
fn grad_of_half_inputs_matches_finite_differences() {
    let f = |x: Tensor| (x.sin() * &x + x.exp() * 0.5).sum(None);
    for d in [DType::F16, DType::BF16] {
        let x = Tensor::from_vec(vec![0.3f32, -0.7, 1.1, 0.05], &[4]).astype(d);
        let g: Tensor = grad(f).call(x.clone());
        assert_eq!(g.dtype(), d);
        let g = g.astype(DType::F64).to_vec::<f64>();
        // Central differences of the same function in f64.
        let x64 = x.astype(DType::F64).to_vec::<f64>();
        let eps = 1e-4;
        for i in 0..4 {
            let at = |h: f64| {
                let mut v = x64.clone();
                v[i] += h;
                f(Tensor::from_vec(v, &[4])).to_vec::<f64>()[0]
            };
            let fd = (at(eps) - at(-eps)) / (2.0 * eps);
            let tol = if d == DType::F16 { 1e-2 } else { 4e-2 };
            assert!(
                (g[i] - fd).abs() <= tol * (1.0 + fd.abs()),
                "{d}[{i}]: grad {} fd {fd}",
                g[i]
            );
        }
    }
}

#[test]
fn integer_overflow_wraps_under_jit_and_vmap() {
    let f = |x: Tensor| &x * 3 + 100;
    let x = Tensor::from_vec(vec![100u8, 200, 255, 0], &[4]);
    let want: Vec<u8> = [100u8, 200, 255, 0]
        .iter()
        .map(|v| v.wrapping_mul(3).wrapping_add(100))
        .collect();
    assert_eq!(f(x.clone()).to_vec::<u8>(), want);
    assert_eq!(jit(f).call(x.clone()).unwrap().to_vec::<u8>(), want);
    assert_eq!(vmap(f).call(x).to_vec::<u8>(), want);
}
