"""``oxla.numpy``'s products (``einsum``, ``tensordot``, ``vdot``, ``vecdot``, ``matvec``,
``vecmat``, ``kron``, ``cross``), ``trace`` and ``angle`` (from the extension's
``_oxla.linalg.products``)."""

from .._oxla import linalg as _l

__all__ = ["angle", "cross", "einsum", "kron", "matvec", "tensordot", "trace", "vdot",
           "vecdot", "vecmat"]

globals().update({name: getattr(_l.products, name) for name in __all__})
