"""``lax``'s special functions (the gamma family, Bessel functions, zeta), re-exported by
``oxla.lax``."""

__all__ = []
