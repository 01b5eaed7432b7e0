//! `lax::scan`, `lax::scan_reverse`, `lax::fori_loop` and `lax::map`: each against the same
//! computation unrolled in Rust, under eager evaluation, `jit`, `vmap` (against a loop),
//! `grad` (and finite differences) and `jvp`.

use approx::assert_abs_diff_eq;
use oxla::{grad, jit, jvp, lax, make_jaxpr, numpy as jnp, random, vmap, Tensor};

fn close(a: &Tensor, b: &Tensor) {
    assert_eq!(a.shape(), b.shape());
    for (x, y) in a.to_vec::<f32>().iter().zip(b.to_vec::<f32>()) {
        assert_abs_diff_eq!(*x, y, epsilon = 1e-4 * (1.0 + y.abs()));
    }
}

fn normal(seed: i64, shape: &[usize]) -> Tensor {
    random::normal(&random::key(seed), shape)
}

/// One step of a small recurrent cell: `h' = tanh(h @ w + x)`, emitting `sum(h')`.
fn cell(w: &Tensor) -> impl Fn((Tensor, Tensor)) -> (Tensor, Tensor) + '_ {
    move |(h, x): (Tensor, Tensor)| {
        let h2 = jnp::tanh(&(h.matmul(w) + x));
        let y = h2.sum(None);
        (h2, y)
    }
}

/// The scan of `cell`, and the same loop unrolled.
fn rnn((w, h, xs): (Tensor, Tensor, Tensor)) -> (Tensor, Tensor) {
    lax::scan(cell(&w), h, xs).call()
}

fn rnn_unrolled((w, h, xs): (Tensor, Tensor, Tensor)) -> (Tensor, Tensor) {
    let step = cell(&w);
    let mut h = h;
    let mut ys = vec![];
    for i in 0..xs.shape()[0] {
        let (h2, y) = step((h, xs.index(i)));
        h = h2;
        ys.push(y);
    }
    (h, jnp::stack(&ys, 0))
}

fn data() -> (Tensor, Tensor, Tensor) {
    (
        normal(1, &[4, 4]) * 0.5,
        normal(2, &[4]),
        normal(3, &[6, 4]),
    )
}

#[test]
fn scan_equals_the_loop_unrolled_eagerly_and_under_jit() {
    let args = data();
    let (h, ys) = rnn(args.clone());
    let (uh, uys) = rnn_unrolled(args.clone());
    close(&h, &uh);
    close(&ys, &uys);
    let (jh, jys) = jit(rnn).call(args).unwrap();
    close(&jh, &uh);
    close(&jys, &uys);
}

#[test]
fn scan_stages_one_primitive_and_reverse_runs_backwards() {
    let j = make_jaxpr(rnn, data());
    assert!(j.to_string().contains("scan["), "{j}");
    let xs = jnp::arange(4.0);
    let (c, ys): (Tensor, Tensor) = lax::scan_reverse(
        |(c, x): (Tensor, Tensor)| (&c + &x, &c * 1.0),
        Tensor::scalar(0.0f32),
        xs,
    )
    .call();
    assert_eq!(c.item(), 6.0);
    // Reverse: step 3 sees carry 0, step 2 carry 3, step 1 carry 5, step 0 carry 6.
    assert_eq!(ys.to_vec::<f32>(), vec![6.0, 5.0, 3.0, 0.0]);
}

#[test]
fn vmap_of_scan_equals_a_loop_of_scans() {
    let (w, _, _) = data();
    let hs = normal(4, &[3, 4]);
    let xss = normal(5, &[3, 6, 4]);
    // Batched carry and scanned operand.
    let (bh, bys): (Tensor, Tensor) =
        vmap(|(h, xs): (Tensor, Tensor)| rnn((w.clone(), h, xs))).call((hs.clone(), xss.clone()));
    // Batched scanned operand only: the carry becomes batched after one step.
    let h0 = normal(6, &[4]);
    let (ch, cys): (Tensor, Tensor) =
        vmap(|xs: Tensor| rnn((w.clone(), h0.clone(), xs))).call(xss.clone());
    // Batched captured weight only.
    let ws = normal(7, &[3, 4, 4]) * 0.5;
    let xs0 = xss.index(0);
    let (wh, wys): (Tensor, Tensor) =
        vmap(|w: Tensor| rnn((w, h0.clone(), xs0.clone()))).call(ws.clone());
    for b in 0..3 {
        let (h, ys) = rnn_unrolled((w.clone(), hs.index(b), xss.index(b)));
        close(&bh.index(b), &h);
        close(&bys.index(b), &ys);
        let (h, ys) = rnn_unrolled((w.clone(), h0.clone(), xss.index(b)));
        close(&ch.index(b), &h);
        close(&cys.index(b), &ys);
        let (h, ys) = rnn_unrolled((ws.index(b), h0.clone(), xs0.clone()));
        close(&wh.index(b), &h);
        close(&wys.index(b), &ys);
    }
}

