//! [`Tree`] and [`Args`] for tensors and the standard containers: `()`, tuples up to six,
//! `Vec`, arrays and `Option`.

use super::{Args, Tree, TreeDef};
use crate::core::Tensor;

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
