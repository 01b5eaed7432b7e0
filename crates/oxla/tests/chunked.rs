//! `vmap(f).chunk_size(k)` and `vmap(f).memory_budget(bytes)`: chunked equals unchunked
//! under every transform (eager, jit, grad, jvp, an outer vmap, nesting), the staged
//! primitive, and the memory plan's chunk sizes.

use approx::assert_abs_diff_eq;
use oxla::{grad, jit, jvp, make_jaxpr, numpy as jnp, random, vmap, Tensor};

fn close(a: &Tensor, b: &Tensor) {
    assert_eq!(a.shape(), b.shape());
    for (x, y) in a.to_vec::<f32>().iter().zip(b.to_vec::<f32>()) {
        assert_abs_diff_eq!(*x, y, epsilon = 1e-4 * (1.0 + y.abs()));
    }
}

fn normal(seed: i64, shape: &[usize]) -> Tensor {
    random::normal(&random::key(seed), shape)
}

/// Negative L1 affinity of two images (seed 000).
fn aff((a, b): (Tensor, Tensor)) -> Tensor {
    -jnp::sum(&jnp::abs(&(a - b)), None)
}

#[test]
fn chunked_equals_unchunked_for_every_chunk_size() {
    let x = normal(0, &[23, 5]);
    let f = |x: Tensor| jnp::tanh(&x).sum(None) * x.index(0);
    let want: Tensor = vmap(f).call(x.clone());
    for k in [1, 2, 7, 22, 23, 100] {
        let got: Tensor = vmap(f).chunk_size(k).call(x.clone());
        close(&got, &want);
    }
}

#[test]
fn chunked_stages_one_map_primitive() {
    let x = normal(0, &[10, 3]);
    let j = make_jaxpr(
        |x: Tensor| -> Tensor { vmap(|v: Tensor| v.sum(None)).chunk_size(4).call(x) },
        x,
    );
    let text = j.to_string();
    assert!(
        text.contains("chunked_map[") && text.contains("chunk=4"),
        "{text}"
    );
    assert!(text.contains("length=10"), "{text}");
}

#[test]
fn in_axes_out_axes_and_unmapped_arguments() {
    let a = normal(1, &[4, 9]);
    let b = normal(2, &[4]);
    let f = |(a, b): (Tensor, Tensor)| &a * &b + 1.0;
    let want: Tensor = vmap(f)
        .in_axes((1, None))
        .out_axes(1)
        .call((a.clone(), b.clone()));
    let got: Tensor = vmap(f)
        .in_axes((1, None))
        .out_axes(1)
        .chunk_size(2)
        .call((a, b));
    assert_eq!(got.shape(), &[4, 9]);
    close(&got, &want);
}

#[test]
fn pairwise_affinity_chunked_matches() {
    let imgs = normal(3, &[13, 4, 4]);
    let pair = |imgs: Tensor, k: Option<usize>| -> Tensor {
        let row = |a: Tensor| -> Tensor { vmap(aff).in_axes((None, 0)).call((a, imgs.clone())) };
        match k {
            Some(k) => vmap(row).chunk_size(k).call(imgs.clone()),
            None => vmap(row).call(imgs.clone()),
        }
    };
    let want = pair(imgs.clone(), None);
    for k in [1, 5, 13] {
        close(&pair(imgs.clone(), Some(k)), &want);
        let jitted = jit(move |x: Tensor| pair(x, Some(k)))
            .call(imgs.clone())
            .unwrap();
        close(&jitted, &want);
    }
}

#[test]
fn grad_of_chunked_equals_grad_of_unchunked() {
    let w = normal(4, &[3, 5]);
    let xs = normal(5, &[11, 3]);
    let loss = |k: Option<usize>| {
        move |(w, xs): (Tensor, Tensor)| -> Tensor {
            let per = |(w, x): (Tensor, Tensor)| jnp::tanh(&x.matmul(&w)).sum(None);
            let v = vmap(per).in_axes((None, 0));
            let l: Tensor = match k {
                Some(k) => v.chunk_size(k).call((w, xs)),
                None => v.call((w, xs)),
            };
            (&l * &l).sum(None)
        }
    };
    let (gw, gx): (Tensor, Tensor) = grad(loss(None))
        .argnums([0, 1])
        .call((w.clone(), xs.clone()));
    for k in [1, 4, 11] {
        let (cw, cx): (Tensor, Tensor) = grad(loss(Some(k)))
            .argnums([0, 1])
            .call((w.clone(), xs.clone()));
        close(&cw, &gw);
        close(&cx, &gx);
        let (jw, jx): (Tensor, Tensor) = jit(move |a| grad(loss(Some(k))).argnums([0, 1]).call(a))
            .call((w.clone(), xs.clone()))
            .unwrap();
        close(&jw, &gw);
        close(&jx, &gx);
    }
}

#[test]
fn jvp_of_chunked_equals_jvp_of_unchunked() {
    let xs = normal(6, &[9, 4]);
    let t = normal(7, &[9, 4]);
    let f = |k: Option<usize>| {
        move |xs: Tensor| -> Tensor {
            let v = vmap(|x: Tensor| jnp::exp(&x).sum(None));
            match k {
                Some(k) => v.chunk_size(k).call(xs),
                None => v.call(xs),
            }
        }
    };
    let (y, ty) = jvp(f(None), xs.clone(), t.clone());
    let (cy, cty) = jvp(f(Some(2)), xs, t);
    close(&cy, &y);
    close(&cty, &ty);
}

