"""``lax``'s special functions (the incomplete gamma family, ``polygamma``, ``zeta``,
``betainc``, the scaled Bessel functions), re-exported by ``oxla.lax``; ``lgamma``,
``digamma`` and the error functions are in the extension's elementwise table."""

from ._oxla import special as _f

__all__ = sorted(n for n in dir(_f.lax) if not n.startswith("_"))

globals().update({_n: getattr(_f.lax, _n) for _n in __all__})
