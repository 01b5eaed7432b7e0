//! Plain pytrees, flattened and rebuilt in Rust: tuples, lists, dicts with string keys,
//! `None` and arrays (exactly those types, not subclasses such as namedtuples). `jit`'s
//! calls on such arguments skip Python's `tree_flatten` and `tree_unflatten`, which cost
//! about a microsecond a leaf; anything else takes the Python path.
//!
//! A tree's structure is written as a string, which the Python layer uses as a cache key:
//! `L` an array, `N` `None`, `(...)` a tuple, `[...]` a list, and `{` `len:key child` ... `}`
//! a dict, its keys sorted as `tree_flatten` sorts them.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};

use crate::array::Array;

/// How deep a plain tree may nest: deeper ones (and cycles) take the Python path, which
/// raises `RecursionError` for a cycle as JAX does.
const MAX_DEPTH: usize = 256;

/// Appends `obj`'s structure to `out` and its arrays to `leaves`; false when `obj` is not a
/// plain tree (or nests deeper than [`MAX_DEPTH`] below `depth`).
fn walk<'py>(
    obj: &Bound<'py, PyAny>,
    depth: usize,
    out: &mut String,
    leaves: &mut Vec<Bound<'py, PyAny>>,
) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    if obj.is_exact_instance_of::<Array>() {
        out.push('L');
        leaves.push(obj.clone());
        true
    } else if obj.is_none() {
        out.push('N');
        true
    } else if let Ok(t) = obj.downcast_exact::<PyTuple>() {
        out.push('(');
        let ok = t.iter().all(|c| walk(&c, depth + 1, out, leaves));
        out.push(')');
        ok
    } else if let Ok(l) = obj.downcast_exact::<PyList>() {
        out.push('[');
        let ok = l.iter().all(|c| walk(&c, depth + 1, out, leaves));
        out.push(']');
        ok
    } else if let Ok(d) = obj.downcast_exact::<PyDict>() {
        let mut items = Vec::with_capacity(d.len());
        for (k, v) in d.iter() {
            let Some(k) = k
                .downcast_exact::<PyString>()
                .ok()
                .and_then(|k| k.to_cow().ok().map(|k| k.into_owned()))
            else {
                return false;
            };
            items.push((k, v));
        }
        items.sort_by(|a, b| a.0.cmp(&b.0));
        out.push('{');
        for (k, v) in &items {
            out.push_str(&format!("{}:{k}", k.len()));
            if !walk(v, depth + 1, out, leaves) {
                return false;
            }
        }
        out.push('}');
        true
    } else {
        false
    }
}

/// `(structure, leaves)` of a plain tree, `None` for any other.
#[pyfunction]
fn plain_flatten<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Option<(String, Bound<'py, PyList>)>> {
    let mut structure = String::new();
    let mut leaves = Vec::new();
    if !walk(obj, 0, &mut structure, &mut leaves) {
        return Ok(None);
    }
    Ok(Some((structure, PyList::new(obj.py(), leaves)?)))
}

/// Rebuilds the node of `s` starting at byte `at`, taking its arrays from `leaves`;
/// returns the node and the byte after it.
fn build<'py>(
    py: Python<'py>,
    s: &[u8],
    mut at: usize,
    leaves: &mut impl Iterator<Item = Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyAny>, usize)> {
    let bad = || pyo3::exceptions::PyValueError::new_err("plain_unflatten: malformed structure");
    match s.get(at).ok_or_else(bad)? {
        b'L' => Ok((leaves.next().ok_or_else(bad)?, at + 1)),
        b'N' => Ok((py.None().into_bound(py), at + 1)),
        open @ (b'(' | b'[') => {
            let close = if *open == b'(' { b')' } else { b']' };
            let mut children = Vec::new();
            at += 1;
            while s.get(at) != Some(&close) {
                let (child, next) = build(py, s, at, leaves)?;
                children.push(child);
                at = next;
            }
            let node = if *open == b'(' {
                PyTuple::new(py, children)?.into_any()
            } else {
                PyList::new(py, children)?.into_any()
            };
            Ok((node, at + 1))
        }
        b'{' => {
            let d = PyDict::new(py);
            at += 1;
            while s.get(at) != Some(&b'}') {
                let colon = at + s[at..].iter().position(|&c| c == b':').ok_or_else(bad)?;
                let n: usize = std::str::from_utf8(&s[at..colon])
                    .ok()
                    .and_then(|n| n.parse().ok())
                    .ok_or_else(bad)?;
                let key = std::str::from_utf8(s.get(colon + 1..colon + 1 + n).ok_or_else(bad)?)
                    .map_err(|_| bad())?;
                let (child, next) = build(py, s, colon + 1 + n, leaves)?;
                d.set_item(key, child)?;
                at = next;
            }
            Ok((d.into_any(), at + 1))
        }
        _ => Err(bad()),
    }
}

/// The plain tree of `structure` (from [`plain_flatten`]) holding `leaves`, in order.
#[pyfunction]
fn plain_unflatten<'py>(
    structure: &str,
    leaves: &Bound<'py, PyList>,
) -> PyResult<Bound<'py, PyAny>> {
    let mut it = leaves.iter();
    let (tree, end) = build(leaves.py(), structure.as_bytes(), 0, &mut it)?;
    if end != structure.len() || it.next().is_some() {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "plain_unflatten: the leaves do not fit the structure",
        ));
    }
    Ok(tree)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(plain_flatten, m)?)?;
    m.add_function(wrap_pyfunction!(plain_unflatten, m)?)?;
    Ok(())
}
