//! `lax::scan` and `lax::fori_loop`: a loop carrying a value through `length` steps, each
//! reading one slice of its scanned operands and writing one slice of its stacked results.
//!
//! The body's inputs are the carry, one slice of each scanned operand and the captured
//! values; its outputs the new carry and one slice of each stacked result. Reverse mode
//! runs the loop forward once more to stack each step's incoming carry, then a reverse loop
//! whose body recomputes the step and pulls the cotangents back through it.

use std::sync::{Arc, OnceLock};

use crate::array::aval_of;
use crate::array::{Array, Buffer};
use crate::compiler::Executable;
use crate::core::control_flow::debug_by_identity;
use crate::core::tree::Tree;
use crate::core::ControlFlow;
use crate::core::Prim;
use crate::core::{bind, eval_jaxpr, trace_avals, Aval, ClosedJaxpr, Tensor};
use crate::memory::{BufferInfo, BufferKind};
use crate::transforms::ad::{jvp_jaxpr, vjp_jaxpr};
use crate::transforms::batching::moveaxis;
use crate::transforms::bodies::{dense_tangents, float_positions, sparse_tangents};
use crate::transforms::bodies::{open, rows};
use crate::transforms::jvp_rules::zeros_of_aval;
use crate::transforms::vmap::{batch_jaxpr, place_output};
use std::panic::Location;

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

    /// The shape rule.
    pub(crate) fn abstract_eval(&self, ins: &[Aval]) -> Result<Vec<Aval>, String> {
        let want = self.body.jaxpr.in_avals();
        if ins.len() != want.len() {
            return Err(format!("{} operands for {} inputs", ins.len(), want.len()));
        }
        for (i, (a, w)) in ins.iter().zip(&want).enumerate() {
            let sliced = i >= self.num_carry && i < self.num_carry + self.num_xs;
            let ok = if sliced {
                a.dtype == w.dtype
                    && a.shape.first() == Some(&self.length)
                    && a.shape[1..] == w.shape[..]
            } else {
                a == w
            };
            if !ok {
                return Err(format!("operand {i} has aval {a}, the body expects {w}"));
            }
        }
        let outs = self.body.jaxpr.out_avals();
        Ok(outs
            .iter()
            .enumerate()
            .map(|(k, a)| {
                if k < self.num_carry {
                    a.clone()
                } else {
                    let mut s = vec![self.length];
                    s.extend_from_slice(&a.shape);
                    Aval::new(a.dtype, &s)
                }
            })
            .collect())
    }

    /// The parameters as the jaxpr printer shows them.
    pub(crate) fn params(&self) -> Vec<(&'static str, String)> {
        let consts = self.body.jaxpr.invars.len() - self.num_carry - self.num_xs;
        vec![
            ("jaxpr", format!("{}", self.body)),
            ("length", self.length.to_string()),
            ("num_carry", self.num_carry.to_string()),
            ("num_consts", consts.to_string()),
            (
                "reverse",
                if self.reverse { "True" } else { "False" }.into(),
            ),
        ]
    }

    fn compiled(&self) -> &Executable {
        self.compiled
            .get_or_init(|| Executable::new(self.body.clone()))
    }

    /// One step's working memory: the body's planned peak less the carry and the captured
    /// values it shares with the loop, with its largest buffers.
    pub(crate) fn step_bytes(&self) -> (usize, Vec<BufferInfo>) {
        let exe = self.compiled();
        let shared: usize = self
            .body
            .jaxpr
            .invars
            .iter()
            .enumerate()
            .filter(|(i, _)| *i < self.num_carry || *i >= self.num_carry + self.num_xs)
            .map(|(_, v)| v.aval.nbytes())
            .sum();
        let largest = exe
            .analysis()
            .largest
            .iter()
            .filter(|b| matches!(b.kind, BufferKind::Temporary | BufferKind::Output))
            .cloned()
            .collect();
        (exe.analysis().peak_bytes.saturating_sub(shared), largest)
    }

    /// Runs the steps.
    pub(crate) fn eval(&self, ins: &[Array]) -> Vec<Array> {
        let exe = self.compiled();
        let avals: Vec<Aval> = ins.iter().map(aval_of).collect();
        let outs = self.abstract_eval(&avals).expect("checked when bound");
        let (nc, nx) = (self.num_carry, self.num_xs);
        let mut carry: Vec<Array> = ins[..nc].to_vec();
        let mut stacked: Vec<Buffer> = outs[nc..]
            .iter()
            .map(|a| Buffer::zeroed(a.nbytes()))
            .collect();
        for t in 0..self.length {
            let i = if self.reverse { self.length - 1 - t } else { t };
            let mut args = carry;
            args.extend(
                ins[nc..nc + nx]
                    .iter()
                    .map(|x| rows(x, i, 1).reshaped(&x.shape()[1..])),
            );
            args.extend(ins[nc + nx..].iter().cloned());
            let mut results = exe.run_arrays(args);
            let ys = results.split_off(nc);
            carry = results;
            for (buf, y) in stacked.iter_mut().zip(ys) {
                let at = i * y.nbytes();
                buf.as_mut_bytes()[at..at + y.nbytes()].copy_from_slice(y.as_bytes());
            }
        }
        carry
            .into_iter()
            .chain(
                outs[nc..]
                    .iter()
                    .zip(stacked)
                    .map(|(a, b)| Array::from_buffer(a.dtype, &a.shape, b)),
            )
            .collect()
    }
}

