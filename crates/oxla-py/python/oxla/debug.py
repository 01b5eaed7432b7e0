"""``oxla.debug``: ``print`` and ``callback`` on the values of traced arrays, when the
program runs (eagerly at once; under ``jit`` each time the compiled program reaches them;
under ``vmap`` once per example; under ``grad`` on the forward pass)."""

import builtins

from . import _oxla
from .tree_util import tree_flatten, tree_unflatten

__all__ = ["print", "callback"]


def callback(callback, *args, ordered=False, partitioned=False, **kwargs):
    """Calls ``callback(*args, **kwargs)`` with concrete arrays when the program runs; its
    result is dropped."""
    leaves, treedef = tree_flatten((args, kwargs))

    def run(values):
        a, k = tree_unflatten(treedef, values)
        callback(*a, **k)

    _oxla.debug_callback(run, leaves)


def print(fmt, *args, ordered=False, **kwargs):
    """Prints ``fmt.format(*args, **kwargs)`` with the arrays' values when the program
    runs."""
    callback(lambda *a, **k: builtins.print(fmt.format(*a, **k)), *args, ordered=ordered,
             **kwargs)
