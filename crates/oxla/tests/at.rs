//! `x.at(idx)` (JAX's `x.at[idx]`) on the scatter family, from one table of operations:
//! `vmap` over the operand, the indices and the updates against a loop, `jit` against eager,
//! and `grad` against central differences in f64, with repeated and out-of-bounds indices.
//! The values themselves are checked against JAX in `golden/` (`at_*`) and `golden_ad/`
//! (`grad_at_*`).

use oxla::numpy::{self as jnp, s, AtMode, Ellipsis};
use oxla::{grad, jit, random, vmap, DType, Tensor};

type Op = fn(&Tensor, &Tensor, &Tensor) -> Tensor;

/// The operations, each `x.at[i].op(v)` for 1-D `x`, `i` and `v`.
const OPS: &[(&str, Op)] = &[
    ("set", |x, i, v| x.at(i).set(v)),
    ("add", |x, i, v| x.at(i).add(v)),
    ("mul", |x, i, v| x.at(i).mul(v)),
    ("min", |x, i, v| x.at(i).min(v)),
    ("max", |x, i, v| x.at(i).max(v)),
    ("set_clip", |x, i, v| x.at(i).mode(AtMode::Clip).set(v)),
    ("add_rows", |x, i, v| {
        let m = x.reshape(&[2, 3]);
        m.at((s(None, None, -1), &i.index(0..3).reshape(&[1, 3])))
            .add(v.index(0..3))
            .reshape(&[6])
    }),
];

fn normal(seed: i64, shape: &[usize]) -> Tensor {
    random::normal(&random::key(seed), shape)
}

fn idx(v: &[i32]) -> Tensor {
    Tensor::from_vec(v.to_vec(), &[v.len()])
}

/// Repeated (1, 4), negative (-1) and out-of-bounds (7) indices.
fn indices() -> Tensor {
    idx(&[1, 4, 1, -1, 7, 4])
}

fn same(what: &str, a: &Tensor, b: &Tensor) {
    assert_eq!(a.shape(), b.shape(), "{what}");
    assert_eq!(a.to_vec::<f32>(), b.to_vec::<f32>(), "{what}");
}

#[test]
fn vmap_over_operand_indices_and_updates_equals_a_loop() {
    let (xs, vs) = (normal(1, &[3, 6]), normal(2, &[3, 6]));
    let is = Tensor::from_vec(
        vec![1, 4, 1, -1, 7, 4, 0, 0, 5, -7, 2, 3, 5, 5, 5, 6, -6, 1],
        &[3, 6],
    );
    let (x, i, v) = (xs.index(0), indices(), vs.index(0));
    for &(name, op) in OPS {
        let bx: Tensor = vmap(|x: Tensor| op(&x, &i, &v)).call(xs.clone());
        let bi: Tensor = vmap(|i: Tensor| op(&x, &i, &v)).call(is.clone());
        let bv: Tensor = vmap(|v: Tensor| op(&x, &i, &v)).call(vs.clone());
        let ball: Tensor = vmap(|(x, i, v): (Tensor, Tensor, Tensor)| op(&x, &i, &v)).call((
            xs.clone(),
            is.clone(),
            vs.clone(),
        ));
        for b in 0..3 {
            let at = format!("{name}, example {b}");
            same(&at, &bx.index(b), &op(&xs.index(b), &i, &v));
            same(&at, &bi.index(b), &op(&x, &is.index(b), &v));
            same(&at, &bv.index(b), &op(&x, &i, &vs.index(b)));
            same(
                &at,
                &ball.index(b),
                &op(&xs.index(b), &is.index(b), &vs.index(b)),
            );
        }
    }
}

#[test]
fn jit_equals_eager() {
    let (x, i, v) = (normal(3, &[6]), indices(), normal(4, &[6]));
    for &(name, op) in OPS {
        let jitted: Tensor = jit(|(x, i, v): (Tensor, Tensor, Tensor)| op(&x, &i, &v))
            .call((x.clone(), i.clone(), v.clone()))
            .unwrap();
        same(name, &jitted, &op(&x, &i, &v));
        let got: Tensor = jit(|(x, i): (Tensor, Tensor)| x.at(&i).get(AtMode::Fill(-1.0)))
            .call((x.clone(), i.clone()))
            .unwrap();
        same("get", &got, &x.at(&i).get(AtMode::Fill(-1.0)));
    }
}