/// Batching: scanned operands carry the batch axis at 1 (axis 0 is the scan's), the others
/// at 0; a carry becomes batched when its initial value or its update is; stacked results
/// carry it at axis 1.
pub(crate) fn batch(
    spec: &ScanSpec,
    args: &[Tensor],
    dims: &[Option<usize>],
    n: usize,
) -> (Vec<Tensor>, Vec<Option<usize>>) {
    let (nc, nx) = (spec.num_carry, spec.num_xs);
    let scanned = |i: usize| i >= nc && i < nc + nx;
    let mut batched: Vec<bool> = dims[..nc].iter().map(Option::is_some).collect();
    // The carry's batched set is a fixpoint: a step may batch a carry that starts unbatched.
    loop {
        let (avals, inner): (Vec<Aval>, Vec<Option<usize>>) = spec
            .body
            .jaxpr
            .invars
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let d = if i < nc {
                    batched[i].then_some(0)
                } else {
                    dims[i].map(|_| 0)
                };
                let mut s = v.aval.shape.to_vec();
                if d.is_some() {
                    s.insert(0, n);
                }
                (Aval::new(v.aval.dtype, &s), d)
            })
            .unzip();
        let structure = vec![Tensor::scalar(0.0f32); avals.len()];
        let (out, _) = trace_avals(
            |xs: Vec<Tensor>| -> Vec<Tensor> {
                let args = xs.into_iter().zip(inner.iter().copied()).collect();
                let r = batch_jaxpr(&spec.body, args, n);
                r.into_iter().map(|(t, _)| t).collect()
            },
            &structure,
            &avals,
        );
        // The carry outputs' batching, read from their staged avals' ranks.
        let grown: Vec<bool> = out.jaxpr.out_avals()[..nc]
            .iter()
            .zip(&spec.body.jaxpr.out_avals()[..nc])
            .map(|(b, a)| b.ndim() > a.ndim())
            .collect();
        let next: Vec<bool> = batched.iter().zip(&grown).map(|(&a, &b)| a || b).collect();
        if next == batched {
            break;
        }
        batched = next;
    }
    let moved: Vec<Tensor> = args
        .iter()
        .enumerate()
        .map(|(i, x)| match (dims[i], i < nc && batched[i]) {
            (Some(d), _) => moveaxis(x, d, usize::from(scanned(i))),
            (None, true) => place_output(x.clone(), None, Some(0), n, i),
            (None, false) => x.clone(),
        })
        .collect();
    let inner: Vec<Option<usize>> = (0..args.len())
        .map(|i| {
            if i < nc {
                batched[i].then_some(0)
            } else {
                dims[i].map(|_| 0)
            }
        })
        .collect();
    let body = spec.trace(&moved, nc, nx, |xs| {
        let outs = batch_jaxpr(&spec.body, xs.into_iter().zip(inner.clone()).collect(), n);
        outs.into_iter()
            .enumerate()
            .map(|(k, (t, d))| {
                if k < nc && !batched[k] {
                    t
                } else {
                    place_output(t, d, Some(0), n, k)
                }
            })
            .collect()
    });
    let outs = stage(&moved, nc, nx, spec.length, spec.reverse, body);
    let out_dims = (0..outs.len())
        .map(|k| {
            if k < nc {
                batched[k].then_some(0)
            } else {
                Some(1)
            }
        })
        .collect();
    (outs, out_dims)
}

