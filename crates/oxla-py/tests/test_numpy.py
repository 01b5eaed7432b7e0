"""Every function of `oxla.numpy`'s tables, four ways: against numpy's value, `vmap` against
a loop, `grad` against central differences (in float64), and `jit` against eager. The
functions come from the extension's own table, so a row added there is tested here."""

import numpy as np
import pytest

import oxla
import oxla.numpy as jnp
from oxla import _oxla

FUNCTIONS = _oxla.numpy_functions()
KINDS = {type(f).__name__: [] for f in FUNCTIONS.values()}
for name, f in FUNCTIONS.items():
    KINDS[type(f).__name__].append(name)

# Inputs inside each function's domain (numpy's reference is undefined outside).
DOMAIN = {
    "log": (0.2, 3), "log2": (0.2, 3), "log10": (0.2, 3), "sqrt": (0.2, 3),
    "reciprocal": (0.5, 3), "arcsin": (-0.9, 0.9), "arccos": (-0.9, 0.9),
    "arctanh": (-0.9, 0.9), "arccosh": (1.2, 3), "log1p": (-0.5, 2), "power": (0.5, 2),
    "divide": (0.5, 2), "true_divide": (0.5, 2), "floor_divide": (0.5, 4), "remainder": (0.5, 4),
}
# Integer-only functions, and functions whose derivative is zero or undefined where numpy's
# value jumps (checked for value, vmap and jit only).
INTEGER = {"invert", "bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",
           "right_shift"}
BOOLEAN = {"logical_not", "logical_and", "logical_or", "logical_xor", "isnan", "isinf",
           "isfinite", "signbit", "equal", "not_equal", "less", "less_equal", "greater",
           "greater_equal", "all", "any"}
NO_GRAD = INTEGER | BOOLEAN | {"sign", "floor", "ceil", "trunc", "rint", "floor_divide",
                               "remainder", "imag", "fmax", "fmin", "copysign", "max", "min"}
# Binary functions of matrices rather than elements.
MATRIX = {"matmul", "dot", "outer", "inner"}


def _input(name, shape, rng, dtype=np.float32):
    if name in INTEGER:
        return rng.integers(0, 8, shape).astype(np.int32)
    if name in BOOLEAN and name.startswith("logical"):
        return rng.random(shape) < 0.5
    lo, hi = DOMAIN.get(name, (-2, 2))
    return rng.uniform(lo, hi, shape).astype(dtype)


def _args(name, kind, rng, dtype=np.float32, batch=None):
    shape = (3, 3) if name in MATRIX else (2, 3)
    if batch:
        shape = (batch,) + shape
    n = 2 if kind == "Binary" else 1
    return [_input(name, shape, rng, dtype) for _ in range(n)]


def _numpy(name):
    return getattr(np, name)


def _assert_close(got, want, rtol=2e-6, atol=1e-6):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