#[test]
fn outer_vmap_and_nesting() {
    let xs = normal(8, &[3, 10, 2]);
    let inner = |k: Option<usize>| {
        move |x: Tensor| -> Tensor {
            let v = vmap(|r: Tensor| (&r * &r).sum(None));
            match k {
                Some(k) => v.chunk_size(k).call(x),
                None => v.call(x),
            }
        }
    };
    let want: Tensor = vmap(inner(None)).call(xs.clone());
    let outer: Tensor = vmap(inner(Some(3))).call(xs.clone());
    close(&outer, &want);
    let both: Tensor = vmap(inner(Some(4))).chunk_size(2).call(xs.clone());
    close(&both, &want);
    let moved: Tensor = vmap(inner(Some(4))).in_axes(1).call(xs.clone());
    let want_moved: Tensor = vmap(inner(None)).in_axes(1).call(xs);
    close(&moved, &want_moved);
}

#[test]
fn memory_budget_picks_a_chunk_that_fits_and_the_plan_shows_it() {
    // Each example materialises its 64 x 64 product (16 KiB) and its copied operand; the
    // argument takes 640 KiB of the budget.
    let a = normal(9, &[40, 64, 64]);
    let f = |x: Tensor| jnp::abs(&x.matmul(&x)).sum(None);
    let budget = 800 << 10;
    let g = jit(move |a: Tensor| -> Tensor { vmap(f).memory_budget(budget).call(a).unwrap() });
    let compiled = g.lower(&a).compile();
    let plan = compiled.memory_analysis();
    let c = &plan.chunks[0];
    assert!(plan.peak_bytes <= budget, "{plan}");
    assert!(c.chunk >= 2 && c.chunk < 40, "{plan}");
    assert!(plan.to_string().contains("in chunks of"), "{plan}");
    assert_eq!(plan.step_primitives, ["chunked_map"]);
    let svg = plan.to_svg();
    assert!(
        svg.starts_with("<svg") && svg.contains("step 0 (chunked_map)"),
        "{svg}"
    );
    let want: Tensor = vmap(f).call(a.clone());
    close(&compiled.call(a).unwrap(), &want);
}

#[test]
fn grad_of_chunked_holds_one_chunks_residuals() {
    // Each example materialises a 128 x 128 product (64 KiB), a residual of its gradient:
    // 32 MiB for the 512 examples unchunked, 1 MiB for a chunk of 16.
    let w = normal(10, &[128, 128]);
    let xs = normal(11, &[512, 128]);
    let per = |(w, x): (Tensor, Tensor)| {
        let table = x.index((.., None)) * x.index((None, ..));
        jnp::tanh(&table.matmul(&w)).sum(None)
    };
    let loss = |k: Option<usize>| {
        move |(w, xs): (Tensor, Tensor)| -> Tensor {
            let v = vmap(per).in_axes((None, 0));
            let l: Tensor = match k {
                Some(k) => v.chunk_size(k).call((w, xs)),
                None => v.call((w, xs)),
            };
            l.sum(None)
        }
    };
    let args = (w.clone(), xs.clone());
    let forward = oxla::explain(loss(Some(16)), &args);
    let chunk = forward.chunks[0].chunk_bytes;
    let backward = oxla::explain(
        |a: (Tensor, Tensor)| -> Tensor { grad(loss(Some(16))).call(a) },
        &args,
    );
    let unchunked = oxla::explain(
        |a: (Tensor, Tensor)| -> Tensor { grad(loss(None)).call(a) },
        &args,
    );
    // Within 1.5x of the forward chunk's peak plus the inputs and outputs.
    let bound = (chunk + backward.argument_bytes + backward.output_bytes) * 3 / 2;
    println!(
        "planned peaks: forward chunk {chunk} B, grad chunked {} B (bound {bound} B), grad \
         unchunked {} B",
        backward.peak_bytes, unchunked.peak_bytes
    );
    assert!(
        backward.peak_bytes <= bound,
        "{backward}\nforward:\n{forward}"
    );
    assert!(
        unchunked.peak_bytes > 8 * backward.peak_bytes,
        "{unchunked}\n{backward}"
    );
    let got: Tensor = grad(loss(Some(16))).call(args.clone());
    close(&got, &grad(loss(None)).call(args));
}

#[test]
fn negative_in_axes_and_an_unmapped_output() {
    let a = normal(12, &[5, 8]);
    let b = normal(13, &[5]);
    let f = |(a, b): (Tensor, Tensor)| (&a * &b, b.sum(None));
    let whole: (Tensor, Tensor) = vmap(f)
        .in_axes((-1, None))
        .out_axes((-1, None))
        .call((a.clone(), b.clone()));
    for k in [1, 3, 8] {
        let got: (Tensor, Tensor) = vmap(f)
            .in_axes((-1, None))
            .out_axes((-1, None))
            .chunk_size(k)
            .call((a.clone(), b.clone()));
        assert_eq!(got.0.shape(), &[5, 8]);
        close(&got.0, &whole.0);
        close(&got.1, &whole.1);
    }
}
