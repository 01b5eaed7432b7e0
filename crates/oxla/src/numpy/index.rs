//! numpy indexing: integers, slices with steps, `None` (new axis), `...`, integer arrays
//! (broadcast together, placed as numpy places them), and `ix_`.
//!
//! ```
//! use oxla::numpy::{self as jnp, s};
//! let x = jnp::arange(12).reshape(&[3, 4]);
//! assert_eq!(x.index((1, ..)).to_vec::<i32>(), vec![4, 5, 6, 7]);
//! assert_eq!(x.index((.., s(None, None, -2))).to_vec::<i32>(), vec![3, 1, 7, 5, 11, 9]);
//! let rows = jnp::array(&[2i32, 0], &[2]);
//! assert_eq!(x.index((&rows, -1)).to_vec::<i32>(), vec![11, 3]);
//! assert_eq!(x.index((None, 0)).shape(), &[1, 4]);
//! ```

use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo};

use super::{astype, scalar_tensor};
use crate::array::DType;
use crate::core::Tensor;
use crate::ops as lax;
use crate::prims::{GatherDims, GatherMode};

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

#[track_caller]
fn fail(x: &Tensor, msg: String) -> ! {
    panic!(
        "index: {msg} (array of shape {:?})\n  at {}",
        x.shape(),
        std::panic::Location::caller()
    )
}

/// `(first, count, step, stop)` of a numpy slice over a dimension of size `n`, `stop` clamped
/// as Python's `slice.indices` clamps it.
fn resolve_slice(sl: Slice, n: usize) -> (isize, usize, isize, isize) {
    let n = n as isize;
    let step = sl.step;
    let clamp = |v: isize, lo: isize, hi: isize| v.clamp(lo, hi);
    let norm = |v: isize| if v < 0 { v + n } else { v };
    let (start, stop) = if step > 0 {
        (
            sl.start.map_or(0, |v| clamp(norm(v), 0, n)),
            sl.stop.map_or(n, |v| clamp(norm(v), 0, n)),
        )
    } else {
        (
            sl.start.map_or(n - 1, |v| clamp(norm(v), -1, n - 1)),
            sl.stop.map_or(-1, |v| clamp(norm(v), -1, n - 1)),
        )
    };
    // In i128: a step of `isize::MIN` or `isize::MAX` is valid, and its magnitude plus a
    // span overflows `isize` (numpy: `x[::-2**63]` is `x[-1:]` for a non-empty `x`).
    let (span, by) = if step > 0 {
        (stop - start, step as i128)
    } else {
        (start - stop, -(step as i128))
    };
    let count = (span.max(0) as i128 + by - 1) / by;
    (start, count as usize, step, stop)
}

/// Applies static slices (and static integers, as size-1 slices) dimension by dimension.
#[track_caller]
fn apply_slices(x: &Tensor, slices: &[Option<Slice>]) -> Tensor {
    let n = x.ndim();
    let (mut start, mut limit, mut stride) = (vec![0; n], x.shape().to_vec(), vec![1; n]);
    let mut reversed = Vec::new();
    for (d, sl) in slices.iter().enumerate() {
        let Some(sl) = sl else { continue };
        let (first, count, step, stop) = resolve_slice(*sl, x.shape()[d]);
        if count == 0 {
            (start[d], limit[d]) = (0, 0);
            continue;
        }
        if step.unsigned_abs() >= x.shape()[d] {
            // One element (count is 1): no stride as large as the step in the program.
            (start[d], limit[d]) = (first as usize, first as usize + 1);
        } else if step > 0 {
            // The slice's own stop, as JAX passes it (`x[1:7:2]` has limit 7, not 6).
            start[d] = first as usize;
            stride[d] = step as usize;
            limit[d] = stop as usize;
        } else {
            let last = first + (count as isize - 1) * step;
            start[d] = last as usize;
            stride[d] = step.unsigned_abs();
            limit[d] = first as usize + 1;
            reversed.push(d);
        }
    }
    let trivial = start.iter().all(|&s| s == 0) && limit.as_slice() == x.shape();
    let mut y = x.clone();
    if !trivial || stride.iter().any(|&s| s != 1) {
        let strides = stride.iter().any(|&s| s != 1).then_some(stride.as_slice());
        y = lax::slice(&y, &start, &limit, strides);
    }
    if !reversed.is_empty() {
        y = lax::rev(&y, &reversed);
    }
    y
}

