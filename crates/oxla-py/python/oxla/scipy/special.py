"""``oxla.scipy.special``: ``jax.scipy.special``'s functions."""

__all__ = []
