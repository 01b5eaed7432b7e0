"""oxla.tree_util against JAX's pytree semantics."""

import collections

import oxla

import pytest

from oxla import tree_util as tu


def test_flatten_order_and_structure():
    tree = {"b": (1, [2, None]), "a": 3}
    leaves, treedef = tu.tree_flatten(tree)
    assert leaves == [3, 1, 2]
    assert repr(treedef) == "PyTreeDef({'a': *, 'b': (*, [*, None])})"
    assert tu.tree_unflatten(treedef, [4, 5, 6]) == {"a": 4, "b": (5, [6, None])}
    assert treedef.num_leaves == 3
    assert repr(tu.tree_structure((1,))) == "PyTreeDef((*,))"


def test_treedefs_compare_and_hash():
    assert tu.tree_structure((1, 2)) == tu.tree_structure((3, 4))
    assert tu.tree_structure((1, 2)) != tu.tree_structure([3, 4])
    assert len({tu.tree_structure({"a": 1}), tu.tree_structure({"a": 2})}) == 1


def test_tree_map_and_leaves():
    P = collections.namedtuple("P", "x y")
    t = P(1, {"k": 2})
    assert tu.tree_map(lambda a, b: a + b, t, P(10, {"k": 20})) == P(11, {"k": 22})
    assert tu.tree_leaves([None, (None,)]) == []
    assert tu.tree_leaves([1, (2,)], is_leaf=lambda x: isinstance(x, tuple)) == [1, (2,)]
    with pytest.raises(ValueError):
        tu.tree_map(lambda a, b: a, (1, 2), [1, 2])
    with pytest.raises(ValueError):
        tu.tree_structure((1, 2)).unflatten([1])


def test_registered_node():
    class Box:
        def __init__(self, v, tag):
            self.v, self.tag = v, tag

    tu.register_pytree_node(Box, lambda b: ((b.v,), b.tag), lambda tag, c: Box(c[0], tag))
    leaves, treedef = tu.tree_flatten([Box(1, "t")])
    assert leaves == [1]
    back = tu.tree_unflatten(treedef, [7])[0]
    assert isinstance(back, Box) and back.v == 7 and back.tag == "t"


def test_ordered_and_default_dicts_are_nodes():
    od = collections.OrderedDict([("b", 1), ("a", 2)])
    leaves, treedef = tu.tree_flatten(od)
    assert leaves == [1, 2]
    assert tu.tree_unflatten(treedef, [3, 4]) == collections.OrderedDict([("b", 3), ("a", 4)])
    dd = collections.defaultdict(list, {"y": 1, "x": 2})
    leaves, treedef = tu.tree_flatten(dd)
    assert leaves == [2, 1]
    back = tu.tree_unflatten(treedef, [5, 6])
    assert isinstance(back, collections.defaultdict) and back["x"] == 5 and back["zz"] == []


def test_tree_map_over_a_prefix_and_reduce():
    # `rest` may hold whole subtrees where `tree` has leaves, as in JAX.
    assert tu.tree_map(lambda a, b: (a, b), (1, 2), ([3, 4], 5)) == ((1, [3, 4]), (2, 5))
    assert tu.tree_reduce(lambda a, b: a + b, {"a": 1, "b": (2, 3)}) == 6
    assert tu.tree_reduce(lambda a, b: a + b, [], 10) == 10
    assert oxla.tree.map(lambda x: x * 2, [1, (2,)]) == [2, (4,)]
    assert oxla.tree.leaves({"a": 1, "b": None}) == [1]


def test_register_dataclass():
    import dataclasses

    @tu.register_dataclass
    @dataclasses.dataclass
    class Layer:
        w: object
        b: object
        width: int = dataclasses.field(default=4, metadata=dict(static=True))

    leaves, treedef = tu.tree_flatten(Layer(1, 2, 8))
    assert leaves == [1, 2]
    back = tu.tree_unflatten(treedef, [5, 6])
    assert (back.w, back.b, back.width) == (5, 6, 8)
    assert tu.tree_structure(Layer(1, 2, 8)) != tu.tree_structure(Layer(1, 2, 9))

    @dataclasses.dataclass
    class Pair:
        a: object
        tag: str

    tu.register_dataclass(Pair, data_fields=["a"], meta_fields=["tag"])
    assert tu.tree_map(lambda v: v + 1, Pair(1, "t")) == Pair(2, "t")
