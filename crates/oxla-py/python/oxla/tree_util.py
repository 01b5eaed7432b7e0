"""Pytrees, as `jax.tree_util` defines them.

Containers are tuples, lists, dicts (``OrderedDict`` and ``defaultdict`` too; children in
sorted key order), namedtuples, ``None`` (a tree with no leaves) and any type registered
with :func:`register_pytree_node`; everything else is a leaf.
"""

import collections
import functools


__all__ = [
    "PyTreeDef",
    "register_pytree_node",
    "register_pytree_node_class",
    "register_dataclass",
    "tree_flatten",
    "tree_unflatten",
    "tree_leaves",
    "tree_structure",
    "tree_map",
    "tree_reduce",
    "all_leaves",
    "LEAF",
]

_registry = {}


def register_pytree_node(nodetype, flatten_func, unflatten_func):
    """Registers ``nodetype`` as a container: ``flatten_func(x)`` returns ``(children,
    aux_data)`` and ``unflatten_func(aux_data, children)`` rebuilds it."""
    _registry[nodetype] = (flatten_func, unflatten_func)
    return nodetype


def register_pytree_node_class(cls):
    """Registers a class with ``tree_flatten`` and a ``tree_unflatten`` classmethod."""
    register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
    return cls


def register_dataclass(nodetype, data_fields=None, meta_fields=None, drop_fields=()):
    """Registers a dataclass: ``data_fields`` are children, ``meta_fields`` part of the
    structure (static). Without the lists (as a decorator), fields whose metadata says
    ``static=True`` are meta fields and the others data fields, as in JAX."""
    import dataclasses

    if data_fields is None or meta_fields is None:
        fields = [f for f in dataclasses.fields(nodetype) if f.name not in drop_fields]
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)

    def flatten(x):
        return ([getattr(x, n) for n in data_fields],
                tuple(getattr(x, n) for n in meta_fields))

    def unflatten(meta, children):
        return nodetype(**dict(zip(data_fields, children)), **dict(zip(meta_fields, meta)))

    register_pytree_node(nodetype, flatten, unflatten)
    return nodetype


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


class PyTreeDef:
    """The structure of a pytree: its containers, without the leaves."""

    __slots__ = ("kind", "data", "children", "num_leaves", "num_nodes", "_hash")

    def __init__(self, kind, data, children):
        self.kind = kind
        self.data = data
        self.children = tuple(children)
        if kind == "leaf":
            self.num_leaves, self.num_nodes = 1, 1
        else:
            self.num_leaves = sum(c.num_leaves for c in self.children)
            self.num_nodes = 1 + sum(c.num_nodes for c in self.children)
        self._hash = None

    def _key(self):
        return (self.kind, self.data, self.children)

    def __eq__(self, other):
        return isinstance(other, PyTreeDef) and self._key() == other._key()

    def __hash__(self):
        if self._hash is None:
            self._hash = hash(self._key())
        return self._hash

    def unflatten(self, leaves):
        """The tree of this structure holding ``leaves`` in order."""
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(
                f"Too {'few' if len(leaves) < self.num_leaves else 'many'} leaves for "
                f"PyTreeDef; expected {self.num_leaves}, got {len(leaves)}."
            )
        it = iter(leaves)
        return self._build(it)

    def _build(self, it):
        kind = self.kind
        if kind == "leaf":
            return next(it)
        if kind == "none":
            return None
        kids = [c._build(it) for c in self.children]
        if kind == "tuple":
            return tuple(kids)
        if kind == "list":
            return kids
        if kind == "dict":
            return dict(zip(self.data, kids))
        if kind == "ordereddict":
            return collections.OrderedDict(zip(self.data, kids))
        if kind == "defaultdict":
            factory, keys = self.data
            return collections.defaultdict(factory, zip(keys, kids))
        if kind == "namedtuple":
            return self.data(*kids)
        nodetype, aux = self.data
        return _registry[nodetype][1](aux, kids)

    def _str(self):
        kind = self.kind
        if kind == "leaf":
            return "*"
        if kind == "none":
            return "None"
        kids = [c._str() for c in self.children]
        if kind == "tuple":
            return "(" + ", ".join(kids) + ("," if len(kids) == 1 else "") + ")"
        if kind == "list":
            return "[" + ", ".join(kids) + "]"
        if kind == "dict":
            return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(self.data, kids)) + "}"
        if kind in ("ordereddict", "defaultdict"):
            keys = self.data if kind == "ordereddict" else self.data[1]
            return f"{kind}(" + ", ".join(f"{k!r}: {v}" for k, v in zip(keys, kids)) + ")"
        if kind == "namedtuple":
            return f"{self.data.__name__}(" + ", ".join(
                f"{f}={v}" for f, v in zip(self.data._fields, kids)) + ")"
        nodetype, aux = self.data
        return f"CustomNode({nodetype.__name__}[{aux!r}], [" + ", ".join(kids) + "])"

    def __repr__(self):
        return f"PyTreeDef({self._str()})"


