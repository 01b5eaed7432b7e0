//! numpy indexing: integers, slices with steps, `None` (new axis), `...`, integer arrays
//! (broadcast together, placed as numpy places them), and `ix_`.
//!
//! [`items`] holds the index expression. [`index()`] expands `...`, turns new axes into
//! size-1 dimensions and checks integer bounds, then lowers through [`basic`] (integers and
//! slices: `slice`, `rev`, `squeeze`) or [`advanced`] (integer arrays: one `gather`).
//! [`at`] holds `x.at(idx)`, JAX's `x.at[idx]`, built on it.
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

mod advanced;
mod at;
mod basic;
mod items;

pub use advanced::ix_;
use advanced::lower_advanced;
pub use at::{At, AtMode};
use basic::lower_basic;
pub use items::{s, Ellipsis, Index, IndexItem, NewAxis, Slice};

use crate::core::Tensor;
use crate::ops as lax;

/// Panics with `msg` about indexing `x`, at the caller's line.
#[track_caller]
fn fail(x: &Tensor, msg: String) -> ! {
    panic!(
        "index: {msg} (array of shape {:?})\n  at {}",
        x.shape(),
        std::panic::Location::caller()
    )
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
    // An empty `...` still separates the advanced indices on either side of it, which
    // numpy then places first (its adjacency rule).
    let advanced = |i: &IndexItem| matches!(i, IndexItem::Array(_) | IndexItem::Int(_));
    let split = x.ndim() == consumed
        && idx
            .iter()
            .position(|i| matches!(i, IndexItem::Ellipsis))
            .is_some_and(|p| idx[..p].iter().any(advanced) && idx[p + 1..].iter().any(advanced));
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
    if items.iter().any(|i| matches!(i, IndexItem::Array(_))) {
        lower_advanced(x, &y, &items, &dims, split)
    } else {
        lower_basic(&y, &items, &dims)
    }
}
