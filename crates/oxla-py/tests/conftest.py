"""Shared helpers: the repository's paths, and JAX's module names pointing at oxla."""

import os
import sys
import types
from pathlib import Path

# Two CPU devices for pmap and shard_map, set the way JAX users set them (before oxla
# starts its devices).
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=2")

import numpy as np
import pytest

import oxla
import oxla.numpy

REPO = Path(__file__).resolve().parents[3]


def jax_alias():
    """A `jax` module whose names are oxla's, with `jax.numpy` and `jax.lax`, for running
    programs written for JAX; what oxla lacks raises AttributeError when used."""
    jax = types.ModuleType("jax")
    for name in oxla.__all__:
        setattr(jax, name, getattr(oxla, name))
    jax.__version__ = "oxla"
    return {"jax": jax, "jax.numpy": oxla.numpy, "jax.lax": oxla.lax,
            "jax.random": oxla.random, "jax.nn": oxla.nn, "jax.scipy": oxla.scipy,
            "jax.scipy.special": oxla.scipy.special, "jax.numpy.fft": oxla.numpy.fft,
            "jax.numpy.linalg": oxla.numpy.linalg, "jax.lax.linalg": oxla.lax.linalg}


@pytest.fixture
def x64():
    """Runs a test with 64-bit types enabled."""
    oxla.config.update("jax_enable_x64", True)
    yield
    oxla.config.update("jax_enable_x64", False)


def load_module(path, name, modules):
    """Imports the script at `path` with `modules` standing in for its imports."""
    import importlib.util

    saved = {k: sys.modules.get(k) for k in modules}
    sys.modules.update(modules)
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


def central_difference(loss, x, eps=1e-6, skip_nan=False):
    """The gradient of scalar `loss` at float64 array `x` by central differences."""
    fd = np.zeros_like(x)
    for j in np.ndindex(x.shape):
        if skip_nan and np.isnan(x[j]):
            continue
        up, down = x.copy(), x.copy()
        up[j] += eps
        down[j] -= eps
        fd[j] = (float(loss(oxla.numpy.asarray(up))) - float(loss(oxla.numpy.asarray(down)))) / (2 * eps)
    return fd
