"""``oxla.numpy.linalg`` (``norm`` for now)."""

from .._oxla import norm

__all__ = ["norm"]
