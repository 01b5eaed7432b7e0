//! `jax.lax` and `jax.numpy`: elementwise functions (trigonometric, hyperbolic, rounding,
//! bits, special functions) and small lax helpers. One row a golden case of
//! `scripts/surface/tables/lax_elementwise.py`.
//!
//! `nofd` rows: `digamma_edges` (negative inputs), whose derivative is JAX's `polygamma(1,
//! x)`, which XLA computes from the Hurwitz zeta function with a negative `q`, not the true
//! trigamma; oxla computes it as XLA does, so JAX's cotangents match and finite differences
//! do not.

use oxla::lax;

surface! {
    erf_edges: |a| vec![lax::erf(&a[0])];
    erfc_edges: |a| vec![lax::erfc(&a[0])];
    erf_f64: |a| vec![lax::erf(&a[0]), lax::erfc(&a[0])];
    lgamma_edges: |a| vec![lax::lgamma(&a[0])];
    lgamma_f64: |a| vec![lax::lgamma(&a[0])];
    digamma: |a| vec![lax::digamma(&a[0])];
    digamma_edges [nofd]: |a| vec![lax::digamma(&a[0])];
    digamma_f64: |a| vec![lax::digamma(&a[0])];
    polygamma_orders: |a| vec![lax::polygamma(&m_rows(&a[0]), &a[0])];
    polygamma_edges [nograd]: |a| vec![lax::polygamma(&a[0], &a[1])];
    polygamma_f64: |a| vec![lax::polygamma(&oxla::numpy::full_like(&a[0], 2.0), &a[0])];
    zeta [nograd]: |a| vec![lax::zeta(&a[0], &a[1])];
    zeta_f64 [nograd]: |a| vec![lax::zeta(&a[0], &a[1])];
}

/// The orders 0, 1, 2, 3 down the rows of `x`'s shape.
fn m_rows(x: &oxla::Tensor) -> oxla::Tensor {
    let m = lax::iota(x.dtype(), x.shape(), 0);
    lax::stop_gradient(&m)
}
