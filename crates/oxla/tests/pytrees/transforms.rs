//! A struct of parameters through grad, value_and_grad, vmap, jit and scan, checked against
//! the same computation with a tuple of the same tensors.

use oxla::tree::tree_map2;
use oxla::{grad, jacfwd, jacrev, jit, lax, numpy as jnp, value_and_grad, vmap, Tensor, Tree};

use super::{
    assert_trees_close, batch, mlp, mlp_loss, small_leaves, Generic, Mlp, MlpTuple, Nested, Pair,
};

fn loss((p, x, y): (Mlp, Tensor, Tensor)) -> Tensor {
    mlp_loss(&p, &x, &y)
}

fn loss_tuple((p, x, y): (MlpTuple, Tensor, Tensor)) -> Tensor {
    mlp_loss(&Mlp::from_tuple(p), &x, &y)
}

fn per_example(args: (Mlp, Tensor, Tensor)) -> Mlp {
    grad(loss).call(args)
}

fn per_example_tuple(args: (MlpTuple, Tensor, Tensor)) -> MlpTuple {
    grad(loss_tuple).call(args)
}

#[test]
fn grad_of_a_struct_is_the_struct() {
    let (p, (xs, ys)) = (mlp(0), batch(1));
    let (x, y) = (xs.index(0), ys.index(0));
    // The gradient's type, Mlp, is inferred from argument 0.
    let g = grad(loss).call((p.clone(), x.clone(), y.clone()));
    let want = grad(loss_tuple).call((p.to_tuple(), x.clone(), y.clone()));
    assert_eq!(g.w1.shape(), want.0.shape());
    assert_eq!(g.def(), p.def());
    assert_trees_close(&g, &want);

    // A struct is one argument, and argument 0 of a tuple is the gradient's type.
    fn first_is_mlp<A: oxla::Args<First = Mlp>>() {}
    first_is_mlp::<Mlp>();
    first_is_mlp::<(Mlp, Tensor, Tensor)>();

    // The struct alone is argument 0, not a tuple of its fields.
    let g_alone: Mlp = grad(|p: Mlp| mlp_loss(&p, &x, &y)).call(p.clone());
    assert_trees_close(&g_alone, &want);

    // With several argnums the struct is one element of the tuple.
    let (gp, gx): (Mlp, Tensor) = grad(loss).argnums([0, 1]).call((p, x, y));
    assert_trees_close(&gp, &want);
    assert_eq!(gx.shape(), &[3]);
}

#[test]
fn value_and_grad_of_a_struct() {
    let (p, (xs, ys)) = (mlp(2), batch(1));
    let (x, y) = (xs.index(0), ys.index(0));
    let (v, g): (Tensor, Mlp) = value_and_grad(loss).call((p.clone(), x.clone(), y.clone()));
    let (vt, gt): (Tensor, MlpTuple) = value_and_grad(loss_tuple).call((p.to_tuple(), x, y));
    assert_trees_close(&v, &vt);
    assert_trees_close(&g, &gt);
}

#[test]
fn grad_of_generic_and_nested_structs() {
    let l = small_leaves();
    let g = Generic {
        head: l[0].clone(),
        rest: vec![l[1].clone()],
        bias: Some(l[2].clone()),
    };
    let f = |g: Generic<Tensor>| {
        (&g.head * &g.head).sum(None) + (&g.rest[0] * 3.0).sum(None) + g.bias.unwrap().exp()
    };
    let d: Generic<Tensor> = grad(f).call(g.clone());
    assert_eq!(d.def(), g.def());
    assert_trees_close(&d.head, &(&l[0] * 2.0));
    assert_trees_close(&d.rest[0], &(jnp::ones(&[3]) * 3.0));
    assert_trees_close(&d.bias.unwrap(), &l[2].exp());

    let n = Nested {
        layer: Pair(l[0].clone(), l[1].clone()),
        scale: l[2].clone(),
        tail: Generic {
            head: Pair(l[0].clone(), l[2].clone()),
            rest: vec![],
            bias: None,
        },
    };
    let f =
        |n: Nested| (&n.layer.0 * &n.scale).sum(None) + n.layer.1.sum(None) + &n.tail.head.1 * 2.0;
    let d: Nested = grad(f).call(n.clone());
    assert_eq!(d.def(), n.def());
    assert_trees_close(&d.layer.0, &(jnp::ones(&[2]) * -1.0));
    assert_trees_close(&d.scale, &l[0].sum(None));
    assert_trees_close(&d.tail.head, &(jnp::zeros(&[2]), Tensor::scalar(2.0f32)));
}