/// Forward mode: one scan carrying the tangents of the float carries beside them.
pub(crate) fn jvp(
    spec: &ScanSpec,
    primals: &[Tensor],
    tangents: &[Option<Tensor>],
) -> (Vec<Tensor>, Vec<Option<Tensor>>) {
    let (nc, nx) = (spec.num_carry, spec.num_xs);
    let na = primals.len();
    let float = |t: &Tensor| t.dtype().is_float();
    let tc: Vec<usize> = (0..nc).filter(|&i| float(&primals[i])).collect();
    let tx: Vec<usize> = (nc..nc + nx).filter(|&i| tangents[i].is_some()).collect();
    let tk: Vec<usize> = (nc + nx..na).filter(|&i| tangents[i].is_some()).collect();
    let tan = |i: usize| {
        tangents[i]
            .clone()
            .unwrap_or_else(|| zeros_of_aval(&primals[i]))
    };
    let mut ops: Vec<Tensor> = primals[..nc].to_vec();
    ops.extend(tc.iter().map(|&i| tan(i)));
    ops.extend(primals[nc..nc + nx].iter().cloned());
    ops.extend(tx.iter().map(|&i| tan(i)));
    ops.extend(primals[nc + nx..].iter().cloned());
    ops.extend(tk.iter().map(|&i| tan(i)));
    let n_out = spec.body.jaxpr.outvars.len();
    let ty: Vec<usize> = float_positions(&spec.body.jaxpr.out_avals())
        .into_iter()
        .filter(|&k| k >= nc)
        .collect();
    let (ncc, nxx) = (nc + tc.len(), nx + tx.len());
    let body = spec.trace(&ops, ncc, nxx, |xs| {
        let mut p: Vec<Tensor> = xs[..nc].to_vec();
        p.extend(xs[ncc..ncc + nx].iter().cloned());
        p.extend(xs[ncc + nxx..ncc + nxx + (na - nc - nx)].iter().cloned());
        let mut t: Vec<Option<Tensor>> = vec![None; na];
        for (k, &i) in tc.iter().enumerate() {
            t[i] = Some(xs[nc + k].clone());
        }
        for (k, &i) in tx.iter().enumerate() {
            t[i] = Some(xs[ncc + nx + k].clone());
        }
        for (k, &i) in tk.iter().enumerate() {
            t[i] = Some(xs[ncc + nxx + (na - nc - nx) + k].clone());
        }
        let (outs, touts) = jvp_jaxpr(&spec.body, &p, t);
        let mut r: Vec<Tensor> = outs[..nc].to_vec();
        r.extend(dense_tangents(&outs, &touts, &tc));
        r.extend(outs[nc..].iter().cloned());
        r.extend(dense_tangents(&outs, &touts, &ty));
        r
    });
    let mut all = stage(&ops, ncc, nxx, spec.length, spec.reverse, body);
    let tys = all.split_off(ncc + (n_out - nc));
    let ys = all.split_off(ncc);
    let mut flat = all.split_off(nc);
    flat.extend(tys);
    all.extend(ys);
    (all, sparse_tangents(flat, &[tc, ty].concat(), n_out))
}

