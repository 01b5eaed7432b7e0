//! The measured peak memory of `grad` of a chunked `vmap` against its plan: the backward
//! pass recomputes each chunk's forward pass, so it holds one chunk's residuals, not all.
//! One test in its own process, so that the peak RSS is this test's.

mod rss;

use oxla::{grad, numpy as jnp, random, vmap, Tensor};
use rss::{peak_rss, rss};

#[test]
fn grad_of_chunked_vmap_stays_near_its_plan() {
    // Each example's 128 x 128 table is a matrix product's operand, kept for the backward
    // pass: 256 MiB for 4096 examples unchunked, 4 MiB for a chunk of 64.
    let w = random::normal(&random::key(1), &[128, 8]);
    let xs = random::normal(&random::key(2), &[4096, 128]);
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
    let step = |k: Option<usize>| move |a: (Tensor, Tensor)| -> Tensor { grad(loss(k)).call(a) };
    let args = (w, xs);
    let chunked = oxla::explain(step(Some(64)), &args);
    let unchunked = oxla::explain(step(None), &args);
    assert!(
        unchunked.peak_bytes > 20 * chunked.peak_bytes,
        "planned: {} unchunked, {} chunked",
        unchunked.peak_bytes,
        chunked.peak_bytes
    );
    let before = rss();
    let g = oxla::jit(step(Some(64))).call(args).unwrap();
    let peak = peak_rss();
    assert!(g.to_vec::<f32>().iter().all(|v| v.is_finite()));
    let grew = peak.saturating_sub(before);
    println!(
        "grad of chunked vmap: planned peak {} B (unchunked {} B), measured growth {grew} B",
        chunked.peak_bytes, unchunked.peak_bytes
    );
    assert!(
        grew <= chunked.peak_bytes * 3 / 2 + (64 << 20),
        "measured {grew} B over a plan of {} B",
        chunked.peak_bytes
    );
}