fn loss(
    f: fn((Tensor, Tensor, Tensor)) -> (Tensor, Tensor),
) -> impl Fn((Tensor, Tensor, Tensor)) -> Tensor {
    move |a| {
        let (h, ys) = f(a);
        h.sum(None) + (&ys * &ys).sum(None)
    }
}

#[test]
fn grad_of_scan_equals_grad_of_the_loop_and_finite_differences() {
    let args = data();
    let g: (Tensor, Tensor, Tensor) = grad(loss(rnn)).argnums([0, 1, 2]).call(args.clone());
    let u: (Tensor, Tensor, Tensor) = grad(loss(rnn_unrolled))
        .argnums([0, 1, 2])
        .call(args.clone());
    close(&g.0, &u.0);
    close(&g.1, &u.1);
    close(&g.2, &u.2);
    let jg: (Tensor, Tensor, Tensor) = jit(|a| grad(loss(rnn)).argnums([0, 1, 2]).call(a))
        .call(args.clone())
        .unwrap();
    close(&jg.0, &u.0);
    // The backward loop's `dz @ w.T` reads `w` transposed once, before the loop starts.
    let per_input = |a| -> (Tensor, Tensor, Tensor) { grad(loss(rnn)).argnums([0, 1, 2]).call(a) };
    let text = make_jaxpr(per_input, args.clone()).to_string();
    let transposed = text.find("transpose[").expect("w transposed");
    assert!(
        transposed < text.rfind("scan[").expect("a backward loop"),
        "{text}"
    );
    // Only the final carry is used: the stacked results' cotangent is zero.
    let carry_only = |f: fn((Tensor, Tensor, Tensor)) -> (Tensor, Tensor)| {
        move |a| -> Tensor { f(a).0.sum(None) }
    };
    let c: Tensor = grad(carry_only(rnn)).call(args.clone());
    let cu: Tensor = grad(carry_only(rnn_unrolled)).call(args.clone());
    close(&c, &cu);
    // Central differences on the initial carry, in f64.
    let (w, h, xs) = args;
    let f64_loss = |h: &Tensor| loss(rnn)((w.clone(), h.clone(), xs.clone())).item();
    let eps = 1e-2;
    for k in 0..4 {
        let bump = |s: f64| {
            let mut v = h.to_vec::<f32>();
            v[k] += s as f32;
            Tensor::from_vec(v, &[4])
        };
        let fd = (f64_loss(&bump(eps)) - f64_loss(&bump(-eps))) / (2.0 * eps);
        let got = g.1.to_vec::<f32>()[k] as f64;
        assert!(
            (fd - got).abs() <= 2e-2 * (1.0 + fd.abs()),
            "{k}: {fd} vs {got}"
        );
    }
}

/// A step whose slice work and weight gradient are elementwise products with a 1024 x 1024
/// weight: for all 32 steps at once each would write 128 MiB if run op by op. Hoisted out
/// of the loops they run compiled, fused, eagerly as under `jit`, and agree with the loop.
#[test]
fn large_hoisted_work_runs_fused_eagerly_and_under_jit() {
    let n = 1024;
    let step = |w: &Tensor| {
        let w = w.clone();
        move |(c, x): (Tensor, Tensor)| {
            let c2 = jnp::tanh(&(&c + (&w * x.index((None, ..))).sum(1)));
            (c2.clone(), c2.sum(None))
        }
    };
    let scanned = |(w, xs): (Tensor, Tensor)| -> Tensor {
        let (c, ys): (Tensor, Tensor) = lax::scan(step(&w), jnp::zeros(&[n]), xs).call();
        c.sum(None) + ys.sum(None)
    };
    let unrolled = |(w, xs): (Tensor, Tensor)| -> Tensor {
        let f = step(&w);
        let mut c = jnp::zeros(&[n]);
        let mut total = Tensor::scalar(0.0f32);
        for i in 0..xs.shape()[0] {
            let (c2, y) = f((c, xs.index(i)));
            c = c2;
            total = total + y;
        }
        c.sum(None) + total
    };
    let args = (normal(4, &[n, n]) * (1.0 / n as f64), normal(5, &[32, n]));
    let u: Tensor = jit(|a| grad(unrolled).call(a)).call(args.clone()).unwrap();
    let j: Tensor = jit(|a| grad(scanned).call(a)).call(args.clone()).unwrap();
    close(&j, &u);
    let e: Tensor = grad(scanned).call(args);
    close(&e, &u);
}

