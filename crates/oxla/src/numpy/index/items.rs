//! The index expression: what `x.index(..)` accepts — integers, Rust ranges and [`Slice`]s
//! (Python's `start:stop:step`), [`NewAxis`], [`Ellipsis`], integer arrays — as
//! [`IndexItem`]s, and tuples of them through the [`Index`] trait.

use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo};

use crate::core::Tensor;

/// `start:stop:step` of Python's slice syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slice {
    /// First index (`None`: from the start, or the end for a negative step).
    pub start: Option<isize>,
    /// One past the last index (`None`: to the end, or the start for a negative step).
    pub stop: Option<isize>,
    /// Step; negative steps walk backwards.
    pub step: isize,
}

/// Python's `start:stop:step`; `s(None, None, -1)` is `::-1`. A step of 0 panics.
#[track_caller]
pub fn s(start: Option<isize>, stop: Option<isize>, step: isize) -> Slice {
    if step == 0 {
        panic!(
            "index: slice step cannot be zero\n  at {}",
            std::panic::Location::caller()
        );
    }
    Slice { start, stop, step }
}

/// `None` in an index: a new axis of size 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewAxis;

/// `...` in an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ellipsis;

/// One entry of an index tuple.
#[derive(Clone, Debug)]
pub enum IndexItem {
    /// An integer: selects one position and removes the dimension.
    Int(isize),
    /// A slice.
    Slice(Slice),
    /// A new axis of size 1.
    NewAxis,
    /// As many full slices as the other entries leave.
    Ellipsis,
    /// An integer array (advanced indexing).
    Array(Tensor),
}

macro_rules! int_item {
    ($($t:ty),*) => {$(
        impl From<$t> for IndexItem {
            fn from(i: $t) -> IndexItem {
                IndexItem::Int(i as isize)
            }
        }
        impl From<Range<$t>> for IndexItem {
            fn from(r: Range<$t>) -> IndexItem {
                IndexItem::Slice(s(Some(r.start as isize), Some(r.end as isize), 1))
            }
        }
        impl From<RangeInclusive<$t>> for IndexItem {
            fn from(r: RangeInclusive<$t>) -> IndexItem {
                IndexItem::Slice(s(Some(*r.start() as isize), Some(*r.end() as isize + 1), 1))
            }
        }
        impl From<RangeFrom<$t>> for IndexItem {
            fn from(r: RangeFrom<$t>) -> IndexItem {
                IndexItem::Slice(s(Some(r.start as isize), None, 1))
            }
        }
        impl From<RangeTo<$t>> for IndexItem {
            fn from(r: RangeTo<$t>) -> IndexItem {
                IndexItem::Slice(s(None, Some(r.end as isize), 1))
            }
        }
    )*};
}
int_item!(i32, usize, isize, i64);

impl From<RangeFull> for IndexItem {
    fn from(_: RangeFull) -> IndexItem {
        IndexItem::Slice(s(None, None, 1))
    }
}
impl From<Slice> for IndexItem {
    fn from(sl: Slice) -> IndexItem {
        IndexItem::Slice(sl)
    }
}
impl From<Option<NewAxis>> for IndexItem {
    fn from(_: Option<NewAxis>) -> IndexItem {
        IndexItem::NewAxis
    }
}
impl From<NewAxis> for IndexItem {
    fn from(_: NewAxis) -> IndexItem {
        IndexItem::NewAxis
    }
}
impl From<Ellipsis> for IndexItem {
    fn from(_: Ellipsis) -> IndexItem {
        IndexItem::Ellipsis
    }
}
impl From<Tensor> for IndexItem {
    fn from(t: Tensor) -> IndexItem {
        IndexItem::Array(t)
    }
}
impl From<&Tensor> for IndexItem {
    fn from(t: &Tensor) -> IndexItem {
        IndexItem::Array(t.clone())
    }
}

/// Anything usable as an index: one item or a tuple of up to six.
pub trait Index {
    /// The items in order.
    fn items(self) -> Vec<IndexItem>;
}

impl<T: Into<IndexItem>> Index for T {
    fn items(self) -> Vec<IndexItem> {
        vec![self.into()]
    }
}

macro_rules! tuple_index {
    ($($T:ident $i:tt),+) => {
        impl<$($T: Into<IndexItem>),+> Index for ($($T,)+) {
            fn items(self) -> Vec<IndexItem> {
                vec![$(self.$i.into()),+]
            }
        }
    };
}
tuple_index!(A 0);
tuple_index!(A 0, B 1);
tuple_index!(A 0, B 1, C 2);
tuple_index!(A 0, B 1, C 2, D 3);
tuple_index!(A 0, B 1, C 2, D 3, E 4);
tuple_index!(A 0, B 1, C 2, D 3, E 4, F 5);
