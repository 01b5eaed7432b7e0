//! Host callbacks: the payload of [`Prim::DebugCallback`](super::Prim::DebugCallback), a
//! primitive with an effect and no results (JAX's `debug_callback` and `debug_print`).
//!
//! A callback is a Rust function of concrete arrays. Like a control-flow primitive it is
//! compared by identity, so the compiler never merges two callbacks. Its ordering needs no
//! token: no pass of the compiler removes, merges, folds or moves an equation with effects
//! ([`Prim::has_effects`](super::Prim::has_effects)), and every program runs its
//! equations in the order they were traced, so callbacks run in program order, each after
//! the values it reads.
//!
//! Lines that `debug::print!` writes go to the thread's *sink*: stdout, or a function that
//! [`with_sink`] installs while a closure runs (a compiled program carries its caller's
//! sink to the thread that runs it). The backward pass of reverse-mode differentiation
//! runs inside [`without_effects`], so a callback runs on the forward pass only, as in JAX.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

use crate::array::Array;

/// A host function that a `debug_callback` or `debug_print` equation calls with the
/// concrete values of its operands.
pub struct HostCallback {
    name: &'static str,
    params: Vec<(&'static str, String)>,
    f: Box<HostFn>,
}

/// The function a [`HostCallback`] calls.
type HostFn = dyn Fn(&[Array]) + Send + Sync;

impl HostCallback {
    /// A callback printed as the primitive `name` with `params` (as JAX prints them).
    pub(crate) fn new(
        name: &'static str,
        params: Vec<(&'static str, String)>,
        f: impl Fn(&[Array]) + Send + Sync + 'static,
    ) -> HostCallback {
        HostCallback {
            name,
            params,
            f: Box::new(f),
        }
    }

    /// The primitive's name as JAX prints it: `debug_print` or `debug_callback`.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The parameters as JAX prints them, unsorted.
    pub fn params(&self) -> Vec<(&'static str, String)> {
        self.params.clone()
    }

    /// Calls the host function with concrete operands.
    pub fn call(&self, args: &[Array]) {
        (self.f)(args)
    }
}

impl fmt::Debug for HostCallback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostCallback")
            .field("at", &(self as *const Self))
            .field("name", &self.name)
            .field("params", &self.params)
            .finish()
    }
}

impl PartialEq for HostCallback {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl Eq for HostCallback {}

impl Hash for HostCallback {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self as *const Self).hash(state);
    }
}

/// Where printed lines go: a function of each line, shared with the thread that runs a
/// compiled program.
pub(crate) type Sink = Arc<Mutex<dyn FnMut(&str) + Send>>;

thread_local! {
    static SINK: RefCell<Option<Sink>> = const { RefCell::new(None) };
    static NO_EFFECTS: Cell<bool> = const { Cell::new(false) };
}

/// The sink lines printed on this thread go to (`None`: stdout).
pub(crate) fn current_sink() -> Option<Sink> {
    SINK.with(|s| s.borrow().clone())
}

/// Runs `f` with lines printed on this thread going to `sink` (`None`: stdout), restoring
/// the previous sink afterwards, also when `f` panics.
pub(crate) fn with_sink<R>(sink: Option<Sink>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Sink>);
    impl Drop for Restore {
        fn drop(&mut self) {
            SINK.with(|s| *s.borrow_mut() = self.0.take());
        }
    }
    let _restore = Restore(SINK.with(|s| s.replace(sink)));
    f()
}

/// Writes one line (a newline is added) to this thread's sink.
pub(crate) fn write_line(line: &str) {
    match current_sink() {
        Some(sink) => (sink.lock().unwrap_or_else(|e| e.into_inner()))(line),
        None => println!("{line}"),
    }
}

/// Runs `f` with host callbacks dropped where they are bound (neither run nor traced),
/// restoring the previous state afterwards, also when `f` panics: the backward pass of
/// reverse mode, whose recomputed forward values must not print again.
pub(crate) fn without_effects<R>(f: impl FnOnce() -> R) -> R {
    crate::env::scoped(&NO_EFFECTS, true, f)
}

/// Whether host callbacks are dropped here (see [`without_effects`]).
pub(crate) fn effects_dropped() -> bool {
    NO_EFFECTS.with(Cell::get)
}
