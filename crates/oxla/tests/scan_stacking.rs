//! How `lax::scan` stacks its per-step results: a stacked carry input beside the stacked
//! carry output shares one buffer, and the reverse pass recomputes a cheap residual from
//! a stacked one instead of stacking both. Both are checked against loops unrolled in Rust.

use oxla::{grad, jit, lax, numpy as jnp, random, Tensor};

fn normal(seed: i64, shape: &[usize]) -> Tensor {
    random::normal(&random::key(seed), shape)
}

type Stacks = (Tensor, (Tensor, Tensor, Tensor));

/// A step that stacks its new carry, its carry before the step and a function of both.
fn step((c, x): (Tensor, Tensor)) -> (Tensor, (Tensor, Tensor, Tensor)) {
    let n = jnp::sin(&c) * 0.5 + x;
    let d = &n - &c;
    (n.clone(), (n, c, d))
}

fn scanned((c, xs, reverse): (Tensor, Tensor, bool)) -> Stacks {
    lax::scan(step, c, xs).reverse(reverse).call()
}

fn unrolled((c, xs, reverse): (Tensor, Tensor, bool)) -> Stacks {
    let n = xs.shape()[0];
    let mut c = c;
    let mut rows: Vec<Option<(Tensor, Tensor, Tensor)>> = vec![None; n];
    for t in 0..n {
        let i = if reverse { n - 1 - t } else { t };
        let (next, ys) = step((c, xs.index(i)));
        rows[i] = Some(ys);
        c = next;
    }
    let rows: Vec<_> = rows
        .into_iter()
        .map(|r| r.expect("every step runs"))
        .collect();
    let col = |f: fn(&(Tensor, Tensor, Tensor)) -> Tensor| {
        jnp::stack(&rows.iter().map(f).collect::<Vec<_>>(), 0)
    };
    (
        c,
        (
            col(|r| r.0.clone()),
            col(|r| r.1.clone()),
            col(|r| r.2.clone()),
        ),
    )
}

fn same(a: &Stacks, b: &Stacks) {
    let flat = |s: &Stacks| [s.0.clone(), s.1 .0.clone(), s.1 .1.clone(), s.1 .2.clone()];
    for (x, y) in flat(a).iter().zip(flat(b)) {
        assert_eq!(x.shape(), y.shape());
        assert_eq!(x.to_vec::<f32>(), y.to_vec::<f32>());
    }
}

#[test]
fn a_stacked_carry_input_beside_its_output_reads_the_carry_before_each_step() {
    for reverse in [false, true] {
        let args = (normal(1, &[3]), normal(2, &[5, 3]), reverse);
        let want = unrolled(args.clone());
        same(&scanned(args.clone()), &want);
        let jitted = jit(|(c, xs): (Tensor, Tensor)| scanned((c, xs, reverse)));
        same(
            &jitted.call((args.0.clone(), args.1.clone())).unwrap(),
            &want,
        );
        // No steps: the stacks are empty, the carry is the initial one.
        let empty = jnp::zeros(&[0, 3]);
        let none = (
            args.0.clone(),
            (empty.clone(), empty.clone(), empty.clone()),
        );
        same(&scanned((args.0.clone(), empty.clone(), reverse)), &none);
    }
}

#[test]
fn two_carries_with_one_new_value_each_stack_their_own_inputs() {
    let body = |((a, b), x): ((Tensor, Tensor), Tensor)| {
        let n = &a * 0.5 + &b + x;
        ((n.clone(), n.clone()), (a, b, n))
    };
    let (a, b, xs) = (normal(3, &[2]), normal(4, &[2]), normal(5, &[4, 2]));
    let (_, (sa, sb, sn)): ((Tensor, Tensor), (Tensor, Tensor, Tensor)) =
        lax::scan(body, (a.clone(), b.clone()), xs.clone()).call();
    let (mut ca, mut cb) = (a, b);
    for i in 0..4 {
        assert_eq!(sa.index(i).to_vec::<f32>(), ca.to_vec::<f32>());
        assert_eq!(sb.index(i).to_vec::<f32>(), cb.to_vec::<f32>());
        let n = &ca * 0.5 + &cb + xs.index(i);
        assert_eq!(sn.index(i).to_vec::<f32>(), n.to_vec::<f32>());
        (ca, cb) = (n.clone(), n);
    }
}

/// `tanh(h @ w + x)` scanned, the mean of `sum(h * h)` over the steps.
fn rnn_loss((w, xs): (Tensor, Tensor)) -> Tensor {
    let step = |(h, x): (Tensor, Tensor)| {
        let h = jnp::tanh(&(h.matmul(&w) + x));
        let y = (&h * &h).sum(None);
        (h, y)
    };
    let (_, ys): (Tensor, Tensor) =
        lax::scan(step, jnp::zeros(&[2, 4]).astype(xs.dtype()), xs).call();
    ys.mean(None)
}

#[test]
fn the_reverse_pass_recomputes_the_derivative_of_tanh_from_the_stacked_h() {
    let (w, xs) = (normal(6, &[4, 4]) * 0.5, normal(7, &[6, 2, 4]));
    let g = jit(|a: (Tensor, Tensor)| -> Tensor { grad(rnn_loss).call(a) });
    let text = g
        .lower(&(w.clone(), xs.clone()))
        .compile()
        .jaxpr()
        .to_string();
    // The forward loop stacks `h` (read by the reverse pass) and the `h` before it (read
    // by the weight's gradient after the loops): two stacked results, not three with
    // `1 - h * h`.
    let forward = text
        .lines()
        .find(|l| l.contains("= scan["))
        .expect("a forward loop");
    assert_eq!(forward.matches("f32[6,2,4]").count(), 2, "{text}");
    // The gradient still equals central differences of the loss in f64.
    let g: Tensor = grad(rnn_loss).call((w.clone(), xs.clone()));
    let (w64, xs64) = (w.astype(oxla::DType::F64), xs.astype(oxla::DType::F64));
    let eps = 1e-5;
    for k in [0, 5, 15] {
        let bump = |s: f64| {
            let mut v = w64.to_vec::<f64>();
            v[k] += s;
            rnn_loss((Tensor::from_vec(v, &[4, 4]), xs64.clone())).item()
        };
        let fd = (bump(eps) - bump(-eps)) / (2.0 * eps);
        let got = f64::from(g.to_vec::<f32>()[k]);
        assert!(
            (fd - got).abs() <= 1e-3 * (1.0 + fd.abs()),
            "{k}: {fd} vs {got}"
        );
    }
}
