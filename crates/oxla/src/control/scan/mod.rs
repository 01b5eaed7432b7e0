//! `lax::scan` and `lax::fori_loop`: a loop carrying a value through `length` steps, each
//! reading one slice of its scanned operands and writing one slice of its stacked results.
//!
//! The body's inputs are the carry, one slice of each scanned operand and the captured
//! values; its outputs the new carry and one slice of each stacked result. Reverse mode
//! runs a forward loop that stacks the step's residuals, then a reverse loop that pulls
//! the carry's cotangent back through each step; work that needs no loop runs outside.
//!
//! This file holds the public functions, the staging and the spec; `rules` holds the
//! spec's `ControlFlow` impl (shape rule, evaluation, working memory, batching, JVP), and
//! `vjp` (with `partial`, the split of the backward step) its reverse mode.

mod bands;
mod partial;
mod rows;
mod rules;
mod run;
mod vjp;

use std::sync::{Arc, OnceLock};

use crate::compiler::Executable;
use crate::core::control_flow::debug_by_identity;
use crate::core::tree::Tree;
use crate::core::{bind, trace_avals, Aval, ClosedJaxpr, Prim, Tensor};
use crate::transforms::bodies::open;

/// The parameters of a scan (see the module documentation).
pub struct ScanSpec {
    /// The step: `(carry, slices, captured) -> (carry, result slices)`, no constants.
    pub(crate) body: ClosedJaxpr,
    /// Operands that are carried.
    pub(crate) num_carry: usize,
    /// Operands that are scanned (after the carry); the rest are captured values.
    pub(crate) num_xs: usize,
    /// The number of steps.
    pub(crate) length: usize,
    /// Whether the steps run from the last slice to the first.
    pub(crate) reverse: bool,
    /// JAX's `unroll`: printed, and a hint only (one compiled step runs per iteration).
    pub(crate) unroll: usize,
    compiled: OnceLock<Executable>,
    /// The step's layout along a batch whose rows never mix (`rows.rs`).
    layout: OnceLock<Option<rows::Layout>>,
    /// The step compiled for each band of rows (`bands.rs`).
    bands: bands::BandCache,
}

debug_by_identity!(ScanSpec, length, num_carry, num_xs, reverse, unroll);

/// `jax.lax.scan(f, init, xs)`: `f((carry, x)) -> (carry, y)` over the slices `x` of `xs`
/// along their leading axis; [`Scan::call`] returns the final carry and the `y`s stacked.
/// The carry must keep its avals. With `xs` empty (`()`), the number of steps is given by
/// [`Scan::length`] (`lax.scan(f, init, None, length=n)`) and each step's `x` is `()`.
///
/// ```
/// use oxla::{lax, numpy as jnp, Tensor};
/// let xs = jnp::arange(5.0);
/// let (total, running): (Tensor, Tensor) =
///     lax::scan(|(c, x): (Tensor, Tensor)| (&c + &x, &c + &x), Tensor::scalar(0.0f32), xs)
///         .call();
/// assert_eq!(total.item(), 10.0);
/// assert_eq!(running.to_vec::<f32>(), vec![0.0, 1.0, 3.0, 6.0, 10.0]);
/// let (c, powers): (Tensor, Tensor) =
///     lax::scan(|(c, ()): (Tensor, ())| (&c * 2.0, c), Tensor::scalar(1.0f32), ())
///         .length(4)
///         .call();
/// assert_eq!((c.item(), powers.to_vec::<f32>()), (16.0, vec![1.0, 2.0, 4.0, 8.0]));
/// ```
pub fn scan<F, C: Tree, X: Tree>(f: F, init: C, xs: X) -> Scan<F, C, X> {
    Scan {
        f,
        init,
        xs,
        length: None,
        reverse: false,
        unroll: 1,
    }
}