#[test]
fn jvp_of_scan_equals_jvp_of_the_loop() {
    let (w, h, xs) = data();
    let f = |u: fn((Tensor, Tensor, Tensor)) -> (Tensor, Tensor), w: Tensor| {
        move |(h, xs): (Tensor, Tensor)| u((w.clone(), h, xs))
    };
    let th = normal(8, &[4]);
    let txs = normal(9, &[6, 4]);
    let ((h1, y1), (th1, ty1)) = jvp(
        f(rnn, w.clone()),
        (h.clone(), xs.clone()),
        (th.clone(), txs.clone()),
    );
    let ((h2, y2), (th2, ty2)) = jvp(f(rnn_unrolled, w), (h, xs), (th, txs));
    close(&h1, &h2);
    close(&y1, &y2);
    close(&th1, &th2);
    close(&ty1, &ty2);
}

#[test]
fn fori_loop_runs_and_differentiates() {
    let body = |(i, v): (Tensor, Tensor)| jnp::sin(&v) * 1.5 + i.astype(oxla::DType::F32) * 0.1;
    let run = move |v: Tensor| lax::fori_loop(2, 7, body, v);
    let unrolled = move |v: Tensor| {
        let mut v = v;
        for i in 2..7 {
            v = body((Tensor::scalar(i), v));
        }
        v
    };
    let v = normal(10, &[5]);
    close(&run(v.clone()), &unrolled(v.clone()));
    close(&jit(run).call(v.clone()).unwrap(), &unrolled(v.clone()));
    let g = |f: &dyn Fn(Tensor) -> Tensor| -> Tensor {
        grad(|v: Tensor| f(v).sum(None)).call(v.clone())
    };
    close(&g(&run), &g(&unrolled));
    let batched: Tensor = vmap(run).call(normal(11, &[3, 5]));
    close(&batched.index(1), &unrolled(normal(11, &[3, 5]).index(1)));
}

#[test]
fn two_loops_of_one_body_stay_two_once_compiled() {
    // The compiler merges equal equations, but compares loops by identity: two loops of
    // equal bodies on one operand are two primitives.
    let body = |(_, v): (Tensor, Tensor)| jnp::sin(&v);
    let f = move |v: Tensor| lax::fori_loop(0, 3, body, v.clone()) + lax::fori_loop(0, 3, body, v);
    let c = jit(f).lower(&jnp::ones(&[4])).compile();
    let text = c.jaxpr().to_string();
    assert_eq!(text.matches("scan[").count(), 2, "{text}");
}

#[test]
fn lax_map_equals_vmap_for_every_batch_size() {
    let xs = normal(12, &[10, 3]);
    let f = |x: Tensor| jnp::exp(&x).sum(None);
    let want: Tensor = vmap(f).call(xs.clone());
    for k in [1, 3, 10] {
        let got: Tensor = lax::map(f, xs.clone()).batch_size(k).call();
        close(&got, &want);
    }
    let one: Tensor = lax::map(f, xs).call();
    close(&one, &want);
}

/// `x * 2` where `x.sum() > 0`, else `sin(x) - y` (a captured value).
fn branchy(y: Tensor) -> impl Fn(Tensor) -> Tensor {
    move |x: Tensor| {
        let pred = jnp::greater(x.sum(None), 0.0);
        let y = y.clone();
        lax::cond(
            &pred,
            |x: Tensor| &x * 2.0,
            move |x: Tensor| jnp::sin(&x) - &y,
            x,
        )
    }
}

