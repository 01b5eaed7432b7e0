//! The axis environment: the named mapped axes in scope while a function traces, each with
//! its size, as JAX's `axis_env`. A mapped function (`vmap(f).axis_name("i")`) binds its
//! axis around the trace of `f`; a collective reads the size of the axes it names from
//! here, and naming an axis that is not bound is the user's mistake, caught at trace time.

use crate::source::Source;
use std::cell::RefCell;
use std::sync::Arc;

/// A bound axis: its name, its size and, for an axis split over devices in uneven blocks
/// (`vmap(f).devices`), the examples each device holds.
pub(crate) type Bound = (Arc<str>, usize, Option<Arc<[usize]>>);

thread_local! {
    /// The bound axes, innermost last.
    static AXES: RefCell<Vec<Bound>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with the named axes `axes` (name and size, outermost first) bound, as
/// `jax.make_jaxpr(f, axis_env=[("i", 4)])`: collectives over them can then be traced
/// outside any mapped function, to read the jaxpr they stage.
///
/// ```
/// use oxla::{axis_env, lax, make_jaxpr, numpy as jnp, Tensor};
/// let f = |x: Tensor| lax::psum(&x, "i");
/// let j = axis_env(&[("i", 4)], || make_jaxpr(f, jnp::ones(&[3])));
/// assert_eq!(j.to_string(), "\
/// { lambda ; a:f32[3]. let
///     b:f32[3] = psum[axes=('i',) axis_index_groups=None] a
///   in (b,) }");
/// ```
pub fn axis_env<R>(axes: &[(&str, usize)], f: impl FnOnce() -> R) -> R {
    let bound: Vec<Bound> = axes.iter().map(|&(n, s)| (Arc::from(n), s, None)).collect();
    with_axes(bound, f)
}

/// Runs `f` with the axis `name` of `size` bound innermost.
pub(crate) fn with_axis<R>(name: &str, size: usize, f: impl FnOnce() -> R) -> R {
    with_axes(vec![(Arc::from(name), size, None)], f)
}

/// Runs `f` with the axis `name` bound innermost as split over devices: `rows[d]` of its
/// examples are on device `d`, and the trace is one device's. Batching over `name` then
/// completes each collective over it with one across the devices.
pub(crate) fn with_split_axis<R>(name: &str, rows: &[usize], f: impl FnOnce() -> R) -> R {
    let size = rows.iter().sum();
    with_axes(vec![(Arc::from(name), size, Some(Arc::from(rows)))], f)
}

/// How the innermost binding of `name` is split over devices, if it is.
pub(crate) fn split_rows(name: &str) -> Option<Arc<[usize]>> {
    AXES.with(|a| {
        a.borrow()
            .iter()
            .rev()
            .find(|(n, ..)| &**n == name)
            .and_then(|(.., rows)| rows.clone())
    })
}

/// The bound axes, outermost first: all a trace reads of the environment (collectives'
/// sizes and splits), so caches of traced programs key by it.
pub(crate) fn bound_axes() -> Vec<Bound> {
    AXES.with(|a| a.borrow().clone())
}

fn with_axes<R>(axes: Vec<Bound>, f: impl FnOnce() -> R) -> R {
    struct Unbind(usize);
    impl Drop for Unbind {
        fn drop(&mut self) {
            AXES.with(|a| a.borrow_mut().truncate(self.0));
        }
    }
    let _unbind = AXES.with(|a| {
        let mut a = a.borrow_mut();
        let before = a.len();
        a.extend(axes);
        Unbind(before)
    });
    f()
}

/// The size of the bound axis `name` (the innermost binding of it).
///
/// Panics when no mapped function binds `name`, naming the axes that are bound, `what`
/// named it and the user's line `at` (JAX's "unbound axis name").
pub(crate) fn axis_size(name: &str, what: &str, at: Source) -> usize {
    AXES.with(|a| {
        let a = a.borrow();
        if let Some((_, size, _)) = a.iter().rev().find(|(n, ..)| &**n == name) {
            return *size;
        }
        let bound: Vec<String> = a
            .iter()
            .map(|(n, s, _)| format!("{n:?} (size {s})"))
            .collect();
        let bound = if bound.is_empty() {
            "no axis is bound".to_string()
        } else {
            format!("the bound axes are {}", bound.join(", "))
        };
        panic!(
            "{what}: unbound axis name {name:?}: {bound}. A collective runs inside a function \
             mapped over its axis: vmap(f).axis_name({name:?}), or axis_env to trace it\n  \
             at {at}"
        )
    })
}
