"""``oxla.scipy``: ``jax.scipy``'s modules (``special``)."""

from . import special

__all__ = ["special"]
