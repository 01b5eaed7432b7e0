"""``oxla.numpy``'s statistics, sorting, searching, sets and index functions (re-exported
by ``oxla.numpy``): the extension's ``stats`` submodule, by JAX's names, with the named
pairs of the unique family."""

from typing import NamedTuple

from .. import _oxla
from .._oxla import stats as _f


class _UniqueCountsResult(NamedTuple):
    values: _oxla.Array
    counts: _oxla.Array


class _UniqueInverseResult(NamedTuple):
    values: _oxla.Array
    inverse_indices: _oxla.Array


def unique_counts(x, /, *, size=None, fill_value=None):
    """The sorted distinct values of ``x`` and how often each occurs (the first ``size``,
    padded with ``fill_value``)."""
    return _UniqueCountsResult(*_f.unique_counts(x, size=size, fill_value=fill_value))


def unique_inverse(x, /, *, size=None, fill_value=None):
    """The sorted distinct values of ``x`` and, for each element of ``x``, the position of
    its value among them."""
    return _UniqueInverseResult(*_f.unique_inverse(x, size=size, fill_value=fill_value))


__all__ = sorted({n for n in dir(_f) if not n.startswith("_")} | {"unique_counts",
                                                                  "unique_inverse"})
globals().update({n: getattr(_f, n) for n in __all__ if n not in globals()})
