"""oxla: JAX's composable transformations, built in Rust, with memory you can see and bound.

Write ``import oxla as jax`` and ``import oxla.numpy as jnp``; the memory features are
keywords: ``vmap(f, chunk_size=k)``, ``vmap(f, memory_budget=bytes)``, and
``jit(f).lower(*args).compile().memory_analysis()``.
"""

from . import errors, lax, nn, numpy, random, scipy, tree, tree_util
from ._api import (
    block_until_ready,
    explain,
    grad,
    jit,
    jvp,
    make_jaxpr,
    value_and_grad,
    vjp,
    vmap,
)
from ._jacobians import hessian, jacfwd, jacrev
from ._oxla import Array
from .errors import ConcretizationTypeError, OutOfMemoryError
from . import config

__all__ = [
    "Array",
    "ConcretizationTypeError",
    "OutOfMemoryError",
    "block_until_ready",
    "config",
    "errors",
    "explain",
    "grad",
    "hessian",
    "jacfwd",
    "jacrev",
    "jit",
    "jvp",
    "lax",
    "make_jaxpr",
    "nn",
    "random",
    "scipy",
    "numpy",
    "tree",
    "tree_util",
    "value_and_grad",
    "vjp",
    "vmap",
]