ELEMENTWISE = KINDS["Unary"] + KINDS["Binary"]


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_value_against_numpy(name):
    rng = np.random.default_rng(0)
    kind = type(FUNCTIONS[name]).__name__
    args = _args(name, kind, rng)
    got = FUNCTIONS[name](*[jnp.asarray(a) for a in args])
    want = _numpy(name)(*args)
    if np.asarray(want).dtype == np.float64:
        want = np.asarray(want).astype(np.float32)
    _assert_close(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_vmap_against_loop(name):
    rng = np.random.default_rng(1)
    f = FUNCTIONS[name]
    args = [jnp.asarray(a) for a in _args(name, type(f).__name__, rng, batch=4)]
    got = oxla.vmap(f)(*args)
    want = np.stack([np.asarray(f(*[a[i] for a in args])) for i in range(4)])
    _assert_close(got, want)


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_jit_against_eager(name):
    rng = np.random.default_rng(2)
    f = FUNCTIONS[name]
    args = [jnp.asarray(a) for a in _args(name, type(f).__name__, rng)]
    _assert_close(oxla.jit(f)(*args), f(*args))


@pytest.mark.parametrize("name", [n for n in ELEMENTWISE if n not in NO_GRAD])
def test_grad_against_finite_differences(name, x64):
    rng = np.random.default_rng(3)
    f = FUNCTIONS[name]
    kind = type(f).__name__
    args = _args(name, kind, rng, np.float64)
    weights = rng.uniform(-1, 1, np.shape(f(*[jnp.asarray(a) for a in args])))

    def loss(*xs):
        return jnp.sum(jnp.real(f(*xs)) * weights)

    grads = oxla.grad(loss, argnums=tuple(range(len(args))))(*[jnp.asarray(a) for a in args])
    eps = 1e-6
    for i, (a, g) in enumerate(zip(args, grads)):
        fd = np.zeros_like(a)
        for j in np.ndindex(a.shape):
            up, down = [x.copy() for x in args], [x.copy() for x in args]
            up[i][j] += eps
            down[i][j] -= eps
            fd[j] = (float(loss(*map(jnp.asarray, up))) - float(loss(*map(jnp.asarray, down)))) / (2 * eps)
        _assert_close(g, fd, rtol=1e-5, atol=1e-6)


AXES = [None, 0, 1, -1, (0, 1)]


@pytest.mark.parametrize("name", KINDS["Reduce"])
@pytest.mark.parametrize("axis", AXES, ids=repr)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reductions(name, axis, keepdims):
    rng = np.random.default_rng(4)
    f = FUNCTIONS[name]
    x = rng.uniform(0.5, 1.5, (3, 4)).astype(np.float32)
    if name in BOOLEAN:
        x = x > 1.0
    want = _numpy(name)(x, axis=axis, keepdims=keepdims)
    got = f(jnp.asarray(x), axis=axis, keepdims=keepdims)
    _assert_close(got, np.asarray(want).astype(np.asarray(got).dtype), rtol=1e-5)
    _assert_close(oxla.jit(lambda a: f(a, axis=axis, keepdims=keepdims))(jnp.asarray(x)), got)
    xs = jnp.asarray(np.stack([x, x * 2]))
    batched = oxla.vmap(lambda a: f(a, axis=axis, keepdims=keepdims))(xs)
    _assert_close(batched, np.stack([np.asarray(f(xs[i], axis=axis, keepdims=keepdims))
                                     for i in range(2)]))


def test_creation_functions_stage_like_jax():
    text = str(oxla.make_jaxpr(lambda x: x + jnp.arange(3) + jnp.ones(3))(jnp.zeros(3)))
    assert "iota" in text and "broadcast_in_dim" in text
    np.testing.assert_array_equal(np.asarray(jnp.arange(2, 11, 3)), np.arange(2, 11, 3))
    np.testing.assert_allclose(np.asarray(jnp.linspace(0, 1, 5)), np.linspace(0, 1, 5))
    np.testing.assert_allclose(np.asarray(jnp.linspace(0, 1, 4, endpoint=False)),
                               np.linspace(0, 1, 4, endpoint=False), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(jnp.eye(3, dtype=np.int32)), np.eye(3, dtype=np.int32))
    np.testing.assert_array_equal(np.asarray(jnp.eye(2, 3, 1)), np.eye(2, 3, 1))
    assert jnp.full((2, 2), 7, dtype=np.int8).dtype == np.int8
    assert jnp.zeros_like(jnp.arange(3)).dtype == np.int32
    np.testing.assert_array_equal(np.asarray(jnp.full_like(jnp.zeros(2), 3.5)), [3.5, 3.5])


def test_shape_functions():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    a = jnp.asarray(x)
    np.testing.assert_array_equal(np.asarray(jnp.reshape(a, (6, -1))), x.reshape(6, -1))
    np.testing.assert_array_equal(np.asarray(jnp.transpose(a, (2, 0, 1))), x.transpose(2, 0, 1))
    np.testing.assert_array_equal(np.asarray(jnp.transpose(a)), x.T)
    np.testing.assert_array_equal(np.asarray(jnp.concatenate([a, a], axis=1)),
                                  np.concatenate([x, x], 1))
    np.testing.assert_array_equal(np.asarray(jnp.stack([a, a], axis=-1)), np.stack([x, x], -1))
    np.testing.assert_array_equal(np.asarray(jnp.where(a > 5, a, -a)), np.where(x > 5, x, -x))


RESTRICTED = _oxla.numpy_restricted_functions()
# Each restricted function's inputs: integers, or floats inside its domain.
RESTRICTED_INPUTS = {
    "bitwise_invert": "int", "bitwise_count": "int", "bitwise_left_shift": "int",
    "bitwise_right_shift": "int", "gcd": "int", "lcm": "int", "ldexp": "float,int",
    "asin": (-0.9, 0.9), "acos": (-0.9, 0.9), "acosh": (1.2, 3), "atanh": (-0.9, 0.9),
    "pow": (0.5, 2), "float_power": (0.5, 2), "nextafter": (-2, 2), "spacing": (-2, 2),
}


def _restricted_args(name, rng, shape=(2, 3)):
    kind = RESTRICTED_INPUTS[name]
    n = 2 if type(RESTRICTED[name]).__name__ == "Binary" else 1
    if kind == "int":
        return [rng.integers(1, 8, shape).astype(np.int32) for _ in range(n)]
    if kind == "float,int":
        return [rng.uniform(-2, 2, shape).astype(np.float32),
                rng.integers(-3, 4, shape).astype(np.int32)]
    return [rng.uniform(*kind, shape).astype(np.float32) for _ in range(n)]


def test_every_restricted_function_has_inputs():
    assert set(RESTRICTED) == set(RESTRICTED_INPUTS)


@pytest.mark.parametrize("name", sorted(RESTRICTED))
def test_restricted_value_vmap_jit(name):
    rng = np.random.default_rng(4)
    f = RESTRICTED[name]
    args = _restricted_args(name, rng)
    got = f(*[jnp.asarray(a) for a in args])
    want = getattr(np, name)(*args)
    _assert_close(got, np.asarray(want).astype(np.asarray(got).dtype), rtol=1e-5, atol=1e-5)
    _assert_close(oxla.jit(f)(*[jnp.asarray(a) for a in args]), got)
    batch = [np.stack([a, b]) for a, b in zip(args, _restricted_args(name, rng))]
    looped = np.stack([np.asarray(f(*[jnp.asarray(b[i]) for b in batch])) for i in range(2)])
    _assert_close(oxla.vmap(f)(*[jnp.asarray(b) for b in batch]), looped)


def test_reduction_arguments_and_sort_orders():
    x = np.array([[3, 1, 2], [0, 5, 4]], np.int32)
    a = jnp.asarray(x)
    assert jnp.sum(a, 1, np.float32).dtype == np.float32  # dtype is the third parameter
    np.testing.assert_array_equal(np.asarray(jnp.sum(a, axis=1, initial=10)), x.sum(1) + 10)
    np.testing.assert_array_equal(np.asarray(jnp.max(a, axis=0, initial=4)), np.max(x, 0, initial=4))
    np.testing.assert_array_equal(np.asarray(jnp.max(a, 0, None, True)), np.max(x, 0, keepdims=True))
    with pytest.raises(TypeError):
        jnp.mean(a, initial=1)
    np.testing.assert_array_equal(np.asarray(jnp.sort(a, descending=True)), -np.sort(-x))
    y = np.array([1, 2, 1, 2], np.int32)
    np.testing.assert_array_equal(np.asarray(jnp.argsort(jnp.asarray(y), descending=True)), [1, 3, 0, 2])
    np.testing.assert_array_equal(np.asarray(jnp.where(jnp.asarray(y) == 2)[0]), [1, 3])


def test_complex_dot_products_conjugate_the_first_operand():
    u = np.array([1 + 2j, 3j], np.complex64)
    v = np.array([1j, 1], np.complex64)
    np.testing.assert_allclose(np.asarray(jnp.vdot(jnp.asarray(u), jnp.asarray(v))), np.vdot(u, v))
    np.testing.assert_allclose(np.asarray(jnp.vecdot(jnp.asarray(u), jnp.asarray(u))),
                               np.vdot(u, u))
    np.testing.assert_allclose(np.asarray(jnp.linalg.vecdot(jnp.asarray(u), jnp.asarray(v))),
                               np.vdot(u, v))
    m = np.array([[1, 2j], [3, 4]], np.complex64)
    np.testing.assert_allclose(np.asarray(jnp.vecmat(jnp.asarray(u), jnp.asarray(m))),
                               np.conj(u) @ m)
