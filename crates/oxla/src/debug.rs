//! Debugging inside transforms, as `jax.debug`: [`print!`](crate::debug::print) and
//! [`callback`] run on the concrete values of traced tensors when the program runs.
//!
//! Each stages one equation with an effect and no results (`debug_print`,
//! `debug_callback`), which runs:
//!
//! - eagerly, at once;
//! - under `jit`, each time the compiled program reaches it, in program order (the
//!   compiler never removes, merges or moves it);
//! - under `vmap`, once per example, in order (nested `vmap`s: the inner axis outermost,
//!   as JAX orders them), also in chunks (`vmap(..).chunk_size(k)`);
//! - under `grad`, `vjp` and `jvp`, on the primal values of the forward pass only;
//! - inside `lax::scan`, `fori_loop`, `while_loop`, `cond` and `lax::map`, at each step
//!   or branch taken.
//!
//! Printed lines go to stdout, or to the function [`with_sink`] installs while a closure
//! runs ([`capture`] collects them). See also [`disable_jit`](crate::disable_jit).

use std::panic::Location;
use std::sync::{Arc, Mutex};

use crate::core::callback::{self, HostCallback};
use crate::core::tree::Tree;
use crate::core::{bind, Prim, Tensor};

/// Prints traced values when the program runs (`jax.debug.print`): the arguments are
/// tensors (or references to them), all positional or all named (`print!("{x}", x = t)`),
/// formatted by `format!`'s rules with the tensors' `Display`.
///
/// Eagerly the line prints at once; under `jit`, `vmap`, `grad` and inside loops it prints
/// with the concrete values each time the program reaches it (see the [module
/// documentation](crate::debug)). The line goes to stdout, or to the sink of [`with_sink`].
///
/// ```
/// use oxla::{debug, jit, numpy as jnp, vmap, Tensor};
/// let f = |x: Tensor| {
///     let y = &x * 2.0;
///     debug::print!("x = {}, y = {}", x, y);
///     y
/// };
/// // Under jit: when the compiled program runs, with the values of that call.
/// let (_, out) = debug::capture(|| jit(f).call(Tensor::scalar(1.0f32)).unwrap());
/// assert_eq!(out, "x = 1.0, y = 2.0\n");
/// // Under vmap: one line per example, in order.
/// let (_, out) = debug::capture(|| vmap(f).call(jnp::array(&[1.0f32, 2.0], &[2])));
/// assert_eq!(out, "x = 1.0, y = 2.0\nx = 2.0, y = 4.0\n");
/// ```
#[doc(inline)]
pub use crate::__debug_print as print;

/// The expansion of [`debug::print!`](crate::debug::print): the equation that formats
/// `args` with `format` when it runs, printed with `fmt` in jaxprs.
#[doc(hidden)]
#[track_caller]
pub fn print_with(fmt: &'static str, args: Vec<Tensor>, format: fn(&[Tensor]) -> String) {
    let params = vec![
        ("fmt", fmt.to_string()),
        ("has_placeholders", py_bool(fmt.contains('{'))),
        ("ordered", "False".into()),
        ("partitioned", "False".into()),
    ];
    let cb = HostCallback::new("debug_print", params, move |arrays| {
        let values: Vec<Tensor> = arrays.iter().cloned().map(Tensor::new).collect();
        callback::write_line(&format(&values));
    });
    bind(Prim::DebugCallback(Arc::new(cb)), &args, Location::caller());
}

fn py_bool(b: bool) -> String {
    if b { "True" } else { "False" }.into()
}

