"""``oxla.lax``: JAX's ``lax`` functions: the elementwise primitives of one array (from
the extension's table) and ``map``."""

from . import _oxla
from ._api import vmap

globals().update(_oxla.axis_functions()[1])

__all__ = ["map"] + sorted(_oxla.axis_functions()[1])


def map(f, xs, *, batch_size=None):
    """``f`` over the leading axis of ``xs``, ``batch_size`` slices at a time (one at a time
    by default): memory for a batch, not for all of them."""
    return vmap(f, chunk_size=batch_size or 1)(xs)
