"""The functions along an axis (`sort`, `cumsum`, `argmax`, ...) and `oxla.lax`'s
elementwise primitives, from the extension's tables, four ways: numpy's value, `vmap`
against a loop, `grad` against central differences (float64), `jit` against eager."""

import math

import numpy as np
import pytest

import oxla
import oxla.numpy as jnp
from oxla import _oxla, lax
from conftest import central_difference

ON_AXIS, LAX = _oxla.axis_functions()
# The axis each function is checked along (None: its default), and numpy's function.
AXES = {
    "argmax": [None, 0, 1], "argmin": [None, 1], "cumsum": [None, 0, 1], "cumprod": [None, 1],
    "sort": [None, 0], "squeeze": [None, 1], "expand_dims": [0, -1], "flip": [None, 1],
    "median": [None, 0, 1], "nanmax": [None, 1], "nanmin": [None, 0], "nansum": [None, 1],
    "nanmean": [None, 0],
}
NO_GRAD = {"argmax", "argmin"}


def _input(name, rng, batch=None):
    shape = (3, 1, 4) if name == "squeeze" else (3, 4)
    if batch:
        shape = (batch,) + shape
    x = rng.permutation(np.prod(shape)).reshape(shape).astype(np.float64) / 7 + 0.5
    if name.startswith("nan"):
        x[..., 0, 0] = np.nan
    return x


def _call(name, x, axis):
    f = ON_AXIS[name]
    return f(x) if axis is None else f(x, axis)


def _numpy(name, x, axis):
    f = getattr(np, name)
    if axis is None and name == "sort":
        return np.sort(x, -1)
    return f(x) if axis is None else f(x, axis)


CASES = [(n, a) for n in sorted(AXES) for a in AXES[n]]


def test_every_table_function_is_checked():
    assert set(AXES) == set(ON_AXIS)


@pytest.mark.parametrize("name,axis", CASES)
def test_value_vmap_and_jit(name, axis):
    rng = np.random.default_rng(0)
    x = _input(name, rng).astype(np.float32)
    got = _call(name, jnp.asarray(x), axis)
    np.testing.assert_allclose(np.asarray(got), _numpy(name, x, axis), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(oxla.jit(lambda a: _call(name, a, axis))(jnp.asarray(x))),
                               np.asarray(got), rtol=1e-6)
    xs = jnp.asarray(_input(name, rng, batch=2).astype(np.float32))
    batched = oxla.vmap(lambda a: _call(name, a, axis))(xs)
    np.testing.assert_allclose(np.asarray(batched),
                               np.stack([np.asarray(_call(name, xs[i], axis)) for i in range(2)]),
                               rtol=1e-6)


@pytest.mark.parametrize("name,axis", [c for c in CASES if c[0] not in NO_GRAD])
def test_grad(name, axis, x64):
    rng = np.random.default_rng(1)
    x = _input(name, rng)
    w = rng.uniform(-1, 1, np.shape(_call(name, jnp.asarray(x), axis)))

    def loss(a):
        return jnp.nansum(_call(name, a, axis) * w)

    g = np.asarray(oxla.grad(loss)(jnp.asarray(x)))
    fd = central_difference(loss, x, skip_nan=True)
    np.testing.assert_allclose(np.nan_to_num(g), fd, rtol=1e-5, atol=1e-6)


_erf = np.vectorize(math.erf)
LAX_REFERENCE = {
    "neg": np.negative, "exp": np.exp, "log": np.log, "log1p": np.log1p, "sin": np.sin,
    "cos": np.cos, "tanh": np.tanh, "logistic": lambda x: 1 / (1 + np.exp(-x)),
    "sqrt": np.sqrt, "cbrt": np.cbrt, "rsqrt": lambda x: 1 / np.sqrt(x), "abs": np.abs,
    "sign": np.sign, "floor": np.floor, "ceil": np.ceil, "round": np.round,
    "is_finite": np.isfinite, "erf": _erf, "erfc": lambda x: 1 - _erf(x),
    "lgamma": np.vectorize(math.lgamma), "tan": np.tan, "asin": np.arcsin,
    "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "expm1": np.expm1,
    "exp2": np.exp2, "square": np.square, "stop_gradient": lambda x: x,
}
# Functions checked for their value elsewhere (the Rust suite's goldens): erf_inv, digamma.
LAX_VALUE_ELSEWHERE = {"erf_inv", "digamma"}
LAX_NO_GRAD = {"sign", "floor", "ceil", "round", "is_finite", "stop_gradient"}


def _lax_input(name, shape, rng):
    lo, hi = {"acosh": (1.2, 3), "asin": (-0.9, 0.9), "acos": (-0.9, 0.9),
              "atanh": (-0.9, 0.9), "erf_inv": (-0.9, 0.9)}.get(name, (0.3, 2.5))
    return rng.uniform(lo, hi, shape)


def test_every_lax_function_is_checked():
    assert set(LAX) == set(LAX_REFERENCE) | LAX_VALUE_ELSEWHERE


@pytest.mark.parametrize("name", sorted(LAX))
def test_lax(name):
    rng = np.random.default_rng(2)
    f = LAX[name]
    x = _lax_input(name, (2, 3), rng).astype(np.float32)
    got = np.asarray(f(jnp.asarray(x)))
    if name in LAX_REFERENCE:
        np.testing.assert_allclose(got, LAX_REFERENCE[name](x), rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(oxla.jit(f)(jnp.asarray(x))), got, rtol=1e-6)
    xs = jnp.asarray(_lax_input(name, (2, 2, 3), rng).astype(np.float32))
    np.testing.assert_allclose(np.asarray(oxla.vmap(f)(xs)),
                               np.stack([np.asarray(f(xs[i])) for i in range(2)]), rtol=1e-6)


@pytest.mark.parametrize("name", sorted(set(LAX) - LAX_NO_GRAD))
def test_lax_grad(name, x64):
    rng = np.random.default_rng(3)
    f = LAX[name]
    x = _lax_input(name, (2, 3), rng)
    loss = lambda a: jnp.sum(f(a))  # noqa: E731
    g = np.asarray(oxla.grad(loss)(jnp.asarray(x)))
    np.testing.assert_allclose(g, central_difference(loss, x), rtol=1e-5, atol=1e-6)


def test_stop_gradient_has_zero_derivative():
    g = oxla.grad(lambda x: jnp.sum(lax.stop_gradient(x) * x))(jnp.asarray(np.arange(3.0)))
    np.testing.assert_array_equal(np.asarray(g), np.arange(3.0))


def test_shape_helpers():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(np.asarray(jnp.broadcast_to(jnp.asarray(x[0]), (4, 3))),
                                  np.broadcast_to(x[0], (4, 3)))
    np.testing.assert_array_equal(np.asarray(jnp.pad(jnp.asarray(x), 1)), np.pad(x, 1))
    np.testing.assert_array_equal(np.asarray(jnp.pad(jnp.asarray(x), ((0, 1), (2, 0)), constant_values=7)),
                                  np.pad(x, ((0, 1), (2, 0)), constant_values=7))
    np.testing.assert_array_equal(np.asarray(jnp.clip(jnp.asarray(x), 1, 4)), np.clip(x, 1, 4))
    np.testing.assert_array_equal(np.asarray(jnp.clip(jnp.asarray(x), a_max=2)), np.minimum(x, 2))
    assert oxla.random.bits(oxla.random.PRNGKey(0), (3,)).dtype == np.uint32
