"""jacfwd, jacrev and hessian: JAX's shapes for trees of inputs and outputs, the two modes
equal, and both equal to central differences (float64)."""

import numpy as np
import pytest

import oxla
import oxla.numpy as jnp

RNG = np.random.default_rng(0)
X = RNG.uniform(-1, 1, 3)
Y = RNG.uniform(-1, 1, (2, 2))


def f(x, y):
    return {"a": jnp.sin(x) * y[0, 0], "b": jnp.sum(x**2) * jnp.tanh(y)}


def _fd_jacobian(g, x, eps=1e-6):
    """d g(x) / d x by central differences: shape g(x).shape + x.shape."""
    out = np.asarray(g(x))
    jac = np.zeros(out.shape + x.shape)
    for j in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[j] += eps
        down[j] -= eps
        jac[(...,) + j] = (np.asarray(g(up)) - np.asarray(g(down))) / (2 * eps)
    return jac


@pytest.mark.parametrize("jac", [oxla.jacfwd, oxla.jacrev], ids=["jacfwd", "jacrev"])
def test_trees_of_inputs_and_outputs(jac, x64):
    j = jac(f, argnums=(0, 1))(jnp.asarray(X), jnp.asarray(Y))
    assert {k: [a.shape for a in v] for k, v in j.items()} == {
        "a": [(3, 3), (3, 2, 2)], "b": [(2, 2, 3), (2, 2, 2, 2)]}
    for key in "ab":
        fd_x = _fd_jacobian(lambda x: f(jnp.asarray(x), jnp.asarray(Y))[key], X)
        fd_y = _fd_jacobian(lambda y: f(jnp.asarray(X), jnp.asarray(y))[key], Y)
        np.testing.assert_allclose(np.asarray(j[key][0]), fd_x, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(np.asarray(j[key][1]), fd_y, rtol=1e-6, atol=1e-8)


def test_forward_and_reverse_agree_and_compose():
    x = jnp.asarray(X.astype(np.float32))
    g = lambda x: jnp.tanh(x) * jnp.sum(x)  # noqa: E731
    fwd, rev = oxla.jacfwd(g)(x), oxla.jacrev(g)(x)
    np.testing.assert_allclose(np.asarray(fwd), np.asarray(rev), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(np.asarray(oxla.jit(oxla.jacrev(g))(x)), np.asarray(rev), rtol=1e-6)
    xs = jnp.asarray(RNG.uniform(-1, 1, (4, 3)).astype(np.float32))
    batched = oxla.vmap(oxla.jacfwd(g))(xs)
    for i in range(4):
        np.testing.assert_allclose(np.asarray(batched[i]), np.asarray(oxla.jacfwd(g)(xs[i])),
                                   rtol=1e-6)


def test_hessian(x64):
    h = lambda x: jnp.sum(jnp.sin(x) * x**2)  # noqa: E731
    got = np.asarray(oxla.hessian(h)(jnp.asarray(X)))
    grad = oxla.grad(h)
    np.testing.assert_allclose(got, _fd_jacobian(lambda x: grad(jnp.asarray(x)), X), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(got, got.T, rtol=1e-12)


@pytest.mark.parametrize("jac", [oxla.jacfwd, oxla.jacrev], ids=["jacfwd", "jacrev"])
def test_has_aux(jac):
    x = jnp.asarray(X.astype(np.float32))
    g = lambda x: (jnp.sin(x), {"n": jnp.sum(x), "k": 3})  # noqa: E731
    j, aux = jac(g, has_aux=True)(x)
    np.testing.assert_allclose(np.asarray(j), np.diag(np.cos(X)).astype(np.float32), rtol=1e-6,
                               atol=1e-7)
    assert aux["k"] == 3
    np.testing.assert_allclose(float(aux["n"]), X.sum(), rtol=1e-6)
