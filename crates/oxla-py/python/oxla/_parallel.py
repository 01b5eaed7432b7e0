"""Devices, ``shard_map`` over a 1-D mesh and ``make_mesh``, as JAX's."""

import functools

from . import _oxla
from ._mapping import _broadcast_prefix, _place, _split
from .sharding import Mesh, PartitionSpec, devices
from .tree_util import tree_flatten

__all__ = ["device_count", "local_device_count", "devices", "local_devices", "make_mesh",
           "shard_map", "process_index", "process_count"]


def device_count():
    """The number of devices (every process's)."""
    return _oxla.device_count()


def local_device_count():
    """The number of this process's devices."""
    return _oxla.local_device_count()


def local_devices():
    """This process's devices."""
    return devices()[:local_device_count()]


def process_index():
    """This process's index (0: oxla's Python package runs one process)."""
    return 0


def process_count():
    """The number of processes (1)."""
    return 1


def make_mesh(axis_shapes, axis_names, *, devices=None, axis_types=None):
    """A mesh of ``axis_shapes`` devices named ``axis_names`` (one axis)."""
    if len(tuple(axis_shapes)) != 1:
        raise NotImplementedError(f"oxla's meshes have one axis, got shape {axis_shapes}")
    (n,) = axis_shapes
    return Mesh((devices or globals()["devices"]())[:n], axis_names)


def _dims(spec, axis, what):
    """The dimension a ``PartitionSpec`` cuts along ``axis`` (``None``: not cut)."""
    if spec is None:
        return None
    if not isinstance(spec, tuple):
        raise TypeError(f"shard_map {what} entries must be PartitionSpecs, got {spec!r}")
    cut = [d for d, name in enumerate(spec) if name is not None]
    for d in cut:
        if spec[d] != axis:
            raise NotImplementedError(f"shard_map: {spec!r} names an axis other than the "
                                      f"mesh's {axis!r}")
    if len(cut) > 1:
        raise ValueError(f"shard_map: {spec!r} cuts more than one dimension along {axis!r}")
    return cut[0] if cut else None


def _spec_leaves(specs, tree, axis, what):
    """One cut dimension per leaf of ``tree`` from ``specs``, a tree prefix of
    ``PartitionSpec``s."""
    if isinstance(specs, PartitionSpec) or specs is None:
        return [_dims(specs, axis, what)] * len(tree_flatten(tree)[0])
    as_axes = _to_axes(specs, axis, what)
    return _broadcast_prefix(as_axes, tree, what, "shard_map")


def _to_axes(specs, axis, what):
    if isinstance(specs, PartitionSpec) or specs is None:
        return _dims(specs, axis, what)
    if isinstance(specs, (tuple, list)):
        return type(specs)(_to_axes(s, axis, what) for s in specs)
    if isinstance(specs, dict):
        return {k: _to_axes(v, axis, what) for k, v in specs.items()}
    raise TypeError(f"shard_map {what} must be PartitionSpecs, got {specs!r}")


def shard_map(f=None, /, *, out_specs, in_specs=None, mesh=None, axis_names=None,
              check_vma=True):
    """``f`` run once per device of ``mesh`` on blocks of its arguments, each cut along the
    dimension its ``in_specs`` entry names; each result joined along its ``out_specs``
    dimension (``P()``: the same on every device)."""
    if f is None:
        return functools.partial(shard_map, out_specs=out_specs, in_specs=in_specs,
                                 mesh=mesh, axis_names=axis_names, check_vma=check_vma)
    if mesh is None:
        raise NotImplementedError("oxla's shard_map needs mesh=")
    (axis,) = mesh.axis_names

    @functools.wraps(f)
    def mapped(*args):
        ins = _spec_leaves(in_specs if in_specs is not None else PartitionSpec(axis), args,
                           axis, "in_specs")
        leaves, treedef = tree_flatten((args, {}))
        box = {}
        outs = _to_axes(out_specs, axis, "out_specs")
        m, same = _oxla.shard_map(_split(f, treedef, box, outs, "shard_map", blocks=True),
                                  leaves, ins, axis, mesh.size, bool(check_vma))
        return _place(box, m, same)

    return mapped