/// Calls `f` on the concrete values of `args` when the program runs
/// (`jax.debug.callback`), at the moments [`print!`](crate::debug::print) prints: at once
/// eagerly, each time a compiled program reaches it, once per example under `vmap`, on the
/// forward pass under `grad`, at each step of a loop. `f` gets a tree of the structure of
/// `args` whose leaves are concrete tensors; its result is dropped.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use oxla::{debug, numpy as jnp, vmap, Tensor};
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let log = seen.clone();
/// vmap(move |x: Tensor| {
///     let log = log.clone();
///     debug::callback(move |(a, b): (Tensor, Tensor)| {
///         log.lock().unwrap().push(a.item() + b.item());
///     }, (x.clone(), &x * 10.0));
///     x
/// })
/// .call(jnp::array(&[1.0f32, 2.0], &[2]));
/// assert_eq!(*seen.lock().unwrap(), vec![11.0, 22.0]);
/// ```
#[track_caller]
pub fn callback<A, F>(f: F, args: A)
where
    A: Tree + 'static,
    F: Fn(A) + Send + Sync + 'static,
{
    let def = args.def();
    let params = vec![
        (
            "callback",
            format!("<function {}>", std::any::type_name::<F>()),
        ),
        ("effect", "Debug".into()),
        ("partitioned", "False".into()),
    ];
    let cb = HostCallback::new("debug_callback", params, move |arrays| {
        let mut leaves = arrays.iter().cloned().map(Tensor::new);
        f(A::from_def(&def, &mut leaves).expect("the callback's arguments keep their structure"))
    });
    bind(
        Prim::DebugCallback(Arc::new(cb)),
        &args.leaves(),
        Location::caller(),
    );
}

/// Runs `f` with the lines [`print!`](crate::debug::print) writes on this thread (and in
/// the compiled programs it calls) going to `sink` instead of stdout, one call per line
/// without its newline. The previous sink comes back when `f` returns or panics.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use oxla::{debug, numpy as jnp};
/// let lines = Arc::new(Mutex::new(Vec::new()));
/// let to = lines.clone();
/// debug::with_sink(move |l| to.lock().unwrap().push(l.to_string()), || {
///     debug::print!("total {}", jnp::arange(3.0).sum(None));
/// });
/// assert_eq!(*lines.lock().unwrap(), vec!["total 3.0"]);
/// ```
pub fn with_sink<R>(sink: impl FnMut(&str) + Send + 'static, f: impl FnOnce() -> R) -> R {
    callback::with_sink(Some(Arc::new(Mutex::new(sink))), f)
}

/// Runs `f` and returns its result with everything [`print!`](crate::debug::print) wrote
/// meanwhile on this thread (each line ending in a newline): [`with_sink`] into a string.
///
/// ```
/// use oxla::{debug, numpy as jnp};
/// let (y, out) = debug::capture(|| {
///     let x = jnp::arange(3.0).sum(None);
///     debug::print!("x = {}", x);
///     x
/// });
/// assert_eq!(out, "x = 3.0\n");
/// assert_eq!(y.item(), 3.0);
/// ```
pub fn capture<R>(f: impl FnOnce() -> R) -> (R, String) {
    let text = Arc::new(Mutex::new(String::new()));
    let to = text.clone();
    let r = with_sink(
        move |line| {
            let mut t = to.lock().unwrap_or_else(|e| e.into_inner());
            t.push_str(line);
            t.push('\n');
        },
        f,
    );
    let out = std::mem::take(&mut *text.lock().unwrap_or_else(|e| e.into_inner()));
    (r, out)
}

/// `oxla::debug::print!`; see [`debug::print`](crate::debug::print).
#[doc(hidden)]
#[macro_export]
macro_rules! __debug_print {
    (@bind $fmt:literal, [$($arg:expr),+], |$next:ident| $format:expr) => {
        $crate::debug::print_with(
            $fmt,
            ::std::vec![$($crate::Tensor::clone(&$arg)),+],
            |values: &[$crate::Tensor]| {
                let mut values = values.iter();
                let mut $next = || values.next().expect("one value per argument");
                $format
            },
        )
    };
    ($fmt:literal $(,)?) => {
        $crate::debug::print_with($fmt, ::std::vec::Vec::new(), |_| ::std::format!($fmt))
    };
    ($fmt:literal, $($name:ident = $arg:expr),+ $(,)?) => {
        $crate::__debug_print!(@bind $fmt, [$($arg),+], |next| {
            ::std::format!($fmt, $($name = next()),+)
        })
    };
    ($fmt:literal, $($arg:expr),+ $(,)?) => {
        $crate::__debug_print!(@bind $fmt, [$($arg),+], |next| {
            ::std::format!($fmt, $({
                let _ = ::std::stringify!($arg);
                next()
            }),+)
        })
    };
}
