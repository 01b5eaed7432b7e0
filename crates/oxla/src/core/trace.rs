//! The current interpreter: eager when no trace is open, else the innermost staging trace.
//!
//! Every primitive application goes through [`bind`]. With no trace open it runs the eager
//! kernel at once. Inside a trace it appends an equation to the innermost trace's jaxpr.
//! Concrete operands become literals (rank 0) or constvars; tracers of an enclosing trace
//! become constvars too, whose values are those outer tracers (closure conversion), so a
//! closure over an outer tracer traces to a closed jaxpr that the outer trace can inline.

use crate::source::Source;
use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::Location;

use super::callback::effects_dropped;
use super::jaxpr::{Atom, ClosedJaxpr, Eqn, Jaxpr, Var};
use super::tensor::{Repr, Tensor, Tracer};
use crate::array::{aval_of, is_quiet, quietly, AllocError, Array, Aval};
use crate::core::tree::Tree;
use crate::core::Prim;

/// One open staging trace.
struct Builder {
    /// Unique identity of this trace.
    id: u64,
    level: usize,
    next_id: u32,
    eqns: Vec<Eqn>,
    /// Constvars with their values: concrete arrays, or tracers of enclosing traces.
    consts: Vec<(Var, Tensor)>,
    /// Constvar of each captured value, keyed by its identity.
    const_index: HashMap<ConstKey, Var>,
}

/// Identity of a captured value: an array's buffer and shape, or an outer tracer.
#[derive(Hash, PartialEq, Eq)]
enum ConstKey {
    Array(usize, crate::array::Shape, crate::array::DType),
    Tracer(usize, u32),
}

impl Builder {
    fn fresh(&mut self, aval: Aval) -> Var {
        let v = Var {
            id: self.next_id,
            aval,
        };
        self.next_id += 1;
        v
    }

    /// The operand an input becomes in this trace; `open` lists the traces still open.
    /// An escaped tracer panics naming `what` took it and the user's line `at`.
    fn atom(&mut self, t: &Tensor, open: &[u64], what: &str, at: Source) -> Atom {
        let key = match &t.repr {
            Repr::Tracer(tr) if tr.trace == self.id => return Atom::Var(tr.var.clone()),
            Repr::Tracer(tr) if !open.contains(&tr.trace) => panic!(
                "{what}: a tracer of aval {} escaped from the trace that made it (make_jaxpr, \
                 vmap, grad or jit): it has no value outside that function; return it \
                 instead\n  at {at}",
                tr.var.aval
            ),
            Repr::Tracer(tr) => ConstKey::Tracer(tr.level, tr.var.id),
            Repr::Array(a) if a.ndim() == 0 => return Atom::Lit(a.clone()),
            Repr::Array(a) => ConstKey::Array(
                a.as_bytes().as_ptr() as usize,
                crate::array::shape_of(a.shape()),
                a.dtype(),
            ),
        };
        if let Some(v) = self.const_index.get(&key) {
            return Atom::Var(v.clone());
        }
        let v = self.fresh(t.aval());
        self.const_index.insert(key, v.clone());
        self.consts.push((v.clone(), t.clone()));
        Atom::Var(v)
    }
}

