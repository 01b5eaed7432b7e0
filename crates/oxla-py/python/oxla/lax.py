"""``oxla.lax``: JAX's ``lax`` functions (``map`` for now)."""

from ._api import vmap

__all__ = ["map"]


def map(f, xs, *, batch_size=None):
    """``f`` over the leading axis of ``xs``, ``batch_size`` slices at a time (one at a time
    by default): memory for a batch, not for all of them."""
    return vmap(f, chunk_size=batch_size or 1)(xs)
