"""``oxla.lax.linalg``: ``jax.lax.linalg``'s decompositions and solves."""

__all__ = []
