"""``oxla.debug``: ``print`` and ``callback`` on the values of traced arrays, when the
program runs (eagerly at once; under ``jit`` each time the compiled program reaches them;
under ``vmap`` once per example; under ``grad`` on the forward pass)."""

import builtins

import numpy as _np

from . import _oxla
from ._oxla import Array
from .tree_util import tree_flatten, tree_unflatten

__all__ = ["print", "callback"]


def _is_array(x):
    return isinstance(x, (Array, _np.ndarray, _np.generic, bool, int, float, complex))


def callback(callback, *args, ordered=False, partitioned=False, **kwargs):
    """Calls ``callback(*args, **kwargs)`` with concrete arrays when the program runs (other
    leaves, such as strings, are passed as they are); its result is dropped."""
    leaves, treedef = tree_flatten((args, kwargs))
    arrays = [x for x in leaves if _is_array(x)]

    def run(values):
        it = iter(values)
        a, k = tree_unflatten(treedef, [next(it) if _is_array(x) else x for x in leaves])
        callback(*a, **k)

    _oxla.debug_callback(run, arrays)


def print(fmt, *args, ordered=False, **kwargs):
    """Prints ``fmt.format(*args, **kwargs)`` with the arrays' values when the program
    runs (as numpy arrays, so that format specs such as ``{x:.2f}`` apply to scalars)."""

    def show(*a, **k):
        as_np = lambda v: _np.asarray(v) if isinstance(v, Array) else v  # noqa: E731
        builtins.print(fmt.format(*[as_np(v) for v in a], **{n: as_np(v) for n, v in k.items()}))

    callback(show, *args, ordered=ordered, **kwargs)
