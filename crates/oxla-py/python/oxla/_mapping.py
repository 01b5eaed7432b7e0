"""``vmap`` and ``pmap`` on pytrees: axes given as tree prefixes, broadcast to one axis per
leaf, and outputs placed where ``out_axes`` says (mapped along any axis, or the same for
every example with ``None``)."""

import functools

from . import _oxla
from .tree_util import node, tree_flatten, tree_unflatten

__all__ = ["vmap", "pmap"]


def _broadcast_prefix(prefix, tree, what, name="vmap"):
    """One axis per leaf of ``tree`` from ``prefix``, a tree whose leaves (ints or None)
    apply to whole subtrees: its nodes must be ``tree``'s (a list and a tuple stand for
    each other), children in the same flattening order."""
    if prefix is None or isinstance(prefix, int):
        return [prefix] * len(tree_flatten(tree)[0])
    p, t = node(prefix), node(tree)
    same = p is not None and t is not None and (
        p[0] == t[0] or {p[0], t[0]} == {"tuple", "list"}) and len(p[2]) == len(t[2])
    if not same or (p[0] not in ("tuple", "list") and p[1] != t[1]):
        raise ValueError(
            f"{name} {what} specification must be a tree prefix of the corresponding "
            f"value, got specification {prefix!r} for value tree {tree_flatten(tree)[1]}")
    return [a for pc, tc in zip(p[2], t[2]) for a in _broadcast_prefix(pc, tc, what, name)]


def _check_axes(in_axes, name):
    if isinstance(in_axes, list):
        # As JAX does: a list of axes for the positional arguments is read as a tuple.
        in_axes = tuple(in_axes)
    if not (in_axes is None or isinstance(in_axes, (int, tuple))):
        raise TypeError(
            f"{name} in_axes must be an int, None, or a tuple of entries corresponding to the "
            f"positional arguments passed to the function, but got {in_axes!r}.")
    return in_axes


def _split(fun, treedef, box, out_axes, name, blocks=False):
    """``fun`` of the tree ``treedef`` as a function of its leaves returning
    ``[mapped, unmapped]``: its output leaves split by ``out_axes`` (broadcast over the
    output, whose structure and axes go into ``box``). ``blocks`` (``shard_map``): a
    mapped leaf's dimension is moved to the front, as the blocks are joined along axis 0
    (``_place`` moves it back)."""

    def flat(leaves):
        args, kwargs = tree_unflatten(treedef, leaves)
        out = fun(*args, **kwargs)
        out_leaves, box["out"] = tree_flatten(out)
        box["axes"] = axes = _broadcast_prefix(out_axes, out, "out_axes", name)
        mapped = [x for x, a in zip(out_leaves, axes) if a is not None]
        if blocks:
            mapped = [_to_front(x, a) for x, a in zip(mapped, [a for a in axes if a is not None])]
        return mapped, [x for x, a in zip(out_leaves, axes) if a is None]

    return flat


def _to_front(x, a):
    """``x`` with its axis ``a`` moved to the front."""
    n = len(x.shape)
    a %= max(n, 1)
    if not a:
        return x
    return _oxla.transpose(x, [a] + [d for d in range(n) if d != a])


def _place(box, mapped, same):
    """The output tree from the mapped leaves (axis 0 moved to its ``out_axes`` entry) and
    the unmapped ones, in the output's order."""
    mapped, same = iter(mapped), iter(same)
    leaves = []
    for a in box["axes"]:
        if a is None:
            leaves.append(next(same))
            continue
        x = next(mapped)
        n = len(x.shape)
        if a < -n or a >= n:
            raise ValueError(f"out_axes {a} is out of bounds for a mapped output of rank {n}")
        a %= n
        if a:
            x = _oxla.transpose(x, list(range(1, a + 1)) + [0] + list(range(a + 1, n)))
        leaves.append(x)
    return tree_unflatten(box["out"], leaves)


def vmap(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, *, chunk_size=None,
         memory_budget=None):
    """``fun`` mapped over axis ``in_axes`` of its arguments, its results mapped along
    ``out_axes`` (both tree prefixes; ``None``: not mapped).

    oxla's keywords: ``chunk_size=k`` runs ``k`` examples at a time; ``memory_budget=bytes``
    picks the chunk size from the memory plan and raises ``OutOfMemoryError`` when no
    chunk fits."""
    in_axes = _check_axes(in_axes, "vmap")

    @functools.wraps(fun)
    def batched(*args, **kwargs):
        axes = _broadcast_prefix(in_axes, args, "in_axes")
        axes += [0] * len(tree_flatten(kwargs)[0])
        leaves, treedef = tree_flatten((args, kwargs))
        box = {}
        mapped, same = _oxla.vmap(_split(fun, treedef, box, out_axes, "vmap"), leaves, axes,
                                  axis_name, axis_size, chunk_size, memory_budget)
        return _place(box, mapped, same)

    return batched


def pmap(fun, axis_name=None, *, in_axes=0, out_axes=0, static_broadcasted_argnums=(),
         devices=None, backend=None, axis_size=None, donate_argnums=()):
    """``fun`` run once per device, one example of axis ``in_axes`` each: ``vmap`` with the
    examples spread over the devices (``jax.device_count()`` of them at most), and
    collectives over ``axis_name`` running across devices.

    oxla runs on CPU devices (``jax.config.update("jax_num_cpu_devices", n)`` or
    ``XLA_FLAGS=--xla_force_host_platform_device_count=n``); ``devices`` and ``backend``
    must be left out, and ``donate_argnums`` is accepted and ignored (nothing is donated)."""
    if devices is not None or backend not in (None, "cpu"):
        raise NotImplementedError("oxla's pmap runs on all of its CPU devices")
    in_axes = _check_axes(in_axes, "pmap")
    statics = ((static_broadcasted_argnums,) if isinstance(static_broadcasted_argnums, int)
               else tuple(static_broadcasted_argnums))

    @functools.wraps(fun)
    def mapped(*args, **kwargs):
        if kwargs:
            raise NotImplementedError("oxla's pmap takes positional arguments")
        static = {i % len(args): args[i] for i in statics}
        dyn = tuple(a for i, a in enumerate(args) if i not in static)
        dyn_axes = in_axes
        if isinstance(in_axes, tuple) and static:
            dyn_axes = tuple(a for i, a in enumerate(in_axes) if i not in static)

        def call(*d):
            it = iter(d)
            return fun(*[static[i] if i in static else next(it) for i in range(len(args))])

        axes = _broadcast_prefix(dyn_axes, dyn, "in_axes", "pmap")
        leaves, treedef = tree_flatten((dyn, {}))
        box = {}
        m, same = _oxla.pmap(_split(call, treedef, box, out_axes, "pmap"), leaves, axes,
                             axis_name)
        return _place(box, m, same)

    return mapped
