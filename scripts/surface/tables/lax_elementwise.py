"""`jax.lax` and `jax.numpy`: elementwise functions (trigonometric, hyperbolic, rounding, bits, special functions) and small lax helpers. (the table `crates/oxla/tests/surface/lax_elementwise.rs`)."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from registry import case, f32, i32, ties_f32, u32, with_edges
from registry import f64

EDGES = (np.nan, np.inf, -np.inf, 0.0, -0.0)


def edged(lo, hi, shape=(2, 5), extra=()):
    """float32 inputs in [lo, hi) whose first elements are NaN, ±inf, 0, -0 and `extra`."""
    return lambda rng: [with_edges(f32(rng, shape, lo, hi), EDGES + tuple(extra))]


# --- error and gamma functions ---------------------------------------------------------


@case("erf_edges", edged(-3, 3))
def _(x):
    return lax.erf(x)


@case("erfc_edges", edged(-3, 6, extra=(-6.0, 10.0)))
def _(x):
    return lax.erfc(x)


@case("erf_f64", lambda rng: [f64(rng, (2, 4), -3, 3)], x64=True)
def _(x):
    return lax.erf(x), lax.erfc(x)


@case("lgamma_edges", edged(-4, 6, extra=(-1.0, 1.0, 2.0, -2.5, 1e-3)))
def _(x):
    return lax.lgamma(x)


@case("lgamma_f64", lambda rng: [f64(rng, (2, 4), -4, 30)], x64=True)
def _(x):
    return lax.lgamma(x)


@case("digamma", lambda rng: [f32(rng, (2, 5), 0.1, 8)])
def _(x):
    return lax.digamma(x)


@case(
    "digamma_edges",
    edged(-4, 6, extra=(-1.0, 1.0, -2.5, 1e-3, 1e8)),
    note="JAX's trigamma (its derivative) is not the true one for negative x: no finite differences",
)
def _(x):
    return lax.digamma(x)


@case("digamma_f64", lambda rng: [f64(rng, (2, 4), 0.05, 20)], x64=True)
def _(x):
    return lax.digamma(x)


@case("polygamma_orders", lambda rng: [f32(rng, (4, 3), 0.2, 6)])
def _(x):
    m = jnp.array([[0.0], [1.0], [2.0], [3.0]], jnp.float32)
    return lax.polygamma(jnp.broadcast_to(m, x.shape), x)


@case(
    "polygamma_edges",
    lambda rng: [
        np.array([0.0, 1.0, 2.5, -1.0, np.nan, 1.0, 1.0, 1.0, 2.0, 4.0], np.float32),
        with_edges(f32(rng, (10,), 0.5, 4), (2.0, 2.0, 2.0, 2.0, 2.0, np.inf, 0.0, -3.0, 1e-3)),
    ],
    grad=False,
    note="non-natural orders give NaN; x at the poles and infinities",
)
def _(m, x):
    return lax.polygamma(m, x)


@case("polygamma_f64", lambda rng: [f64(rng, (3, 4), 0.3, 9)], x64=True)
def _(x):
    return lax.polygamma(jnp.full_like(x, 2.0), x)


@case(
    "zeta",
    lambda rng: [
        np.array([2.0, 3.0, 1.5, 4.0, 1.0, 0.5, 2.0, 3.0, 2.0, 6.0], np.float32),
        np.array([1.0, 2.5, 0.7, 10.0, 2.0, 2.0, -2.0, -2.0, 0.0, 1e-2], np.float32),
    ],
    grad=False,
    note="JAX defines no derivative of zeta; poles and x < 1 included",
)
def _(x, q):
    return lax.zeta(x, q)


@case("zeta_f64", lambda rng: [f64(rng, (2, 4), 1.2, 6), f64(rng, (2, 4), 0.2, 5)], x64=True, grad=False)
def _(x, q):
    return lax.zeta(x, q)


# --- trigonometric and hyperbolic ------------------------------------------------------


@case("tan_edges", edged(-1.5, 1.5))
def _(x):
    return lax.tan(x)


@case("asin_acos_edges", edged(-1.0, 1.0, extra=(1.0, -1.0, 1.5, -2.0)))
def _(x):
    return lax.asin(x), lax.acos(x)


@case("atan_sinh_cosh_edges", edged(-3, 3, extra=(50.0, -50.0)))
def _(x):
    return lax.atan(x), lax.sinh(x), lax.cosh(x)


@case("asinh_edges", edged(-5, 5, extra=(1e5, -1e-3)))
def _(x):
    return lax.asinh(x)


@case("acosh_edges", edged(1.05, 6, extra=(1.0, 0.5, -1.0, 1e5)))
def _(x):
    return lax.acosh(x)


@case("atanh_edges", edged(-0.95, 0.95, extra=(1.0, -1.0, 1.5, 1e-4)))
def _(x):
    return lax.atanh(x)


@case(
    "atan2_edges",
    lambda rng: [
        with_edges(f32(rng, (3, 4), -2, 2), (0.0, -0.0, 0.0, -0.0, np.inf, -np.inf, np.inf, np.nan, 1.0, -1.0)),
        with_edges(f32(rng, (3, 4), -2, 2), (0.0, 0.0, -0.0, -0.0, np.inf, np.inf, 1.0, 1.0, -np.inf, 0.0)),
    ],
)
def _(x, y):
    return lax.atan2(x, y)


@case("trig_f64", lambda rng: [f64(rng, (2, 4), -0.9, 0.9), f64(rng, (2, 4), 1.1, 3)], x64=True)
def _(x, y):
    return (lax.tan(x), lax.asin(x), lax.acos(x), lax.atan(x), lax.sinh(y), lax.cosh(y),
            lax.asinh(y), lax.acosh(y), lax.atanh(x), lax.atan2(x, y))


@case("numpy_trig", lambda rng: [f32(rng, (2, 3), -0.9, 0.9), f32(rng, (2, 3), 1.1, 3)])
def _(x, y):
    return (jnp.tan(x), jnp.arcsin(x), jnp.asin(x), jnp.arccos(x), jnp.acos(x), jnp.arctan(x),
            jnp.atan(x), jnp.sinh(x), jnp.cosh(x), jnp.arcsinh(x), jnp.asinh(x), jnp.arccosh(y),
            jnp.acosh(y), jnp.arctanh(x), jnp.atanh(x), jnp.arctan2(x, y), jnp.atan2(y, x))


@case("numpy_trig_int", lambda rng: [i32(rng, (2, 3), -3, 4)], grad=False)
def _(x):
    return jnp.tan(x), jnp.arctan2(x, 2), jnp.sinh(x), jnp.deg2rad(x)


@case("angles", lambda rng: [f32(rng, (2, 3), -400, 400)])
def _(x):
    return jnp.deg2rad(x), jnp.radians(x), jnp.rad2deg(x), jnp.degrees(x)


@case(
    "hypot_edges",
    lambda rng: [
        with_edges(f32(rng, (2, 5), -3, 3), (np.inf, np.nan, 0.0, 3e15, -np.inf, 0.0)),
        with_edges(f32(rng, (2, 5), -3, 3), (np.nan, np.inf, 0.0, 4e15, 1.0, -2.0)),
    ],
)
def _(x, y):
    return jnp.hypot(x, y)


@case("sinc_edges", edged(-3, 3, extra=(1.0, -2.0, 0.25)))
def _(x):
    return jnp.sinc(x)


@case("sinc_zero", lambda rng: [np.array([0.0, 0.5, -0.0], np.float32)])
def _(x):
    return jnp.sinc(x)


# --- exponentials, logarithms, rounding --------------------------------------------------


@case("expm1_exp2_edges", edged(-3, 3, extra=(1e-6, -80.0, 200.0)))
def _(x):
    return lax.expm1(x), lax.exp2(x), jnp.expm1(x), jnp.exp2(x)


@case("log2_log10_edges", edged(0.01, 100, extra=(-1.0, 1.0, 1024.0, 1000.0)))
def _(x):
    return jnp.log2(x), jnp.log10(x)


@case("exp_log_f64", lambda rng: [f64(rng, (2, 4), 0.1, 20)], x64=True)
def _(x):
    return lax.expm1(x), lax.exp2(x), jnp.log2(x), jnp.log10(x), lax.square(x), lax.reciprocal(x)


@case("square_reciprocal", edged(-3, 3))
def _(x):
    return lax.square(x), lax.reciprocal(x), jnp.square(x), jnp.reciprocal(x)


@case("square_int", lambda rng: [i32(rng, (2, 4), -50000, 50000)], grad=False)
def _(x):
    return lax.square(x), jnp.square(x), jnp.reciprocal(x)


def halves(rng):
    return [with_edges(ties_f32(rng, (3, 5), -6, 6) / 2, EDGES + (2.5, -2.5, 0.5, -0.5, 1.5))]


@case("round_methods", halves)
def _(x):
    return (lax.round(x), lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO),
            lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN), lax.ceil(x), lax.floor(x))


@case("numpy_round", halves)
def _(x):
    return jnp.round(x), jnp.around(x), jnp.rint(x), jnp.trunc(x), jnp.ceil(x)


@case("numpy_round_decimals", lambda rng: [f32(rng, (2, 5), -30, 30)])
def _(x):
    return jnp.round(x, 2), jnp.round(x, -1), jnp.around(x, 1), jnp.round(x, 40)


@case("numpy_round_int", lambda rng: [i32(rng, (2, 4), -9, 9)], grad=False)
def _(x):
    return jnp.round(x), jnp.round(x, 2), jnp.rint(x), jnp.trunc(x)


# --- classification and float manipulation ---------------------------------------------


@case("classify_edges", edged(-3, 3, extra=(-1.0, 3e38)))
def _(x):
    return (lax.is_finite(x), jnp.isfinite(x), jnp.isinf(x), jnp.isnan(x), jnp.isposinf(x),
            jnp.isneginf(x), jnp.signbit(x))


@case("classify_int", lambda rng: [i32(rng, (2, 4))])
def _(x):
    return jnp.isfinite(x), jnp.isposinf(x), jnp.isneginf(x), jnp.signbit(x)


@case("nan_to_num_edges", edged(-3, 3))
def _(x):
    return jnp.nan_to_num(x), jnp.nan_to_num(x, nan=1.5, posinf=9.0, neginf=-9.0)


@case(
    "copysign_edges",
    lambda rng: [edged(-3, 3)(rng)[0], with_edges(f32(rng, (2, 5), -3, 3), (-0.0, 0.0, -1.0, -0.0, 2.0, np.nan, -np.inf))],
)
def _(x, y):
    return jnp.copysign(x, y)


@case(
    "nextafter_edges",
    lambda rng: [edged(-3, 3)(rng)[0], with_edges(f32(rng, (2, 5), -3, 3), (1.0, 0.0, 0.0, 1.0, -1.0, 0.0))],
    grad=False,
)
def _(x, y):
    return jnp.nextafter(x, y), lax.nextafter(x, y)


@case("fmod_remainder", lambda rng: [f32(rng, (2, 5), -7, 7), with_edges(f32(rng, (2, 5), -3, 3), (2.0, -2.0, 0.5, -0.5))])
def _(x, y):
    return jnp.fmod(x, y), jnp.remainder(x, y)


@case("fmod_int", lambda rng: [i32(rng, (2, 5), -9, 9), with_edges(i32(rng, (2, 5), -3, 4), (0, 0, 3, -3))])
def _(x, y):
    return jnp.fmod(x, y), jnp.remainder(x, y)


@case(
    "heaviside_edges",
    lambda rng: [with_edges(ties_f32(rng, (2, 5), -2, 3), (0.0, -0.0, np.nan, np.inf, -np.inf)), f32(rng, (2, 5))],
)
def _(x, y):
    return jnp.heaviside(x, y), jnp.heaviside(x, 0.5)


@case("float_power", lambda rng: [f32(rng, (2, 4), 0.1, 3), f32(rng, (2, 4), -2, 2)])
def _(x, y):
    return jnp.float_power(x, y)


@case(
    "fmax_fmin_edges",
    lambda rng: [
        with_edges(ties_f32(rng, (2, 5), -2, 3), (np.nan, 1.0, np.nan, np.inf, 0.0)),
        with_edges(ties_f32(rng, (2, 5), -2, 3), (1.0, np.nan, np.nan, 2.0, -0.0)),
    ],
)
def _(x, y):
    return jnp.fmax(x, y), jnp.fmin(x, y)


@case("positive_negative", lambda rng: [f32(rng, (2, 3)), i32(rng, (2, 3))])
def _(x, n):
    return jnp.positive(x), jnp.negative(x), jnp.positive(n), jnp.negative(n)


# --- bits ------------------------------------------------------------------------------


def shifts(rng):
    x = i32(rng, (3, 5), -1000, 1000)
    x.reshape(-1)[:4] = [np.iinfo(np.int32).min, -1, np.iinfo(np.int32).max, 0]
    s = i32(rng, (3, 5), 0, 33)
    s.reshape(-1)[:6] = [31, 32, 33, -1, 0, 1]
    return [x, s]


@case("shifts_i32", shifts, grad=False)
def _(x, s):
    return (lax.shift_left(x, s), lax.shift_right_logical(x, s), lax.shift_right_arithmetic(x, s),
            jnp.left_shift(x, s), jnp.right_shift(x, s))


@case("shifts_u32", lambda rng: [u32(rng, (3, 4)), (i32(rng, (3, 4), 0, 34)).astype(np.uint32)], grad=False)
def _(x, s):
    return (lax.shift_left(x, s), lax.shift_right_logical(x, s), lax.shift_right_arithmetic(x, s),
            jnp.left_shift(x, s), jnp.right_shift(x, s))


@case("popcount_clz", lambda rng: shifts(rng)[:1], grad=False)
def _(x):
    return lax.population_count(x), lax.clz(x), jnp.bitwise_count(x)


@case("popcount_clz_u32", lambda rng: [u32(rng, (2, 5))], grad=False)
def _(x):
    return lax.population_count(x), lax.clz(x), jnp.bitwise_count(x)


@case(
    "gcd_lcm",
    lambda rng: [
        with_edges(i32(rng, (3, 5), -60, 60), (0, 0, 7, -12, 46368, 1)),
        with_edges(i32(rng, (3, 5), -60, 60), (0, 5, 0, 18, 28657, -1)),
    ],
    grad=False,
)
def _(x, y):
    return jnp.gcd(x, y), jnp.lcm(x, y), jnp.gcd(x, 6)


# --- incomplete gamma, Bessel, inverse error function ----------------------------------


@case("igamma_igammac", lambda rng: [f32(rng, (3, 4), 0.2, 6), f32(rng, (3, 4), 0.05, 9)])
def _(a, x):
    return lax.igamma(a, x), lax.igammac(a, x)


@case(
    "igamma_edges",
    lambda rng: [
        with_edges(f32(rng, (2, 6), 0.5, 4), (1.0, 1.0, 0.0, 0.0, -1.0, np.nan, 2.0, 3.0, 30.0, 0.01)),
        with_edges(f32(rng, (2, 6), 0.5, 4), (0.0, np.inf, 0.0, 2.0, 1.0, 1.0, -1.0, np.nan, 1.0, 60.0)),
    ],
    note="x = 0 and inf, a = 0, negative and NaN operands, far tails",
)
def _(a, x):
    return lax.igamma(a, x), lax.igammac(a, x)


@case("igamma_f64", lambda rng: [f64(rng, (2, 4), 0.2, 12), f64(rng, (2, 4), 0.05, 15)], x64=True)
def _(a, x):
    return lax.igamma(a, x), lax.igammac(a, x)


@case(
    "igamma_grad_a",
    lambda rng: [f32(rng, (3, 4), 0.2, 6), with_edges(f32(rng, (3, 4), 0.05, 9), (0.0, -1.0, 20.0))],
    grad=False,
    note="JAX defines no derivative of igamma_grad_a nor of random_gamma_grad",
)
def _(a, x):
    return lax.igamma_grad_a(a, x), lax.random_gamma_grad(a, x)


@case(
    "igamma_grad_a_f64",
    lambda rng: [f64(rng, (2, 4), 0.2, 8), f64(rng, (2, 4), 0.05, 12)],
    x64=True,
    grad=False,
)
def _(a, x):
    return lax.igamma_grad_a(a, x), lax.random_gamma_grad(a, x)


@case("bessel_edges", edged(-8, 8, extra=(60.0, -80.0, 1e3, 1e-3, 49.0, 51.0)))
def _(x):
    return lax.bessel_i0e(x), lax.bessel_i1e(x)


@case("bessel_f64", lambda rng: [f64(rng, (3, 4), -70, 70)], x64=True)
def _(x):
    return lax.bessel_i0e(x), lax.bessel_i1e(x)


@case("erf_inv_edges", edged(-0.99, 0.99, extra=(1.0, -1.0, 1.5, 0.999)))
def _(x):
    return lax.erf_inv(x)