/// Integer index array normalised to non-negative `i32` positions in a dimension of size `n`.
#[track_caller]
fn normalize_index(i: &Tensor, n: usize) -> Tensor {
    let i = match i.dtype() {
        DType::I32 => i.clone(),
        DType::U32 => astype(i, DType::I32),
        d => panic!(
            "index: index arrays must be integers, got {d} (boolean masks have data-dependent \
             shapes)\n  at {}",
            std::panic::Location::caller()
        ),
    };
    if let Some(a) = i.try_array() {
        if a.as_slice::<i32>().iter().all(|&v| v >= 0) {
            return i;
        }
    }
    let zero = scalar_tensor(0.0, DType::I32);
    let negative = lax::lt(&i, &zero);
    let wrapped = lax::add(&i, &scalar_tensor(n as f64, DType::I32));
    lax::select_n(&negative, &[i.clone(), wrapped])
}

/// The shape numpy broadcasts `a` and `b` to (ranks aligned at the end), if they broadcast.
fn numpy_broadcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let r = a.len().max(b.len());
    let at = |s: &[usize], d: usize| (d + s.len()).checked_sub(r).map_or(1, |i| s[i]);
    (0..r)
        .map(|d| match (at(a, d), at(b, d)) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

/// `x[index]` with numpy's semantics.
#[track_caller]
pub(crate) fn index(x: &Tensor, idx: Vec<IndexItem>) -> Tensor {
    // Expand `...` and pad with full slices.
    let consumed = idx
        .iter()
        .filter(|i| !matches!(i, IndexItem::NewAxis | IndexItem::Ellipsis))
        .count();
    if consumed > x.ndim() {
        fail(
            x,
            format!("too many indices: {consumed} for {} dimensions", x.ndim()),
        );
    }
    if idx
        .iter()
        .filter(|i| matches!(i, IndexItem::Ellipsis))
        .count()
        > 1
    {
        fail(x, "an index can only have one ellipsis".into());
    }
    let full = || IndexItem::Slice(s(None, None, 1));
    let mut items = Vec::new();
    let mut has_ellipsis = false;
    for it in idx {
        if let IndexItem::Ellipsis = it {
            has_ellipsis = true;
            items.extend((0..x.ndim() - consumed).map(|_| full()));
        } else {
            items.push(it);
        }
    }
    if !has_ellipsis {
        items.extend((0..x.ndim() - consumed).map(|_| full()));
    }
    // New axes become size-1 dimensions of the operand, indexed by a full slice.
    let mut y = x.clone();
    if items.iter().any(|i| matches!(i, IndexItem::NewAxis)) {
        let mut shape = Vec::new();
        let mut dims = Vec::new();
        let mut src = x.shape().iter();
        for it in &items {
            if let IndexItem::NewAxis = it {
                shape.push(1);
            } else {
                dims.push(shape.len());
                shape.push(*src.next().expect("counted"));
            }
        }
        y = lax::broadcast_in_dim(&y, &shape, &dims);
        for it in items.iter_mut() {
            if let IndexItem::NewAxis = it {
                *it = full();
            }
        }
    }
    let dims = y.shape().to_vec();
    for (d, it) in items.iter().enumerate() {
        if let IndexItem::Int(i) = it {
            let n = dims[d] as isize;
            if *i < -n || *i >= n {
                fail(
                    x,
                    format!("index {i} is out of bounds for axis {d} with size {n}"),
                );
            }
        }
    }
    let has_arrays = items.iter().any(|i| matches!(i, IndexItem::Array(_)));
    if !has_arrays {
        let slices: Vec<Option<Slice>> = items
            .iter()
            .enumerate()
            .map(|(d, it)| match it {
                IndexItem::Slice(sl) => Some(*sl),
                IndexItem::Int(i) => {
                    let i = i.rem_euclid(dims[d] as isize);
                    Some(s(Some(i), Some(i + 1), 1))
                }
                _ => None,
            })
            .collect();
        let y = apply_slices(&y, &slices);
        let ints: Vec<usize> = (0..items.len())
            .filter(|&d| matches!(items[d], IndexItem::Int(_)))
            .collect();
        return if ints.is_empty() {
            y
        } else {
            lax::squeeze(&y, &ints)
        };
    }
    // Advanced indexing: slice the other dimensions, then gather along the indexed ones.
    let slices: Vec<Option<Slice>> = items
        .iter()
        .map(|it| match it {
            IndexItem::Slice(sl) => Some(*sl),
            _ => None,
        })
        .collect();
    let y = apply_slices(&y, &slices);
    let adv: Vec<usize> = (0..items.len())
        .filter(|&d| matches!(items[d], IndexItem::Array(_) | IndexItem::Int(_)))
        .collect();
    // Loops and matches, not closures, so that errors name the caller's line.
    let mut arrays: Vec<Tensor> = Vec::with_capacity(adv.len());
    for &d in &adv {
        arrays.push(match &items[d] {
            IndexItem::Array(t) => normalize_index(t, dims[d]),
            IndexItem::Int(i) => scalar_tensor(i.rem_euclid(dims[d] as isize) as f64, DType::I32),
            _ => unreachable!("advanced items only"),
        });
    }
    // Broadcast the index arrays to one shape, as `jnp.broadcast_arrays` does.
    let bshape = arrays
        .iter()
        .map(|t| t.shape().to_vec())
        .try_fold(Vec::new(), |a, b| numpy_broadcast(&a, &b));
    let Some(bshape) = bshape else {
        let shapes: Vec<String> = arrays.iter().map(|t| format!("{:?}", t.shape())).collect();
        fail(
            x,
            format!(
                "index arrays of shapes {} cannot be broadcast together",
                shapes.join(", ")
            ),
        )
    };
    let nb = bshape.len();
    let arrays: Vec<Tensor> = arrays
        .into_iter()
        .map(|t| {
            if t.shape() == bshape.as_slice() {
                t
            } else {
                let dims: Vec<usize> = (nb - t.ndim()..nb).collect();
                lax::broadcast_in_dim(&t, &bshape, &dims)
            }
        })
        .collect();
    let mut vshape = bshape.clone();
    vshape.push(1);
    let columns: Vec<Tensor> = arrays
        .iter()
        .map(|t| lax::broadcast_in_dim(t, &vshape, &(0..nb).collect::<Vec<_>>()))
        .collect();
    let indices = if columns.len() == 1 {
        columns[0].clone()
    } else {
        lax::concatenate(&columns, nb)
    };
    let contiguous = adv.windows(2).all(|w| w[1] == w[0] + 1);
    let rest: Vec<usize> = (0..y.ndim()).filter(|d| !adv.contains(d)).collect();
    let before = if contiguous {
        rest.iter().filter(|&&d| d < adv[0]).count()
    } else {
        0
    };
    let offset_dims: Vec<usize> = (0..rest.len())
        .map(|i| if i < before { i } else { i + nb })
        .collect();
    let slice_sizes: Vec<usize> = (0..y.ndim())
        .map(|d| if adv.contains(&d) { 1 } else { y.shape()[d] })
        .collect();
    let gd = GatherDims {
        offset_dims,
        collapsed_slice_dims: adv.clone(),
        start_index_map: adv,
        operand_batching_dims: vec![],
        start_indices_batching_dims: vec![],
    };
    lax::gather(&y, &indices, gd, &slice_sizes, GatherMode::PromiseInBounds)
}

/// Open-mesh index arrays from 1-D integer arrays, as `np.ix_`: array `k` of `n` arrays
/// gets shape `[1, ..., len_k, ..., 1]`.
#[track_caller]
pub fn ix_(arrays: &[Tensor]) -> Vec<Tensor> {
    let _line = crate::core::user_line();
    let at = std::panic::Location::caller();
    let n = arrays.len();
    arrays
        .iter()
        .enumerate()
        .map(|(k, a)| {
            if a.ndim() != 1 {
                panic!(
                    "ix_: arrays must be one-dimensional, got shape {:?} for array {k}\n  at {at}",
                    a.shape()
                );
            }
            let mut shape = vec![1; n];
            shape[k] = a.shape()[0];
            lax::broadcast_in_dim(a, &shape, &[k])
        })
        .collect()
}
