"""``oxla.random``: JAX's counter-based random numbers (threefry2x32), bit for bit.

Keys are raw ``uint32[2]`` arrays, as ``jax.random.PRNGKey`` makes them; ``key`` is the
same (oxla has no typed keys), ``wrap_key_data`` returns the raw data it is given and
``key_data`` gives it back.
"""

from . import _oxla
from ._oxla import bits
from ._oxla import lax_ops as _f

globals().update(_oxla.random_functions())

__all__ = ["PRNGKey", "key", "key_data", "wrap_key_data", "clone", "split", "fold_in",
           "normal", "uniform", "bernoulli", "randint", "bits", "exponential", "gumbel",
           "laplace", "logistic", "cauchy", "maxwell", "weibull_min", "pareto", "lognormal",
           "rayleigh", "wald", "triangular", "rademacher", "geometric", "categorical",
           "permutation", "choice", "gamma", "loggamma", "beta", "dirichlet", "chisquare", "t",
           "truncated_normal", "poisson", "binomial", "multinomial", "generalized_normal",
           "ball", "orthogonal", "multivariate_normal"]

categorical, permutation, choice, orthogonal = (
    _f.categorical, _f.permutation, _f.choice, _f.orthogonal)


def _no(what, value, allowed=(None,)):
    if value not in allowed:
        raise NotImplementedError(f"oxla's random does not support {what}={value!r} yet")


def key(seed, *, impl=None):
    """A key from an integer seed (raw data, as ``PRNGKey``)."""
    _no("impl", impl)
    return PRNGKey(seed)  # noqa: F821 (from the extension's table)


def key_data(keys):
    """The raw ``uint32`` data of a key: the key itself."""
    return _f.key_function("key_data", keys)


def wrap_key_data(key_bits_array, *, impl=None, dtype=None):
    """A key from its raw ``uint32[2]`` data: the data itself (the default threefry
    implementation)."""
    _no("impl", impl, (None, "threefry2x32"))
    _no("dtype", dtype)
    return _f.key_function("wrap_key_data", key_bits_array)


def clone(key):
    """The same key, for a second use."""
    return _f.key_function("clone", key)


def bernoulli(key, p=0.5, shape=None, mode="low"):
    """``True`` with probability ``p`` (a number or an array), of ``shape`` (``p``'s shape
    when ``None``)."""
    _no("mode", mode, ("low",))
    return _f.bernoulli(key, p, shape)


def exponential(key, shape=(), dtype=None):
    """Standard exponential values: ``-log1p(-u)``."""
    return _f.sample("exponential", key, [], shape, dtype)


def gumbel(key, shape=(), dtype=None, mode=None):
    """Standard Gumbel values: ``-log(-log(u))``."""
    _no("mode", mode, (None, "standard"))
    return _f.sample("gumbel", key, [], shape, dtype)


def laplace(key, shape=(), dtype=None):
    """Standard Laplace values."""
    return _f.sample("laplace", key, [], shape, dtype)


def logistic(key, shape=(), dtype=None):
    """Standard logistic values."""
    return _f.sample("logistic", key, [], shape, dtype)


def cauchy(key, shape=(), dtype=None):
    """Standard Cauchy values."""
    return _f.sample("cauchy", key, [], shape, dtype)


def maxwell(key, shape=(), dtype=None):
    """Maxwell values: the norm of three standard normals."""
    return _f.sample("maxwell", key, [], shape, dtype)


def rademacher(key, shape=(), dtype=None):
    """``-1`` or ``1`` with equal probability (``int32``)."""
    return _f.sample("rademacher", key, [], shape, dtype)


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull values with ``scale`` and ``concentration``."""
    return _f.sample("weibull_min", key, [scale, concentration], shape, dtype)


def pareto(key, b, shape=None, dtype=None):
    """Pareto values with shape parameter ``b``."""
    return _f.sample("pareto", key, [b], shape, dtype)


def lognormal(key, sigma=1.0, shape=None, dtype=None):
    """Log-normal values: ``exp(sigma * normal)``."""
    return _f.sample("lognormal", key, [sigma], shape, dtype)


def rayleigh(key, scale, shape=None, dtype=None):
    """Rayleigh values with ``scale``."""
    return _f.sample("rayleigh", key, [scale], shape, dtype)


def wald(key, mean, shape=None, dtype=None):
    """Wald (inverse Gaussian) values with ``mean``."""
    return _f.sample("wald", key, [mean], shape, dtype)


def triangular(key, left, mode, right, shape=None, dtype=None):
    """Triangular values on ``[left, right]`` peaking at ``mode``."""
    return _f.sample("triangular", key, [left, mode, right], shape, dtype)


def geometric(key, p, shape=None, dtype=None):
    """Geometric values (trials up to the first success, from 1; ``int32``)."""
    return _f.sample("geometric", key, [p], shape, dtype)


def gamma(key, a, shape=None, dtype=None):
    """Gamma values of concentration ``a``."""
    return _f.sample("gamma", key, [a], shape, dtype)


def loggamma(key, a, shape=None, dtype=None):
    """Logs of gamma values of concentration ``a``, accurate for small ``a``."""
    return _f.sample("loggamma", key, [a], shape, dtype)


def beta(key, a, b, shape=None, dtype=None):
    """Beta values with parameters ``a`` and ``b``."""
    return _f.sample("beta", key, [a, b], shape, dtype)


def chisquare(key, df, shape=None, dtype=None):
    """Chi-square values with ``df`` degrees of freedom."""
    return _f.sample("chisquare", key, [df], shape, dtype)


def t(key, df, shape=None, dtype=None):
    """Student's t values with ``df`` degrees of freedom."""
    return _f.sample("t", key, [df], shape, dtype)


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Standard normal values truncated to ``(lower, upper)``."""
    return _f.sample("truncated_normal", key, [lower, upper], shape, dtype)


def poisson(key, lam, shape=None, dtype=None):
    """Poisson values with rate ``lam`` (``int32``)."""
    return _f.sample("poisson", key, [lam], shape, dtype)


def binomial(key, n, p, shape=None, dtype=None):
    """Binomial values: successes in ``n`` trials of probability ``p``."""
    return _f.sample("binomial", key, [n, p], shape, dtype)


def dirichlet(key, alpha, shape=None, dtype=None):
    """Dirichlet values with concentrations ``alpha`` (its last axis the categories)."""
    return _f.dirichlet(key, alpha, shape, dtype)


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    """Counts of ``n`` trials over the categories of ``p``'s last axis (``unroll`` has no
    effect in oxla)."""
    return _f.multinomial(key, n, p, shape, dtype)


def generalized_normal(key, p, shape=(), dtype=None):
    """Generalized normal values (density proportional to ``exp(-|x|^p)``)."""
    return _f.generalized_normal(key, p, shape, dtype)


def ball(key, d, p=2, shape=(), dtype=None):
    """Points uniform in the unit ``p``-norm ball of dimension ``d``."""
    return _f.generalized_normal(key, p, shape, dtype, d)


def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky"):
    """Multivariate normal values with ``mean`` and covariance ``cov`` (``method``:
    ``"cholesky"``, ``"eigh"`` or ``"svd"``)."""
    return _f.multivariate_normal(key, mean, cov, shape, dtype, method)
