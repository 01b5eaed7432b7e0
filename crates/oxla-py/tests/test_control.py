"""`x.at[idx]` and `oxla.lax`'s control flow: values against Python loops and numpy,
`jit` against eager, `vmap` against a loop, `grad` against central differences."""

import numpy as np
import pytest

import oxla
import oxla.numpy as jnp
from conftest import central_difference
from oxla import lax

X = np.random.default_rng(0).uniform(0.5, 1.5, 5)


def cumulative(x):
    return lax.scan(lambda c, v: (c * v, c + v), jnp.asarray(np.float64(1.0)).astype(x.dtype), x)


def test_scan_value_jit_vmap_grad(x64):
    c, ys = cumulative(jnp.asarray(X))
    carry, want = 1.0, []
    for v in X:
        want.append(carry + v)
        carry *= v
    np.testing.assert_allclose(float(c), carry, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(ys), want, rtol=1e-12)
    jc, jys = oxla.jit(cumulative)(jnp.asarray(X))
    np.testing.assert_allclose(np.asarray(jys), want, rtol=1e-12)
    xs = jnp.asarray(np.stack([X, X[::-1]]))
    bc, bys = oxla.vmap(cumulative)(xs)
    np.testing.assert_allclose(np.asarray(bys[1]), np.asarray(cumulative(xs[1])[1]), rtol=1e-12)
    loss = lambda x: cumulative(x)[0] + jnp.sum(cumulative(x)[1])  # noqa: E731
    np.testing.assert_allclose(np.asarray(oxla.grad(loss)(jnp.asarray(X))),
                               central_difference(loss, X), rtol=1e-6)


def test_scan_trees_reverse_and_errors():
    carry, ys = lax.scan(lambda c, x: ({"s": c["s"] + x["a"]}, (x["a"] * 2, None)),
                         {"s": jnp.zeros(())}, {"a": jnp.arange(4.0)}, reverse=True)
    assert float(carry["s"]) == 6.0 and ys[1] is None
    np.testing.assert_array_equal(np.asarray(ys[0]), [0.0, 2.0, 4.0, 6.0])
    with pytest.raises(TypeError, match="structure"):
        lax.scan(lambda c, x: ((c, c), x), jnp.zeros(()), jnp.arange(3.0))


def test_cond_while_fori():
    x = jnp.asarray(X)
    f = lambda p, x: lax.cond(p, lambda a: a * 2, lambda a: -a, x)  # noqa: E731
    np.testing.assert_allclose(np.asarray(f(True, x)), X * 2, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(oxla.jit(f)(False, x)), -X, rtol=1e-6)
    picks = oxla.vmap(f)(jnp.asarray(np.array([True, False])), jnp.asarray(np.stack([X, X])))
    np.testing.assert_allclose(np.asarray(picks), np.stack([X * 2, -X]), rtol=1e-6)
    n, steps = lax.while_loop(lambda c: c[0] < 100, lambda c: (c[0] * 3, c[1] + 1), (1, 0))
    assert (int(n), int(steps)) == (243, 5)
    assert float(lax.fori_loop(0, 4, lambda i, c: c + i * 1.0, 0.5)) == 6.5
    g = oxla.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, 1.0))(2.0)
    assert float(g) == pytest.approx(12.0)


def test_at_updates_follow_numpy():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = jnp.asarray(x)
    want = x.copy()
    want[1, 2] = 9
    np.testing.assert_array_equal(np.asarray(a.at[1, 2].set(9.0)), want)
    want = x.copy()
    np.add.at(want, (np.array([0, 0, 2]),), 1.0)
    np.testing.assert_array_equal(np.asarray(a.at[jnp.asarray(np.array([0, 0, 2]))].add(1.0)), want)
    np.testing.assert_array_equal(np.asarray(a.at[:, 1].multiply(2.0))[:, 1], x[:, 1] * 2)
    np.testing.assert_array_equal(np.asarray(a.at[0].min(2.0))[0], np.minimum(x[0], 2))
    assert float(a.at[5, 0].get(mode="fill", fill_value=-1.0)) == -1.0
    assert float(a.at[5, 0].get(mode="clip")) == x[2, 0]
    np.testing.assert_array_equal(np.asarray(a.at[9].set(1.0)), x)  # out of bounds: dropped
    g = oxla.grad(lambda v: jnp.sum(a.at[0].set(v) ** 2))(jnp.ones(4))
    np.testing.assert_allclose(np.asarray(g), 2 * np.ones(4))
    np.testing.assert_array_equal(np.asarray(oxla.jit(lambda a: a.at[1].add(5.0))(a)),
                                  np.asarray(a.at[1].add(5.0)))