#[test]
fn per_example_gradients_under_jit_vmap_grad() {
    let (p, (xs, ys)) = (mlp(0), batch(5));
    let f = jit(|args: (Mlp, Tensor, Tensor)| -> Mlp {
        vmap(per_example).in_axes((None, 0, 0)).call(args)
    });
    let got = f.call((p.clone(), xs.clone(), ys.clone())).unwrap();
    assert_eq!(got.w1.shape(), &[5, 3, 4]);
    let want: MlpTuple =
        vmap(per_example_tuple)
            .in_axes((None, 0, 0))
            .call((p.to_tuple(), xs.clone(), ys.clone()));
    assert_trees_close(&got, &want);
    // And against a loop over the examples.
    for i in 0..5 {
        let g: Mlp = grad(loss).call((p.clone(), xs.index(i), ys.index(i)));
        let row = Mlp {
            w1: got.w1.index(i),
            b1: got.b1.index(i),
            w2: got.w2.index(i),
            b2: got.b2.index(i),
        };
        assert_trees_close(&row, &g);
    }
}

#[test]
fn vmap_over_a_struct_as_a_prefix() {
    // A batch of 4 parameter sets, one example: one axis for the whole struct.
    let stacked = Mlp {
        w1: jnp::stack(&(0..4).map(|s| mlp(s).w1).collect::<Vec<_>>(), 0),
        b1: jnp::stack(&(0..4).map(|s| mlp(s).b1).collect::<Vec<_>>(), 0),
        w2: jnp::stack(&(0..4).map(|s| mlp(s).w2).collect::<Vec<_>>(), 0),
        b2: jnp::stack(&(0..4).map(|s| mlp(s).b2).collect::<Vec<_>>(), 0),
    };
    let (xs, ys) = batch(1);
    let (x, y) = (xs.index(0), ys.index(0));
    let losses: Tensor = vmap(loss)
        .in_axes((0, None, None))
        .call((stacked, x.clone(), y.clone()));
    let want: Vec<f32> = (0..4)
        .map(|s| mlp_loss(&mlp(s), &x, &y).item() as f32)
        .collect();
    assert_trees_close(&losses, &Tensor::from_vec(want, &[4]));
}

#[test]
fn jit_of_a_struct_function_matches_eager() {
    let p = mlp(3);
    let g = mlp(4);
    let step = |(p, g): (Mlp, Mlp)| tree_map2(|p, g| p - g * 0.1, &p, &g);
    let f = jit(step);
    let got = f.call((p.clone(), g.clone())).unwrap();
    assert_trees_close(&got, &step((p.clone(), g.clone())));
    // Same structure and avals: one compilation.
    f.call((g, p)).unwrap();
    assert_eq!(f.cache_size(), 1);
}

#[test]
fn scan_carries_a_struct() {
    // Momentum SGD over a sequence of examples, the carry a struct of parameters and
    // velocities.
    #[derive(Tree, Clone)]
    struct State {
        params: Mlp,
        velocity: Mlp,
    }
    let (xs, ys) = batch(6);
    let p = mlp(5);
    let zeros = oxla::tree::tree_map(|t| jnp::zeros_like(t), &p);
    let step = |(s, (x, y)): (State, (Tensor, Tensor))| {
        let g: Mlp = grad(loss).call((s.params.clone(), x.clone(), y.clone()));
        let velocity = tree_map2(|v, g| v * 0.9 + g, &s.velocity, &g);
        let params = tree_map2(|p, v| p - v * 0.05, &s.params, &velocity);
        let l = mlp_loss(&s.params, &x, &y);
        (State { params, velocity }, l)
    };
    let init = State {
        params: p,
        velocity: zeros,
    };
    let (end, losses): (State, Tensor) =
        lax::scan(step, init.clone(), (xs.clone(), ys.clone())).call();
    assert_eq!(losses.shape(), &[6]);
    let mut s = init;
    for i in 0..6 {
        let (next, l) = step((s, (xs.index(i), ys.index(i))));
        assert_trees_close(&losses.index(i), &l);
        s = next;
    }
    assert_trees_close(&end.params, &s.params);
    assert_trees_close(&end.velocity, &s.velocity);
}

#[test]
fn vmap_memory_budget_returns_the_struct() {
    let (p, (xs, ys)) = (mlp(6), batch(16));
    let args = (p, xs, ys);
    let whole: Mlp = vmap(per_example).in_axes((None, 0, 0)).call(args.clone());
    let budgeted: Mlp = vmap(per_example)
        .in_axes((None, 0, 0))
        .memory_budget(8192)
        .call(args.clone())
        .unwrap();
    assert_trees_close(&budgeted, &whole);
    let chunked: Mlp = vmap(per_example)
        .in_axes((None, 0, 0))
        .chunk_size(3)
        .call(args);
    assert_trees_close(&chunked, &whole);
}

#[test]
fn jacobians_with_respect_to_a_struct_are_the_struct() {
    let (x, y) = (jnp::arange(2.0), jnp::ones(&[2]) * 3.0);
    let f = |p: Pair| &p.0 * &p.1;
    let jr = jacrev(f).call(Pair(x.clone(), y.clone()));
    let jf = jacfwd(f).call(Pair(x.clone(), y.clone()));
    assert_eq!(jr.def().to_string(), "Pair(*, *)");
    let diag = |v: &Tensor| jnp::eye(2) * v;
    assert_trees_close(&jr, &(diag(&y), diag(&x)));
    assert_trees_close(&jf, &jr);
}
