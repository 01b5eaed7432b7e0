//! `AxisTree`: the `in_axes` / `out_axes` of `vmap`, a tree of `Option<isize>` matching a
//! prefix of the arguments' or outputs' tree.

use std::fmt;

use crate::core::tree::TreeDef;

/// A tree of axes matching (a prefix of) a tree of arguments or outputs: `Some(axis)` maps
/// over that axis (negative counts from the end), `None` passes the value unmapped.
///
/// Built from integers, `None`, and tuples or `Vec`s of those:
/// `(None, 0, 0)`, `((0, None), 1)`, `-1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AxisTree {
    /// One axis (or `None`) for a whole subtree.
    Leaf(Option<isize>),
    /// One entry per child of a tuple or `Vec`.
    Node(Vec<AxisTree>),
}

impl fmt::Display for AxisTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AxisTree::Leaf(Some(a)) => write!(f, "{a}"),
            AxisTree::Leaf(None) => f.write_str("None"),
            AxisTree::Node(c) => {
                f.write_str("(")?;
                for (i, a) in c.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{a}")?;
                }
                f.write_str(if c.len() == 1 { ",)" } else { ")" })
            }
        }
    }
}

macro_rules! axis_leaf {
    ($($t:ty),*) => {$(
        impl From<$t> for AxisTree {
            fn from(a: $t) -> AxisTree {
                AxisTree::Leaf(Some(a as isize))
            }
        }
    )*};
}
axis_leaf!(i32, isize, usize);

impl From<Option<i32>> for AxisTree {
    fn from(a: Option<i32>) -> AxisTree {
        AxisTree::Leaf(a.map(|a| a as isize))
    }
}

impl<T: Into<AxisTree>> From<Vec<T>> for AxisTree {
    fn from(v: Vec<T>) -> AxisTree {
        AxisTree::Node(v.into_iter().map(Into::into).collect())
    }
}

macro_rules! axis_tuple {
    ($($T:ident $i:tt),+) => {
        impl<$($T: Into<AxisTree>),+> From<($($T,)+)> for AxisTree {
            fn from(t: ($($T,)+)) -> AxisTree {
                AxisTree::Node(vec![$(t.$i.into()),+])
            }
        }
    };
}
axis_tuple!(A 0);
axis_tuple!(A 0, B 1);
axis_tuple!(A 0, B 1, C 2);
axis_tuple!(A 0, B 1, C 2, D 3);
axis_tuple!(A 0, B 1, C 2, D 3, E 4);
axis_tuple!(A 0, B 1, C 2, D 3, E 4, F 5);

impl AxisTree {
    /// One axis per leaf of `def`, this tree being a prefix of it; a mismatch panics
    /// naming the user's line `at`.
    pub(super) fn per_leaf(
        &self,
        def: &TreeDef,
        what: &str,
        at: &std::panic::Location,
    ) -> Vec<Option<isize>> {
        let mut out = Vec::with_capacity(def.num_leaves());
        if !self.expand(def, &mut out) {
            panic!(
                "vmap: {what} {self} does not match the tree {def}: it must be a prefix of it \
                 (one entry per tuple element, or one axis for a whole subtree)\n  at {at}",
            );
        }
        out
    }

    fn expand(&self, def: &TreeDef, out: &mut Vec<Option<isize>>) -> bool {
        match (self, def) {
            (AxisTree::Leaf(a), d) => {
                out.extend(std::iter::repeat_n(*a, d.num_leaves()));
                true
            }
            (AxisTree::Node(c), TreeDef::Tuple(d) | TreeDef::List(d)) if c.len() == d.len() => {
                c.iter().zip(d).all(|(c, d)| c.expand(d, out))
            }
            (AxisTree::Node(c), TreeDef::Some(d)) if c.len() == 1 => c[0].expand(d, out),
            (AxisTree::Node(_), _) => false,
        }
    }
}
