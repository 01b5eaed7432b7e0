"""Global switches, as ``jax.config``: ``config.update("jax_enable_x64", True)``."""

from . import _oxla

__all__ = ["update", "read"]

_FLAGS = {"jax_enable_x64": (_oxla.x64_enabled, _oxla.enable_x64)}


def update(name, value):
    """Sets the flag ``name`` (``"jax_enable_x64"``)."""
    if name not in _FLAGS:
        raise AttributeError(f"oxla has no flag {name!r}")
    _FLAGS[name][1](bool(value))


def read(name):
    """The value of the flag ``name``."""
    if name not in _FLAGS:
        raise AttributeError(f"oxla has no flag {name!r}")
    return _FLAGS[name][0]()
