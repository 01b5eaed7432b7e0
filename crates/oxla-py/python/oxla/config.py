"""Global switches, as ``jax.config``: ``config.update("jax_enable_x64", True)``,
``"jax_disable_jit"``, and ``"jax_num_cpu_devices"`` (before the devices' first use; the
``XLA_FLAGS`` entry ``--xla_force_host_platform_device_count=n`` sets it too)."""

import contextlib
import os
import re

from . import _oxla

__all__ = ["update", "read", "disable_jit"]

# Whether `jit` runs functions eagerly (`disable_jit`); read on every jitted call.
JIT_DISABLED = [False]

_FLAGS = {
    "jax_enable_x64": (_oxla.x64_enabled, lambda v: _oxla.enable_x64(bool(v))),
    "jax_disable_jit": (lambda: JIT_DISABLED[0], lambda v: JIT_DISABLED.__setitem__(0, bool(v))),
    "jax_num_cpu_devices": (_oxla.local_device_count, lambda v: _oxla.set_num_devices(int(v))),
}


def update(name, value):
    """Sets the flag ``name``."""
    if name not in _FLAGS:
        raise AttributeError(f"oxla has no flag {name!r}")
    _FLAGS[name][1](value)


def read(name):
    """The value of the flag ``name``."""
    if name not in _FLAGS:
        raise AttributeError(f"oxla has no flag {name!r}")
    return _FLAGS[name][0]()


@contextlib.contextmanager
def disable_jit(disable=True):
    """Within the block, jitted functions run eagerly, line by line (``jax.disable_jit``)."""
    previous = JIT_DISABLED[0]
    JIT_DISABLED[0] = bool(disable)
    try:
        yield
    finally:
        JIT_DISABLED[0] = previous


def _devices_from_xla_flags():
    """JAX's CPU device count from ``XLA_FLAGS``, for oxla's ``OXLA_NUM_DEVICES``."""
    m = re.search(r"--xla_force_host_platform_device_count=(\d+)", os.environ.get("XLA_FLAGS", ""))
    if m and "OXLA_NUM_DEVICES" not in os.environ:
        os.environ["OXLA_NUM_DEVICES"] = m.group(1)


_devices_from_xla_flags()
