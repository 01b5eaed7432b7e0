"""``oxla.numpy``'s shape, polynomial and miscellaneous functions (re-exported by
``oxla.numpy``): the extension's ``shape`` submodule, with JAX's keywords."""

from .._oxla import shape as _f

_DIRECT = [
    "fliplr", "flipud", "rot90", "tile", "repeat", "moveaxis", "swapaxes", "rollaxis",
    "split", "array_split", "hsplit", "vsplit", "dsplit", "concat", "append", "meshgrid",
    "diff", "ediff1d", "select", "delete", "insert", "block",
    "diagonal", "diag", "diagflat", "fill_diagonal", "tri", "tril", "triu", "tril_indices",
    "triu_indices", "tril_indices_from", "triu_indices_from", "indices", "broadcast_arrays",
    "identity",
    "polyval", "polyadd", "polysub", "polymul", "polyder", "polyint", "poly", "vander",
    "bartlett", "blackman", "hamming", "hanning", "kaiser", "trapezoid", "gradient", "unwrap",
    "array_equal", "array_equiv", "geomspace", "logspace",
    "divmod", "modf", "frexp", "round", "empty", "empty_like", "copy", "permute_dims",
    "matrix_transpose", "promote_types", "can_cast",
    "roll", "ravel", "interp", "nan_to_num", "iscomplex", "isreal",
    "result_type",
]
globals().update({name: getattr(_f, name) for name in _DIRECT})
around = round  # noqa: F821 (from the extension)

__all__ = _DIRECT + [
    "around", "vstack", "hstack", "dstack", "column_stack", "atleast_1d", "atleast_2d",
    "atleast_3d", "unstack", "unravel_index", "fromfunction",
    "broadcast_shapes", "iscomplexobj", "isrealobj",
]


def vstack(tup, dtype=None):
    """The arrays of ``tup`` (vectors as rows) joined along the first axis."""
    return _f.stack_named("vstack", tup, dtype)


def hstack(tup, dtype=None):
    """The arrays of ``tup`` joined along the second axis (the first for vectors)."""
    return _f.stack_named("hstack", tup, dtype)


def dstack(tup, dtype=None):
    """The arrays of ``tup`` (at least 3-d) joined along the third axis."""
    return _f.stack_named("dstack", tup, dtype)


def column_stack(tup):
    """The arrays of ``tup`` (vectors as columns) joined along the second axis."""
    return _f.stack_named("column_stack", tup)


def _atleast(rank, arys):
    out = [_f.atleast(rank, a) for a in arys]
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    """Each array with at least one dimension (one array, or a list of them)."""
    return _atleast(1, arys)


def atleast_2d(*arys):
    """Each array with at least two dimensions (one array, or a list of them)."""
    return _atleast(2, arys)


def atleast_3d(*arys):
    """Each array with at least three dimensions (one array, or a list of them)."""
    return _atleast(3, arys)


def unstack(x, /, *, axis=0):
    """The slices of ``x`` along ``axis``, as a tuple."""
    return tuple(_f.unstack(x, axis=axis))


def unravel_index(indices, shape):
    """The coordinates in an array of ``shape`` of the flat ``indices``, as a tuple."""
    return tuple(_f.unravel_index(indices, shape))


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """``function`` (with ``kwargs``) of the index grids of ``shape`` in ``dtype``."""
    return _f.fromfunction(lambda *grids: function(*grids, **kwargs), tuple(shape), dtype)


def broadcast_shapes(*shapes):
    """The shape ``shapes`` broadcast to, as a tuple."""
    return tuple(_f.broadcast_shapes(*shapes))


def iscomplexobj(x):
    """Whether ``x``'s dtype is complex."""
    return _f.is_complex_dtype(x, True)


def isrealobj(x):
    """Whether ``x``'s dtype is not complex."""
    return _f.is_complex_dtype(x, False)
