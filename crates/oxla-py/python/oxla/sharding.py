"""``oxla.sharding``: the meshes and partition specs ``shard_map`` takes, as
``jax.sharding``'s (oxla's meshes have one axis)."""

from . import _oxla

__all__ = ["Mesh", "PartitionSpec", "Device"]


class Device:
    """A CPU device (``jax.devices()``'s entries)."""

    platform = "cpu"
    device_kind = "cpu"

    def __init__(self, id):
        self.id = id

    def __repr__(self):
        return f"CpuDevice(id={self.id})"


class PartitionSpec(tuple):
    """For each dimension of an array, the mesh axis it is cut along (``None``: whole)."""

    def __new__(cls, *parts):
        return super().__new__(cls, parts)

    def __repr__(self):
        return f"PartitionSpec{tuple.__repr__(self)}"


class Mesh:
    """Devices arranged along named axes; oxla's meshes have one axis."""

    def __init__(self, devices, axis_names):
        if isinstance(axis_names, str):
            axis_names = (axis_names,)
        axis_names = tuple(axis_names)
        devices = list(getattr(devices, "flat", devices))
        if len(axis_names) != 1:
            raise NotImplementedError(f"oxla's meshes have one axis, got {axis_names}")
        self.devices = devices
        self.axis_names = axis_names
        self.shape = {axis_names[0]: len(devices)}
        self.size = len(devices)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return f"Mesh(axis_sizes=({self.size},), axis_names={self.axis_names})"


def devices():
    """The devices, as ``jax.devices()``."""
    return [Device(i) for i in range(_oxla.device_count())]