/// [`scan`] from the last slice to the first (`reverse=True`); the results keep the order
/// of `xs`.
pub fn scan_reverse<F, C: Tree, X: Tree>(f: F, init: C, xs: X) -> Scan<F, C, X> {
    scan(f, init, xs).reverse(true)
}

/// A scan and its options (JAX's keyword arguments), run by [`Scan::call`].
#[must_use = "a scan runs when called: add .call()"]
pub struct Scan<F, C, X> {
    f: F,
    init: C,
    xs: X,
    length: Option<usize>,
    reverse: bool,
    unroll: usize,
}

impl<F, C: Tree, X: Tree> Scan<F, C, X> {
    /// The number of steps (`length=`): needed when `xs` is empty, and checked against the
    /// scanned operands' leading axis otherwise.
    pub fn length(mut self, n: usize) -> Self {
        self.length = Some(n);
        self
    }

    /// Whether the steps run from the last slice to the first (`reverse=`).
    pub fn reverse(mut self, reverse: bool) -> Self {
        self.reverse = reverse;
        self
    }

    /// How many steps one iteration of the loop would hold (`unroll=`; JAX's default 1). It
    /// is recorded in the primitive's parameters, as JAX prints it, and is a hint only: oxla
    /// runs one compiled step per iteration whatever it is, and the results are the same.
    #[track_caller]
    pub fn unroll(mut self, k: usize) -> Self {
        if k == 0 {
            panic!(
                "scan: unroll must be a positive integer, got 0\n  at {}",
                std::panic::Location::caller()
            );
        }
        self.unroll = k;
        self
    }

    /// Runs (or stages) the scan: the final carry and the results stacked along a new
    /// leading axis of the number of steps.
    #[track_caller]
    pub fn call<Y: Tree>(self) -> (C, Y)
    where
        F: Fn((C, X)) -> (C, Y),
    {
        let steps = Steps {
            length: self.length,
            reverse: self.reverse,
            unroll: self.unroll,
        };
        scan_with(self.f, self.init, self.xs, steps)
    }
}

/// `jax.lax.fori_loop(lower, upper, body, init)` with static bounds: `body((i, val))` for
/// `i` in `lower..upper`, as a scan (so it differentiates in both modes). `i` is an `i32`
/// scalar.
///
/// ```
/// use oxla::{lax, Tensor};
/// let x = lax::fori_loop(0, 4, |(i, v): (Tensor, Tensor)| &v * 2.0 + i.astype(oxla::DType::F32), Tensor::scalar(1.0f32));
/// assert_eq!(x.item(), 27.0);
/// ```
#[track_caller]
pub fn fori_loop<C: Tree>(lower: i32, upper: i32, body: impl Fn((Tensor, C)) -> C, init: C) -> C {
    let length = (upper - lower).max(0) as usize;
    let step = |((i, v), ()): ((Tensor, C), ())| {
        let next = crate::ops::add(&i, &Tensor::scalar(1i32));
        ((next, body((i, v))), ())
    };
    let steps = Steps {
        length: Some(length),
        reverse: false,
        unroll: 1,
    };
    let ((_, out), ()) = scan_with(step, (Tensor::scalar(lower), init), (), steps);
    out
}

/// A scan's options: the number of steps (from `xs` unless given), direction, unrolling.
#[derive(Clone, Copy)]
struct Steps {
    length: Option<usize>,
    reverse: bool,
    unroll: usize,
}

