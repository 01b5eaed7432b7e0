"""``pmap``, ``shard_map`` and the collectives over two CPU devices (conftest sets
``XLA_FLAGS``); ``out_axes`` trees for ``vmap`` and ``pmap``; ``debug.print`` and
``disable_jit``."""

import numpy as np
import pytest

import oxla
import oxla.numpy as jnp
from oxla import lax
from oxla.sharding import PartitionSpec as P

X = np.arange(6, dtype=np.float32).reshape(2, 3) + 1


def test_devices_come_from_xla_flags():
    assert oxla.device_count() == oxla.local_device_count() == 2
    assert [d.id for d in oxla.devices()] == [0, 1]


def test_pmap_collectives_match_vmap():
    def shares(x):
        return {"share": x / lax.psum(x, "i"), "mean": lax.pmean(x, "i"),
                "max": lax.pmax(x, "i"), "index": lax.axis_index("i")}

    got = oxla.pmap(shares, axis_name="i")(jnp.asarray(X))
    want = oxla.vmap(shares, axis_name="i")(jnp.asarray(X))
    for k in got:
        np.testing.assert_allclose(np.asarray(got[k]), np.asarray(want[k]), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(got["share"]), X / X.sum(0), rtol=1e-6)
    gathered = oxla.pmap(lambda x: lax.all_gather(x, "i"), axis_name="i")(jnp.asarray(X))
    np.testing.assert_array_equal(np.asarray(gathered), np.stack([X, X]))
    swapped = oxla.pmap(lambda x: lax.ppermute(x, "i", [(0, 1), (1, 0)]), axis_name="i")(
        jnp.asarray(X))
    np.testing.assert_array_equal(np.asarray(swapped), X[::-1])


def test_pmap_axes_statics_and_errors():
    f = oxla.pmap(lambda x, w, k: (x * w * k, lax.psum(x, "i")), axis_name="i",
                  in_axes=(1, None, None), out_axes=(1, None), static_broadcasted_argnums=2)
    xt = jnp.asarray(X.T.copy())
    scaled, total = f(xt, jnp.asarray(np.float32(2)), 3)
    np.testing.assert_allclose(np.asarray(scaled), X.T * 6)
    np.testing.assert_allclose(np.asarray(total), X.sum(0))
    with pytest.raises(ValueError, match="devices"):
        oxla.pmap(lambda x: x)(jnp.ones((3, 2)))
    g = oxla.grad(lambda x: jnp.sum(oxla.pmap(lambda r: jnp.sin(r) * 2)(x)))(jnp.asarray(X))
    np.testing.assert_allclose(np.asarray(g), 2 * np.cos(X), rtol=1e-6)


def test_shard_map_cuts_and_joins_blocks():
    mesh = oxla.make_mesh((2,), ("d",))
    f = oxla.shard_map(lambda b: (b * 2, lax.psum(jnp.sum(b), "d")), mesh=mesh,
                       in_specs=P(None, "d"), out_specs=(P(None, "d"), P()))
    x = np.arange(16, dtype=np.float32).reshape(2, 8)
    doubled, total = f(jnp.asarray(x))
    np.testing.assert_array_equal(np.asarray(doubled), x * 2)
    assert float(total) == x.sum()
    rows = oxla.shard_map(lambda b: b.sum(1, keepdims=True), mesh=mesh, in_specs=P("d"),
                          out_specs=P("d"))(jnp.asarray(np.ones((4, 3), np.float32)))
    np.testing.assert_array_equal(np.asarray(rows), np.full((4, 1), 3.0))


def test_shard_map_checks_that_p_results_are_the_same_on_every_device():
    mesh = oxla.make_mesh((2,), ("d",))
    x = jnp.asarray(np.arange(8, dtype=np.float32))
    with pytest.raises(ValueError, match="varies over the axis"):
        oxla.shard_map(lambda b: jnp.sum(b), mesh=mesh, in_specs=P("d"), out_specs=P())(x)
    unchecked = oxla.shard_map(lambda b: jnp.sum(b), mesh=mesh, in_specs=P("d"),
                               out_specs=P(), check_vma=False)(x)
    assert float(unchecked) == 6.0  # device 0's block
    total = oxla.shard_map(lambda b: lax.psum(jnp.sum(b), "d"), mesh=mesh, in_specs=P("d"),
                           out_specs=P())(x)
    assert float(total) == 28.0


def test_vmap_out_axes_trees():
    out = oxla.vmap(lambda x, y: {"a": x * y, "b": y, "c": (x, x.sum())}, in_axes=(0, None),
                    out_axes={"a": 1, "b": None, "c": (-1, 0)})(jnp.asarray(X), jnp.asarray(X[0]))
    np.testing.assert_array_equal(np.asarray(out["a"]), (X * X[0]).T)
    np.testing.assert_array_equal(np.asarray(out["b"]), X[0])
    np.testing.assert_array_equal(np.asarray(out["c"][0]), X.T)
    np.testing.assert_array_equal(np.asarray(out["c"][1]), X.sum(1))
    with pytest.raises(Exception):  # a mapped result cannot be unmapped
        oxla.vmap(lambda x: x * 2, out_axes=None)(jnp.asarray(X))
    with pytest.raises(ValueError, match="out_axes"):
        oxla.vmap(lambda x: (x, x), out_axes=(0, 1, 2))(jnp.asarray(X))


def test_debug_print_and_callback(capsys):
    def f(x):
        oxla.debug.print("x={} total={t}", x, t=jnp.sum(x))
        return x * 2

    oxla.jit(f)(jnp.asarray(X[0]))
    oxla.vmap(f)(jnp.asarray(X))
    assert capsys.readouterr().out.splitlines() == [
        "x=[1. 2. 3.] total=6.0", "x=[1. 2. 3.] total=6.0", "x=[4. 5. 6.] total=15.0"]
    seen = []
    oxla.grad(lambda x: (oxla.debug.callback(lambda v: seen.append(float(v)), x), x * x)[1])(3.0)
    assert seen == [3.0]


def test_disable_jit_runs_eagerly():
    kinds = []
    f = oxla.jit(lambda x: (kinds.append(float(x.sum())), x * 2)[1])
    with oxla.disable_jit():
        np.testing.assert_array_equal(np.asarray(f(jnp.asarray(X))), X * 2)
    assert kinds == [X.sum()]  # a concrete value, readable in Python
    oxla.config.update("jax_disable_jit", True)
    try:
        f(jnp.asarray(X))
    finally:
        oxla.config.update("jax_disable_jit", False)
    assert len(kinds) == 2


def test_ordered_dict_axes_follow_insertion_order():
    import collections
    d = collections.OrderedDict(b=jnp.ones(3), a=jnp.arange(4.0))
    f = lambda d: d["a"] + d["b"].sum()  # noqa: E731
    got = oxla.vmap(f, in_axes=(collections.OrderedDict(b=None, a=0),))(d)
    np.testing.assert_array_equal(np.asarray(got), [3, 4, 5, 6])
    with pytest.raises(ValueError, match="prefix"):
        oxla.vmap(f, in_axes=({"b": None, "a": 0},))(d)


def test_debug_print_formats_and_static_leaves(capsys):
    def f(x):
        oxla.debug.print("{name}: {x:.2f}", name="total", x=jnp.sum(x))
        return x

    oxla.jit(f)(jnp.asarray(X[0]))
    assert capsys.readouterr().out == "total: 6.00\n"
