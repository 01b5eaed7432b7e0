"""``oxla.scipy.special``: ``jax.scipy.special``'s functions (the extension's ``special``
submodule)."""

from .._oxla import special as _f

__all__ = sorted(n for n in dir(_f) if not n.startswith("_") and n != "lax")

globals().update({_n: getattr(_f, _n) for _n in __all__})
