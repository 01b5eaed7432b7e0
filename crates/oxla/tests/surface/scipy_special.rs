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
    erf: |a| vec![sp::erf(&a[0])];
    erf_edges [nofd]: |a| vec![sp::erf(sg(&a[0]))];
    erfc: |a| vec![sp::erfc(&a[0])];
    erfc_edges [nofd]: |a| vec![sp::erfc(sg(&a[0]))];
    erfinv: |a| vec![sp::erfinv(&a[0])];
    erfinv_edges [nofd]: |a| vec![sp::erfinv(sg(&a[0]))];
    gammaln: |a| vec![sp::gammaln(&a[0])];
    gammaln_edges [nofd]: |a| vec![sp::gammaln(sg(&a[0]))];
    digamma: |a| vec![sp::digamma(&a[0])];
    digamma_edges [nofd]: |a| vec![sp::digamma(sg(&a[0]))];
    gammasgn: |a| vec![sp::gammasgn(&a[0])];
    gammasgn_edges [nofd]: |a| vec![sp::gammasgn(sg(&a[0]))];
    gamma: |a| vec![sp::gamma(&a[0])];
    gamma_edges [nofd]: |a| vec![sp::gamma(sg(&a[0]))];
    gamma_negative: |a| vec![sp::gamma(&a[0])];
    gamma_negative_edges [nofd]: |a| vec![sp::gamma(sg(&a[0]))];
    factorial: |a| vec![sp::factorial(&a[0])];
    factorial_edges [nofd]: |a| vec![sp::factorial(sg(&a[0]))];
    ndtr: |a| vec![sp::ndtr(&a[0])];
    ndtr_edges [nofd]: |a| vec![sp::ndtr(sg(&a[0]))];
    log_ndtr: |a| vec![sp::log_ndtr(&a[0], 3)];
    log_ndtr_edges [nofd]: |a| vec![sp::log_ndtr(sg(&a[0]), 3)];
    log_ndtr_tails: |a| vec![sp::log_ndtr(&a[0], 3)];
    log_ndtr_order5: |a| vec![sp::log_ndtr(&a[0], 5)];
    polygamma: |a| vec![sp::polygamma(&a[0], &a[1])];
    polygamma_edges [nofd]: |a| vec![sp::polygamma(&a[0], sg(&a[1]))];
    zeta: |a| vec![sp::zeta(&a[0], &a[1])];
    zeta_edges [nofd]: |a| vec![sp::zeta(&a[0], sg(&a[1]))];
    betaln: |a| vec![sp::betaln(&a[0], &a[1])];
    betaln_large: |a| vec![sp::betaln(&a[0], &a[1])];
    beta: |a| vec![sp::beta(&a[0], &a[1])];
    beta_negative [nofd]: |a| vec![sp::beta(sg(&a[0]), sg(&a[1]))];
    poch: |a| vec![sp::poch(&a[0], &a[1])];
    multigammaln: |a| vec![sp::multigammaln(&a[0], 3)];
    bessel_i: |a| vec![sp::i0e(&a[0]), sp::i1e(&a[0]), sp::i0(&a[0]), sp::i1(&a[0])];
    gammainc: |a| vec![sp::gammainc(&a[0], &a[1]), sp::gammaincc(&a[0], &a[1])];
}