/// The branch `branchy` takes at the concrete `x0`, as a function.
fn chosen(y: Tensor, x0: &Tensor) -> Box<dyn Fn(Tensor) -> Tensor> {
    if x0.sum(None).item() > 0.0 {
        Box::new(|x: Tensor| &x * 2.0)
    } else {
        Box::new(move |x: Tensor| jnp::sin(&x) - &y)
    }
}

#[test]
fn cond_runs_one_branch_under_every_transform() {
    let y = normal(20, &[3]);
    let f = branchy(y.clone());
    let xs = normal(21, &[6, 3]);
    for i in 0..6 {
        let x = xs.index(i);
        let g = chosen(y.clone(), &x);
        close(&f(x.clone()), &g(x.clone()));
        close(&jit(&f).call(x.clone()).unwrap(), &g(x.clone()));
        let gf: Tensor = grad(|x: Tensor| f(x).sum(None)).call(x.clone());
        let gg: Tensor = grad(|x: Tensor| g(x).sum(None)).call(x.clone());
        close(&gf, &gg);
        let t = normal(22, &[3]);
        let (_, tf) = jvp(&f, x.clone(), t.clone());
        let (_, tg) = jvp(&g, x.clone(), t);
        close(&tf, &tg);
    }
    // A batched predicate: every branch runs and each lane selects its own.
    let batched: Tensor = vmap(&f).call(xs.clone());
    for i in 0..6 {
        close(
            &batched.index(i),
            &chosen(y.clone(), &xs.index(i))(xs.index(i)),
        );
    }
    let j = make_jaxpr(|x: Tensor| -> Tensor { vmap(&f).call(x) }, xs.clone());
    assert!(j.to_string().contains("select_n"), "{j}");
    // An unbatched predicate stays a cond of batched branches.
    let shared = |x: Tensor| {
        lax::cond(
            &Tensor::scalar(false),
            |x: Tensor| -x,
            |x: Tensor| &x * 3.0,
            x,
        )
    };
    let s: Tensor = vmap(shared).call(xs.clone());
    close(&s, &(&xs * 3.0));
}

#[test]
fn switch_clamps_its_index() {
    let x = Tensor::scalar(2.0f32);
    let branches: [&dyn Fn(Tensor) -> Tensor; 3] = [&|x| -x, &|x| &x * 10.0, &|x| &x + 100.0];
    for (i, want) in [(-5, -2.0), (0, -2.0), (1, 20.0), (2, 102.0), (9, 102.0)] {
        let y: Tensor = lax::switch(&Tensor::scalar(i), &branches, x.clone());
        assert_eq!(y.item(), want, "index {i}");
    }
}

/// Newton's iteration for `sqrt(a)` until the step is small.
fn newton_sqrt(a: Tensor) -> Tensor {
    let a2 = a.clone();
    let (_, x) = lax::while_loop(
        |(step, _): (Tensor, Tensor)| jnp::greater(jnp::abs(&step), 1e-6),
        move |(_, x): (Tensor, Tensor)| {
            let next = (&x + &a2 / &x) * 0.5;
            (&next - &x, next)
        },
        (Tensor::scalar(1.0f32), a),
    );
    x
}

#[test]
fn while_loop_runs_batches_per_lane_and_differentiates_forward() {
    let a = Tensor::scalar(2.0f32);
    assert_abs_diff_eq!(newton_sqrt(a.clone()).item(), 2f64.sqrt(), epsilon = 1e-5);
    assert_abs_diff_eq!(
        jit(newton_sqrt).call(a.clone()).unwrap().item(),
        2f64.sqrt(),
        epsilon = 1e-5
    );
    // Lanes need different trip counts: the loop runs until all are done.
    let lanes = Tensor::from_vec(vec![0.25f32, 2.0, 100.0, 1e6], &[4]);
    let got: Tensor = vmap(newton_sqrt).call(lanes.clone());
    for (g, a) in got.to_vec::<f32>().iter().zip(lanes.to_vec::<f32>()) {
        assert_abs_diff_eq!(*g, a.sqrt(), epsilon = 1e-4 * a.sqrt());
    }
    // d sqrt(a) / da = 1 / (2 sqrt(a)), through the iteration.
    let (_, t) = jvp(newton_sqrt, Tensor::scalar(4.0f32), Tensor::scalar(1.0f32));
    assert_abs_diff_eq!(t.item(), 0.25, epsilon = 1e-4);
    let refused =
        std::panic::catch_unwind(|| grad(newton_sqrt).call::<_, Tensor>(Tensor::scalar(4.0f32)));
    let msg = refused.expect_err("reverse mode is refused");
    let msg = msg
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| msg.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(msg.contains("fori_loop"), "{msg}");
}

