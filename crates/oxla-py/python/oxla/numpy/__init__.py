"""``oxla.numpy``: numpy's functions on oxla arrays, as ``jax.numpy`` has them.

The elementwise functions and reductions come from the extension's tables
(``_oxla.numpy_functions()``); the creation functions stage ``iota`` and
``broadcast_in_dim`` when traced, as JAX's do.
"""

import builtins as _builtins

import numpy as _np

from .. import _oxla
from .._oxla import Array as ndarray
from .._oxla import concatenate, reshape, stack, transpose
from .._oxla import arange, eye, full, full_like, linspace, ones, ones_like, zeros, zeros_like
from .._oxla import where as _where
from . import fft, linalg
from ._products import *  # noqa: F401,F403
from ._shape import *  # noqa: F401,F403
from ._stats import *  # noqa: F401,F403

convolve, correlate = _oxla.lax_ops.convolve, _oxla.lax_ops.correlate
globals().update(_oxla.numpy_functions())
globals().update(_oxla.numpy_restricted_functions())
globals().update(_oxla.axis_functions()[0])
_sort_along = sort  # noqa: F821 (from the extension's table)


def sort(a, axis=-1, *, kind=None, order=None, stable=True, descending=False):
    """``a`` sorted along ``axis`` (``None``: flattened), ascending or ``descending``; the
    sort is stable, which ``stable=False`` allows too."""
    if order is not None:
        raise NotImplementedError("oxla's sort takes no order= (structured arrays)")
    out = _sort_along(a, axis)
    if descending:
        out = flip(out, -1 if axis is None else axis)  # noqa: F821
    return out

bool_ = _np.bool_
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
float16, float32, float64 = _np.float16, _np.float32, _np.float64
try:  # bfloat16 is ml_dtypes' numpy type, as in JAX
    from ml_dtypes import bfloat16
except ImportError:  # pragma: no cover (the package is optional)
    pass
complex64, complex128 = _np.complex64, _np.complex128
pi, e, inf, nan = _np.pi, _np.e, _np.inf, _np.nan
dtype = _np.dtype


def where(condition, x=None, y=None, /, *, size=None, fill_value=None):
    """``x`` where ``condition`` holds, else ``y``; with ``condition`` alone, the indices
    where it holds (``nonzero``, ``size`` and ``fill_value`` as there)."""
    if x is None and y is None:
        return nonzero(condition, size=size, fill_value=fill_value)  # noqa: F821
    if x is None or y is None:
        raise ValueError("Either both or neither of the x and y arguments should be provided "
                         "to jax.numpy.where")
    return _where(condition, x, y)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether ``|a - b| <= atol + rtol * |b|``, elementwise."""
    close = _oxla.isclose(a, b, rtol, atol)
    if equal_nan:
        close = close | (isnan(a) & isnan(b))  # noqa: F821 (from the extension's table)
    return close


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of ``a`` is close to ``b`` (see ``isclose``)."""
    return all(isclose(a, b, rtol, atol, equal_nan))  # noqa: F821


def _holds_array(x):
    return isinstance(x, ndarray) or (
        isinstance(x, (list, tuple)) and _builtins.any(_holds_array(e) for e in x))


def asarray(a, dtype=None, order=None, *, copy=None):
    """An oxla array of ``a``: an array as it is, and a (nested) list holding oxla arrays,
    tracers too, stacked as JAX stacks it. A numpy array's memory is shared, not copied,
    when nothing can change it (a read-only view of ``bytes`` or of a read-only memory
    map, or an array made for the conversion), and whenever its layout allows with
    ``copy=False`` (later writes to it then show; else ``ValueError``); ``copy=True``
    always copies."""
    if order not in (None, "C", "K"):
        raise NotImplementedError(f"oxla's arrays are row-major, not order={order!r}")
    if isinstance(a, (list, tuple)) and _holds_array(a):
        out = stack([asarray(e) for e in a])
        return out if dtype is None else out.astype(dtype)
    return _oxla.asarray(a, dtype, copy)


def array(object, dtype=None, copy=True, order="K", ndmin=0):
    """A new oxla array of ``object`` (numpy's memory copied unless ``copy=False``)."""
    out = asarray(object, dtype, copy=None if copy is False else True)
    if ndmin > len(out.shape):
        out = out.reshape((1,) * (ndmin - len(out.shape)) + tuple(out.shape))
    return out


def ix_(*args):
    """Open-mesh index arrays: ``x[ix_(rows, cols)]`` is the block of those rows and
    columns."""
    return tuple(_oxla.ix_(*args))


def broadcast_to(array, shape):
    """``array`` broadcast to ``shape`` (numpy's rules)."""
    return _oxla.broadcast_to(array, (shape,) if isinstance(shape, int) else tuple(shape))


def pad(array, pad_width, mode="constant", **kwargs):
    """``array`` padded: with ``constant_values`` (``mode="constant"``, the default 0), or by
    ``"edge"``, ``"reflect"``, ``"symmetric"`` or ``"wrap"``; ``pad_width`` an int, one
    ``(before, after)`` pair for every axis, or one per axis."""
    constant_values = kwargs.pop("constant_values", 0)
    if kwargs.pop("reflect_type", "even") != "even":
        raise NotImplementedError("oxla's pad takes reflect_type='even' for now")
    if kwargs:
        raise NotImplementedError(f"oxla's pad takes no {', '.join(sorted(kwargs))} for now")
    n = ndim(array)
    widths = _np.broadcast_to(_np.asarray(pad_width, dtype=_np.int64), (n, 2))
    widths = [tuple(int(v) for v in w) for w in widths]
    if mode == "constant":
        return _oxla.pad_constant(array, widths, constant_values)
    return _oxla.shape.pad_mode(array, widths, mode)


def clip(a, a_min=None, a_max=None, *, min=None, max=None):
    """``a`` limited to ``[a_min, a_max]`` (either bound may be left out)."""
    lo = min if min is not None else a_min
    hi = max if max is not None else a_max
    if lo is not None and hi is not None:
        return _oxla.clip(a, lo, hi)
    if lo is not None:
        return maximum(a, lo)  # noqa: F821 (from the extension's table)
    if hi is not None:
        return minimum(a, hi)  # noqa: F821
    return asarray(a)


def shape(a):
    """The shape of ``a`` (an array or anything numpy reads)."""
    return tuple(a.shape) if isinstance(a, ndarray) else _np.shape(a)


def ndim(a):
    """The number of dimensions of ``a``."""
    return len(shape(a))


def size(a):
    """The number of elements of ``a``."""
    n = 1
    for d in shape(a):
        n *= d
    return n


def astype(x, dtype):
    """``x`` converted to ``dtype``."""
    return asarray(x).astype(dtype)