/// The scan staged (or run) for `f` over `xs`.
#[track_caller]
fn scan_with<C: Tree, X: Tree, Y: Tree>(
    f: impl Fn((C, X)) -> (C, Y),
    init: C,
    xs: X,
    steps: Steps,
) -> (C, Y) {
    let at = std::panic::Location::caller();
    let carry = init.leaves();
    let xl = xs.leaves();
    for (i, x) in xl.iter().enumerate() {
        if x.ndim() == 0 {
            panic!(
                "scan: scanned leaf {i} has shape {:?}: the scanned operands have no leading \
                 axis to scan over\n  at {at}",
                x.shape()
            );
        }
    }
    let sizes: Vec<usize> = xl.iter().map(|x| x.shape()[0]).collect();
    let length = match (steps.length, sizes.first()) {
        (Some(n), _) if sizes.iter().any(|&s| s != n) => panic!(
            "scan: got `length` argument of {n} which disagrees with leading axis sizes \
             {sizes:?}\n  at {at}"
        ),
        (Some(n), _) => n,
        (None, Some(&n)) if sizes.iter().all(|&s| s == n) => n,
        (None, Some(_)) => panic!(
            "scan: the scanned operands have leading axes of different sizes {sizes:?}\n  at {at}"
        ),
        (None, None) => panic!(
            "scan: there are no values to scan over and `length` is not given (add \
             .length(n))\n  at {at}"
        ),
    };
    let mut avals: Vec<Aval> = carry.iter().map(Tensor::aval).collect();
    avals.extend(xl.iter().map(|x| Aval::new(x.dtype(), &x.shape()[1..])));
    let mut out_def = None;
    let (cj, _) = trace_avals(
        |(c, x): (C, X)| {
            let (c2, y) = f((c, x));
            let def = (c2.def(), y.def());
            let mut leaves = c2.leaves();
            leaves.extend(y.leaves());
            out_def = Some(def);
            leaves
        },
        &(init, xs),
        &avals,
    );
    let (cdef, ydef) = out_def.expect("traced");
    let outs = cj.jaxpr.out_avals();
    for (i, (a, c)) in outs.iter().zip(&carry).enumerate() {
        if *a != c.aval() {
            panic!(
                "scan: the body returns a carry leaf {i} of aval {a} for a carry of aval {}: the \
                 carry must keep its dtype and shape\n  at {}",
                c.aval(),
                std::panic::Location::caller()
            );
        }
    }
    let mut operands = carry;
    operands.extend(xl.clone());
    let results = stage(
        &operands,
        cdef.num_leaves(),
        xl.len(),
        length,
        steps.reverse,
        steps.unroll,
        cj,
    );
    let mut it = results.into_iter();
    let c = C::from_def(&cdef, &mut it).expect("the carry's structure");
    let y = Y::from_def(&ydef, &mut it).expect("the results' structure");
    (c, y)
}

/// Binds a scan of `cj` (inputs: carry, slices; constants captured) over `operands` (carry,
/// then scanned).
#[track_caller]
fn stage(
    operands: &[Tensor],
    num_carry: usize,
    num_xs: usize,
    length: usize,
    reverse: bool,
    unroll: usize,
    cj: ClosedJaxpr,
) -> Vec<Tensor> {
    let consts = cj.consts.clone();
    let spec = ScanSpec {
        body: open(cj, &[], &[]),
        num_carry,
        num_xs,
        length,
        reverse,
        unroll,
        compiled: OnceLock::new(),
        layout: OnceLock::new(),
        bands: Default::default(),
    };
    let mut ins = operands.to_vec();
    ins.extend(consts);
    bind(
        Prim::Control(Arc::new(spec)),
        &ins,
        std::panic::Location::caller(),
    )
}

impl ScanSpec {
    /// Traces `f` at this scan's body avals for the new operands' (scanned ones sliced).
    fn trace(
        &self,
        operands: &[Tensor],
        num_carry: usize,
        num_xs: usize,
        f: impl FnOnce(Vec<Tensor>) -> Vec<Tensor>,
    ) -> ClosedJaxpr {
        let avals: Vec<Aval> = operands
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let sliced = i >= num_carry && i < num_carry + num_xs;
                Aval::new(t.dtype(), &t.shape()[usize::from(sliced)..])
            })
            .collect();
        trace_avals(f, &operands.to_vec(), &avals).0
    }

    fn compiled(&self) -> &Executable {
        self.compiled
            .get_or_init(|| Executable::new(self.body.clone()))
    }
}
