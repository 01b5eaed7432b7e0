"""``lax``'s collectives over named axes (``vmap(..., axis_name=)``, ``pmap``,
``shard_map``), re-exported by ``oxla.lax``; each takes a pytree of arrays, as JAX's do."""

from . import _oxla
from .tree_util import tree_map

__all__ = ["psum", "pmean", "pmax", "pmin", "axis_index", "axis_size", "all_gather",
           "psum_scatter", "ppermute", "pshuffle", "all_to_all"]


def _names(axis_name):
    return [axis_name] if isinstance(axis_name, str) else list(axis_name)


def psum(x, axis_name, *, axis_index_groups=None):
    """The sum of ``x`` over the named axes (a name or a tuple of names), on every member."""
    _no_groups(axis_index_groups)
    return tree_map(lambda a: _oxla.preduce("psum", a, _names(axis_name)), x)


def pmean(x, axis_name, *, axis_index_groups=None):
    """The mean of ``x`` over the named axes, on every member."""
    _no_groups(axis_index_groups)
    return tree_map(lambda a: _oxla.preduce("pmean", a, _names(axis_name)), x)


def pmax(x, axis_name, *, axis_index_groups=None):
    """The maximum of ``x`` over the named axes, on every member."""
    _no_groups(axis_index_groups)
    return tree_map(lambda a: _oxla.preduce("pmax", a, _names(axis_name)), x)


def pmin(x, axis_name, *, axis_index_groups=None):
    """The minimum of ``x`` over the named axes, on every member."""
    _no_groups(axis_index_groups)
    return tree_map(lambda a: _oxla.preduce("pmin", a, _names(axis_name)), x)


def _no_groups(groups):
    if groups is not None:
        raise NotImplementedError("oxla's collectives take no axis_index_groups")


def axis_index(axis_name):
    """This member's index along the named axes (an int32 scalar)."""
    return _oxla.axis_index(_names(axis_name))


def axis_size(axis_name):
    """The size of the named axes (their product, for a tuple)."""
    return _oxla.axis_size(_names(axis_name))


def all_gather(x, axis_name, *, axis_index_groups=None, axis=0, tiled=False):
    """Every member's ``x``, stacked along ``axis`` (``tiled``: concatenated)."""
    _no_groups(axis_index_groups)
    return tree_map(lambda a: _oxla.all_gather(a, axis_name, axis % (len(a.shape) + (not tiled)),
                                               tiled), x)


def psum_scatter(x, axis_name, *, scatter_dimension=0, axis_index_groups=None, tiled=False):
    """The sum over the named axis, each member keeping its block of ``scatter_dimension``."""
    _no_groups(axis_index_groups)
    return tree_map(lambda a: _oxla.psum_scatter(a, axis_name, scatter_dimension, tiled), x)


def ppermute(x, axis_name, perm):
    """Each ``(source, destination)`` pair of ``perm`` sends the source's ``x`` to the
    destination; members no pair sends to get zeros."""
    perm = [(int(s), int(d)) for s, d in perm]
    return tree_map(lambda a: _oxla.ppermute(a, axis_name, perm), x)


def pshuffle(x, axis_name, perm):
    """Member ``j`` receives member ``perm[j]``'s ``x``."""
    perm = [int(p) for p in perm]
    return tree_map(lambda a: _oxla.pshuffle(a, axis_name, perm), x)


def all_to_all(x, axis_name, split_axis, concat_axis, *, axis_index_groups=None, tiled=False):
    """Each member's ``x`` split along ``split_axis``, piece ``k`` sent to member ``k``, and
    the pieces received joined along ``concat_axis``."""
    _no_groups(axis_index_groups)
    return tree_map(lambda a: _oxla.all_to_all(a, axis_name, split_axis, concat_axis, tiled), x)
