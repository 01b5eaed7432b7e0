//! `lax::scan` and `lax::fori_loop`: a loop carrying a value through `length` steps, each
//! reading one slice of its scanned operands and writing one slice of its stacked results.
//!
//! The body's inputs are the carry, one slice of each scanned operand and the captured
//! values; its outputs the new carry and one slice of each stacked result. Reverse mode
//! runs the loop forward once more to stack each step's incoming carry, then a reverse loop
//! whose body recomputes the step and pulls the cotangents back through it.
//!
//! This file holds the public functions, the staging and the spec; `rules` holds the
//! spec's `ControlFlow` impl (shape rule, evaluation, working memory, batching, JVP, VJP).

mod rules;

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
    compiled: OnceLock<Executable>,
}

debug_by_identity!(ScanSpec, length, num_carry, num_xs, reverse);

/// `jax.lax.scan(f, init, xs)`: `f((carry, x)) -> (carry, y)` over the slices `x` of `xs`
/// along their leading axis; returns the final carry and the `y`s stacked. `xs` may be `()`
/// only through [`fori_loop`]; the carry must keep its avals.
///
/// ```
/// use oxla::{lax, numpy as jnp, Tensor};
/// let xs = jnp::arange(5.0);
/// let (total, running): (Tensor, Tensor) =
///     lax::scan(|(c, x): (Tensor, Tensor)| (&c + &x, &c + &x), Tensor::scalar(0.0f32), xs);
/// assert_eq!(total.item(), 10.0);
/// assert_eq!(running.to_vec::<f32>(), vec![0.0, 1.0, 3.0, 6.0, 10.0]);
/// ```
#[track_caller]
pub fn scan<C: Tree, X: Tree, Y: Tree>(f: impl Fn((C, X)) -> (C, Y), init: C, xs: X) -> (C, Y) {
    scan_with(f, init, xs, None, false)
}

/// [`scan`] from the last slice to the first (`reverse=True`); the results keep the order
/// of `xs`.
#[track_caller]
pub fn scan_reverse<C: Tree, X: Tree, Y: Tree>(
    f: impl Fn((C, X)) -> (C, Y),
    init: C,
    xs: X,
) -> (C, Y) {
    scan_with(f, init, xs, None, true)
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
    let ((_, out), ()) = scan_with(step, (Tensor::scalar(lower), init), (), Some(length), false);
    out
}

/// The scan staged (or run) for `f` over `xs`, `length` steps (from `xs` unless given).
#[track_caller]
fn scan_with<C: Tree, X: Tree, Y: Tree>(
    f: impl Fn((C, X)) -> (C, Y),
    init: C,
    xs: X,
    length: Option<usize>,
    reverse: bool,
) -> (C, Y) {
    let at = std::panic::Location::caller();
    let carry = init.leaves();
    let xl = xs.leaves();
    let length = length.unwrap_or_else(|| match xl.first() {
        Some(x) if x.ndim() > 0 => x.shape()[0],
        Some(x) => panic!(
            "scan: scanned leaf 0 has shape {:?}: the scanned operands have no leading axis \
             to scan over\n  at {at}",
            x.shape()
        ),
        None => panic!(
            "scan: there are no scanned operands, so no leading axis to scan over\n  at {at}"
        ),
    });
    for (i, x) in xl.iter().enumerate() {
        if x.ndim() == 0 || x.shape()[0] != length {
            panic!(
                "scan: scanned leaf {i} has shape {:?}, not a leading axis of {length}\n  at {}",
                x.shape(),
                std::panic::Location::caller()
            );
        }
    }
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
    let results = stage(&operands, cdef.num_leaves(), xl.len(), length, reverse, cj);
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
    cj: ClosedJaxpr,
) -> Vec<Tensor> {
    let consts = cj.consts.clone();
    let spec = ScanSpec {
        body: open(cj, &[], &[]),
        num_carry,
        num_xs,
        length,
        reverse,
        compiled: OnceLock::new(),
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
