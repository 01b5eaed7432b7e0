"""``lax``'s complex-number functions (``complex``, ``real``, ``imag``, ``conj``), re-exported
by ``oxla.lax``."""

from ._oxla import linalg as _l

__all__ = ["complex", "real", "imag", "conj"]

globals().update({name: getattr(_l.lax, name) for name in __all__})
