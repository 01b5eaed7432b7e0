"""``lax``'s complex-number functions (``complex``, ``real``, ``imag``, ``conj``), re-exported
by ``oxla.lax``."""

__all__ = []