def test_at_modes_and_ellipsis_rules():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = jnp.asarray(x)
    assert np.isnan(float(a.at[5, 0].get(mode="fill")))  # the dtype's fill value
    assert float(a.at[5, 0].get()) == x[2, 0]  # no mode: clamped, as JAX's promise
    np.testing.assert_array_equal(np.asarray(a.at[9].set(1.0, mode="fill")), x)
    with pytest.raises(IndexError, match="ellipsis"):
        a.at[..., ...].set(0.0)
    np.testing.assert_array_equal(np.asarray(a.at[..., 1].set(7.0))[:, 1], [7.0] * 3)
    # An empty `...` between index arrays still puts their dimension first, as numpy does.
    y = np.arange(12.0, dtype=np.float32).reshape(3, 2, 2)
    i, j = np.array([0, 1]), np.array([1, 0])
    assert jnp.asarray(y)[:, i, ..., j].shape == y[:, i, ..., j].shape == (2, 3)
    want = y.copy()
    want[:, i, ..., j] = np.arange(6.0).reshape(2, 3)
    got = jnp.asarray(y).at[:, i, ..., j].set(jnp.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(np.asarray(got), want)


def test_cond_number_predicate_and_scan_options():
    x = jnp.asarray(X)
    np.testing.assert_allclose(np.asarray(lax.cond(2, lambda a: a * 2, lambda a: -a, x)), X * 2,
                               rtol=1e-6)
    np.testing.assert_allclose(np.asarray(lax.cond(0, lambda a: a * 2, lambda a: -a, x)), -X,
                               rtol=1e-6)
    body = lambda c, v: [c + v, c]  # noqa: E731  (a list pair, as JAX allows)
    c1, ys1 = lax.scan(body, 0.0, x)
    c2, ys2 = lax.scan(body, 0.0, x, unroll=True)
    np.testing.assert_allclose(float(c1), X.sum(), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ys2), np.asarray(ys1), rtol=1e-6)
    assert float(c2) == pytest.approx(float(c1))


def test_switch_and_cond_operand():
    branches = [lambda a: a * 0, lambda a: a + 1, lambda a: -a]
    x = jnp.asarray(X)
    for i, want in [(0, X * 0), (1, X + 1), (2, -X), (7, -X), (-3, X * 0)]:  # clamped
        np.testing.assert_allclose(np.asarray(lax.switch(i, branches, x)), want, rtol=1e-6)
    picks = oxla.vmap(lambda i, a: lax.switch(i, branches, a))(
        jnp.asarray(np.array([0, 2])), jnp.asarray(np.stack([X, X])))
    np.testing.assert_allclose(np.asarray(picks), np.stack([X * 0, -X]), rtol=1e-6)
    g = oxla.grad(lambda a: jnp.sum(lax.switch(2, branches, a)))(x)
    np.testing.assert_allclose(np.asarray(g), -np.ones_like(X))
    out = lax.cond(True, lambda a: a * 2, lambda a: a, operand=x)
    np.testing.assert_allclose(np.asarray(out), X * 2, rtol=1e-6)


def test_lax_slices_sort_and_dot_general():
    x = jnp.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(np.asarray(lax.dynamic_slice(x, (1, 2), (2, 2))),
                                  [[6, 7], [10, 11]])
    np.testing.assert_array_equal(np.asarray(lax.dynamic_slice(x, (2, 3), (2, 2))),
                                  [[6, 7], [10, 11]])  # clamped so the window fits
    upd = lax.dynamic_update_slice(x, jnp.zeros((1, 2)), (jnp.asarray(np.int32(2)), 0))
    np.testing.assert_array_equal(np.asarray(upd)[2], [0, 0, 10, 11])
    keys, vals = lax.sort((jnp.asarray(np.array([3, 1, 2])), jnp.asarray(np.array([30., 10., 20.]))))
    np.testing.assert_array_equal(np.asarray(vals), [10, 20, 30])
    np.testing.assert_array_equal(np.asarray(lax.sort(jnp.asarray(np.array([2., 1.])))), [1, 2])
    a, b = np.ones((2, 3, 4), np.float32), np.ones((2, 4, 5), np.float32)
    got = lax.dot_general(jnp.asarray(a), jnp.asarray(b), (((2,), (1,)), ((0,), (0,))))
    np.testing.assert_allclose(np.asarray(got), a @ b)
