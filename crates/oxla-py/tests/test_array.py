"""oxla.Array: numpy round trips, dtypes, printing, operators, indexing, conversions."""

import gc

import numpy as np
import pytest

import oxla
import oxla.numpy as jnp

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32,
          np.float16, np.float32, np.complex64]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3), (2, 1, 3)])
def test_numpy_round_trip(dtype, shape):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(shape) * 5).astype(dtype)
    a = jnp.asarray(x)
    assert a.shape == shape and a.dtype == np.dtype(dtype)
    back = np.asarray(a)
    assert back.dtype == np.dtype(dtype) and back.shape == shape
    np.testing.assert_array_equal(back, x)


def test_numpy_reads_without_copying():
    a = jnp.arange(12.0).reshape(3, 4)
    n1, n2 = np.asarray(a), np.asarray(a)
    assert np.shares_memory(n1, n2)
    assert not n1.flags.writeable
    assert n1.base is not None


def test_non_contiguous_and_zero_d_inputs():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(np.asarray(jnp.asarray(x.T)), x.T)
    np.testing.assert_array_equal(np.asarray(jnp.asarray(x[:, ::2])), x[:, ::2])
    assert jnp.asarray(np.float32(3.0)).shape == ()


def test_default_dtypes_follow_jax():
    assert jnp.asarray(np.zeros(3)).dtype == np.float32
    assert jnp.asarray(np.arange(3)).dtype == np.int32
    assert jnp.asarray([1.0, 2.0]).dtype == np.float32
    assert jnp.asarray(np.zeros(3), dtype=np.int32).dtype == np.int32


def test_x64(x64):
    assert jnp.asarray(np.zeros(3)).dtype == np.float64
    assert jnp.arange(3).dtype == np.int64
    assert (jnp.ones(3, np.float64) * 2.0).dtype == np.float64


def test_repr_and_str_as_jax_prints():
    a = jnp.asarray(np.array([[1.0, 2.5], [3.0, 4.0]], np.float32))
    assert repr(a) == "Array([[1. , 2.5],\n       [3. , 4. ]], dtype=float32)"
    assert str(a) == "[[1.  2.5]\n [3.  4. ]]"
    assert repr(jnp.asarray(np.int32(7))) == "Array(7, dtype=int32)"


def test_weak_scalars_keep_the_array_dtype():
    x = jnp.ones(3, np.float16)
    assert (x * 2.0).dtype == np.float16
    assert (2 + x).dtype == np.float16
    i = jnp.arange(3)
    assert (i * 2).dtype == np.int32
    assert (i * 2.5).dtype == np.float32


