"""`jax.random`: samplers on the threefry stream, bit for bit. (the table `crates/oxla/tests/surface/random.rs`).

Every case takes raw key data, u32[2] (`key(rng)`), and wraps it with
`jax.random.wrap_key_data` (the default threefry implementation, partitionable as JAX 0.10
is by default); the batch is three keys, so `vmap` over keys is checked against JAX's vmap
and against a loop.
"""

import jax
import jax.numpy as jnp
import numpy as np

from registry import case, f32, key

R = jax.random
W = R.wrap_key_data


def k_only(rng):
    return [key(rng)]


def k_and(*more):
    return lambda rng: [key(rng)] + [m(rng) for m in more]


# Keys ------------------------------------------------------------------------------------


@case("key_data_wrap", k_only, prng=True)
def _(k):
    return R.key_data(R.clone(W(k)))


@case("prng_key_seed", lambda rng: [], vmap=False, prng=True, note="no input: a constant seed")
def _():
    return R.key_data(R.PRNGKey(1234)), R.key_data(R.PRNGKey(-7))


@case("split_fold_in", k_only, prng=True)
def _(k):
    return R.key_data(R.split(W(k), 3)), R.key_data(R.fold_in(W(k), 77))


@case("bits_u32", k_only, prng=True)
def _(k):
    return R.bits(W(k), (2, 5))


@case("randint_range", k_only, prng=True)
def _(k):
    return R.randint(W(k), (7,), -3, 20)


@case("uniform_range", k_only, prng=True)
def _(k):
    return R.uniform(W(k), (6,), minval=-2.0, maxval=3.0)


@case("normal_f32", k_only, prng=True)
def _(k):
    return R.normal(W(k), (2, 4))


@case("bernoulli_scalar", k_only, prng=True)
def _(k):
    return R.bernoulli(W(k), 0.3, (9,))


@case("bernoulli_array_p", k_and(lambda rng: f32(rng, (2, 4), 0.0, 1.0)), prng=True)
def _(k, p):
    return R.bernoulli(W(k), p)


# Continuous ------------------------------------------------------------------------------


@case("exponential", k_only, prng=True)
def _(k):
    return R.exponential(W(k), (8,))


@case("gumbel", k_only, prng=True)
def _(k):
    return R.gumbel(W(k), (2, 4))


@case("laplace", k_only, prng=True)
def _(k):
    return R.laplace(W(k), (8,))


@case("logistic", k_only, prng=True)
def _(k):
    return R.logistic(W(k), (8,))


@case("cauchy", k_only, prng=True)
def _(k):
    return R.cauchy(W(k), (8,))


@case("maxwell", k_only, prng=True)
def _(k):
    return R.maxwell(W(k), (2, 3))


@case("weibull_min", k_only, prng=True)
def _(k):
    return R.weibull_min(W(k), 2.0, 1.5, (8,))


@case("pareto", k_only, prng=True)
def _(k):
    return R.pareto(W(k), 3.0, (8,))


@case("lognormal", k_only, prng=True)
def _(k):
    return R.lognormal(W(k), 0.5, (8,))


@case("lognormal_sigma_grad", k_and(lambda rng: f32(rng, (4,), 0.2, 1.0)), prng=True)
def _(k, sigma):
    return R.lognormal(W(k), sigma, (4,))


@case("rayleigh", k_only, prng=True)
def _(k):
    return R.rayleigh(W(k), 2.0, (8,))


@case("wald", k_only, prng=True)
def _(k):
    return R.wald(W(k), 1.5, (8,))


@case("triangular", k_only, prng=True)
def _(k):
    return R.triangular(W(k), -1.0, 0.5, 2.0, (8,))


# Discrete --------------------------------------------------------------------------------


@case("rademacher", k_only, prng=True)
def _(k):
    return R.rademacher(W(k), (9,), dtype=jnp.int32)


@case("geometric", k_only, prng=True)
def _(k):
    return R.geometric(W(k), 0.3, (9,))


@case("categorical_last", k_and(lambda rng: f32(rng, (3, 5), -2.0, 2.0)), prng=True)
def _(k, logits):
    return R.categorical(W(k), logits)


@case("categorical_axis0_shape", k_and(lambda rng: f32(rng, (5, 3), -2.0, 2.0)), prng=True)
def _(k, logits):
    return R.categorical(W(k), logits, axis=0, shape=(4, 3))


@case("categorical_no_replace", k_and(lambda rng: f32(rng, (2, 6), -2.0, 2.0)), prng=True)
def _(k, logits):
    return R.categorical(W(k), logits, shape=(3, 2), replace=False)


@case("permutation_int", k_only, prng=True)
def _(k):
    return R.permutation(W(k), 10)


@case("permutation_rows", k_and(lambda rng: f32(rng, (5, 3))), prng=True)
def _(k, x):
    return R.permutation(W(k), x, axis=0)


@case("permutation_independent", k_and(lambda rng: f32(rng, (3, 6))), prng=True)
def _(k, x):
    return R.permutation(W(k), x, axis=1, independent=True)


@case("permutation_large", k_only, prng=True, note="3000 elements: two rounds of sorting")
def _(k):
    return R.permutation(W(k), 3000)


