//! JAX's `jax.tree_util` functions over [`Tree`]s.

use std::panic::Location;

use super::{Tree, TreeDef};
use crate::core::Tensor;

/// A tree of the same structure whose every leaf is `f` of the leaf of `tree`
/// (`jax.tree_util.tree_map(f, tree)`).
///
/// ```
/// use oxla::tree::tree_map;
/// use oxla::{numpy as jnp, Tensor, Tree};
/// #[derive(Tree)]
/// struct Params {
///     w: Tensor,
///     b: Tensor,
/// }
/// let p = Params { w: jnp::ones(&[2]), b: jnp::zeros(&[]) };
/// let doubled = tree_map(|x| x * 2.0, &p);
/// assert_eq!(doubled.w.to_vec::<f32>(), vec![2.0, 2.0]);
/// ```
pub fn tree_map<T: Tree>(f: impl FnMut(&Tensor) -> Tensor, tree: &T) -> T {
    let leaves: Vec<Tensor> = tree.leaves().iter().map(f).collect();
    tree.rebuild(&mut leaves.into_iter())
}

/// `f` of the leaves of two trees of the same structure, pairwise, as a tree of that
/// structure: JAX's `tree_map(f, a, b)`. The usual SGD step is
/// `tree_map2(|p, g| p - g * lr, &params, &grads)`.
///
/// Panics naming both structures if they differ (JAX's rule that `b` have `a`'s structure;
/// here a prefix is not enough, both must be whole trees of one type).
///
/// ```
/// use oxla::tree::tree_map2;
/// use oxla::{numpy as jnp, Tensor};
/// let params = (jnp::ones(&[2]), jnp::ones(&[]));
/// let grads = (jnp::ones(&[2]), jnp::zeros(&[]));
/// let (w, b) = tree_map2(|p, g| p - g * 0.5, &params, &grads);
/// assert_eq!(w.to_vec::<f32>(), vec![0.5, 0.5]);
/// assert_eq!(b.item(), 1.0);
/// ```
#[track_caller]
pub fn tree_map2<T: Tree>(mut f: impl FnMut(&Tensor, &Tensor) -> Tensor, a: &T, b: &T) -> T {
    let (da, db) = (a.def(), b.def());
    if da != db {
        panic!(
            "tree_map2: the second tree's structure {db} differs from the first's {da}\n  at {}",
            Location::caller()
        );
    }
    let leaves: Vec<Tensor> = a
        .leaves()
        .iter()
        .zip(&b.leaves())
        .map(|(x, y)| f(x, y))
        .collect();
    a.rebuild(&mut leaves.into_iter())
}

/// The leaves of `tree`, in order (`jax.tree_util.tree_leaves`): depth first, a struct's
/// fields in declaration order, `None` having no leaf.
///
/// ```
/// use oxla::tree::tree_leaves;
/// use oxla::{numpy as jnp, Tensor};
/// let t = (jnp::ones(&[2]), None::<Tensor>, vec![jnp::zeros(&[3])]);
/// assert_eq!(tree_leaves(&t).len(), 2);
/// ```
pub fn tree_leaves<T: Tree>(tree: &T) -> Vec<Tensor> {
    tree.leaves()
}

/// The structure of `tree` (`jax.tree_util.tree_structure`).
///
/// ```
/// use oxla::tree::tree_structure;
/// use oxla::{numpy as jnp, Tensor, Tree};
/// #[derive(Tree)]
/// struct Pair(Tensor, Vec<Tensor>);
/// let p = Pair(jnp::ones(&[]), vec![jnp::ones(&[]); 2]);
/// assert_eq!(tree_structure(&p).to_string(), "Pair(*, [*, *])");
/// ```
pub fn tree_structure<T: Tree>(tree: &T) -> TreeDef {
    tree.def()
}

/// The leaves of `tree` and its structure (`jax.tree_util.tree_flatten`); the inverse of
/// [`tree_unflatten`].
///
/// ```
/// use oxla::tree::{tree_flatten, tree_unflatten};
/// use oxla::{numpy as jnp, Tensor};
/// let t = (jnp::ones(&[2]), Some(jnp::zeros(&[])));
/// let (leaves, def) = tree_flatten(&t);
/// assert_eq!(def.to_string(), "(*, Some(*))");
/// let back: (Tensor, Option<Tensor>) = tree_unflatten(&def, leaves);
/// assert_eq!(back.0.shape(), &[2]);
/// ```
pub fn tree_flatten<T: Tree>(tree: &T) -> (Vec<Tensor>, TreeDef) {
    (tree.leaves(), tree.def())
}

/// The tree of type `T` and structure `def` whose leaves are `leaves`, in order
/// (`jax.tree_util.tree_unflatten(def, leaves)`).
///
/// Panics if the number of leaves is not `def`'s, or if `T` cannot have structure `def`
/// (another struct, a tuple of another length, ...).
///
/// ```
/// use oxla::tree::{tree_structure, tree_unflatten};
/// use oxla::{numpy as jnp, Tensor};
/// let def = tree_structure(&vec![jnp::ones(&[]); 3]);
/// let v: Vec<Tensor> = tree_unflatten(&def, (0..3).map(|i| Tensor::scalar(i as f32)));
/// assert_eq!(v[2].item(), 2.0);
/// ```
#[track_caller]
pub fn tree_unflatten<T: Tree>(def: &TreeDef, leaves: impl IntoIterator<Item = Tensor>) -> T {
    let leaves: Vec<Tensor> = leaves.into_iter().collect();
    let at = Location::caller();
    if leaves.len() != def.num_leaves() {
        panic!(
            "tree_unflatten: the structure {def} has {} leaves, but {} were given\n  at {at}",
            def.num_leaves(),
            leaves.len()
        );
    }
    T::from_def(def, &mut leaves.into_iter()).unwrap_or_else(|| {
        panic!(
            "tree_unflatten: the type {} cannot have the structure {def}\n  at {at}",
            std::any::type_name::<T>()
        )
    })
}
