"""``oxla.random``: JAX's counter-based random numbers (threefry2x32), bit for bit.

Keys are raw ``uint32[2]`` arrays, as ``jax.random.PRNGKey`` makes them; ``key`` is the
same (oxla has no typed keys) and ``key_data`` returns the key itself.
"""

from . import _oxla
from ._oxla import bits

globals().update(_oxla.random_functions())

__all__ = ["PRNGKey", "key", "key_data", "split", "fold_in", "normal", "uniform",
           "bernoulli", "randint", "bits"]


def key(seed):
    """A key from an integer seed (raw data, as ``PRNGKey``)."""
    return PRNGKey(seed)  # noqa: F821 (from the extension's table)


def key_data(keys):
    """The raw ``uint32`` data of a key: the key itself."""
    return keys
