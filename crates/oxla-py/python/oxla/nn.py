"""``oxla.nn``: JAX's activations, softmax and one-hot encoding."""

from functools import partial as _partial

from . import _oxla
from ._oxla import elu, gelu, leaky_relu, one_hot

__all__ = ["relu", "relu6", "sigmoid", "softplus", "silu", "swish", "log_sigmoid", "selu",
           "mish", "soft_sign", "hard_tanh", "gelu", "elu", "leaky_relu", "one_hot",
           "softmax", "log_softmax", "logsumexp"]

for _name in ["relu", "relu6", "sigmoid", "softplus", "silu", "swish", "log_sigmoid", "selu",
              "mish", "soft_sign", "hard_tanh"]:
    globals()[_name] = _partial(_oxla.nn_unary, _name)
    globals()[_name].__doc__ = f"``jax.nn.{_name}``."
del _name


def softmax(x, axis=-1):
    """``exp(x) / sum(exp(x), axis)``, computed stably."""
    return _oxla.nn_axis("softmax", x, axis)


def log_softmax(x, axis=-1):
    """``x - logsumexp(x, axis)``."""
    return _oxla.nn_axis("log_softmax", x, axis)


def logsumexp(x, axis=None):
    """``log(sum(exp(x), axis))``, computed stably."""
    return _oxla.nn_axis("logsumexp", x, axis)
