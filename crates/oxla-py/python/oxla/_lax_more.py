"""``lax``'s primitives beyond the elementwise table (binary elementwise functions,
reductions, windows, convolutions, cumulative operations, bit operations, structural
functions), re-exported by ``oxla.lax``. The work is in the extension's ``lax_ops``
submodule; this file adds JAX's keyword handling and pytrees."""

from enum import IntEnum
from typing import NamedTuple, Sequence

from ._oxla import lax_ops as _f
from .tree_util import tree_flatten, tree_unflatten

_DIRECT = ["batch_matmul", "broadcast", "broadcast_to_rank", "broadcasted_iota", "clamp",
           "collapse", "conv", "conv_general_dilated", "conv_transpose",
           "conv_with_general_padding", "dot", "dynamic_index_in_dim", "dynamic_slice",
           "dynamic_slice_in_dim", "dynamic_update_slice",
           "expand_dims", "full", "full_like", "index_in_dim", "reduce_precision",
           "reduce_window", "select", "slice_in_dim", "sort_key_val", "split", "top_k"]
globals().update({_name: getattr(_f, _name) for _name in _DIRECT})

_TABLES = {**_f.table_functions(), **_f.cumulative_functions()}
globals().update(_TABLES)


__all__ = sorted(_TABLES) + _DIRECT + ["Precision", "dot_general", "sort",
    "ConvDimensionNumbers", "RoundingMethod", "ScatterDimensionNumbers", "argmax", "argmin",
    "associative_scan", "conv_dimension_numbers", "dynamic_update_index_in_dim",
    "dynamic_update_slice_in_dim", "optimization_barrier", "scatter_add", "scatter_max",
    "scatter_min", "scatter_mul",
]


class RoundingMethod(IntEnum):
    """How ``round`` treats halves: away from zero, or to the even neighbour."""

    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


class ConvDimensionNumbers(NamedTuple):
    """A convolution's layout as dimension indices: ``(batch, feature, spatial...)`` of the
    input and the output, ``(out feature, in feature, spatial...)`` of the kernel."""

    lhs_spec: Sequence[int]
    rhs_spec: Sequence[int]
    out_spec: Sequence[int]


class ScatterDimensionNumbers(NamedTuple):
    """XLA's scatter dimension numbers."""

    update_window_dims: Sequence[int]
    inserted_window_dims: Sequence[int]
    scatter_dims_to_operand_dims: Sequence[int]
    operand_batching_dims: Sequence[int] = ()
    scatter_indices_batching_dims: Sequence[int] = ()


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers):
    """The layout ``dimension_numbers`` (``None``, three layout strings, or
    ``ConvDimensionNumbers``) of operands of these shapes, as ``ConvDimensionNumbers``."""
    specs = _f.conv_dimension_numbers(tuple(lhs_shape), tuple(rhs_shape), dimension_numbers)
    return ConvDimensionNumbers(*map(tuple, specs))


def argmax(operand, axis, index_dtype):
    """The index of the first maximum along ``axis`` (NaN counts as the maximum)."""
    return _f.arg_extremum(True, operand, axis, index_dtype)


def argmin(operand, axis, index_dtype):
    """The index of the first minimum along ``axis`` (NaN counts as the minimum)."""
    return _f.arg_extremum(False, operand, axis, index_dtype)


def associative_scan(fn, elems, reverse=False, axis=0):
    """The inclusive scan of the pytree ``elems`` along ``axis`` under the associative
    ``fn(a, b)`` (pytrees of blocks in, a pytree out)."""
    leaves, treedef = tree_flatten(elems)

    def flat(a, b):
        out, _ = tree_flatten(fn(tree_unflatten(treedef, a), tree_unflatten(treedef, b)))
        return out

    return tree_unflatten(treedef, _f.associative_scan(flat, leaves, reverse, axis))


def optimization_barrier(operand):
    """``operand`` (a pytree) unchanged."""
    leaves, treedef = tree_flatten(operand)
    return tree_unflatten(treedef, _f.optimization_barrier(leaves))


def _scatter(op):
    def scatter(operand, scatter_indices, updates, dimension_numbers, *,
                indices_are_sorted=False, unique_indices=False, mode=None):
        return _f.scatter(op, operand, scatter_indices, updates, dimension_numbers, mode)

    scatter.__name__ = scatter.__qualname__ = f"scatter_{op}"
    scatter.__doc__ = (f"``updates`` combined ({op}) into ``operand`` at ``scatter_indices`` "
                       "(``mode``: out-of-bounds updates are dropped unless ``'clip'``).")
    return scatter


scatter_add, scatter_mul, scatter_min, scatter_max = map(_scatter, ["add", "mul", "min", "max"])


def dynamic_update_slice_in_dim(operand, update, start_index, axis):
    """``operand`` with ``update`` written from ``start_index`` along ``axis``."""
    return _f.dynamic_update_in_dim(False, operand, update, start_index, axis)


def dynamic_update_index_in_dim(operand, update, index, axis):
    """``operand`` with ``update`` written at ``index`` along ``axis``."""
    return _f.dynamic_update_in_dim(True, operand, update, index, axis)


class Precision(IntEnum):
    """A dot product's precision (no effect on oxla's CPU arithmetic, always full)."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None,
                out_sharding=None):
    """The contraction ``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))``: batch
    dimensions first, then ``lhs``'s free ones, then ``rhs``'s."""
    return _f.dot(lhs, rhs, dimension_numbers=dimension_numbers, precision=precision,
                  preferred_element_type=preferred_element_type)


def sort(operand, dimension=-1, is_stable=True, num_keys=1):
    """``operand`` (an array, or a sequence sorted together by its first ``num_keys``)
    sorted along ``dimension``, stably."""
    if isinstance(operand, (tuple, list)):
        return tuple(_f.sort(list(operand), dimension, num_keys))
    return _f.sort([operand], dimension, num_keys)[0]
