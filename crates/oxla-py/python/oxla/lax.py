"""``oxla.lax``: JAX's ``lax`` functions: the elementwise primitives of one array (from
the extension's table), ``map``, and control flow (``scan``, ``cond``, ``while_loop``,
``fori_loop``) over functions of pytrees."""

import builtins

from . import _lax_linalg as linalg
from . import _lax_complex, _lax_more, _lax_parallel, _lax_special, _oxla
from ._mapping import vmap
from ._lax_complex import *  # noqa: F401,F403
from ._lax_more import *  # noqa: F401,F403
from ._lax_parallel import *  # noqa: F401,F403
from ._lax_special import *  # noqa: F401,F403
from .tree_util import tree_flatten, tree_unflatten

globals().update(_oxla.axis_functions()[1])

__all__ = (["linalg", "map", "scan", "cond", "switch", "while_loop", "fori_loop"]
           + sorted(_oxla.axis_functions()[1]) + _lax_complex.__all__ + _lax_more.__all__
           + _lax_parallel.__all__ + _lax_special.__all__)


def map(f, xs, *, batch_size=None):
    """``f`` over the leading axis of ``xs``, ``batch_size`` slices at a time (one at a time
    by default): memory for a batch, not for all of them."""
    return vmap(f, chunk_size=batch_size or 1)(xs)


def _same_structure(what, got, want):
    if got != want:
        raise TypeError(f"{what} must have the same structure as its input: got {got}, "
                        f"expected {want}")


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """``f(carry, x) -> (carry, y)`` over the leading axis of ``xs``: the final carry and the
    ``y``'s stacked. ``xs=None`` scans ``length`` steps with ``x = None``."""
    c_leaves, c_def = tree_flatten(init)
    x_leaves, x_def = tree_flatten(xs)
    box = {}

    def flat(carry, x):
        out = f(tree_unflatten(c_def, carry), tree_unflatten(x_def, x))
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError("scan body output must be a pair (carry, y), got "
                            f"{type(out).__name__}")
        new_c, new_c_def = tree_flatten(out[0])
        _same_structure("scan body carry output", new_c_def, c_def)
        y, box["y"] = tree_flatten(out[1])
        return new_c, y

    if unroll is True:
        # Fully unrolled: as many steps at a time as there are.
        unroll = length if length is not None else (
            _oxla.asarray(x_leaves[0]).shape[0] if x_leaves else 1)
    steps = builtins.max(int(unroll), 1)  # `max` is lax's here
    carry, ys = _oxla.scan(flat, c_leaves, x_leaves, length, reverse, steps)
    return tree_unflatten(c_def, carry), tree_unflatten(box["y"], ys)


def _branch(fun, name, treedef, box):
    """A branch of ``cond``/``switch`` as a function of leaves, every branch's output
    structure checked to be the first's."""

    def flat(args):
        out, out_def = tree_flatten(fun(*tree_unflatten(treedef, args)))
        if "out" in box:
            _same_structure(f"{name} output", out_def, box["out"])
        box["out"] = out_def
        return out

    return flat


_NO_OPERAND = object()


def cond(pred, true_fun, false_fun, *operands, operand=_NO_OPERAND):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, both traced."""
    if operand is not _NO_OPERAND:
        if operands:
            raise TypeError("cond takes operands positionally or as operand=, not both")
        operands = (operand,)
    leaves, treedef = tree_flatten(operands)
    box = {}

    def branch(fun, name):
        return _branch(fun, f"cond {name}", treedef, box)

    pred = _oxla.asarray(pred)
    if pred.dtype != bool:
        # JAX's rule: a number is a predicate by being nonzero.
        pred = pred != 0
    out = _oxla.cond(pred, branch(true_fun, "true_fun"), branch(false_fun, "false_fun"),
                     leaves)
    return tree_unflatten(box["out"], out)


def switch(index, branches, *operands, operand=_NO_OPERAND):
    """``branches[index](*operands)``, every branch traced; ``index`` is clamped into
    ``[0, len(branches) - 1]``."""
    if operand is not _NO_OPERAND:
        operands = (operand,)
    branches = list(branches)
    if not branches:
        raise ValueError("Empty branch sequence")
    leaves, treedef = tree_flatten(operands)
    box = {}
    flat = [_branch(b, f"switch branch {i}", treedef, box) for i, b in enumerate(branches)]
    out = _oxla.switch(_oxla.asarray(index), flat, leaves)
    return tree_unflatten(box["out"], out)


def while_loop(cond_fun, body_fun, init_val):
    """``body_fun`` applied to the carry while ``cond_fun(carry)`` holds."""
    leaves, treedef = tree_flatten(init_val)

    def flat_cond(c):
        return [cond_fun(tree_unflatten(treedef, c))]

    def flat_body(c):
        out, out_def = tree_flatten(body_fun(tree_unflatten(treedef, c)))
        _same_structure("while_loop body output", out_def, treedef)
        return out

    return tree_unflatten(treedef, _oxla.while_loop(flat_cond, flat_body, leaves))


def fori_loop(lower, upper, body_fun, init_val):
    """``body_fun(i, carry)`` for ``i`` from ``lower`` to ``upper`` (exclusive)."""
    leaves, treedef = tree_flatten(init_val)

    def flat(i, c):
        out, out_def = tree_flatten(body_fun(i[0], tree_unflatten(treedef, c)))
        _same_structure("fori_loop body output", out_def, treedef)
        return [], out

    return tree_unflatten(treedef, _oxla.fori_loop(int(lower), int(upper), flat, leaves))
