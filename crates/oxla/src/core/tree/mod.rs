//! Pytrees: nested containers of tensors that transforms take and return.
//!
//! A [`Tree`] flattens to its leaves (tensors, in order) and rebuilds from new leaves with
//! the same structure. Implemented for [`Tensor`], `()`, tuples up to six, `Vec`, arrays and
//! `Option`, and by `#[derive(Tree)]` for user structs, whose fields are flattened in
//! declaration order (a registered dataclass in JAX's terms).
//!
//! ```
//! use oxla::{numpy as jnp, Tensor, Tree};
//! let params = (jnp::ones(&[2]), vec![jnp::zeros(&[3]), jnp::zeros(&[])]);
//! assert_eq!(params.leaves().len(), 3);
//! assert_eq!(params.def().to_string(), "(*, [*, *])");
//!
//! #[derive(Tree)]
//! struct Linear {
//!     w: Tensor,
//!     b: Option<Tensor>,
//! }
//! let layer = Linear { w: jnp::ones(&[2, 2]), b: None };
//! assert_eq!(layer.def().to_string(), "Linear(w=*, b=None)");
//! ```
//!
//! An enum is rejected at compile time (its leaves would depend on the variant, which a
//! traced function cannot change):
//!
//! ```compile_fail
//! use oxla::{Tensor, Tree};
//! #[derive(Tree)]
//! enum Layer {
//!     Dense(Tensor),
//!     Identity,
//! }
//! ```
//!
//! The functions [`tree_map`], [`tree_map2`], [`tree_leaves`], [`tree_flatten`],
//! [`tree_unflatten`] and [`tree_structure`] are JAX's `jax.tree_util` ones.

use std::fmt;

use super::Tensor;

mod impls;
mod util;

pub use util::{tree_flatten, tree_leaves, tree_map, tree_map2, tree_structure, tree_unflatten};

/// The structure of a tree, without its leaves.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TreeDef {
    /// One tensor.
    Leaf,
    /// A tuple of subtrees.
    Tuple(Vec<TreeDef>),
    /// A `Vec` or array of subtrees.
    List(Vec<TreeDef>),
    /// `None`.
    None,
    /// `Some(subtree)`.
    Some(Box<TreeDef>),
    /// A struct deriving [`Tree`]: its type's name (without generic arguments) and its
    /// fields in declaration order, named `"0"`, `"1"`, ... for a tuple struct.
    Struct {
        /// The type's name.
        name: &'static str,
        /// Each field's name and structure.
        fields: Vec<(&'static str, TreeDef)>,
    },
}

impl TreeDef {
    /// Number of leaves.
    pub fn num_leaves(&self) -> usize {
        match self {
            TreeDef::Leaf => 1,
            TreeDef::Tuple(c) | TreeDef::List(c) => c.iter().map(TreeDef::num_leaves).sum(),
            TreeDef::None => 0,
            TreeDef::Some(c) => c.num_leaves(),
            TreeDef::Struct { fields, .. } => fields.iter().map(|(_, d)| d.num_leaves()).sum(),
        }
    }
}

/// Printed as Python would print the value with `*` for each leaf: `(*, [*, *])`,
/// `Some(*)`, and a struct as its dataclass repr, `Mlp(w=*, b=*)` (`Pair(*, *)` for a tuple
/// struct).
impl fmt::Display for TreeDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let seq = |f: &mut fmt::Formatter<'_>, open: &str, close: &str, c: &[TreeDef]| {
            f.write_str(open)?;
            for (i, d) in c.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{d}")?;
            }
            f.write_str(close)
        };
        match self {
            TreeDef::Leaf => f.write_str("*"),
            TreeDef::Tuple(c) if c.len() == 1 => seq(f, "(", ",)", c),
            TreeDef::Tuple(c) => seq(f, "(", ")", c),
            TreeDef::List(c) => seq(f, "[", "]", c),
            TreeDef::None => f.write_str("None"),
            TreeDef::Some(c) => write!(f, "Some({c})"),
            TreeDef::Struct { name, fields } => {
                write!(f, "{name}(")?;
                for (i, (field, d)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    if field.starts_with(|c: char| c.is_ascii_digit()) {
                        write!(f, "{d}")?;
                    } else {
                        write!(f, "{field}={d}")?;
                    }
                }
                f.write_str(")")
            }
        }
    }
}

/// A container of tensors that transforms can flatten and rebuild.
///
/// `#[derive(Tree)]` (re-exported beside the trait, as serde's derives are) implements it
/// for a struct with named or unnamed fields, generic or not, whose fields are all trees;
/// enums are rejected at compile time.
pub trait Tree: Sized {
    /// Appends the leaves, in order, to `out`.
    fn flatten_into(&self, out: &mut Vec<Tensor>);
    /// A tree of the same structure whose leaves are taken from `leaves` in order.
    fn rebuild(&self, leaves: &mut dyn Iterator<Item = Tensor>) -> Self;
    /// The structure.
    fn def(&self) -> TreeDef;

    /// A tree of structure `def` with leaves taken in order, or `None` if `def` is not a
    /// structure this type can have.
    fn from_def(def: &TreeDef, leaves: &mut dyn Iterator<Item = Tensor>) -> Option<Self>;

    /// The leaves, in order.
    fn leaves(&self) -> Vec<Tensor> {
        let mut v = Vec::new();
        self.flatten_into(&mut v);
        v
    }
}

/// A function's arguments as [`grad`](crate::grad) and the Jacobians count them: a tuple is
/// several positional arguments, any other tree is one argument. `First` is the type of
/// argument 0, which is what a gradient with the default `argnums` has.
///
/// `#[derive(Tree)]` implements it for a struct (one argument, `First = Self`).
pub trait Args: Tree {
    /// Argument 0: a tuple's first element, or the whole tree.
    type First: Tree;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numpy as jnp;

    #[test]
    fn rebuild_keeps_structure() {
        let t = (
            jnp::ones(&[2]),
            [jnp::zeros(&[1]), jnp::zeros(&[3])],
            Some(vec![jnp::ones(&[])]),
            None::<Tensor>,
        );
        let leaves: Vec<Tensor> = t.leaves().iter().map(|x| x * 2.0).collect();
        assert_eq!(leaves.len(), 4);
        let r = t.rebuild(&mut leaves.into_iter());
        assert_eq!(r.def(), t.def());
        assert_eq!(r.0.to_vec::<f32>(), vec![2.0, 2.0]);
        assert_eq!(t.def().to_string(), "(*, [*, *], Some([*]), None)");
        assert_eq!(t.def().num_leaves(), 4);
    }
}
