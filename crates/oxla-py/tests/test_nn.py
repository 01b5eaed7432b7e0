"""`oxla.nn`, `oxla.random` and `oxla.numpy.linalg.norm` four ways: against numpy formulas,
`vmap` against a loop, `grad` against central differences (float64), `jit` against eager."""

import numpy as np
import pytest

import oxla
import oxla.numpy as jnp
from oxla import nn
from conftest import central_difference


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


REFERENCE = {
    "relu": (nn.relu, lambda x: np.maximum(x, 0)),
    "sigmoid": (nn.sigmoid, _sigmoid),
    "softplus": (nn.softplus, lambda x: np.log1p(np.exp(x))),
    "silu": (nn.silu, lambda x: x * _sigmoid(x)),
    "log_sigmoid": (nn.log_sigmoid, lambda x: -np.log1p(np.exp(-x))),
    "elu": (nn.elu, lambda x: np.where(x > 0, x, np.expm1(x))),
    "leaky_relu": (nn.leaky_relu, lambda x: np.where(x >= 0, x, 0.01 * x)),
    "gelu": (nn.gelu, lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))),
    "softmax": (nn.softmax, _softmax),
    "log_softmax": (nn.log_softmax, lambda x: np.log(_softmax(x))),
    "logsumexp": (lambda x: nn.logsumexp(x, axis=-1), lambda x: np.log(np.exp(x).sum(-1))),
    "norm": (lambda x: jnp.linalg.norm(x, axis=-1, keepdims=True),
             lambda x: np.linalg.norm(x, axis=-1, keepdims=True)),
}
# Kinks where central differences straddle two slopes are avoided by the inputs below.
X = np.random.default_rng(0).uniform(-2, 2, (3, 5)) + 0.05


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_value(name):
    f, ref = REFERENCE[name]
    np.testing.assert_allclose(np.asarray(f(jnp.asarray(X.astype(np.float32)))),
                               ref(X).astype(np.float32), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_vmap_and_jit(name):
    f, _ = REFERENCE[name]
    x = jnp.asarray(X.astype(np.float32))
    np.testing.assert_allclose(np.asarray(oxla.vmap(f)(x)),
                               np.stack([np.asarray(f(x[i])) for i in range(3)]), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(oxla.jit(f)(x)), np.asarray(f(x)), rtol=1e-6)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_grad(name, x64):
    f, _ = REFERENCE[name]
    w = np.random.default_rng(1).uniform(-1, 1, np.shape(f(jnp.asarray(X))))

    def loss(x):
        return jnp.sum(f(x) * w)

    g = np.asarray(oxla.grad(loss)(jnp.asarray(X)))
    np.testing.assert_allclose(g, central_difference(loss, X), rtol=1e-5, atol=1e-6)


def test_one_hot():
    got = nn.one_hot(jnp.asarray(np.array([0, 2, 1], np.int32)), 3)
    np.testing.assert_array_equal(np.asarray(got), np.eye(3, dtype=np.float32)[[0, 2, 1]])
    assert nn.one_hot(jnp.arange(2), 2, dtype=np.int32).dtype == np.int32


def test_random_matches_jax_bits():
    key = oxla.random.PRNGKey(0)
    np.testing.assert_array_equal(np.asarray(key), np.array([0, 0], np.uint32))
    k1, k2 = oxla.random.split(key)
    # JAX 0.10.2 (jax_threefry_partitionable): split(PRNGKey(0)) and normal(PRNGKey(0), (3,)).
    np.testing.assert_array_equal(np.asarray(k1), np.array([1797259609, 2579123966], np.uint32))
    np.testing.assert_array_equal(np.asarray(k2), np.array([928981903, 3453687069], np.uint32))
    want = np.array([1.6226422, 2.0252647, -0.43359444], np.float32)
    np.testing.assert_array_equal(np.asarray(oxla.random.normal(key, (3,))), want)
    np.testing.assert_array_equal(np.asarray(oxla.jit(lambda k: oxla.random.normal(k, (3,)))(key)), want)
    u = oxla.random.uniform(key, (1000,), minval=2.0, maxval=3.0)
    assert 2.0 <= float(u.min()) and float(u.max()) < 3.0
    keys = oxla.random.split(key, 4)
    draws = oxla.vmap(lambda k: oxla.random.normal(k, (2,)))(keys)
    np.testing.assert_array_equal(np.asarray(draws[3]), np.asarray(oxla.random.normal(keys[3], (2,))))
    r = oxla.random.randint(key, (100,), -3, 4)
    assert r.dtype == np.int32 and -3 <= int(r.min()) and int(r.max()) < 4
    assert oxla.random.bernoulli(key, 0.5, (10,)).dtype == np.bool_


def test_lax_map_batches():
    xs = jnp.arange(12.0).reshape(6, 2)
    for b in (None, 4):
        np.testing.assert_allclose(np.asarray(oxla.lax.map(lambda x: x.sum(), xs, batch_size=b)),
                                   np.arange(12.0).reshape(6, 2).sum(1))


def test_asarray_stacks_lists_of_tracers():
    f = oxla.jit(lambda a: jnp.array([a, a * 2, 3.0]))
    np.testing.assert_allclose(np.asarray(f(jnp.asarray(np.float32(1.5)))), [1.5, 3.0, 3.0])
    assert jnp.allclose(jnp.ones(3), jnp.ones(3) + 1e-7)
    assert not jnp.allclose(jnp.ones(3), jnp.ones(3) * 2)
