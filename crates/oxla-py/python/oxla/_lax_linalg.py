"""``oxla.lax.linalg``: ``jax.lax.linalg``'s decompositions and solves."""

from ._oxla import linalg as _l

__all__ = ["cholesky", "eigh", "lu", "qr", "svd", "triangular_solve"]

globals().update({name: getattr(_l.lax, name) for name in __all__})
