//! Structures, printing, round trips and `tree_map` over derived structs.

use oxla::tree::{tree_flatten, tree_leaves, tree_map, tree_map2, tree_structure, tree_unflatten};
use oxla::{numpy as jnp, Tensor, Tree, TreeDef};

use super::{assert_trees_close, mlp, small_leaves, Generic, Mlp, Nested, Pair, Unit};

fn nested() -> Nested {
    let l = small_leaves();
    Nested {
        layer: Pair(l[0].clone(), l[1].clone()),
        scale: l[2].clone(),
        tail: Generic {
            head: Pair(l[0].clone() * 2.0, l[2].clone()),
            rest: vec![l[1].clone(); 2],
            bias: None,
        },
    }
}

#[test]
fn structures_print_as_dataclasses() {
    assert_eq!(mlp(0).def().to_string(), "Mlp(w1=*, b1=*, w2=*, b2=*)");
    assert_eq!(Unit.def().to_string(), "Unit()");
    let l = small_leaves();
    assert_eq!(
        Pair(l[0].clone(), l[1].clone()).def().to_string(),
        "Pair(*, *)"
    );
    assert_eq!(
        nested().def().to_string(),
        "Nested(layer=Pair(*, *), scale=*, tail=Generic(head=Pair(*, *), rest=[*, *], bias=None))"
    );
    assert_eq!(nested().def().num_leaves(), 7);
    #[derive(Tree)]
    struct Raw {
        r#type: Tensor,
    }
    let raw = Raw {
        r#type: l[2].clone(),
    };
    assert_eq!(raw.def().to_string(), "Raw(type=*)");
    assert_eq!(
        Pair(l[0].clone(), l[1].clone()).def(),
        TreeDef::Struct {
            name: "Pair",
            fields: vec![("0", TreeDef::Leaf), ("1", TreeDef::Leaf)]
        }
    );
}

#[test]
fn leaves_are_the_fields_in_declaration_order() {
    let p = mlp(0);
    let leaves = tree_leaves(&p);
    let shapes: Vec<&[usize]> = leaves.iter().map(|t| t.shape()).collect();
    assert_eq!(shapes, vec![&[3, 4][..], &[4], &[4, 2], &[2]]);
    assert_trees_close(&leaves, &vec![p.w1, p.b1, p.w2, p.b2]);
    assert!(tree_leaves(&Unit).is_empty());
}

#[test]
fn flatten_unflatten_round_trips() {
    let n = nested();
    let (leaves, def) = tree_flatten(&n);
    assert_eq!(def, tree_structure(&n));
    let back: Nested = tree_unflatten(&def, leaves.clone());
    assert_eq!(back.def(), def);
    assert_trees_close(&back, &n);

    let (leaves, def) = tree_flatten(&mlp(1));
    let back: Mlp = tree_unflatten(&def, leaves);
    assert_trees_close(&back, &mlp(1));

    let g = Generic {
        head: jnp::ones(&[2]),
        rest: vec![],
        bias: Some(jnp::zeros(&[])),
    };
    let (leaves, def) = tree_flatten(&g);
    assert_eq!(def.to_string(), "Generic(head=*, rest=[], bias=Some(*))");
    let back: Generic<Tensor> = tree_unflatten(&def, leaves);
    assert_trees_close(&back, &g);

    let back: Unit = tree_unflatten(&Unit.def(), vec![]);
    assert_eq!(back.def(), Unit.def());
}

#[test]
#[should_panic(
    expected = "tree_unflatten: the type pytrees::Pair cannot have the structure \
                           Mlp(w1=*, b1=*, w2=*, b2=*)"
)]
fn unflatten_into_another_struct_panics() {
    let (leaves, def) = tree_flatten(&mlp(0));
    let _: super::Pair = tree_unflatten(&def, leaves);
}

#[test]
#[should_panic(
    expected = "tree_unflatten: the structure Pair(*, *) has 2 leaves, but 3 were given"
)]
fn unflatten_with_too_many_leaves_panics() {
    let l = small_leaves();
    let def = tree_structure(&Pair(l[0].clone(), l[1].clone()));
    let _: Pair = tree_unflatten(&def, l);
}

#[test]
fn another_struct_with_the_same_fields_is_not_the_same_structure() {
    #[derive(Tree)]
    struct Other(Tensor, Tensor);
    let l = small_leaves();
    let def = Pair(l[0].clone(), l[1].clone()).def();
    assert!(Other::from_def(&def, &mut l.into_iter()).is_none());
}

#[test]
fn tree_map_keeps_the_struct() {
    let n = nested();
    let doubled = tree_map(|x| x * 2.0, &n);
    assert_eq!(doubled.def(), n.def());
    let want: Vec<Tensor> = n.leaves().iter().map(|x| x * 2.0).collect();
    assert_trees_close(&doubled.leaves(), &want);

    let p = mlp(0);
    let g = mlp(1);
    let step = tree_map2(|p, g| p - g * 0.1, &p, &g);
    let want = Mlp {
        w1: &p.w1 - &g.w1 * 0.1,
        b1: &p.b1 - &g.b1 * 0.1,
        w2: &p.w2 - &g.w2 * 0.1,
        b2: &p.b2 - &g.b2 * 0.1,
    };
    assert_trees_close(&step, &want);
}

#[test]
#[should_panic(
    expected = "tree_map2: the second tree's structure Generic(head=*, rest=[*], \
                           bias=None) differs from the first's Generic(head=*, rest=[], \
                           bias=None)"
)]
fn tree_map2_of_different_structures_panics() {
    let a = Generic {
        head: jnp::ones(&[]),
        rest: vec![],
        bias: None,
    };
    let b = Generic {
        rest: vec![jnp::ones(&[])],
        ..a.clone()
    };
    tree_map2(|x, y| x + y, &a, &b);
}