thread_local! {
    static TRACES: RefCell<Vec<Builder>> = const { RefCell::new(Vec::new()) };
    static USER_LINE: std::cell::Cell<Option<Pin>> = const { std::cell::Cell::new(None) };
    /// Whether the traces being recorded are for the compiler ([`trace_for_compiler`]).
    static FOR_COMPILER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// As [`trace`], for a program the compiler will take whole (`jit`'s lowering): what is
/// traced meanwhile, nested traces included, is never run one primitive at a time, so a
/// function may stage the form that fuses best rather than the one that bounds eager
/// memory ([`for_compiler`]). Other traces (`make_jaxpr`, transforms replayed eagerly,
/// loop bodies traced outside `jit`) get the form that bounds eager memory.
#[track_caller]
pub(crate) fn trace_for_compiler<A: Tree, O: Tree>(
    f: impl FnOnce(A) -> O,
    args: &A,
) -> (ClosedJaxpr, O) {
    let in_avals: Vec<Aval> = args.leaves().iter().map(Tensor::aval).collect();
    trace_avals_for_compiler(f, args, &in_avals)
}

/// As [`trace_for_compiler`], at explicit input avals (as [`trace_avals`]).
#[track_caller]
pub(crate) fn trace_avals_for_compiler<A: Tree, O: Tree>(
    f: impl FnOnce(A) -> O,
    args: &A,
    in_avals: &[Aval],
) -> (ClosedJaxpr, O) {
    // Put back what the flag held, also when `f` panics.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            FOR_COMPILER.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(FOR_COMPILER.with(|c| c.replace(true)));
    trace_avals(f, args, in_avals)
}

/// Whether the primitives bound now are traced for the compiler: inside
/// [`trace_for_compiler`], with no eager evaluation in between.
pub(crate) fn for_compiler() -> bool {
    is_tracing() && FOR_COMPILER.with(std::cell::Cell::get)
}

/// A line pinned for the equations traced meanwhile.
#[derive(Clone, Copy)]
struct Pin {
    at: Source,
    /// Pinned by a transform replaying an equation, which keeps the equation's own line
    /// over everything; else by a library function for its caller, which a front end's
    /// line ([`set_source_hook`](crate::set_source_hook)) overrides.
    replay: bool,
}

/// While alive, every equation records `loc` (the outermost guard wins) instead of the line
/// that bound it: a library function that calls primitives from closures or helpers pins
/// its caller's line this way.
pub(crate) struct UserLine(bool);

/// Pins equations traced until the guard drops to the caller's source line.
#[track_caller]
pub(crate) fn user_line() -> UserLine {
    let at = Source::caller();
    USER_LINE.with(|c| {
        if c.get().is_some() {
            UserLine(false)
        } else {
            c.set(Some(Pin { at, replay: false }));
            UserLine(true)
        }
    })
}

/// Runs `f` with every equation it traces recorded at `at` (a transform replaying an
/// equation keeps the equation's own line), restoring the previous line afterwards.
pub(crate) fn with_line<R>(at: Source, f: impl FnOnce() -> R) -> R {
    crate::env::scoped(&USER_LINE, Some(Pin { at, replay: true }), f)
}

/// The line an equation bound here is recorded at: a replayed equation's, else the front
/// end's, else the line a library function pinned, else the caller's.
#[track_caller]
pub(crate) fn current_line() -> Source {
    line_of(Source::caller())
}

/// The line an equation bound by `caller` is recorded at (see [`current_line`]).
fn line_of(caller: Source) -> Source {
    match USER_LINE.with(std::cell::Cell::get) {
        Some(Pin { at, replay: true }) => at,
        pin => crate::source::front_end_line()
            .or(pin.map(|p| p.at))
            .unwrap_or(caller),
    }
}

impl Drop for UserLine {
    fn drop(&mut self) {
        if self.0 {
            USER_LINE.with(|c| c.set(None));
        }
    }
}

/// Applies a primitive with the current interpreter.
///
/// Panics, naming the primitive, the operand avals and `source`, when the shape rule rejects
/// the operands.
pub fn bind(prim: Prim, inputs: &[Tensor], source: impl Into<Source>) -> Vec<Tensor> {
    let caller = source.into();
    let at = if is_tracing() {
        line_of(caller)
    } else {
        USER_LINE.with(|c| c.get()).map_or(caller, |p| p.at)
    };
    bind_exact(prim, inputs, at)
}

/// `reduce(map(dot_general(lhs, rhs)), axes)` bound one primitive at a time.
fn unfused_dot_reduce(p: &crate::prims::DotReduce, inputs: &[Tensor], source: Source) -> Tensor {
    use crate::prims::{DotMap, UnaryOp};
    let dot = Prim::DotGeneral {
        contracting: p.contracting.clone(),
        batch: p.batch.clone(),
        preferred_element_type: None,
    };
    let product = bind_exact(dot, inputs, source).remove(0);
    let mapped = match p.map {
        DotMap::Identity => product,
        DotMap::Abs => bind_exact(Prim::Unary(UnaryOp::Abs), &[product], source).remove(0),
        DotMap::Square => bind_exact(Prim::Unary(UnaryOp::Square), &[product], source).remove(0),
    };
    let reduce = Prim::Reduce {
        op: p.op,
        axes: p.axes.clone(),
    };
    bind_exact(reduce, &[mapped], source).remove(0)
}

/// [`bind`] recording exactly `source`, whatever line a library function pinned.
fn bind_exact(prim: Prim, inputs: &[Tensor], source: Source) -> Vec<Tensor> {
    if matches!(prim, Prim::DebugCallback(_)) && effects_dropped() {
        return Vec::new();
    }
    if let Prim::Control(c) = &prim {
        if let (Some(body), true) = (c.call_body(), effects_dropped() && prim.has_effects()) {
            // The callbacks inside a call are dropped as the body's equations are bound.
            return eval_jaxpr(body, inputs);
        }
    }
    if let Prim::DotReduce(p) = &prim {
        if is_tracing() || inputs.iter().any(Tensor::is_tracer) {
            // The compiler's fused product has no transformation rules (a compiled jaxpr
            // evaluated under a transform binds it): a trace records what it stands for.
            return vec![unfused_dot_reduce(p, inputs, source)];
        }
    }
    let avals: Vec<Aval> = inputs.iter().map(Tensor::aval).collect();
    let out_avals = match prim.abstract_eval(&avals) {
        Ok(a) => a,
        Err(msg) => {
            let ops: Vec<String> = avals.iter().map(|a| a.to_string()).collect();
            panic!(
                "{}: {msg}\n  operands: ({})\n  at {source}",
                prim.name(),
                ops.join(", ")
            )
        }
    };
    TRACES.with(|t| {
        let mut stack = t.borrow_mut();
        match stack.last_mut() {
            None => {
                drop(stack);
                let arrays: Vec<Array> = inputs
                    .iter()
                    .map(|t| match &t.repr {
                        Repr::Array(a) => a.clone(),
                        Repr::Tracer(_) => panic!(
                            "{}: an operand is a tracer whose trace has ended (a traced value \
                             escaped from make_jaxpr, vmap or grad)\n  at {source}",
                            prim.name()
                        ),
                    })
                    .collect();
                let outs = eval_eager(&prim, &arrays, source);
                debug_assert!(outs.iter().zip(&out_avals).all(|(o, a)| aval_of(o) == *a));
                outs.into_iter().map(Tensor::from).collect()
            }
            Some(_) => {
                let open: Vec<u64> = stack.iter().map(|b| b.id).collect();
                let b = stack.last_mut().expect("a trace is open");
                let name = prim.name();
                let atoms: Vec<Atom> = inputs
                    .iter()
                    .map(|t| b.atom(t, &open, name, source))
                    .collect();
                let outputs: Vec<Var> = out_avals.into_iter().map(|a| b.fresh(a)).collect();
                let (level, trace) = (b.level, b.id);
                let tracers = outputs
                    .iter()
                    .map(|v| {
                        Tensor::from_tracer(Tracer {
                            trace,
                            level,
                            var: v.clone(),
                        })
                    })
                    .collect();
                b.eqns.push(Eqn {
                    prim,
                    inputs: atoms,
                    outputs,
                    source,
                });
                tracers
            }
        }
    })
}

/// Runs a primitive's eager kernel. A buffer the system refuses to allocate panics here,
/// naming the primitive, the bytes and the user's line; inside a compiled call it unwinds
/// on to the call, which returns it as [`Error::OutOfMemory`](crate::Error::OutOfMemory).
fn eval_eager(prim: &Prim, arrays: &[Array], source: Source) -> Vec<Array> {
    if is_quiet() {
        return prim.eval(arrays);
    }
    let run = std::panic::AssertUnwindSafe(|| quietly(|| prim.eval(arrays)));
    match std::panic::catch_unwind(run) {
        Ok(outs) => outs,
        Err(payload) => match payload.downcast::<AllocError>() {
            Ok(e) => panic!("{}: {e}\n  at {source}", prim.name()),
            Err(other) => std::panic::resume_unwind(other),
        },
    }
}

/// Whether a staging trace is open (so primitives are recorded rather than run).
pub fn is_tracing() -> bool {
    TRACES.with(|t| !t.borrow().is_empty())
}

/// Traces `f` on abstract inputs with the avals of `args`' leaves.
///
/// Returns the closed jaxpr (constvars bound to concrete arrays or to tracers of enclosing
/// traces) and `f`'s output, whose leaves are the jaxpr's outputs. The jaxpr's invars are
/// `args`' leaves in order. An output that is a tracer of a finished trace panics, naming
/// the caller's line.
#[track_caller]
pub fn trace<A: Tree, O: Tree>(f: impl FnOnce(A) -> O, args: &A) -> (ClosedJaxpr, O) {
    let in_avals: Vec<Aval> = args.leaves().iter().map(Tensor::aval).collect();
    trace_avals(f, args, &in_avals)
}

/// As [`trace`], with explicit input avals (the leaves of `args` give only the structure).
#[track_caller]
pub fn trace_avals<A: Tree, O: Tree>(
    f: impl FnOnce(A) -> O,
    args: &A,
    in_avals: &[Aval],
) -> (ClosedJaxpr, O) {
    let at = Location::caller();
    let (level, invars, id) = TRACES.with(|t| {
        let mut stack = t.borrow_mut();
        let level = stack.len() + 1;
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let mut b = Builder {
            id: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            level,
            next_id: 0,
            eqns: Vec::new(),
            consts: Vec::new(),
            const_index: HashMap::new(),
        };
        let invars: Vec<Var> = in_avals.iter().map(|a| b.fresh(a.clone())).collect();
        stack.push(b);
        (level, invars, stack.last().expect("just pushed").id)
    });
    // Pops the trace even if `f` panics, so a caught panic leaves the interpreter usable.
    struct Pop(usize);
    impl Drop for Pop {
        fn drop(&mut self) {
            TRACES.with(|t| {
                let mut stack = t.borrow_mut();
                if stack.len() == self.0 {
                    stack.pop();
                }
            });
        }
    }
    let guard = Pop(level);
    let tracers: Vec<Tensor> = invars
        .iter()
        .map(|v| {
            Tensor::from_tracer(Tracer {
                trace: id,
                level,
                var: v.clone(),
            })
        })
        .collect();
    // The traced function's own lines are recorded, whatever line its caller pinned.
    let pinned = USER_LINE.with(|c| c.take());
    let out = f(args.rebuild(&mut tracers.into_iter()));
    USER_LINE.with(|c| c.set(pinned));
    let out_leaves = out.leaves();
    let b = TRACES.with(|t| {
        let mut stack = t.borrow_mut();
        let mut b = stack.pop().expect("trace stack underflow");
        let mut open: Vec<u64> = stack.iter().map(|b| b.id).collect();
        open.push(b.id);
        let outvars = out_leaves
            .iter()
            .map(|o| b.atom(o, &open, "the traced function's output", at.into()))
            .collect::<Vec<_>>();
        (b, outvars)
    });
    std::mem::forget(guard);
    let (b, outvars) = b;
    let (constvars, consts): (Vec<Var>, Vec<Tensor>) = b.consts.into_iter().unzip();
    let jaxpr = Jaxpr {
        constvars,
        invars,
        eqns: b.eqns,
        outvars,
    };
    (ClosedJaxpr { jaxpr, consts }, out)
}

/// Traces `f` at the avals of `args` and returns its jaxpr, as `jax.make_jaxpr(f)(*args)`.
///
/// `args` is a tree of tensors (a tensor, a tuple, a `Vec`, ...); `f` takes the same tree.
///
/// ```
/// use oxla::{make_jaxpr, numpy as jnp, Tensor};
/// let f = |x: Tensor| (x.index((.., None)) * x.index((None, ..))).sum(None);
/// let j = make_jaxpr(f, jnp::ones(&[100]));
/// assert_eq!(j.to_string(), "\
/// { lambda ; a:f32[100]. let
///     b:f32[100,1] = broadcast_in_dim[broadcast_dimensions=(0,) shape=(100, 1)] a
///     c:f32[1,100] = broadcast_in_dim[broadcast_dimensions=(1,) shape=(1, 100)] a
///     d:f32[100,100] = mul b c
///     e:f32[] = reduce_sum[axes=(0, 1)] d
///   in (e,) }");
/// ```
#[track_caller]
pub fn make_jaxpr<A: Tree, O: Tree>(f: impl FnOnce(A) -> O, args: A) -> ClosedJaxpr {
    trace(f, &args).0
}

/// Runs a closed jaxpr on `args` with the current interpreter (the reference evaluator).
///
/// Eagerly this computes the result; inside a trace it inlines the jaxpr's equations, each
/// keeping its original source line. Arguments of other avals than the jaxpr's inputs
/// panic, naming the caller's line.
#[track_caller]
pub fn eval_jaxpr(cj: &ClosedJaxpr, args: &[Tensor]) -> Vec<Tensor> {
    let j = &cj.jaxpr;
    let at = Location::caller();
    if args.len() != j.invars.len() {
        panic!(
            "eval_jaxpr: {} arguments for {} inputs\n  at {at}",
            args.len(),
            j.invars.len()
        );
    }
    let mut env: HashMap<u32, Tensor> = HashMap::new();
    for (v, t) in j.constvars.iter().zip(&cj.consts) {
        env.insert(v.id, t.clone());
    }
    for (i, (v, t)) in j.invars.iter().zip(args).enumerate() {
        if t.aval() != v.aval {
            panic!(
                "eval_jaxpr: argument {i} of aval {} for input {}\n  at {at}",
                t.aval(),
                v.aval
            );
        }
        env.insert(v.id, t.clone());
    }
    let read = |env: &HashMap<u32, Tensor>, a: &Atom| match a {
        Atom::Var(v) => env[&v.id].clone(),
        Atom::Lit(l) => Tensor::from(l.clone()),
    };
    for e in &j.eqns {
        let ins: Vec<Tensor> = e.inputs.iter().map(|a| read(&env, a)).collect();
        let outs = bind_exact(e.prim.clone(), &ins, e.source);
        for (v, t) in e.outputs.iter().zip(outs) {
            env.insert(v.id, t);
        }
    }
    j.outvars.iter().map(|a| read(&env, a)).collect()
}
