"""``oxla.scipy.special``: ``jax.scipy.special``'s functions (the extension's ``special``
submodule, and ``logsumexp``/``softmax``/``log_softmax`` as ``oxla.nn`` has them)."""

from .. import nn as _nn
from .._oxla import special as _f

_TABLE = sorted(n for n in dir(_f) if not n.startswith("_") and n != "lax")
globals().update({_n: getattr(_f, _n) for _n in _TABLE})
logsumexp = _nn.logsumexp

__all__ = _TABLE + ["logsumexp", "softmax", "log_softmax"]


def softmax(x, /, *, axis=None):
    """``exp(x) / sum(exp(x))`` over ``axis`` (``None``: every axis), computed stably."""
    return _nn.softmax(x, axis=axis)


def log_softmax(x, /, *, axis=None):
    """``x - logsumexp(x, axis)`` (``None``: every axis)."""
    return _nn.log_softmax(x, axis=axis)
