//! `AxisTree`: the `in_axes` / `out_axes` of `vmap`, a tree of `Option<isize>` matching a
//! prefix of the arguments' or outputs' tree.

use std::fmt;

use crate::core::tree::TreeDef;
use crate::source::Source;

/// A tree of axes matching (a prefix of) a tree of arguments or outputs: `Some(axis)` maps
/// over that axis (negative counts from the end), `None` passes the value unmapped.
///
/// Built from integers, `None`, and tuples or `Vec`s of those:
/// `(None, 0, 0)`, `((0, None), 1)`, `-1`.
///
/// A struct deriving [`Tree`](crate::Tree) takes one axis for all its leaves (a prefix, as
/// `0` above), or one entry per field by name with [`AxisTree::fields`], which is what
/// JAX's pytree of axes with the struct's structure (`Mlp(w1=0, b1=None, ...)`) says. A
/// tuple struct also takes a tuple, matched to its fields in order.
///
/// ```
/// use oxla::{numpy as jnp, vmap, AxisTree, Tensor, Tree};
/// #[derive(Tree)]
/// struct Affine {
///     w: Tensor,
///     b: Tensor,
/// }
/// // A batch of 3 weight vectors sharing one bias.
/// let p = Affine { w: jnp::ones(&[3, 2]), b: jnp::zeros(&[]) };
/// let f = |(p, x): (Affine, Tensor)| (&p.w * &x).sum(None) + &p.b;
/// let y = vmap(f)
///     .in_axes((AxisTree::fields([("w", Some(0)), ("b", None)]), None))
///     .call((p, jnp::arange(2.0)));
/// assert_eq!(y.to_vec::<f32>(), vec![1.0, 1.0, 1.0]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AxisTree {
    /// One axis (or `None`) for a whole subtree.
    Leaf(Option<isize>),
    /// One entry per child of a tuple, `Vec` or tuple struct.
    Node(Vec<AxisTree>),
    /// One entry per field of a struct, by name; see [`AxisTree::fields`].
    Fields(Vec<(&'static str, AxisTree)>),
}

impl AxisTree {
    /// One entry per field of a struct deriving [`Tree`](crate::Tree), by name, in any
    /// order: `AxisTree::fields([("w1", Some(0)), ("b1", None)])`. Every field must be named
    /// once; an entry may itself be a tree of axes (`("inner", AxisTree::fields(..))`).
    pub fn fields<A: Into<AxisTree>>(fields: impl IntoIterator<Item = (&'static str, A)>) -> Self {
        AxisTree::Fields(fields.into_iter().map(|(k, a)| (k, a.into())).collect())
    }
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
            AxisTree::Fields(c) => {
                f.write_str("fields(")?;
                for (i, (k, a)) in c.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}={a}")?;
                }
                f.write_str(")")
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
    /// naming the transform `who`, the tree `what` and the user's line `at`.
    pub(crate) fn per_leaf(
        &self,
        def: &TreeDef,
        who: &str,
        what: &str,
        at: Source,
    ) -> Vec<Option<isize>> {
        let mut out = Vec::with_capacity(def.num_leaves());
        if let Err(why) = self.expand(def, &mut out) {
            panic!("{who}: {what} {self} does not match the tree {def}: {why}\n  at {at}",);
        }
        out
    }

    /// The axis of each leaf of `leaves` (whose tree is `def`) this tree names, negative
    /// ones counted from the end; a mismatch or an axis out of range panics naming the
    /// transform `who` and the user's line `at`.
    pub(crate) fn leaf_axes(
        &self,
        def: &TreeDef,
        leaves: &[crate::core::Tensor],
        who: &str,
        at: Source,
    ) -> Vec<Option<usize>> {
        self.per_leaf(def, who, "in_axes", at)
            .into_iter()
            .zip(leaves)
            .enumerate()
            .map(|(i, (a, t))| {
                a.map(|a| {
                    let r = t.ndim() as isize;
                    if a < -r || a >= r {
                        panic!(
                            "{who}: in_axes {a} is out of range for argument leaf {i} of shape \
                             {:?}\n  at {at}",
                            t.shape()
                        );
                    }
                    a.rem_euclid(r) as usize
                })
            })
            .collect()
    }

    /// Appends the axes of `def`'s leaves, or says where this tree does not match it.
    fn expand(&self, def: &TreeDef, out: &mut Vec<Option<isize>>) -> Result<(), String> {
        let prefix = "it must be a prefix of it (one entry per tuple element, or one axis for \
                      a whole subtree)";
        match (self, def) {
            (AxisTree::Leaf(a), d) => {
                out.extend(std::iter::repeat_n(*a, d.num_leaves()));
                Ok(())
            }
            (AxisTree::Node(c), TreeDef::Tuple(d) | TreeDef::List(d)) if c.len() == d.len() => {
                c.iter().zip(d).try_for_each(|(c, d)| c.expand(d, out))
            }
            (AxisTree::Node(c), TreeDef::Some(d)) if c.len() == 1 => c[0].expand(d, out),
            (AxisTree::Node(c), TreeDef::Struct { name, fields })
                if fields
                    .iter()
                    .all(|(k, _)| k.starts_with(|c: char| c.is_ascii_digit())) =>
            {
                if c.len() != fields.len() {
                    return Err(format!(
                        "{} entries for the {} fields of the tuple struct {name}",
                        c.len(),
                        fields.len()
                    ));
                }
                c.iter()
                    .zip(fields)
                    .try_for_each(|(c, (_, d))| c.expand(d, out))
            }
            (AxisTree::Node(_), TreeDef::Struct { name, .. }) => Err(format!(
                "a tuple of axes for the struct {name}, whose fields have names: give one \
                 axis for all of it or one per field with AxisTree::fields([(\"field\", \
                 axis), ..])"
            )),
            (AxisTree::Fields(c), TreeDef::Struct { name, fields }) => {
                let names = || {
                    let n: Vec<&str> = fields.iter().map(|(k, _)| *k).collect();
                    n.join(", ")
                };
                for (i, (k, _)) in c.iter().enumerate() {
                    if !fields.iter().any(|(f, _)| f == k) {
                        return Err(format!(
                            "`{k}` is not a field of {name} (its fields: {})",
                            names()
                        ));
                    }
                    if c[..i].iter().any(|(j, _)| j == k) {
                        return Err(format!("the field `{k}` of {name} is given twice"));
                    }
                }
                for (f, d) in fields {
                    let Some((_, a)) = c.iter().find(|(k, _)| k == f) else {
                        return Err(format!(
                            "the field `{f}` of {name} has no entry (its fields: {})",
                            names()
                        ));
                    };
                    a.expand(d, out)
                        .map_err(|why| format!("in the field `{f}` of {name}: {why}"))?;
                }
                Ok(())
            }
            (AxisTree::Fields(_), d) => Err(format!(
                "AxisTree::fields gives axes per field of a struct, but this part of the \
                 tree is {d}"
            )),
            (AxisTree::Node(_), _) => Err(prefix.to_string()),
        }
    }
}
