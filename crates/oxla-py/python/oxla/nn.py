"""``oxla.nn``: JAX's activations, softmax and friends, normalisation, attention and one-hot
encoding."""

from functools import partial as _partial

from . import _oxla
from ._oxla import elu, gelu, leaky_relu, one_hot
from ._oxla import lax_ops as _f

_UNARY = ["relu", "relu6", "sigmoid", "softplus", "silu", "swish", "log_sigmoid", "selu",
          "mish", "soft_sign", "hard_tanh", "identity", "hard_sigmoid", "hard_silu",
          "hard_swish", "tanh", "sparse_plus", "sparse_sigmoid", "log1mexp"]

__all__ = _UNARY + ["gelu", "elu", "leaky_relu", "one_hot", "celu", "glu", "squareplus",
                    "softmax", "log_softmax", "logsumexp", "logmeanexp", "standardize",
                    "dot_product_attention"]

for _name in _UNARY:
    globals()[_name] = _partial(_oxla.nn_unary, _name)
    globals()[_name].__doc__ = f"``jax.nn.{_name}``."
del _name

celu, glu, squareplus, logmeanexp, dot_product_attention = (
    _f.celu, _f.glu, _f.squareplus, _f.logmeanexp, _f.dot_product_attention)


def softmax(x, axis=-1, where=None):
    """``exp(x) / sum(exp(x), axis)``, computed stably (over the elements where ``where``
    holds; the others give 0)."""
    return _f.softmax(False, x, axis, where)


def log_softmax(x, axis=-1, where=None):
    """``x - logsumexp(x, axis)`` (over the elements where ``where`` holds; the others give
    ``-inf``)."""
    return _f.softmax(True, x, axis, where)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False, where=None):
    """``log(sum(b * exp(a), axis))``, computed stably; with ``return_sign``, ``log|sum|``
    and the sum's sign."""
    out = _f.logsumexp(a, axis, b, keepdims, return_sign, where)
    return tuple(out) if return_sign else out[0]


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *,
                algorithm="fast"):
    """``(x - mean) / sqrt(variance + epsilon)`` over ``axis``, the mean and variance
    ``x``'s (over the elements where ``where`` holds) unless given."""
    return _f.standardize(x, axis, mean, variance, epsilon, where, algorithm)
