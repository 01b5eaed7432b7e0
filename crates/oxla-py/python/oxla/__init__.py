"""oxla: JAX's composable transformations, built in Rust, with memory you can see and bound.

Write ``import oxla as jax`` and ``import oxla.numpy as jnp``; the memory features are
keywords: ``vmap(f, chunk_size=k)``, ``vmap(f, memory_budget=bytes)``, and
``jit(f).lower(*args).compile().memory_analysis()``.
"""

from . import config  # noqa: I001 (first: it reads XLA_FLAGS before the devices start)
from . import debug, errors, lax, nn, numpy, random, scipy, sharding, tree, tree_util
from ._api import (
    block_until_ready,
    explain,
    grad,
    jit,
    jvp,
    make_jaxpr,
    value_and_grad,
    vjp,
)
from ._jacobians import hessian, jacfwd, jacrev
from ._mapping import pmap, vmap
from ._parallel import (
    device_count,
    devices,
    local_device_count,
    local_devices,
    make_mesh,
    process_count,
    process_index,
    shard_map,
)
from .config import disable_jit
from ._oxla import Array
from .errors import ConcretizationTypeError, OutOfMemoryError

__all__ = [
    "debug",
    "device_count",
    "devices",
    "disable_jit",
    "local_device_count",
    "local_devices",
    "make_mesh",
    "process_count",
    "process_index",
    "shard_map",
    "sharding",
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
    "pmap",
    "tree",
    "tree_util",
    "value_and_grad",
    "vjp",
    "vmap",
]