LEAF = PyTreeDef("leaf", None, ())
"""The structure of a single leaf."""


def node(x):
    """``(kind, data, children)`` of a pytree node, in flattening order; ``None`` for a
    leaf (and ``("none", None, [])`` for ``None``)."""
    if x is None:
        return "none", None, []
    t = type(x)
    if t is tuple:
        return "tuple", None, list(x)
    if t is list:
        return "list", None, list(x)
    if t is dict or t is collections.OrderedDict or t is collections.defaultdict:
        keys = tuple(sorted(x)) if t is not collections.OrderedDict else tuple(x)
        kids = [x[k] for k in keys]
        if t is dict:
            return "dict", keys, kids
        if t is collections.OrderedDict:
            return "ordereddict", keys, kids
        return "defaultdict", (x.default_factory, keys), kids
    if t in _registry:
        children, aux = _registry[t][0](x)
        return "custom", (t, aux), list(children)
    if _is_namedtuple(x):
        return "namedtuple", t, list(x)
    return None


def _flatten(x, leaves, is_leaf):
    if is_leaf is not None and is_leaf(x):
        leaves.append(x)
        return LEAF
    n = node(x)
    if n is None:
        leaves.append(x)
        return LEAF
    kind, data, kids = n
    return PyTreeDef(kind, data, [_flatten(c, leaves, is_leaf) for c in kids])


def tree_flatten(tree, is_leaf=None):
    """``(leaves, treedef)``: the leaves in order and the structure around them."""
    leaves = []
    treedef = _flatten(tree, leaves, is_leaf)
    return leaves, treedef


def tree_unflatten(treedef, leaves):
    """The tree of structure ``treedef`` holding ``leaves``."""
    return treedef.unflatten(leaves)


def tree_leaves(tree, is_leaf=None):
    """The leaves of ``tree`` in order."""
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    """The structure of ``tree``."""
    return tree_flatten(tree, is_leaf)[1]


def all_leaves(iterable):
    """Whether every element of ``iterable`` is a leaf."""
    return all(tree_structure(x) == LEAF for x in iterable)


def _flatten_up_to(treedef, tree):
    """The subtrees of ``tree`` at the leaves of ``treedef`` (``treedef`` a prefix of
    ``tree``'s structure)."""
    if treedef.kind == "leaf":
        return [tree]
    sub = tree_structure(tree, is_leaf=lambda x: x is not tree)
    if (sub.kind, sub.data) != (treedef.kind, treedef.data) or len(sub.children) != len(
            treedef.children):
        raise ValueError(f"Custom node type mismatch; expected {treedef}, got a tree of "
                         f"structure {tree_structure(tree)}.")
    children = tree_flatten(tree, is_leaf=lambda x: x is not tree)[0]
    return [s for d, c in zip(treedef.children, children) for s in _flatten_up_to(d, c)]


def tree_map(f, tree, *rest, is_leaf=None):
    """``f`` applied to the leaves of ``tree`` and the matching subtrees of ``rest`` (trees
    with ``tree``'s structure as a prefix)."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = [_flatten_up_to(treedef, r) for r in rest]
    return treedef.unflatten(f(*xs) for xs in zip(leaves, *others))


def tree_reduce(function, tree, *initializer, is_leaf=None):
    """The leaves of ``tree`` folded with ``function`` (from ``initializer`` if given)."""
    return functools.reduce(function, tree_leaves(tree, is_leaf), *initializer)
