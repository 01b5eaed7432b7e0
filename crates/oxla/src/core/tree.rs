//! Pytrees: nested containers of tensors that transforms take and return.
//!
//! A [`Tree`] flattens to its leaves (tensors, in order) and rebuilds from new leaves with
//! the same structure. Implemented for [`Tensor`], `()`, tuples up to six, `Vec`, arrays and
//! `Option`.
//!
//! ```
//! use oxla::{numpy as jnp, Tree};
//! let params = (jnp::ones(&[2]), vec![jnp::zeros(&[3]), jnp::zeros(&[])]);
//! assert_eq!(params.leaves().len(), 3);
//! assert_eq!(params.def().to_string(), "(*, [*, *])");
//! ```

use std::fmt;

use super::Tensor;

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
}

impl TreeDef {
    /// Number of leaves.
    pub fn num_leaves(&self) -> usize {
        match self {
            TreeDef::Leaf => 1,
            TreeDef::Tuple(c) | TreeDef::List(c) => c.iter().map(TreeDef::num_leaves).sum(),
            TreeDef::None => 0,
            TreeDef::Some(c) => c.num_leaves(),
        }
    }
}

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
        }
    }
}

/// A container of tensors that transforms can flatten and rebuild.
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

impl Args for Tensor {
    type First = Tensor;
}

impl<T: Tree> Args for Vec<T> {
    type First = Vec<T>;
}

impl<T: Tree, const N: usize> Args for [T; N] {
    type First = [T; N];
}

impl<T: Tree> Args for Option<T> {
    type First = Option<T>;
}

impl Tree for Tensor {
    fn flatten_into(&self, out: &mut Vec<Tensor>) {
        out.push(self.clone());
    }
    fn rebuild(&self, leaves: &mut dyn Iterator<Item = Tensor>) -> Self {
        leaves.next().expect("too few leaves to rebuild a tree")
    }
    fn def(&self) -> TreeDef {
        TreeDef::Leaf
    }
    fn from_def(def: &TreeDef, leaves: &mut dyn Iterator<Item = Tensor>) -> Option<Self> {
        match def {
            TreeDef::Leaf => leaves.next(),
            _ => None,
        }
    }
}

impl Tree for () {
    fn flatten_into(&self, _: &mut Vec<Tensor>) {}
    fn rebuild(&self, _: &mut dyn Iterator<Item = Tensor>) -> Self {}
    fn def(&self) -> TreeDef {
        TreeDef::Tuple(vec![])
    }
    fn from_def(def: &TreeDef, _: &mut dyn Iterator<Item = Tensor>) -> Option<Self> {
        matches!(def, TreeDef::Tuple(c) if c.is_empty()).then_some(())
    }
}

macro_rules! tuple_tree {
    (@first $A:ident $($rest:ident)*) => { $A };
    ($($T:ident $i:tt),+) => {
        impl<$($T: Tree),+> Args for ($($T,)+) {
            type First = tuple_tree!(@first $($T)+);
        }

        impl<$($T: Tree),+> Tree for ($($T,)+) {
            fn flatten_into(&self, out: &mut Vec<Tensor>) {
                $(self.$i.flatten_into(out);)+
            }
            fn rebuild(&self, leaves: &mut dyn Iterator<Item = Tensor>) -> Self {
                ($(self.$i.rebuild(leaves),)+)
            }
            fn def(&self) -> TreeDef {
                TreeDef::Tuple(vec![$(self.$i.def()),+])
            }
            fn from_def(def: &TreeDef, leaves: &mut dyn Iterator<Item = Tensor>) -> Option<Self> {
                let TreeDef::Tuple(c) = def else { return None };
                if c.len() != [$($i),+].len() {
                    return None;
                }
                Some(($($T::from_def(&c[$i], leaves)?,)+))
            }
        }
    };
}
tuple_tree!(A 0);
tuple_tree!(A 0, B 1);
tuple_tree!(A 0, B 1, C 2);
tuple_tree!(A 0, B 1, C 2, D 3);
tuple_tree!(A 0, B 1, C 2, D 3, E 4);
tuple_tree!(A 0, B 1, C 2, D 3, E 4, F 5);

impl<T: Tree> Tree for Vec<T> {
    fn flatten_into(&self, out: &mut Vec<Tensor>) {
        self.iter().for_each(|t| t.flatten_into(out));
    }
    fn rebuild(&self, leaves: &mut dyn Iterator<Item = Tensor>) -> Self {
        self.iter().map(|t| t.rebuild(leaves)).collect()
    }
    fn def(&self) -> TreeDef {
        TreeDef::List(self.iter().map(Tree::def).collect())
    }
    fn from_def(def: &TreeDef, leaves: &mut dyn Iterator<Item = Tensor>) -> Option<Self> {
        let TreeDef::List(c) = def else { return None };
        c.iter().map(|d| T::from_def(d, leaves)).collect()
    }
}

impl<T: Tree, const N: usize> Tree for [T; N] {
    fn flatten_into(&self, out: &mut Vec<Tensor>) {
        self.iter().for_each(|t| t.flatten_into(out));
    }
    fn rebuild(&self, leaves: &mut dyn Iterator<Item = Tensor>) -> Self {
        std::array::from_fn(|i| self[i].rebuild(leaves))
    }
    fn def(&self) -> TreeDef {
        TreeDef::List(self.iter().map(Tree::def).collect())
    }
    fn from_def(def: &TreeDef, leaves: &mut dyn Iterator<Item = Tensor>) -> Option<Self> {
        let TreeDef::List(c) = def else { return None };
        let v: Vec<T> = c
            .iter()
            .map(|d| T::from_def(d, leaves))
            .collect::<Option<_>>()?;
        v.try_into().ok()
    }
}

impl<T: Tree> Tree for Option<T> {
    fn flatten_into(&self, out: &mut Vec<Tensor>) {
        if let Some(t) = self {
            t.flatten_into(out);
        }
    }
    fn rebuild(&self, leaves: &mut dyn Iterator<Item = Tensor>) -> Self {
        self.as_ref().map(|t| t.rebuild(leaves))
    }
    fn def(&self) -> TreeDef {
        match self {
            None => TreeDef::None,
            Some(t) => TreeDef::Some(Box::new(t.def())),
        }
    }
    fn from_def(def: &TreeDef, leaves: &mut dyn Iterator<Item = Tensor>) -> Option<Self> {
        match def {
            TreeDef::None => Some(None),
            TreeDef::Some(d) => T::from_def(d, leaves).map(Some),
            _ => None,
        }
    }
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