@case("choice_replace", k_and(lambda rng: f32(rng, (6,))), prng=True)
def _(k, a):
    return R.choice(W(k), a, (2, 3))


@case("choice_no_replace_axis1", k_and(lambda rng: f32(rng, (2, 7))), prng=True)
def _(k, a):
    return R.choice(W(k), a, (4,), replace=False, axis=1)


@case("choice_p", k_and(lambda rng: f32(rng, (5,), 0.05, 1.0)), prng=True)
def _(k, w):
    return R.choice(W(k), 5, (8,), p=w / jnp.sum(w))


@case("choice_p_no_replace", k_and(lambda rng: f32(rng, (6,), 0.05, 1.0)), prng=True)
def _(k, w):
    return R.choice(W(k), 6, (3,), replace=False, p=w / jnp.sum(w))


# The gamma family ------------------------------------------------------------------------


@case("gamma_large_a", k_only, prng=True)
def _(k):
    return R.gamma(W(k), 3.5, (6,))


@case("gamma_small_a", k_only, prng=True, note="a < 1: the boost U^(1/a)")
def _(k):
    return R.gamma(W(k), 0.4, (6,))


@case("gamma_array_a", k_only, prng=True)
def _(k):
    return R.gamma(W(k), jnp.array([0.3, 1.0, 2.5, 7.0], jnp.float32), (2, 4))


@case("loggamma", k_only, prng=True)
def _(k):
    return R.loggamma(W(k), jnp.array([0.05, 0.5, 3.0], jnp.float32), (3,))


@case("beta", k_only, prng=True)
def _(k):
    return R.beta(W(k), 0.7, 2.0, (5,))


@case("dirichlet", k_only, prng=True)
def _(k):
    return R.dirichlet(W(k), jnp.array([0.5, 1.0, 3.0], jnp.float32), (2,))


@case("chisquare", k_only, prng=True)
def _(k):
    return R.chisquare(W(k), 3.0, (5,))


@case("student_t", k_only, prng=True)
def _(k):
    return R.t(W(k), 4.0, (5,))


@case("truncated_normal", k_only, prng=True)
def _(k):
    return R.truncated_normal(W(k), -0.5, 1.5, (8,))


@case("truncated_normal_bounds", k_and(lambda rng: f32(rng, (2, 3), -2.0, -0.1), lambda rng: f32(rng, (2, 3), 0.1, 2.0)), prng=True)
def _(k, lo, hi):
    return R.truncated_normal(W(k), lo, hi, (2, 3))


# Counts ----------------------------------------------------------------------------------


@case("poisson_rates", k_only, prng=True, note="rates on both sides of 10: Knuth and PTRS; 0 gives 0")
def _(k):
    return R.poisson(W(k), jnp.array([0.0, 0.5, 3.0, 9.5, 12.0, 40.0], jnp.float32), (2, 6))


@case("poisson_scalar", k_only, prng=True)
def _(k):
    return R.poisson(W(k), 4.0, (7,))


@case("binomial_regimes", k_only, prng=True, note="n p <= 10 by inversion, above by BTRS; p > 1/2 mirrored")
def _(k):
    n = jnp.array([5.0, 20.0, 100.0, 300.0, 50.0], jnp.float32)
    p = jnp.array([0.3, 0.6, 0.4, 0.05, 0.9], jnp.float32)
    return R.binomial(W(k), n, p, (2, 5))


@case("binomial_edges", k_only, prng=True, note="NaN p, negative n, infinite n")
def _(k):
    n = jnp.array([10.0, -1.0, jnp.inf, 7.0], jnp.float32)
    p = jnp.array([jnp.nan, 0.5, 0.5, 0.5], jnp.float32)
    return R.binomial(W(k), n, p)


@case("multinomial", k_only, prng=True)
def _(k):
    return R.multinomial(W(k), jnp.array([10.0, 40.0], jnp.float32), jnp.array([0.2, 0.3, 0.5], jnp.float32), shape=(2, 3))


# Vectors and matrices --------------------------------------------------------------------


@case("generalized_normal", k_only, prng=True)
def _(k):
    return R.generalized_normal(W(k), 1.5, (6,))


@case("ball_l2", k_only, prng=True)
def _(k):
    return R.ball(W(k), 3, 2.0, (2,))


@case("ball_l1", k_only, prng=True)
def _(k):
    return R.ball(W(k), 4, 1.0)


@case("orthogonal", k_only, prng=True)
def _(k):
    return R.orthogonal(W(k), 3, (2,))


@case("orthogonal_wide", k_only, prng=True, note="n < m: orthonormal rows")
def _(k):
    return R.orthogonal(W(k), 2, (), m=4)


MVN_MEAN = np.array([0.5, -1.0, 2.0], np.float32)
MVN_COV = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]], np.float32)


@case("multivariate_normal_cholesky", k_only, prng=True)
def _(k):
    return R.multivariate_normal(W(k), MVN_MEAN, MVN_COV, (2,))


@case("multivariate_normal_eigh", k_only, prng=True)
def _(k):
    return R.multivariate_normal(W(k), MVN_MEAN, MVN_COV, (2,), method="eigh")


@case("multivariate_normal_svd", k_only, prng=True)
def _(k):
    return R.multivariate_normal(W(k), MVN_MEAN, MVN_COV, method="svd")
