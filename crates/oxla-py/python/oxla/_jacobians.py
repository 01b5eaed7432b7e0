"""``jacfwd``, ``jacrev`` and ``hessian``: Jacobians as JAX builds them, a ``vmap`` of
``jvp`` over the inputs' standard basis (forward) or of ``vjp``'s pull-back over the
outputs' (reverse)."""

import functools

from . import numpy as jnp
from ._api import _argnums, _split_aux, jvp, vjp
from ._mapping import vmap
from .tree_util import tree_flatten, tree_unflatten

__all__ = ["jacfwd", "jacrev", "hessian"]


def _basis(leaves):
    """One batch of tangents per leaf: row ``i`` of the ``n x n`` identity (``n`` the
    leaves' elements together), cut to each leaf and shaped like it."""
    sizes = [x.size for x in leaves]
    n = sum(sizes)
    out, start = [], 0
    for x, size in zip(leaves, sizes):
        eye = jnp.eye(n, dtype=x.dtype)
        out.append(eye[:, start:start + size].reshape((n,) + tuple(x.shape)))
        start += size
    return out


def _split(stacked, leaves, lead_first):
    """``stacked`` (the basis's axis first, then ``lead`` dims) cut into one block per leaf
    of ``leaves``, each of shape ``lead + leaf`` (``lead_first``) or ``leaf + lead``."""
    lead = tuple(stacked.shape[1:])
    blocks, start = [], 0
    for x in leaves:
        shape = tuple(x.shape)
        block = stacked[start:start + x.size].reshape((x.size,) + lead)
        if lead_first:
            axes = list(range(1, len(lead) + 1)) + [0]
            block = jnp.transpose(block, axes).reshape(lead + shape)
        else:
            block = block.reshape(shape + lead)
        blocks.append(block)
        start += x.size
    return blocks


def _split_args(fun, args, argnums):
    """The arguments differentiated (a tuple), and ``fun`` as a function of them alone."""
    nums = _argnums(argnums, len(args))

    def of_diff(*diff):
        full = list(args)
        for i, x in zip(nums, diff):
            full[i] = x
        return fun(*full)

    return tuple(jnp.asarray(args[i]) for i in nums), of_diff


def _unwrap(tree, argnums):
    return tree[0] if isinstance(argnums, int) else tree


def jacfwd(fun, argnums=0, has_aux=False):
    """The Jacobian of ``fun`` by forward mode: for each output leaf of shape ``o`` and input
    leaf of shape ``i``, an array of shape ``o + i``. ``has_aux``: ``fun`` returns
    ``(output, aux)``, and the result is ``(jacobian, aux)``."""

    @functools.wraps(fun)
    def jac(*args):
        diff, of_diff = _split_args(fun, args, argnums)
        in_leaves, in_def = tree_flatten(diff)
        defs = {}

        def push(*tangents):
            tangents = tree_unflatten(in_def, tangents)
            if has_aux:
                # The aux output rides along; it does not depend on the tangents.
                (_, aux), (tangent_out, _) = jvp(lambda *d: _split_aux(of_diff(*d)), diff,
                                                 tangents)
            else:
                (_, tangent_out), aux = jvp(of_diff, diff, tangents), None
            leaves, defs["out"] = tree_flatten(tangent_out)
            aux_leaves, defs["aux"] = tree_flatten(aux)
            return leaves, aux_leaves

        stacked, aux_rows = vmap(push)(*_basis(in_leaves))
        per_output = [tree_unflatten(in_def, _split(s, in_leaves, lead_first=True))
                      for s in stacked]
        jacobian = tree_unflatten(defs["out"], [_unwrap(t, argnums) for t in per_output])
        if has_aux:
            # Every row of the map holds the same aux: the first is it.
            return jacobian, tree_unflatten(defs["aux"], [a[0] for a in aux_rows])
        return jacobian

    return jac


def jacrev(fun, argnums=0, has_aux=False):
    """The Jacobian of ``fun`` by reverse mode (shaped as :func:`jacfwd`'s); ``has_aux`` as
    there."""

    @functools.wraps(fun)
    def jac(*args):
        diff, of_diff = _split_args(fun, args, argnums)
        in_leaves, in_def = tree_flatten(diff)
        if has_aux:
            out, pullback, aux = vjp(of_diff, *diff, has_aux=True)
        else:
            out, pullback = vjp(of_diff, *diff)
        out_leaves, out_def = tree_flatten(out)

        def pull(*cotangents):
            return tree_flatten(pullback(tree_unflatten(out_def, cotangents)))[0]

        # Each input leaf's gradients for every output element: (outputs, *input shape).
        stacked = vmap(pull)(*_basis(out_leaves))
        blocks = [_split(s, out_leaves, lead_first=False) for s in stacked]
        # blocks[k][j]: output leaf j by input leaf k; JAX nests inputs inside outputs.
        per_output = [tree_unflatten(in_def, [blocks[k][j] for k in range(len(in_leaves))])
                      for j in range(len(out_leaves))]
        jacobian = tree_unflatten(out_def, [_unwrap(t, argnums) for t in per_output])
        return (jacobian, aux) if has_aux else jacobian

    return jac


def hessian(fun, argnums=0, has_aux=False):
    """The Hessian of scalar ``fun``: ``jacfwd(jacrev(fun))``."""
    return jacfwd(jacrev(fun, argnums, has_aux), argnums, has_aux)
