"""``oxla.numpy.fft``: ``jax.numpy.fft``'s transforms, sample frequencies and shifts."""

from .._oxla import fft as _f

__all__ = [
    "fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "ifftn", "rfftn", "irfftn",
    "fft2", "ifft2", "rfft2", "irfft2", "fftfreq", "rfftfreq", "fftshift", "ifftshift",
]

globals().update({name: getattr(_f, name) for name in __all__})