#[test]
fn grad_equals_central_differences() {
    let (x, i, v, w) = (normal(5, &[6]), indices(), normal(6, &[6]), normal(7, &[6]));
    let f64s = |t: &Tensor| t.astype(DType::F64);
    for &(name, op) in OPS {
        let loss = |x: &Tensor, v: &Tensor| (jnp::sin(op(x, &i, v)) * f64s(&w)).sum(None);
        // JAX differentiates scatter-mul by the operand only.
        let by_v = !name.starts_with("mul");
        let (x64, v64) = (f64s(&x), f64s(&v));
        let gx: Tensor = grad(|x: Tensor| loss(&x, &v64)).call(x64.clone());
        let gv: Option<Tensor> = by_v.then(|| grad(|v: Tensor| loss(&x64, &v)).call(v64.clone()));
        let eps = 1e-6;
        let bump = |t: &Tensor, k: usize, d: f64| {
            let mut a = t.to_vec::<f64>();
            a[k] += d;
            Tensor::from_vec(a, &[6])
        };
        for k in 0..6 {
            let fd = (loss(&bump(&x64, k, eps), &v64).item()
                - loss(&bump(&x64, k, -eps), &v64).item())
                / (2.0 * eps);
            let got = gx.to_vec::<f64>()[k];
            assert!(
                (fd - got).abs() <= 1e-6 * (1.0 + fd.abs()),
                "{name} x[{k}]: {fd} vs {got}"
            );
            if let Some(gv) = &gv {
                let fd = (loss(&x64, &bump(&v64, k, eps)).item()
                    - loss(&x64, &bump(&v64, k, -eps)).item())
                    / (2.0 * eps);
                let got = gv.to_vec::<f64>()[k];
                assert!(
                    (fd - got).abs() <= 1e-6 * (1.0 + fd.abs()),
                    "{name} v[{k}]: {fd} vs {got}"
                );
            }
        }
    }
}

#[test]
fn scatter_mul_refuses_the_updates_gradient_as_jax_does() {
    let (x, i, v) = (normal(8, &[6]), indices(), normal(9, &[6]));
    let r = std::panic::catch_unwind(|| {
        grad(|v: Tensor| x.at(&i).mul(&v).sum(None)).call::<_, Tensor>(v.clone())
    });
    let msg = r.expect_err("refused");
    let msg = msg
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| msg.downcast_ref::<&str>().map(|m| m.to_string()))
        .unwrap_or_default();
    assert!(
        msg.contains("scatter-mul") && msg.contains("unique_indices"),
        "{msg}"
    );
}

/// An update naming fewer dimensions than the array has (or using `...`) takes values of
/// the selection's shape: the positions leave out the padding of the dimensions not named.
#[test]
fn updates_of_whole_rows_take_values_of_the_row_shape() {
    let x = jnp::arange(12.0).reshape(&[3, 4]);
    let row = jnp::arange(4.0) + 100.0;
    let want = |r: usize| -> Vec<f32> {
        let mut v: Vec<f32> = (0..12).map(|i| i as f32).collect();
        for c in 0..4 {
            v[r * 4 + c] = 100.0 + c as f32;
        }
        v
    };
    assert_eq!(x.at(1).set(&row).to_vec::<f32>(), want(1));
    assert_eq!(x.at((Ellipsis, 2)).set(jnp::arange(3.0)).shape(), &[3, 4]);
    assert_eq!(
        x.at((2, Ellipsis)).set(&row).to_vec::<f32>(),
        want(2),
        "an ellipsis after the row index"
    );
    let added = x.at(0).add(&row).to_vec::<f32>();
    assert_eq!(&added[..4], &[100.0, 102.0, 104.0, 106.0]);
}

/// An ellipsis standing for no dimension still separates the advanced indices around it,
/// so their dimension goes first (numpy's rule, and JAX's), in `get` and in updates.
#[test]
fn an_empty_ellipsis_separates_advanced_indices() {
    let x = jnp::arange(12.0).reshape(&[3, 2, 2]);
    let (i, j) = (idx(&[0, 1]), idx(&[1, 0]));
    let full = s(None, None, 1);
    assert_eq!(x.index((full, &i, Ellipsis, &j)).shape(), &[2, 3]);
    assert_eq!(x.index((full, &i, &j)).shape(), &[3, 2]);
    let got = x
        .at((full, &i, Ellipsis, &j))
        .set(jnp::arange(6.0).reshape(&[2, 3]))
        .to_vec::<f32>();
    // JAX: [0, 0, 3, 3, 4, 1, 4, 7, 8, 2, 5, 11]
    assert_eq!(got, [0., 0., 3., 3., 4., 1., 4., 7., 8., 2., 5., 11.]);
}