/// Reverse mode: a forward scan stacking each step's incoming carry, then a scan in the
/// other direction whose step recomputes the body at that carry and pulls back the carry's
/// and the results' cotangents, summing those of the captured values in its carry.
pub(crate) fn vjp(
    spec: &ScanSpec,
    ins: &[Tensor],
    cts: &[Option<Tensor>],
    active: &[bool],
) -> Vec<Option<Tensor>> {
    let (nc, nx) = (spec.num_carry, spec.num_xs);
    let na = ins.len();
    if cts.iter().all(Option::is_none) || !active.iter().any(|&a| a) {
        return vec![None; na];
    }
    let float = |i: usize| ins[i].dtype().is_float();
    // Each step's incoming carry, stacked.
    let forward = spec.trace(ins, nc, nx, |xs| {
        let outs = eval_jaxpr(&spec.body, &xs);
        let mut r = outs[..nc].to_vec();
        r.extend(xs[..nc].iter().cloned());
        r
    });
    let carries: Vec<Tensor> = stage(ins, nc, nx, spec.length, spec.reverse, forward).split_off(nc);
    // Backward: carry (carry cotangents, captured-value cotangents), scanned (carries,
    // slices, result cotangents), captured values.
    let fc: Vec<usize> = (0..nc).filter(|&i| float(i)).collect();
    let fk: Vec<usize> = (nc + nx..na).filter(|&i| float(i) && active[i]).collect();
    // Output `k`'s cotangent, a zero (a broadcast scalar) where there is none.
    let ct = |k: usize| {
        cts[k].clone().unwrap_or_else(|| {
            let a = spec.body.jaxpr.outvars[k].aval();
            let mut s = if k < nc { vec![] } else { vec![spec.length] };
            s.extend_from_slice(&a.shape);
            crate::ops::broadcast_in_dim(&crate::numpy::scalar_tensor(0.0, a.dtype), &s, &[])
        })
    };
    let n_out = spec.body.jaxpr.outvars.len();
    let fy: Vec<usize> = (nc..n_out)
        .filter(|&k| spec.body.jaxpr.outvars[k].aval().dtype.is_float())
        .collect();
    let mut ops: Vec<Tensor> = fc.iter().map(|&i| ct(i)).collect();
    ops.extend(fk.iter().map(|&i| zeros_of_aval(&ins[i])));
    let ncb = ops.len();
    ops.extend(carries.iter().cloned());
    ops.extend(ins[nc..nc + nx].iter().cloned());
    ops.extend(fy.iter().map(|&k| ct(k)));
    let nxb = ops.len() - ncb;
    ops.extend(ins[nc + nx..].iter().cloned());
    let fx: Vec<usize> = (nc..nc + nx).filter(|&i| float(i)).collect();
    let body = spec.trace(&ops, ncb, nxb, |xs| {
        let (ct_c, rest) = xs.split_at(fc.len());
        let (ct_k, rest) = rest.split_at(fk.len());
        let (carry, rest) = rest.split_at(nc);
        let (x, rest) = rest.split_at(nx);
        let (ct_y, consts) = rest.split_at(fy.len());
        let mut p: Vec<Tensor> = carry.to_vec();
        p.extend(x.iter().cloned());
        p.extend(consts.iter().cloned());
        let mut c: Vec<Option<Tensor>> = vec![None; n_out];
        for (t, &i) in ct_c.iter().zip(&fc) {
            c[i] = Some(t.clone());
        }
        for (t, &k) in ct_y.iter().zip(&fy) {
            c[k] = Some(t.clone());
        }
        let act: Vec<bool> = (0..na).map(float).collect();
        let g = vjp_jaxpr(&spec.body, &p, &act, &c);
        let grad = |i: usize| g[i].clone().unwrap_or_else(|| zeros_of_aval(&p[i]));
        let mut r: Vec<Tensor> = fc.iter().map(|&i| grad(i)).collect();
        r.extend(
            fk.iter()
                .zip(ct_k)
                .map(|(&i, acc)| crate::ops::add(acc, &grad(i))),
        );
        r.extend(fx.iter().map(|&i| grad(i)));
        r
    });
    let mut out = stage(&ops, ncb, nxb, spec.length, !spec.reverse, body);
    let xs_cts = out.split_off(ncb);
    let k_cts = out.split_off(fc.len());
    let mut grads = vec![None; na];
    for (t, &i) in out.into_iter().zip(&fc) {
        grads[i] = Some(t).filter(|_| active[i]);
    }
    for (t, &i) in k_cts.into_iter().zip(&fk) {
        grads[i] = Some(t);
    }
    for (t, &i) in xs_cts.into_iter().zip(&fx) {
        grads[i] = Some(t).filter(|_| active[i]);
    }
    grads
}

impl ControlFlow for ScanSpec {
    fn name(&self) -> &'static str {
        "scan"
    }

    fn params(&self) -> Vec<(&'static str, String)> {
        ScanSpec::params(self)
    }

    fn abstract_eval(&self, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
        ScanSpec::abstract_eval(self, inputs)
    }

    fn eval(&self, inputs: &[Array]) -> Vec<Array> {
        ScanSpec::eval(self, inputs)
    }

    fn batch(
        &self,
        args: &[Tensor],
        dims: &[Option<usize>],
        n: usize,
    ) -> (Vec<Tensor>, Vec<Option<usize>>) {
        batch(self, args, dims, n)
    }

    fn jvp(
        &self,
        primals: &[Tensor],
        tangents: &[Option<Tensor>],
    ) -> (Vec<Tensor>, Vec<Option<Tensor>>) {
        jvp(self, primals, tangents)
    }

    fn vjp(
        &self,
        ins: &[Tensor],
        cts: &[Option<Tensor>],
        active: &[bool],
        src: &'static Location<'static>,
    ) -> Vec<Option<Tensor>> {
        let _ = src;
        vjp(self, ins, cts, active)
    }

    fn working_bytes(&self) -> (usize, Vec<BufferInfo>) {
        self.step_bytes()
    }
}
