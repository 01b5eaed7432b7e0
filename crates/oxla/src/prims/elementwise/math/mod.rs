//! The scalar functions of the special elementwise primitives, in `f64` (the lane kernels
//! call them for every float dtype and round the result): the error functions, the gamma
//! family (`lgamma`, `digamma`, `polygamma`, Hurwitz `zeta`), the regularized incomplete
//! gamma functions and the scaled Bessel functions `i0e`/`i1e`, with JAX's (XLA's) answers
//! at poles and outside the domain.

mod bessel;
mod gamma;
mod incomplete;

pub(crate) use bessel::{bessel_i0e, bessel_i1e};
pub(crate) use gamma::{digamma, lgamma, polygamma, zeta};
pub(crate) use incomplete::{igamma, igamma_grad_a, igammac, random_gamma_grad};

/// The error function.
pub(crate) fn erf(x: f64) -> f64 {
    libm::erf(x)
}

/// The complementary error function `1 - erf(x)`, accurate where `erf(x)` is near 1.
pub(crate) fn erfc(x: f64) -> f64 {
    libm::erfc(x)
}
