//! `jax.random`: samplers on the threefry stream, bit for bit. One row a golden case of
//! `scripts/surface/tables/random.py`.
//!
//! Every case takes raw key data (`u32[2]`, `jax.random.wrap_key_data` on JAX's side), and
//! its batch is three keys, so `vmap` over keys is checked against a loop and JAX's vmap.
//!
//! Rows marked `bits` match JAX bit for bit: keys, bits, uniform, normal, randint, the
//! shuffles and every sampler whose float math is exact or matches XLA:CPU's (`exp`,
//! `erf_inv`, `pow`, `sqrt`, division). The rows with a `tol` are one ulp away in places, for
//! a known reason:
//! - `exponential`, `gumbel`, `laplace`, `logistic`, `pareto`, `rayleigh`: oxla's f32 `log`
//!   and `log1p` kernels are within 2 ulp of the exact value but are not XLA:CPU's
//!   polynomials (`prims::special` has those, bit for bit, for `erf_inv`); `gumbel`'s outer
//!   `log` of a value near 1 turns that ulp into a relative 3e-4 near zero, hence the `atol`;
//! - `gamma_array_a`, `loggamma`, `dirichlet`: the same `log` (and `pow`, for `a < 1`) in
//!   the last step; the rejection loops themselves take the same keys and accept the same
//!   draws (`gamma`, `beta`, `chisquare` and `t` are bit for bit);
//! - `truncated_normal_bounds`: oxla's `erf` is computed in f64 and rounded, XLA:CPU's f32
//!   `erf` is a polynomial one ulp away at times (with scalar bounds, `truncated_normal`
//!   is bit for bit);
//! - `cauchy`: JAX's `tan` is its own XLA op; oxla has no `tan` primitive and divides `sin`
//!   by `cos`;
//! - `generalized_normal`, `ball_l1`, `ball_l2`: the same `log` and `pow` in the last step
//!   (their gamma draws are bit for bit);
//! - `wald`, `maxwell`: XLA:CPU fuses some of the multiplies into the adds (FMA), and not the
//!   same ones eagerly and under `vmap`, so no one order of rounding matches both.
//!
//! `multivariate_normal_eigh` and `_svd` are `signs`: their factor is `u * sqrt(s)` of the
//! covariance's eigen/singular vectors, whose signs LAPACK (JAX) and faer (oxla) choose
//! differently, so a draw's noise term can come out negated; their shapes and dtypes are
//! checked against JAX's, the `cholesky` row checks the values.
//!
//! `lognormal_sigma_grad` and `truncated_normal_bounds` are `nofd`: a sampler draws `f32`
//! whatever its parameter's dtype, so finite differences in f64 would difference f32 noise;
//! their cotangents still match JAX's.

use oxla::numpy as jnp;
use oxla::random;

