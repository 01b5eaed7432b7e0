"""``oxla.tree``: the pytree functions by their short names, as ``jax.tree``."""

from .tree_util import tree_flatten as flatten
from .tree_util import tree_leaves as leaves
from .tree_util import tree_map as map
from .tree_util import tree_reduce as reduce
from .tree_util import tree_structure as structure
from .tree_util import tree_unflatten as unflatten

__all__ = ["flatten", "leaves", "map", "reduce", "structure", "unflatten"]
