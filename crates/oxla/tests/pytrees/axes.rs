//! `vmap`'s in_axes and out_axes over structs: one axis for all the fields, one per field
//! by name, positional for tuple structs, and the mistakes named.

use oxla::{numpy as jnp, vmap, AxisTree, Tensor};

use oxla::grad;

use super::{assert_trees_close, batch, mlp, mlp_loss, Mlp, Nested, Pair};

/// Loss of parameters whose `w1` is per example (batched on its axis 1) and the rest
/// shared, as `in_axes` per field.
#[test]
fn in_axes_per_field() {
    let p = mlp(0);
    let (xs, ys) = batch(5);
    let w1s = jnp::stack(&(0..5).map(|s| mlp(s + 10).w1).collect::<Vec<_>>(), 1);
    let batched = Mlp {
        w1: w1s.clone(),
        ..p.clone()
    };
    let axes = AxisTree::fields([("b2", None), ("w1", Some(1)), ("b1", None), ("w2", None)]);
    let f = |(p, x, y): (Mlp, Tensor, Tensor)| mlp_loss(&p, &x, &y);
    let got: Tensor = vmap(f)
        .in_axes((axes, 0, 0))
        .call((batched, xs.clone(), ys.clone()));
    let want: Vec<f32> = (0..5)
        .map(|i| {
            let pi = Mlp {
                w1: w1s.index((.., i)),
                ..p.clone()
            };
            mlp_loss(&pi, &xs.index(i), &ys.index(i)).item() as f32
        })
        .collect();
    assert_trees_close(&got, &Tensor::from_vec(want, &[5]));
}

#[test]
fn nested_fields_and_tuple_structs() {
    let x = jnp::arange(6.0).reshape(&[2, 3]);
    let n = Nested {
        layer: Pair(x.clone(), jnp::ones(&[2])),
        scale: Tensor::scalar(2.0f32),
        tail: super::Generic {
            head: Pair(jnp::ones(&[]), jnp::ones(&[])),
            rest: vec![],
            bias: None,
        },
    };
    let f = |n: Nested| Pair(&n.layer.0 * &n.scale + &n.layer.1, n.tail.head.1 * 1.0);
    let axes = AxisTree::fields([
        ("layer", AxisTree::from((1, None))),
        ("scale", None.into()),
        ("tail", None.into()),
    ]);
    // Out: field 0 stacked on axis 1, field 1 (unbatched) broadcast on axis 0.
    let out: Pair = vmap(f).in_axes(axes).out_axes((1, 0)).call(n);
    assert_eq!(out.0.shape(), &[2, 3]);
    assert_trees_close(&out.0, &(&x * 2.0 + 1.0));
    assert_eq!(out.1.shape(), &[3]);
}

/// The MLP's loss vmapped over a batch of 2 with `axes` for the parameters.
#[track_caller]
fn vmap_loss_with_param_axes(axes: impl Into<AxisTree>) {
    let (xs, ys) = batch(2);
    let _: Tensor = vmap(|(p, x, y): (Mlp, Tensor, Tensor)| mlp_loss(&p, &x, &y))
        .in_axes((axes.into(), 0, 0))
        .call((mlp(0), xs, ys));
}

#[test]
#[should_panic(expected = "`w3` is not a field of Mlp (its fields: w1, b1, w2, b2)")]
fn unknown_field_panics_naming_it() {
    vmap_loss_with_param_axes(AxisTree::fields([
        ("w1", None),
        ("b1", None),
        ("w3", Some(0)),
        ("b2", None),
    ]));
}

#[test]
#[should_panic(expected = "the field `b2` of Mlp has no entry")]
fn missing_field_panics_naming_it() {
    vmap_loss_with_param_axes(AxisTree::fields([("w1", None), ("b1", None), ("w2", None)]));
}

#[test]
#[should_panic(expected = "the field `w1` of Mlp is given twice")]
fn repeated_field_panics_naming_it() {
    vmap_loss_with_param_axes(AxisTree::fields([("w1", None), ("w1", None)]));
}

#[test]
#[should_panic(expected = "a tuple of axes for the struct Mlp, whose fields have names")]
fn a_tuple_for_a_named_struct_panics() {
    vmap_loss_with_param_axes((None, None, None, None));
}

#[test]
fn the_message_says_where_and_prints_the_axes() {
    let line = line!() + 3;
    let err = std::panic::catch_unwind(|| {
        let axes = AxisTree::fields([("w1", AxisTree::from((0, 0))), ("b1", None.into())]);
        vmap_loss_with_param_axes(axes);
    })
    .unwrap_err();
    let msg = err.downcast_ref::<String>().unwrap();
    assert!(
        msg.contains(
            "in_axes (fields(w1=(0, 0), b1=None), 0, 0) does not match the tree \
             (Mlp(w1=*, b1=*, w2=*, b2=*), *, *): in the field `w1` of Mlp:"
        ),
        "{msg}"
    );
    assert!(msg.contains(&format!("axes.rs:{line}")), "{msg}");
}

#[test]
fn out_axes_per_field() {
    let (xs, ys) = batch(5);
    let per_example =
        |(p, x, y): (Mlp, Tensor, Tensor)| -> Mlp { grad(|p: Mlp| mlp_loss(&p, &x, &y)).call(p) };
    let stacked: Mlp =
        vmap(per_example)
            .in_axes((None, 0, 0))
            .call((mlp(0), xs.clone(), ys.clone()));
    let out_axes = AxisTree::fields([
        ("w1", Some(-1)),
        ("b1", Some(1)),
        ("w2", Some(0)),
        ("b2", Some(0)),
    ]);
    let moved: Mlp = vmap(per_example)
        .in_axes((None, 0, 0))
        .out_axes(out_axes)
        .call((mlp(0), xs, ys));
    assert_eq!(moved.w1.shape(), &[3, 4, 5]);
    assert_eq!(moved.b1.shape(), &[4, 5]);
    assert_trees_close(&moved.w1, &stacked.w1.transpose([1, 2, 0]));
    assert_trees_close(&moved.b1, &stacked.b1.transpose([1, 0]));
    assert_trees_close(&(moved.w2, moved.b2), &(stacked.w2, stacked.b2));
}
