//! `jax.scipy.special`. One row a golden case of `scripts/surface/tables/scipy_special.py`.
//!
//! The `_edges` rows pass their inputs through `stop_gradient` (on both sides) and check
//! values only at NaN, ±inf, 0 and the ends of each domain: oxla's custom derivatives drop
//! the tangent where JAX's rules give a non-finite one. They are `nofd` (differences at NaN
//! and inf are NaN). `spence` is `nofd` because JAX's own derivative is NaN on `[0.5, 2]`
//! (its piecewise branches poison the cotangent) and oxla's matches it; `ndtri_tails`
//! because its probabilities lie within the difference step of 0.

use oxla::lax::stop_gradient as sg;
use oxla::scipy::special as sp;

surface! {
    xlogy: |a| vec![sp::xlogy(&a[0], &a[1])];
    xlogy_zero_x: |a| vec![sp::xlogy(&a[0], &a[1])];
    xlogy_edges [nofd]: |a| vec![sp::xlogy(sg(&a[0]), sg(&a[1]))];
    xlog1py: |a| vec![sp::xlog1py(&a[0], &a[1])];
    xlog1py_zero_x: |a| vec![sp::xlog1py(&a[0], &a[1])];
    xlog1py_edges [nofd]: |a| vec![sp::xlog1py(sg(&a[0]), sg(&a[1]))];
    entr: |a| vec![sp::entr(&a[0])];
    entr_edges [nofd]: |a| vec![sp::entr(sg(&a[0]))];
    rel_entr: |a| vec![sp::rel_entr(&a[0], &a[1])];
    rel_entr_edges [nofd]: |a| vec![sp::rel_entr(sg(&a[0]), sg(&a[1]))];
    kl_div: |a| vec![sp::kl_div(&a[0], &a[1])];
    kl_div_edges [nofd]: |a| vec![sp::kl_div(sg(&a[0]), sg(&a[1]))];
    expit: |a| vec![sp::expit(&a[0])];
    expit_edges [nofd]: |a| vec![sp::expit(sg(&a[0]))];
    logit: |a| vec![sp::logit(&a[0])];
    logit_edges [nofd]: |a| vec![sp::logit(sg(&a[0]))];
    spence [nofd]: |a| vec![sp::spence(&a[0])];
    spence_edges [nofd]: |a| vec![sp::spence(sg(&a[0]))];
    ndtri: |a| vec![sp::ndtri(&a[0])];
    ndtri_tails [nofd]: |a| vec![sp::ndtri(&a[0])];
    ndtri_edges [nofd]: |a| vec![sp::ndtri(sg(&a[0]))];
    logsumexp_b_sign: |a| {
        let (out, sign) = sp::LogSumExp::new(&a[0], 0).b(&a[1]).with_sign();
        vec![out, sign]
    };
    softmax: |a| vec![sp::softmax(&a[0], 0)];
    log_softmax: |a| vec![sp::log_softmax(&a[0], 1)];
}
