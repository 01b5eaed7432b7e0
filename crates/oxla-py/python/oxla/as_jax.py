"""Runs a program written for JAX on oxla: ``python -m oxla.as_jax script.py [args...]``.

``jax`` and its modules (``jax.numpy`` with ``linalg`` and ``fft``, ``jax.lax``,
``jax.scipy.special``, ``jax.random``, ``jax.nn``, ``jax.sharding``, ``jax.debug``,
``jax.tree``, ``jax.tree_util``) are oxla's modules while the script runs; a function
oxla lacks raises ``AttributeError`` where the script uses it, and a module it lacks
``ModuleNotFoundError`` where the script imports it.
"""

import runpy
import sys

import oxla


def install():
    """Makes ``import jax`` (and its submodules) import oxla's."""
    sys.modules.update({
        "jax": oxla,
        "jax.numpy": oxla.numpy,
        "jax.numpy.fft": oxla.numpy.fft,
        "jax.numpy.linalg": oxla.numpy.linalg,
        "jax.scipy": oxla.scipy,
        "jax.scipy.special": oxla.scipy.special,
        "jax.lax.linalg": oxla.lax.linalg,
        "jax.sharding": oxla.sharding,
        "jax.debug": oxla.debug,
        "jax.lax": oxla.lax,
        "jax.random": oxla.random,
        "jax.nn": oxla.nn,
        "jax.tree": oxla.tree,
        "jax.tree_util": oxla.tree_util,
    })


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: python -m oxla.as_jax script.py [args...]")
    install()
    sys.argv = sys.argv[1:]
    runpy.run_path(sys.argv[0], run_name="__main__")


if __name__ == "__main__":
    main()
