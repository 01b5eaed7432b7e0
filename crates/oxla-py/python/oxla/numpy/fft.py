"""``oxla.numpy.fft``: ``jax.numpy.fft``'s transforms."""

__all__ = []