surface! {
    key_data_wrap [bits]: |a| vec![random::key_data(&random::clone(&random::wrap_key_data(&a[0])))];
    prng_key_seed [bits, novmap]: |a| vec![random::prng_key(1234), random::prng_key(-7)];
    split_fold_in [bits]: |a| vec![random::split(&a[0], 3), random::fold_in(&a[0], 77)];
    bits_u32 [bits]: |a| vec![random::bits(&a[0], &[2, 5])];
    randint_range [bits]: |a| vec![random::randint(&a[0], &[7], -3, 20)];
    uniform_range [bits]: |a| vec![random::uniform_range(&a[0], &[6], -2.0, 3.0, oxla::DType::F32)];
    normal_f32 [bits]: |a| vec![random::normal(&a[0], &[2, 4])];
    bernoulli_scalar [bits]: |a| vec![random::bernoulli(&a[0], 0.3, &[9])];
    bernoulli_array_p [bits]: |a| vec![random::bernoulli_p(&a[0], &a[1], None)];
    exponential [tol(1e-5, 1e-6)]: |a| vec![random::exponential(&a[0], &[8])];
    gumbel [tol(1e-5, 1e-6)]: |a| vec![random::gumbel(&a[0], &[2, 4])];
    laplace [tol(1e-5, 1e-6)]: |a| vec![random::laplace(&a[0], &[8])];
    logistic [tol(1e-5, 1e-6)]: |a| vec![random::logistic(&a[0], &[8])];
    cauchy [tol(1e-5, 1e-6)]: |a| vec![random::cauchy(&a[0], &[8])];
    maxwell [tol(1e-5, 1e-6)]: |a| vec![random::maxwell(&a[0], &[2, 3])];
    weibull_min [bits]: |a| vec![random::weibull_min(&a[0], 2.0, 1.5, &[8])];
    pareto [tol(1e-5, 1e-6)]: |a| vec![random::pareto(&a[0], 3.0, &[8])];
    lognormal [bits]: |a| vec![random::lognormal(&a[0], 0.5, &[8])];
    lognormal_sigma_grad [bits, nofd]: |a| vec![random::lognormal(&a[0], &a[1], &[4])];
    rayleigh [tol(1e-5, 1e-6)]: |a| vec![random::rayleigh(&a[0], 2.0, &[8])];
    wald [tol(1e-5, 1e-6)]: |a| vec![random::wald(&a[0], 1.5, &[8])];
    triangular [bits]: |a| vec![random::triangular(&a[0], -1.0, 0.5, 2.0, &[8])];
    rademacher [bits]: |a| vec![random::rademacher(&a[0], &[9])];
    geometric [bits]: |a| vec![random::geometric(&a[0], 0.3, &[9])];
    categorical_last [bits]: |a| vec![random::categorical(&a[0], &a[1], -1, None, true)];
    categorical_axis0_shape [bits]: |a| vec![random::categorical(&a[0], &a[1], 0, Some(&[4, 3]), true)];
    categorical_no_replace [bits]: |a| vec![random::categorical(&a[0], &a[1], -1, Some(&[3, 2]), false)];
    permutation_int [bits]: |a| vec![random::permutation_n(&a[0], 10)];
    permutation_rows [bits]: |a| vec![random::permutation(&a[0], &a[1], 0, false)];
    permutation_independent [bits]: |a| vec![random::permutation(&a[0], &a[1], 1, true)];
    permutation_large [bits]: |a| vec![random::permutation_n(&a[0], 3000)];
    choice_replace [bits]: |a| vec![random::choice(&a[0], &a[1], &[2, 3], true, None, 0)];
    choice_no_replace_axis1 [bits]: |a| vec![random::choice(&a[0], &a[1], &[4], false, None, 1)];
    choice_p [bits]: |a| vec![random::choice_n(&a[0], 5, &[8], true, Some(&(&a[1] / jnp::sum(&a[1], None))))];
    choice_p_no_replace [bits]: |a| vec![random::choice_n(&a[0], 6, &[3], false, Some(&(&a[1] / jnp::sum(&a[1], None))))];
    gamma_large_a [bits]: |a| vec![random::gamma(&a[0], 3.5, &[6])];
    gamma_small_a [bits]: |a| vec![random::gamma(&a[0], 0.4, &[6])];
    gamma_array_a [tol(1e-5, 1e-6)]: |a| vec![random::gamma(&a[0], jnp::array(&[0.3f32, 1.0, 2.5, 7.0], &[4]), &[2, 4])];
    loggamma [tol(1e-5, 1e-6)]: |a| vec![random::loggamma(&a[0], jnp::array(&[0.05f32, 0.5, 3.0], &[3]), &[3])];
    beta [bits]: |a| vec![random::beta(&a[0], 0.7, 2.0, &[5])];
    dirichlet [tol(1e-5, 1e-6)]: |a| vec![random::dirichlet(&a[0], &jnp::array(&[0.5f32, 1.0, 3.0], &[3]), &[2])];
    chisquare [bits]: |a| vec![random::chisquare(&a[0], 3.0, &[5])];
    student_t [bits]: |a| vec![random::t(&a[0], 4.0, &[5])];
    truncated_normal [bits]: |a| vec![random::truncated_normal(&a[0], -0.5, 1.5, &[8])];
    truncated_normal_bounds [tol(1e-5, 1e-6), nofd]: |a| vec![random::truncated_normal(&a[0], &a[1], &a[2], &[2, 3])];
    poisson_rates [bits]: |a| vec![random::poisson(&a[0], jnp::array(&[0.0f32, 0.5, 3.0, 9.5, 12.0, 40.0], &[6]), Some(&[2, 6]))];
    poisson_scalar [bits]: |a| vec![random::poisson(&a[0], 4.0, Some(&[7]))];
    binomial_regimes [bits]: |a| vec![random::binomial(&a[0], jnp::array(&[5.0f32, 20.0, 100.0, 300.0, 50.0], &[5]), jnp::array(&[0.3f32, 0.6, 0.4, 0.05, 0.9], &[5]), Some(&[2, 5]))];
    binomial_edges [bits]: |a| vec![random::binomial(&a[0], jnp::array(&[10.0f32, -1.0, f32::INFINITY, 7.0], &[4]), jnp::array(&[f32::NAN, 0.5, 0.5, 0.5], &[4]), None)];
    multinomial [bits]: |a| vec![random::multinomial(&a[0], jnp::array(&[10.0f32, 40.0], &[2]), &jnp::array(&[0.2f32, 0.3, 0.5], &[3]), Some(&[2, 3]))];
    generalized_normal [tol(1e-5, 1e-6)]: |a| vec![random::generalized_normal(&a[0], 1.5, &[6])];
    ball_l2 [tol(1e-5, 1e-6)]: |a| vec![random::ball(&a[0], 3, 2.0, &[2])];
    ball_l1 [tol(1e-5, 1e-6)]: |a| vec![random::ball(&a[0], 4, 1.0, &[])];
    orthogonal [tol(1e-5, 1e-6)]: |a| vec![random::orthogonal(&a[0], 3, &[2], oxla::DType::F32, None)];
    orthogonal_wide [tol(1e-5, 1e-6)]: |a| vec![random::orthogonal(&a[0], 2, &[], oxla::DType::F32, Some(4))];
    multivariate_normal_cholesky [tol(1e-5, 1e-6)]: |a| vec![random::multivariate_normal(&a[0], &mvn_mean(), &mvn_cov(), Some(&[2]), "cholesky")];
    multivariate_normal_eigh [signs]: |a| vec![random::multivariate_normal(&a[0], &mvn_mean(), &mvn_cov(), Some(&[2]), "eigh")];
    multivariate_normal_svd [signs]: |a| vec![random::multivariate_normal(&a[0], &mvn_mean(), &mvn_cov(), None, "svd")];
}

fn mvn_mean() -> oxla::Tensor {
    jnp::array(&[0.5f32, -1.0, 2.0], &[3])
}

fn mvn_cov() -> oxla::Tensor {
    jnp::array(&[2.0f32, 0.3, 0.1, 0.3, 1.0, -0.2, 0.1, -0.2, 0.5], &[3, 3])
}
