"""`jax.scipy.special`. (the table `crates/oxla/tests/surface/scipy_special.rs`).

Rows named `_edges` pass their inputs through `stop_gradient`: they check values at NaN,
+-inf, 0 and the domain's ends only (oxla's custom derivatives drop the tangent where JAX's
rules give a non-finite one).
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.scipy import special as sp

from registry import case, f32, i32, ties_f32, with_edges


def sg(*xs):
    return [lax.stop_gradient(x) for x in xs]


def grid(rng, lo, hi, edges, shape=(3, 4)):
    return with_edges(f32(rng, shape, lo, hi), edges)


NAN, INF = np.nan, np.inf


@case("xlogy", lambda rng: [f32(rng, (3, 4), -2, 2), f32(rng, (3, 4), 0.1, 3)])
def _(x, y):
    return sp.xlogy(x, y)


@case("xlogy_zero_x", lambda rng: [with_edges(f32(rng, (3, 4), -2, 2), (0.0, 0.0, 0.0, -0.0)), f32(rng, (3, 4), 0.1, 3)])
def _(x, y):
    # At x == 0 JAX's rule gives 0 in y and log(y) in x.
    return sp.xlogy(x, y)


@case("xlogy_edges", lambda rng: [grid(rng, -2, 2, (0.0, 0.0, 0.0, 0.0, NAN, 1.0, 2.0, -1.0, INF)), grid(rng, 0.1, 3, (0.0, -1.0, NAN, INF, 0.0, 0.0, -1.0, NAN, 0.0))])
def _(x, y):
    return sp.xlogy(*sg(x, y))


@case("xlog1py", lambda rng: [f32(rng, (3, 4), -2, 2), f32(rng, (3, 4), -0.9, 3)])
def _(x, y):
    return sp.xlog1py(x, y)


@case("xlog1py_zero_x", lambda rng: [with_edges(f32(rng, (3, 4), -2, 2), (0.0, 0.0, 0.0, -0.0)), f32(rng, (3, 4), -0.9, 3)])
def _(x, y):
    return sp.xlog1py(x, y)


@case("xlog1py_edges", lambda rng: [grid(rng, -2, 2, (0.0, 0.0, 0.0, 0.0, NAN, 1.0, 2.0, -1.0, INF)), grid(rng, -0.9, 3, (-1.0, -2.0, NAN, INF, 0.0, -1.0, 1e-8, NAN, 0.0))])
def _(x, y):
    return sp.xlog1py(*sg(x, y))


@case("entr", lambda rng: [f32(rng, (3, 4), 0.01, 3)])
def _(x):
    return sp.entr(x)


@case("entr_edges", lambda rng: [grid(rng, 0.01, 3, (0.0, -0.0, -1.0, NAN, INF, 1e-30))])
def _(x):
    return sp.entr(*sg(x))


@case("rel_entr", lambda rng: [f32(rng, (3, 4), 0.1, 2), f32(rng, (3, 4), 0.1, 2)])
def _(p, q):
    return sp.rel_entr(p, q)


@case("rel_entr_edges", lambda rng: [grid(rng, 0.1, 2, (0.0, 0.0, 0.0, -1.0, 1.0, NAN, INF, 1.0)), grid(rng, 0.1, 2, (0.0, 1.0, -1.0, 1.0, 0.0, 1.0, 1.0, INF))])
def _(p, q):
    return sp.rel_entr(*sg(p, q))


@case("kl_div", lambda rng: [f32(rng, (3, 4), 0.1, 2), f32(rng, (3, 4), 0.1, 2)])
def _(p, q):
    return sp.kl_div(p, q)


@case("kl_div_edges", lambda rng: [grid(rng, 0.1, 2, (0.0, 0.0, 0.0, -1.0, 1.0, NAN, INF, 1.0)), grid(rng, 0.1, 2, (0.0, 1.0, -1.0, 1.0, 0.0, 1.0, 1.0, INF))])
def _(p, q):
    return sp.kl_div(*sg(p, q))


@case("expit", lambda rng: [f32(rng, (3, 4), -6, 6)])
def _(x):
    return sp.expit(x)


@case("expit_edges", lambda rng: [grid(rng, -6, 6, (NAN, INF, -INF, 0.0, 100.0, -100.0))])
def _(x):
    return sp.expit(*sg(x))


@case("logit", lambda rng: [f32(rng, (3, 4), 0.05, 0.95)])
def _(x):
    return sp.logit(x)


@case("logit_edges", lambda rng: [grid(rng, 0.05, 0.95, (0.0, 1.0, NAN, -0.5, 1.5, INF, 1e-30))])
def _(x):
    return sp.logit(*sg(x))


@case("spence", lambda rng: [f32(rng, (4, 5), 0.01, 5)])
def _(x):
    return sp.spence(x)


@case("spence_edges", lambda rng: [grid(rng, 0.01, 5, (0.0, 1.0, -1.0, NAN, INF, 0.5, 1.5, 2.0, 1e-20, 1e20))])
def _(x):
    return sp.spence(*sg(x))


@case("ndtri", lambda rng: [f32(rng, (3, 4), 0.02, 0.98)])
def _(p):
    return sp.ndtri(p)


@case("ndtri_tails", lambda rng: [np.concatenate([10.0 ** -f32(rng, (6,), 2, 30), 1 - 10.0 ** -f32(rng, (6,), 2, 6)]).astype(np.float32)])
def _(p):
    return sp.ndtri(p)


@case("ndtri_edges", lambda rng: [grid(rng, 0.02, 0.98, (0.0, 1.0, NAN, -0.1, 1.1, 0.5, 1e-37, np.exp(-2.0), 1 - np.exp(-2.0)))])
def _(p):
    return sp.ndtri(*sg(p))


@case("logsumexp_b_sign", lambda rng: [f32(rng, (3, 4), -3, 3), f32(rng, (3, 4), -1, 1)])
def _(a, b):
    return sp.logsumexp(a, axis=0, b=b, return_sign=True)


@case("softmax", lambda rng: [f32(rng, (3, 4), -3, 3)])
def _(x):
    return sp.softmax(x, axis=0)


@case("log_softmax", lambda rng: [f32(rng, (3, 4), -3, 3)])
def _(x):
    return sp.log_softmax(x, axis=1)


# The error and gamma families (over the primitives erf, erfc, erf_inv, lgamma, digamma,
# polygamma, zeta).
def unary(name, fn, lo, hi, edges):
    case(name, lambda rng: [f32(rng, (3, 4), lo, hi)])(fn)
    case(name + "_edges", lambda rng: [grid(rng, lo, hi, edges)])(lambda x: fn(*sg(x)))


unary("erf", sp.erf, -3, 3, (NAN, INF, -INF, 0.0, -0.0, 10.0, -10.0))
unary("erfc", sp.erfc, -3, 3, (NAN, INF, -INF, 0.0, -0.0, 10.0, -10.0, 30.0))
unary("erfinv", sp.erfinv, -0.95, 0.95, (NAN, 1.0, -1.0, 0.0, 1.5, -1.5, 0.999999))
unary("gammaln", sp.gammaln, 0.1, 6, (NAN, INF, -INF, 0.0, -1.0, -2.5, 1.0, 2.0, 1e30))
unary("digamma", sp.digamma, 0.1, 6, (NAN, INF, 0.0, -1.0, -2.5, 1.0, 1e30, 1e-30))
unary("gammasgn", sp.gammasgn, -4, 4, (NAN, INF, -INF, 0.0, -0.0, -1.0, -2.5, -3.5, 2.0))
unary("gamma", sp.gamma, 0.1, 5, (NAN, INF, 0.0, -0.0, -1.0, -2.5, -3.5, 40.0))
unary("gamma_negative", sp.gamma, -3.9, -0.1, (-1.0, -2.0, -0.5, -1.5))
unary("factorial", sp.factorial, 0, 6, (NAN, INF, -1.0, 0.0, 3.0, 170.0, -0.5))
unary("ndtr", sp.ndtr, -4, 4, (NAN, INF, -INF, 0.0, 0.7, -0.7, 10.0, -10.0, -40.0))
unary("log_ndtr", sp.log_ndtr, -4, 4, (NAN, INF, -INF, 0.0, 5.0, 5.5, -10.0, -10.5, -40.0))


@case("log_ndtr_tails", lambda rng: [np.concatenate([f32(rng, (6,), -30, -10), f32(rng, (6,), 5, 9)])])
def _(x):
    return sp.log_ndtr(x)


@case("log_ndtr_order5", lambda rng: [f32(rng, (3, 4), -30, 2)])
def _(x):
    return sp.log_ndtr(x, series_order=5)


@case("polygamma", lambda rng: [i32(rng, (3, 4), 0, 4), f32(rng, (3, 4), 0.2, 5)])
def _(n, x):
    return sp.polygamma(n, x)


@case("polygamma_edges", lambda rng: [i32(rng, (3, 4), 0, 4), grid(rng, 0.2, 5, (NAN, INF, 0.0, -1.0, -1.5, 1e-30, 1e30))])
def _(n, x):
    return sp.polygamma(n, *sg(x))


@case("zeta", lambda rng: [i32(rng, (3, 4), 2, 6), f32(rng, (3, 4), 0.2, 4)])
def _(x, q):
    # x as integers (no derivative in x: JAX's goes through a series oxla lacks).
    return sp.zeta(x.astype(jnp.float32), q)


@case("zeta_edges", lambda rng: [i32(rng, (3, 4), 1, 6), grid(rng, 0.2, 4, (1.0, 0.0, -1.0, INF, NAN, 1e-30))])
def _(x, q):
    return sp.zeta(x.astype(jnp.float32), *sg(q))


@case("betaln", lambda rng: [f32(rng, (3, 4), 0.2, 5), f32(rng, (3, 4), 0.2, 5)])
def _(a, b):
    return sp.betaln(a, b)


@case("betaln_large", lambda rng: [f32(rng, (3, 4), 0.2, 20), f32(rng, (3, 4), 8, 1e4)])
def _(a, b):
    return sp.betaln(a, b)


@case("beta", lambda rng: [f32(rng, (3, 4), 0.2, 4), f32(rng, (3, 4), 0.2, 4)])
def _(a, b):
    return sp.beta(a, b)


@case("beta_negative", lambda rng: [f32(rng, (3, 4), -2.5, 4), f32(rng, (3, 4), -2.5, 4)])
def _(a, b):
    # Values only: JAX's derivative is NaN here (a NaN branch of betaln poisons it).
    return sp.beta(*sg(a, b))


@case("poch", lambda rng: [f32(rng, (3, 4), 0.5, 4), f32(rng, (3, 4), -0.4, 3)])
def _(z, m):
    return sp.poch(z, m)


@case("multigammaln", lambda rng: [f32(rng, (3, 4), 2, 6)])
def _(a):
    return sp.multigammaln(a, 3)


@case("bessel_i", lambda rng: [with_edges(f32(rng, (2, 5), -6, 6), (0.0, -0.0, 30.0, -30.0))])
def _(x):
    return sp.i0e(x), sp.i1e(x), sp.i0(x), sp.i1(x)


@case("gammainc", lambda rng: [f32(rng, (2, 4), 0.2, 5), f32(rng, (2, 4), 0.1, 6)])
def _(a, x):
    return sp.gammainc(a, x), sp.gammaincc(a, x)