/// `lax.scan(f, c, None, length=5)` capturing `w`: `c' = sin(c) * w + c / 2`, emitting `c * c`.
fn no_xs((w, c): (Tensor, Tensor)) -> (Tensor, Tensor) {
    let step = |(c, ()): (Tensor, ())| (jnp::sin(&c) * &w + 0.5 * &c, &c * &c);
    lax::scan(step, c, ()).length(5).call()
}

fn no_xs_unrolled((w, mut c): (Tensor, Tensor)) -> (Tensor, Tensor) {
    let mut ys = vec![];
    for _ in 0..5 {
        ys.push(&c * &c);
        c = jnp::sin(&c) * &w + 0.5 * &c;
    }
    (c, jnp::stack(&ys, 0))
}

#[test]
fn scan_with_no_xs_runs_length_steps_under_every_transform() {
    let (w, c) = (normal(8, &[3]), normal(9, &[3]));
    let (h, ys) = no_xs((w.clone(), c.clone()));
    let (uh, uys) = no_xs_unrolled((w.clone(), c.clone()));
    close(&h, &uh);
    close(&ys, &uys);
    let (jh, jys) = jit(no_xs).call((w.clone(), c.clone())).unwrap();
    close(&jh, &uh);
    close(&jys, &uys);
    // unroll is a hint: the same bits.
    let step = |(c, ()): (Tensor, ())| (jnp::sin(&c) * &w + 0.5 * &c, &c * &c);
    let (rh, rys): (Tensor, Tensor) = lax::scan(step, c.clone(), ()).length(5).unroll(2).call();
    assert_eq!(rh.to_vec::<f32>(), h.to_vec::<f32>());
    assert_eq!(rys.to_vec::<f32>(), ys.to_vec::<f32>());
    // vmap over the carry, and over the captured weight, against loops.
    let (cs, ws) = (normal(10, &[4, 3]), normal(11, &[4, 3]));
    let (bh, bys): (Tensor, Tensor) = vmap(|c: Tensor| no_xs((w.clone(), c))).call(cs.clone());
    let (wh, wys): (Tensor, Tensor) = vmap(|w: Tensor| no_xs((w, c.clone()))).call(ws.clone());
    for b in 0..4 {
        let (h, ys) = no_xs_unrolled((w.clone(), cs.index(b)));
        close(&bh.index(b), &h);
        close(&bys.index(b), &ys);
        let (h, ys) = no_xs_unrolled((ws.index(b), c.clone()));
        close(&wh.index(b), &h);
        close(&wys.index(b), &ys);
    }
    // grad against the loop's, eagerly and under jit, and central differences.
    let loss = |f: fn((Tensor, Tensor)) -> (Tensor, Tensor)| {
        move |a| -> Tensor {
            let (h, ys) = f(a);
            h.sum(None) + ys.sum(None)
        }
    };
    let args = (w.clone(), c.clone());
    let g: (Tensor, Tensor) = grad(loss(no_xs)).argnums([0, 1]).call(args.clone());
    let u: (Tensor, Tensor) = grad(loss(no_xs_unrolled))
        .argnums([0, 1])
        .call(args.clone());
    close(&g.0, &u.0);
    close(&g.1, &u.1);
    let jg = jit(|a| -> (Tensor, Tensor) { grad(loss(no_xs)).argnums([0, 1]).call(a) })
        .call(args)
        .unwrap();
    close(&jg.0, &u.0);
    close(&jg.1, &u.1);
    // Central differences in f64.
    let (w64, eps) = (w.astype(oxla::DType::F64), 1e-5);
    for k in 0..3 {
        let bump = |s: f64| {
            let mut v: Vec<f64> = c.to_vec::<f32>().into_iter().map(f64::from).collect();
            v[k] += s;
            loss(no_xs)((w64.clone(), Tensor::from_vec(v, &[3]))).item()
        };
        let fd = (bump(eps) - bump(-eps)) / (2.0 * eps);
        let got = f64::from(g.1.to_vec::<f32>()[k]);
        assert!(
            (fd - got).abs() <= 2e-2 * (1.0 + fd.abs()),
            "{k}: {fd} vs {got}"
        );
    }
}