OPS = [
    ("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("mul", lambda a, b: a * b),
    ("truediv", lambda a, b: a / b), ("floordiv", lambda a, b: a // b),
    ("mod", lambda a, b: a % b), ("pow", lambda a, b: abs(a) ** b),
    ("lt", lambda a, b: a < b), ("le", lambda a, b: a <= b), ("gt", lambda a, b: a > b),
    ("ge", lambda a, b: a >= b), ("eq", lambda a, b: a == b), ("ne", lambda a, b: a != b),
]


@pytest.mark.parametrize("name,op", OPS)
def test_operators_match_numpy(name, op):
    rng = np.random.default_rng(1)
    x = rng.uniform(0.5, 3, (3, 4)).astype(np.float32)
    y = rng.uniform(0.5, 3, (4,)).astype(np.float32)
    want = op(x, y)
    for got in (op(jnp.asarray(x), jnp.asarray(y)), op(jnp.asarray(x), y),
                op(x[0, 0].item(), jnp.asarray(y))):
        ref = want if got.shape == want.shape else op(x[0, 0].item(), y)
        np.testing.assert_allclose(np.asarray(got), ref, rtol=1e-6)


def test_integer_and_bool_operators():
    a = np.array([5, -3, 12, 7], np.int32)
    b = np.array([3, 5, -6, 2], np.int32)
    x, y = jnp.asarray(a), jnp.asarray(b)
    np.testing.assert_array_equal(np.asarray(x & y), a & b)
    np.testing.assert_array_equal(np.asarray(x | y), a | b)
    np.testing.assert_array_equal(np.asarray(x ^ y), a ^ b)
    np.testing.assert_array_equal(np.asarray(~x), ~a)
    np.testing.assert_array_equal(np.asarray(x << 2), a << 2)
    np.testing.assert_array_equal(np.asarray(-x), -a)
    m = jnp.asarray(np.array([True, False]))
    np.testing.assert_array_equal(np.asarray(~m), [False, True])


def test_matmul_and_methods():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    w = rng.standard_normal((4, 2)).astype(np.float32)
    a = jnp.asarray(x)
    np.testing.assert_allclose(np.asarray(a @ jnp.asarray(w)), x @ w, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(a.T), x.T)
    np.testing.assert_allclose(np.asarray(a.sum(axis=1)), x.sum(1), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(a.mean(axis=(0, 1), keepdims=True)),
                               x.mean((0, 1), keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(a.max(0)), x.max(0))
    np.testing.assert_array_equal(np.asarray(a.argmax(1)), x.argmax(1))
    np.testing.assert_allclose(np.asarray(a.reshape(2, 6)), x.reshape(2, 6))
    np.testing.assert_allclose(np.asarray(a.reshape((-1,))), x.reshape(-1))
    np.testing.assert_allclose(np.asarray(a.transpose(1, 0)), x.T)
    assert a.astype(np.int32).dtype == np.int32
    assert a.ndim == 2 and a.size == 12 and len(a) == 3


INDICES = [
    1, -1, slice(1, None), (slice(None), 2), (Ellipsis, None), (None, 1, slice(None, None, -1)),
    (slice(None, None, 2), slice(1, 3)), np.array([2, 0]), (np.array([0, 2]), np.array([1, 3])),
]


@pytest.mark.parametrize("index", INDICES, ids=repr)
def test_indexing_follows_numpy(index):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(np.asarray(jnp.asarray(x)[index]), x[index])


def test_iteration_and_scalar_conversions():
    a = jnp.arange(6).reshape(3, 2)
    rows = list(a)
    assert len(rows) == 3
    np.testing.assert_array_equal(np.asarray(rows[2]), [4, 5])
    s = jnp.asarray(np.float32(2.5))
    assert float(s) == 2.5 and int(s) == 2 and bool(s)
    assert s.item() == 2.5
    assert a.tolist() == [[0, 1], [2, 3], [4, 5]]
    assert [0, 1, 2][jnp.asarray(np.int32(1))] == 1
    with pytest.raises(TypeError):
        float(a)
    with pytest.raises(TypeError):
        hash(a)


def test_numpy_on_the_left_defers_to_oxla():
    w = np.arange(3, dtype=np.float32)
    out = oxla.jit(lambda x: w * x + np.float32(2) * x)(jnp.ones(3))
    assert isinstance(out, oxla.Array)
    np.testing.assert_allclose(np.asarray(out), w + 2)
    assert isinstance(w * jnp.ones(3), oxla.Array)


def test_a_tracer_is_not_converted_to_numpy():
    with pytest.raises(oxla.ConcretizationTypeError):
        oxla.jit(lambda x: np.asarray(x))(jnp.ones(3))
    with pytest.raises(oxla.ConcretizationTypeError):
        oxla.jit(lambda x: x.__array__())(jnp.ones(3))


def test_x64_creation_defaults_and_exact_integers(x64):
    assert jnp.zeros(2).dtype == np.float64 and jnp.ones((1, 2)).dtype == np.float64
    big = 2**62 + 1
    assert int(jnp.asarray(np.int64(big))) == big
    assert [0, 1, 2][jnp.asarray(np.int64(2))] == 2


def test_big_endian_input_and_out_of_range_indices():
    x = np.arange(4, dtype=">f4")
    np.testing.assert_array_equal(np.asarray(jnp.asarray(x)), np.arange(4, dtype=np.float32))
    # numpy's IndexError (JAX clamps the index to 9, hiding the mistake).
    with pytest.raises(IndexError):
        jnp.arange(10)[11]
    with pytest.raises(TypeError):
        jnp.arange(3)[True]


def _address(a):
    return np.asarray(a).__array_interface__["data"][0]


def test_numpy_memory_is_shared_when_it_cannot_change():
    raw = np.arange(4096, dtype=np.float32).tobytes()
    x = np.frombuffer(raw, np.float32)  # a read-only view of immutable bytes
    shared = jnp.asarray(x)
    assert _address(shared) == x.ctypes.data
    np.testing.assert_array_equal(np.asarray(shared * 2), x * 2)
    # A read-only flag alone is not enough: it can be set back, or the memory has a
    # writeable view elsewhere.
    w = np.arange(4096, dtype=np.float32)
    w.flags.writeable = False
    for source in (w, w.view()):
        assert _address(jnp.asarray(source)) != w.ctypes.data
    w.flags.writeable = True
    copied = jnp.asarray(w)
    w[0] = -1
    assert float(copied[0]) == 0.0
    aliased = jnp.asarray(w, copy=False)  # asked for: shared, writes show through
    assert _address(aliased) == w.ctypes.data
    assert _address(jnp.array(x)) != x.ctypes.data  # jnp.array copies by default
    with pytest.raises(ValueError, match="copy"):
        jnp.asarray(w[::2], copy=False)
    # A result never reuses numpy's memory as its output.
    out = oxla.jit(lambda a: a + 1)(shared)
    assert _address(out) != x.ctypes.data
    np.testing.assert_array_equal(x, np.arange(4096, dtype=np.float32))
    del x, raw, out
    gc.collect()  # the oxla array keeps numpy's (and the bytes) alive
    np.testing.assert_array_equal(np.asarray(shared)[:3], [0, 1, 2])


def test_bool_bytes_other_than_one_are_true():
    x = np.frombuffer(bytes([0, 2, 1, 255]), np.bool_)
    np.testing.assert_array_equal(np.asarray(jnp.logical_not(jnp.asarray(x))), [1, 0, 0, 0])
    np.testing.assert_array_equal(np.asarray(jnp.asarray(x) == True), [0, 1, 1, 1])  # noqa: E712


def test_bfloat16_through_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    x = np.array([1.5, -2.25, 3.0], ml_dtypes.bfloat16)
    a = jnp.asarray(x)
    assert a.dtype == ml_dtypes.bfloat16 and jnp.bfloat16 is ml_dtypes.bfloat16
    back = np.asarray(a * 2)
    assert back.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(back.astype(np.float32), [3.0, -4.5, 6.0])
    assert jnp.ones(2, dtype=jnp.bfloat16).dtype == ml_dtypes.bfloat16
