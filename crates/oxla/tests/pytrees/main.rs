//! Pytrees: user structs deriving `Tree` through every transform, and the `oxla::tree`
//! utilities.
//!
//! `utilities`: structures, printing, flatten/unflatten round trips, `tree_map`;
//! `transforms`: a struct of parameters through `grad`, `value_and_grad`, the Jacobians,
//! `vmap` (with `memory_budget`), `jit` and `lax::scan` carries, each checked against the
//! same computation on a tuple of the same tensors; `axes`: `vmap`'s axis trees over
//! structs (one axis for a struct, one per field), and their mistakes.

mod axes;
mod transforms;
mod utilities;

use oxla::{numpy as jnp, random, Tensor, Tree};

/// A two-layer perceptron's parameters.
#[derive(Tree, Clone, Debug)]
pub struct Mlp {
    pub w1: Tensor,
    pub b1: Tensor,
    pub w2: Tensor,
    pub b2: Tensor,
}

/// The same parameters as a tuple.
pub type MlpTuple = (Tensor, Tensor, Tensor, Tensor);

/// A tuple struct.
#[derive(Tree, Clone, Debug)]
pub struct Pair(pub Tensor, pub Tensor);

/// A unit struct: no leaves.
#[derive(Tree, Clone, Debug)]
pub struct Unit;

/// A generic struct with container fields.
#[derive(Tree, Clone, Debug)]
pub struct Generic<T> {
    pub head: T,
    pub rest: Vec<Tensor>,
    pub bias: Option<Tensor>,
}

/// A struct nesting derived structs.
#[derive(Tree, Clone, Debug)]
pub struct Nested {
    pub layer: Pair,
    pub scale: Tensor,
    pub tail: Generic<Pair>,
}

/// Inputs of 3 features, outputs of 2, 4 hidden units.
pub fn mlp(seed: i64) -> Mlp {
    let key = random::key(seed);
    let normal = |i: u32, shape: &[usize]| random::normal(&random::fold_in(&key, i), shape) * 0.5;
    Mlp {
        w1: normal(0, &[3, 4]),
        b1: normal(1, &[4]),
        w2: normal(2, &[4, 2]),
        b2: normal(3, &[2]),
    }
}

impl Mlp {
    pub fn to_tuple(&self) -> MlpTuple {
        (
            self.w1.clone(),
            self.b1.clone(),
            self.w2.clone(),
            self.b2.clone(),
        )
    }

    pub fn from_tuple((w1, b1, w2, b2): MlpTuple) -> Mlp {
        Mlp { w1, b1, w2, b2 }
    }
}

/// Squared error of the MLP on one example (`x`: 3 features, `y`: 2 targets).
pub fn mlp_loss(p: &Mlp, x: &Tensor, y: &Tensor) -> Tensor {
    let h = (x.matmul(&p.w1) + &p.b1).tanh();
    let d = h.matmul(&p.w2) + &p.b2 - y;
    (&d * &d).sum(None)
}

/// A batch of `n` examples: `(xs [n, 3], ys [n, 2])`.
pub fn batch(n: usize) -> (Tensor, Tensor) {
    let key = random::key(7);
    (
        random::normal(&random::fold_in(&key, 0), &[n, 3]),
        random::normal(&random::fold_in(&key, 1), &[n, 2]),
    )
}

/// Asserts two trees have one structure and leaves equal within 1e-5 (relative and
/// absolute).
#[track_caller]
pub fn assert_trees_close<A: Tree, B: Tree>(got: &A, want: &B) {
    let (g, w) = (got.leaves(), want.leaves());
    assert_eq!(g.len(), w.len(), "number of leaves");
    for (i, (g, w)) in g.iter().zip(&w).enumerate() {
        assert_eq!(g.shape(), w.shape(), "shape of leaf {i}");
        let (gv, wv) = (g.to_vec::<f32>(), w.to_vec::<f32>());
        for (a, b) in gv.iter().zip(&wv) {
            assert!(
                (a - b).abs() <= 1e-5 + 1e-5 * b.abs(),
                "leaf {i}: {a} vs {b}\n got {gv:?}\nwant {wv:?}"
            );
        }
    }
}

/// Leaves of one tree, shapes `[2]`, `[3]` and a scalar, with distinct values.
pub fn small_leaves() -> Vec<Tensor> {
    vec![
        jnp::arange(2.0),
        jnp::arange(3.0) + 10.0,
        Tensor::scalar(-1.0f32),
    ]
}
