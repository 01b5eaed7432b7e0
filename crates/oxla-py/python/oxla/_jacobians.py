"""``jacfwd``, ``jacrev`` and ``hessian``: Jacobians as JAX builds them, a ``vmap`` of
``jvp`` over the inputs' standard basis (forward) or of ``vjp``'s pull-back over the
outputs' (reverse)."""

import functools

from . import numpy as jnp
from ._api import _argnums, jvp, vjp, vmap
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
    leaf of shape ``i``, an array of shape ``o + i``."""
    if has_aux:
        raise NotImplementedError("oxla's jacfwd takes has_aux=False for now")

    @functools.wraps(fun)
    def jac(*args):
        diff, of_diff = _split_args(fun, args, argnums)
        in_leaves, in_def = tree_flatten(diff)
        out_def = {}

        def push(*tangents):
            out, tangent_out = jvp(of_diff, diff, tree_unflatten(in_def, tangents))
            leaves, out_def["out"] = tree_flatten(tangent_out)
            return leaves

        stacked = vmap(push)(*_basis(in_leaves))
        per_output = [tree_unflatten(in_def, _split(s, in_leaves, lead_first=True))
                      for s in stacked]
        return tree_unflatten(out_def["out"], [_unwrap(t, argnums) for t in per_output])

    return jac


def jacrev(fun, argnums=0, has_aux=False):
    """The Jacobian of ``fun`` by reverse mode (shaped as :func:`jacfwd`'s)."""
    if has_aux:
        raise NotImplementedError("oxla's jacrev takes has_aux=False for now")

    @functools.wraps(fun)
    def jac(*args):
        diff, of_diff = _split_args(fun, args, argnums)
        in_leaves, in_def = tree_flatten(diff)
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
        return tree_unflatten(out_def, [_unwrap(t, argnums) for t in per_output])

    return jac


def hessian(fun, argnums=0, has_aux=False):
    """The Hessian of scalar ``fun``: ``jacfwd(jacrev(fun))``."""
    return jacfwd(jacrev(fun, argnums, has_aux), argnums)
