//! Rows sliced off the front of a value, shared instead of copied: a kernel that only
//! slices a contiguous run of rows along the leading dimension (seen through reshapes)
//! hands out those rows of its operand's buffer, as `pmap`'s own blocks are. The plan
//! counts the result as a view, extending its operand's life, so the peak it reports stays
//! an upper bound. A program's result is never such a view: it would hold its operand's
//! whole buffer after the call.

use crate::core::prim::Kind;
use crate::core::{Atom, Jaxpr, Prim};

use super::kernel::ir::Kernel;

/// Rows `start..start + rows` of a kernel's one operand, read as `shape`.
#[derive(Clone, Debug)]
pub(crate) struct RowView {
    /// The slice's operand's shape (the kernel's input, reshaped).
    pub(crate) shape: Vec<usize>,
    /// The first row.
    pub(crate) start: usize,
    /// How many rows.
    pub(crate) rows: usize,
}

/// The rows kernel `k` of `j` slices, when that is all it does and its result is not one
/// of the program's.
pub(crate) fn row_view(k: &Kernel, j: &Jaxpr) -> Option<RowView> {
    if k.reduce.is_some() || k.epilogue.is_some() || k.inputs.len() != 1 {
        return None;
    }
    let root = &j.eqns[k.eqns[0]];
    let Prim::Slice {
        start_indices,
        limit_indices,
        strides,
    } = &root.prim
    else {
        return None;
    };
    let unit = strides.as_ref().is_none_or(|s| s.iter().all(|&s| s == 1));
    let views = k.eqns[1..]
        .iter()
        .all(|&e| matches!(j.eqns[e].prim.kind(), Kind::View));
    let shape = root.inputs[0].aval().shape.to_vec();
    let whole_rows =
        (1..shape.len()).all(|d| start_indices[d] == 0 && limit_indices[d] == shape[d]);
    let result = j
        .outvars
        .iter()
        .any(|a| matches!(a, Atom::Var(v) if v.id == k.out.id));
    (unit && views && whole_rows && !shape.is_empty() && !result).then(|| RowView {
        start: start_indices[0],
        rows: limit_indices[0] - start_indices[0],
        shape,
    })
}
