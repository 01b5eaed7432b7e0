//! Automatic differentiation: `jvp`, `vjp`, `grad`, `value_and_grad`, `jacfwd`, `jacrev`,
//! `hessian`.
//!
//! Forward mode replays a traced jaxpr with the JVP rule of every primitive. Reverse mode
//! replays it forward, keeping every value, then walks the equations backwards with the VJP
//! rule of every primitive (for linear primitives, their transpose). Both replay in the
//! current interpreter, so derivatives can be traced, batched and differentiated again:
//! `grad(grad(f))`, `vmap(grad(f))` and `grad(vmap(f))` all compose.

use std::collections::{HashMap, HashSet};

use super::jvp_rules::{self, zeros_of_aval};
use super::vjp_rules;
use crate::core::tree::{Tree, TreeDef};
use crate::core::{bind, trace, with_line, Atom, ClosedJaxpr, Tensor};
use crate::error::Result;
use crate::numpy as jnp;

/// Values of a forward pass, kept for the backward pass.
struct Forward {
    cj: ClosedJaxpr,
    env: HashMap<u32, Tensor>,
    active: HashSet<u32>,
}

impl Forward {
    /// Runs `cj` on `args`, marking as active every float value that depends on an input
    /// whose `active_in` is set.
    fn run(cj: ClosedJaxpr, args: &[Tensor], active_in: &[bool]) -> (Forward, Vec<Tensor>) {
        let j = &cj.jaxpr;
        let mut env = HashMap::new();
        let mut active = HashSet::new();
        for (v, t) in j.constvars.iter().zip(&cj.consts) {
            env.insert(v.id, t.clone());
        }
        for ((v, t), &a) in j.invars.iter().zip(args).zip(active_in) {
            env.insert(v.id, t.clone());
            if a {
                active.insert(v.id);
            }
        }
        for e in &j.eqns {
            let ins: Vec<Tensor> = e.inputs.iter().map(|a| read(&env, a)).collect();
            let outs = with_line(e.source, || bind(e.prim.clone(), &ins, e.source));
            let live = e
                .inputs
                .iter()
                .any(|a| matches!(a, Atom::Var(v) if active.contains(&v.id)));
            for (v, t) in e.outputs.iter().zip(outs) {
                if live && t.dtype().is_float() {
                    active.insert(v.id);
                }
                env.insert(v.id, t);
            }
        }
        let outs = j.outvars.iter().map(|a| read(&env, a)).collect();
        (Forward { cj, env, active }, outs)
    }

    fn is_active(&self, a: &Atom) -> bool {
        matches!(a, Atom::Var(v) if self.active.contains(&v.id))
    }

    /// Cotangents of the inputs from cotangents of the outputs (`None`: zero).
    fn backward(&self, cts_out: &[Option<Tensor>]) -> Vec<Option<Tensor>> {
        let j = &self.cj.jaxpr;
        let mut ct: HashMap<u32, Tensor> = HashMap::new();
        let add = |ct: &mut HashMap<u32, Tensor>, id: u32, c: Tensor| {
            let sum = match ct.remove(&id) {
                Some(prev) => crate::ops::add(&prev, &c),
                None => c,
            };
            ct.insert(id, sum);
        };
        for (a, c) in j.outvars.iter().zip(cts_out) {
            if let (Atom::Var(v), Some(c)) = (a, c) {
                if self.active.contains(&v.id) {
                    add(&mut ct, v.id, c.clone());
                }
            }
        }
        for e in j.eqns.iter().rev() {
            let cts: Vec<Option<Tensor>> = e.outputs.iter().map(|v| ct.remove(&v.id)).collect();
            let act: Vec<bool> = e.inputs.iter().map(|a| self.is_active(a)).collect();
            if cts.iter().all(Option::is_none) || !act.iter().any(|&a| a) {
                continue;
            }
            let ins: Vec<Tensor> = e.inputs.iter().map(|a| read(&self.env, a)).collect();
            let outs: Vec<Tensor> = e.outputs.iter().map(|v| self.env[&v.id].clone()).collect();
            let in_cts = with_line(e.source, || {
                vjp_rules::vjp(&e.prim, &ins, &outs, &cts, &act, e.source)
            });
            for ((a, c), &live) in e.inputs.iter().zip(in_cts).zip(&act) {
                if let (Atom::Var(v), Some(c), true) = (a, c, live) {
                    add(&mut ct, v.id, c);
                }
            }
        }
        j.invars.iter().map(|v| ct.remove(&v.id)).collect()
    }
}

/// Cotangents of `cj`'s inputs (for the `active` ones) at `primals` from output cotangents
/// `cts`, in the current interpreter: the forward pass, then the backward pass.
pub(crate) fn vjp_jaxpr(
    cj: &ClosedJaxpr,
    primals: &[Tensor],
    active: &[bool],
    cts: &[Option<Tensor>],
) -> Vec<Option<Tensor>> {
    let (forward, _) = Forward::run(cj.clone(), primals, active);
    forward.backward(cts)
}

fn read(env: &HashMap<u32, Tensor>, a: &Atom) -> Tensor {
    match a {
        Atom::Var(v) => env[&v.id].clone(),
        Atom::Lit(l) => Tensor::new(l.clone()),
    }
}

/// Replays `cj` with JVP rules: primal outputs and their tangents (`None`: zero).
pub(crate) fn jvp_jaxpr(
    cj: &ClosedJaxpr,
    primals: &[Tensor],
    tangents: Vec<Option<Tensor>>,
) -> (Vec<Tensor>, Vec<Option<Tensor>>) {
    let j = &cj.jaxpr;
    let mut env: HashMap<u32, Tensor> = HashMap::new();
    let mut tan: HashMap<u32, Tensor> = HashMap::new();
    for (v, t) in j.constvars.iter().zip(&cj.consts) {
        env.insert(v.id, t.clone());
    }
    for ((v, p), t) in j.invars.iter().zip(primals).zip(tangents) {
        env.insert(v.id, p.clone());
        if let Some(t) = t {
            tan.insert(v.id, t);
        }
    }
    let read_t = |tan: &HashMap<u32, Tensor>, a: &Atom| match a {
        Atom::Var(v) => tan.get(&v.id).cloned(),
        Atom::Lit(_) => None,
    };
    for e in &j.eqns {
        let ins: Vec<Tensor> = e.inputs.iter().map(|a| read(&env, a)).collect();
        let tins: Vec<Option<Tensor>> = e.inputs.iter().map(|a| read_t(&tan, a)).collect();
        let (outs, touts) = with_line(e.source, || {
            if tins.iter().all(Option::is_none) {
                let outs = bind(e.prim.clone(), &ins, e.source);
                let n = outs.len();
                (outs, vec![None; n])
            } else {
                jvp_rules::jvp(&e.prim, &ins, &tins)
            }
        });
        for ((v, o), t) in e.outputs.iter().zip(outs).zip(touts) {
            if let Some(t) = t.filter(|_| o.dtype().is_float()) {
                tan.insert(v.id, t);
            }
            env.insert(v.id, o);
        }
    }
    let outs = j.outvars.iter().map(|a| read(&env, a)).collect();
    let touts = j.outvars.iter().map(|a| read_t(&tan, a)).collect();
    (outs, touts)
}

/// Forward-mode derivative: `f(primals)` and its directional derivative along `tangents`
/// (`jax.jvp`). `tangents` has the structure and avals (shapes and dtypes) of `primals`;
/// integer leaves' tangents are ignored. Other tangents panic at the caller's line.
///
/// ```
/// use oxla::{jvp, Tensor};
/// let (y, t) = jvp(|x: Tensor| x.sin(), Tensor::scalar(0.0f32), Tensor::scalar(2.0f32));
/// assert_eq!((y.item(), t.item()), (0.0, 2.0));
/// ```
#[track_caller]
pub fn jvp<A: Tree, O: Tree>(f: impl Fn(A) -> O, primals: A, tangents: A) -> (O, O) {
    let (p, t) = (primals.leaves(), tangents.leaves());
    if primals.def() != tangents.def() || p.iter().zip(&t).any(|(p, t)| p.shape() != t.shape()) {
        panic!(
            "jvp: tangents must have the primals' structure and shapes, got {} and {}\n  at {}",
            tangents.def(),
            primals.def(),
            std::panic::Location::caller()
        );
    }
    if let Some((p, t)) = p.iter().zip(&t).find(|(p, t)| p.dtype() != t.dtype()) {
        panic!(
            "jvp: primal and tangent arguments to jvp do not match; dtypes must be equal (an \
             integer or bool primal takes a tangent of its own dtype, oxla's stand-in for \
             JAX's float0). Got primal dtype {} and tangent dtype {}\n  at {}",
            p.dtype(),
            t.dtype(),
            std::panic::Location::caller()
        );
    }
    let (cj, out) = trace(&f, &primals);
    let tangents: Vec<Option<Tensor>> = p
        .iter()
        .zip(t)
        .map(|(p, t)| p.dtype().is_float().then_some(t))
        .collect();
    let (outs, touts) = jvp_jaxpr(&cj, &p, tangents);
    let touts: Vec<Tensor> = touts
        .into_iter()
        .zip(&outs)
        .map(|(t, o)| t.unwrap_or_else(|| zeros_of_aval(o)))
        .collect();
    (
        out.rebuild(&mut outs.into_iter()),
        out.rebuild(&mut touts.into_iter()),
    )
}

/// The pullback of a function at a point; see [`vjp`].
pub struct Vjp<A> {
    forward: Forward,
    primals: A,
    outs: Vec<Tensor>,
}

/// Reverse-mode derivative: `f(primals)` and its pullback (`jax.vjp`), which maps output
/// cotangents to cotangents of every primal (zeros for integer leaves).
///
/// ```
/// use oxla::{vjp, Tensor};
/// let (y, pullback) = vjp(|x: Tensor| &x * &x, Tensor::scalar(3.0f32));
/// assert_eq!(y.item(), 9.0);
/// assert_eq!(pullback.call(Tensor::scalar(1.0f32)).item(), 6.0);
/// ```
pub fn vjp<A: Tree, O: Tree>(f: impl Fn(A) -> O, primals: A) -> (O, Vjp<A>) {
    let leaves = primals.leaves();
    let (cj, out) = trace(&f, &primals);
    let active: Vec<bool> = leaves.iter().map(|t| t.dtype().is_float()).collect();
    let (forward, outs) = Forward::run(cj, &leaves, &active);
    let o = out.rebuild(&mut outs.clone().into_iter());
    (
        o,
        Vjp {
            forward,
            primals,
            outs,
        },
    )
}

impl<A: Tree> Vjp<A> {
    /// Cotangents of the primals for output cotangents `cts` (of the outputs' structure).
    #[track_caller]
    pub fn call<O: Tree>(&self, cts: O) -> A {
        let cts = cts.leaves();
        if cts.len() == self.outs.len() {
            if let Some((c, o)) = cts
                .iter()
                .zip(&self.outs)
                .find(|(c, o)| c.shape() == o.shape() && c.dtype() != o.dtype())
            {
                panic!(
                    "vjp: unexpected type for a cotangent: got {}, but expected {} because the \
                     corresponding output of the differentiated function has type {}\n  at {}",
                    c.aval(),
                    o.aval(),
                    o.aval(),
                    std::panic::Location::caller()
                );
            }
        }
        if cts.len() != self.outs.len()
            || cts
                .iter()
                .zip(&self.outs)
                .any(|(c, o)| c.shape() != o.shape())
        {
            let shapes = |v: &[Tensor]| -> Vec<Vec<usize>> {
                v.iter().map(|t| t.shape().to_vec()).collect()
            };
            panic!(
                "vjp: cotangent shapes {:?} do not match the outputs' {:?}\n  at {}",
                shapes(&cts),
                shapes(&self.outs),
                std::panic::Location::caller()
            );
        }
        let cts: Vec<Option<Tensor>> = cts
            .into_iter()
            .zip(&self.outs)
            .map(|(c, o)| o.dtype().is_float().then_some(c))
            .collect();
        let grads = self.forward.backward(&cts);
        let leaves: Vec<Tensor> = grads
            .into_iter()
            .zip(self.primals.leaves())
            .map(|(g, p)| g.unwrap_or_else(|| zeros_of_aval(&p)))
            .collect();
        self.primals.rebuild(&mut leaves.into_iter())
    }
}

/// Which arguments to differentiate: one index (the gradient has that argument's
/// structure) or several (a tuple of them). Arguments are the elements of the tuple a
/// function takes; a function of one non-tuple value has the single argument 0. As in JAX,
/// a negative index counts from the end: `-1` is the last argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Argnums {
    nums: Vec<isize>,
    single: bool,
}

impl Argnums {
    fn one(n: isize) -> Argnums {
        Argnums {
            nums: vec![n],
            single: true,
        }
    }

    fn several(nums: impl IntoIterator<Item = isize>) -> Argnums {
        Argnums {
            nums: nums.into_iter().collect(),
            single: false,
        }
    }
}

impl From<usize> for Argnums {
    fn from(n: usize) -> Argnums {
        Argnums::one(n as isize)
    }
}

impl From<i32> for Argnums {
    fn from(n: i32) -> Argnums {
        Argnums::one(n as isize)
    }
}

impl From<isize> for Argnums {
    fn from(n: isize) -> Argnums {
        Argnums::one(n)
    }
}

impl<const N: usize> From<[usize; N]> for Argnums {
    fn from(n: [usize; N]) -> Argnums {
        Argnums::several(n.map(|k| k as isize))
    }
}

impl<const N: usize> From<[i32; N]> for Argnums {
    fn from(n: [i32; N]) -> Argnums {
        Argnums::several(n.map(|k| k as isize))
    }
}

impl From<(i32, i32)> for Argnums {
    fn from((a, b): (i32, i32)) -> Argnums {
        Argnums::several([a as isize, b as isize])
    }
}

impl Argnums {
    /// The leaf mask and gradient structure for arguments of structure `def`.
    #[track_caller]
    fn select(&self, def: &TreeDef, leaves: &[Tensor], what: &str) -> (Vec<bool>, TreeDef) {
        let args: Vec<TreeDef> = match def {
            TreeDef::Tuple(c) => c.clone(),
            d => vec![d.clone()],
        };
        let mut starts = vec![0];
        for a in &args {
            starts.push(starts.last().unwrap() + a.num_leaves());
        }
        let at = std::panic::Location::caller();
        let mut mask = vec![false; leaves.len()];
        let n = args.len() as isize;
        let nums: Vec<usize> = self
            .nums
            .iter()
            .map(|&k| {
                if k < -n || k >= n {
                    panic!(
                        "{what}: argnums {k} out of range for a function of {n} arguments \
                         {def}\n  at {at}"
                    );
                }
                k.rem_euclid(n) as usize
            })
            .collect();
        for &k in &nums {
            for i in starts[k]..starts[k + 1] {
                if !leaves[i].dtype().is_float() {
                    panic!(
                        "{what} requires floating-point inputs, but argument {k} has a leaf of \
                         dtype {} (shape {:?}); integer and boolean inputs have zero derivative \
                         and cannot be differentiated\n  at {at}",
                        leaves[i].dtype(),
                        leaves[i].shape(),
                    );
                }
                mask[i] = true;
            }
        }
        let gdef = if self.single {
            args[nums[0]].clone()
        } else {
            TreeDef::Tuple(nums.iter().map(|&k| args[k].clone()).collect())
        };
        (mask, gdef)
    }
}

/// Options shared by [`grad`] and [`value_and_grad`].
#[derive(Clone)]
pub struct Grad<F> {
    f: F,
    argnums: Argnums,
}

/// The gradient of a scalar function (`jax.grad`), differentiating argument 0 unless
/// [`argnums`](Grad::argnums) says otherwise.
///
/// The result type is the differentiated argument's (or, for several argnums, a tuple of
/// theirs), named at the call site:
///
/// ```
/// use oxla::{grad, Tensor};
/// let loss = |(w, x): (Tensor, Tensor)| (&w * &x).sum(None);
/// let w = Tensor::from_vec(vec![1.0f32, 2.0], &[2]);
/// let x = Tensor::from_vec(vec![3.0f32, 4.0], &[2]);
/// let g: Tensor = grad(loss).call((w, x))?;
/// assert_eq!(g.to_vec::<f32>(), vec![3.0, 4.0]);
/// # Ok::<(), oxla::Error>(())
/// ```
pub fn grad<F>(f: F) -> Grad<F> {
    Grad {
        f,
        argnums: Argnums::from(0usize),
    }
}

/// The value and the gradient of a scalar function (`jax.value_and_grad`).
pub fn value_and_grad<F>(f: F) -> ValueAndGrad<F> {
    ValueAndGrad(grad(f))
}

/// See [`value_and_grad`].
#[derive(Clone)]
pub struct ValueAndGrad<F>(Grad<F>);

/// A gradient transform whose function also returns auxiliary data; see
/// [`Grad::has_aux`].
#[derive(Clone)]
pub struct WithAux<G>(G);

impl<F> Grad<F> {
    /// Which arguments to differentiate.
    pub fn argnums(mut self, n: impl Into<Argnums>) -> Self {
        self.argnums = n.into();
        self
    }

    /// The function returns `(loss, aux)`; the call returns `(gradient, aux)`.
    pub fn has_aux(self) -> WithAux<Self> {
        WithAux(self)
    }

    /// Value and gradient leaves of `f` at `args`, with the gradient's structure.
    #[track_caller]
    fn run<A: Tree, O: Tree>(&self, args: &A, what: &str) -> (O, Vec<Tensor>, TreeDef)
    where
        F: Fn(A) -> O,
    {
        let leaves = args.leaves();
        let (mask, gdef) = self.argnums.select(&args.def(), &leaves, what);
        let (cj, out) = trace(&self.f, args);
        let (forward, outs) = Forward::run(cj, &leaves, &mask);
        let loss = &outs[0];
        if loss.ndim() != 0 || !loss.dtype().is_float() {
            panic!(
                "{what} requires a scalar floating-point output, got {}\n  at {}",
                loss.aval(),
                std::panic::Location::caller()
            );
        }
        let mut cts = vec![None; outs.len()];
        cts[0] = Some(crate::numpy::scalar_tensor(1.0, loss.dtype()));
        let grads = forward.backward(&cts);
        let g: Vec<Tensor> = grads
            .into_iter()
            .zip(&leaves)
            .zip(&mask)
            .filter(|(_, &m)| m)
            .map(|((g, x), _)| g.unwrap_or_else(|| zeros_of_aval(x)))
            .collect();
        (out.rebuild(&mut outs.into_iter()), g, gdef)
    }

    /// The gradient at `args`, as a tree of type `G` (the differentiated argument's type).
    #[track_caller]
    pub fn call<A: Tree, G: Tree>(&self, args: A) -> Result<G>
    where
        F: Fn(A) -> Tensor,
    {
        let (_, g, gdef) = self.run::<A, Tensor>(&args, "grad");
        Ok(build(&gdef, g))
    }
}

impl<F> ValueAndGrad<F> {
    /// Which arguments to differentiate.
    pub fn argnums(self, n: impl Into<Argnums>) -> Self {
        ValueAndGrad(self.0.argnums(n))
    }

    /// The function returns `(loss, aux)`; the call returns `((loss, aux), gradient)`.
    pub fn has_aux(self) -> WithAux<Self> {
        WithAux(self)
    }

    /// `(f(args), gradient)`.
    #[track_caller]
    pub fn call<A: Tree, G: Tree>(&self, args: A) -> Result<(Tensor, G)>
    where
        F: Fn(A) -> Tensor,
    {
        let (v, g, gdef) = self.0.run::<A, Tensor>(&args, "value_and_grad");
        Ok((v, build(&gdef, g)))
    }
}

impl<F> WithAux<Grad<F>> {
    /// `(gradient, aux)`.
    #[track_caller]
    pub fn call<A: Tree, X: Tree, G: Tree>(&self, args: A) -> Result<(G, X)>
    where
        F: Fn(A) -> (Tensor, X),
    {
        let ((_, aux), g, gdef) = self.0.run::<A, (Tensor, X)>(&args, "grad");
        Ok((build(&gdef, g), aux))
    }
}

impl<F> WithAux<ValueAndGrad<F>> {
    /// `((loss, aux), gradient)`.
    #[track_caller]
    pub fn call<A: Tree, X: Tree, G: Tree>(&self, args: A) -> Result<((Tensor, X), G)>
    where
        F: Fn(A) -> (Tensor, X),
    {
        let (out, g, gdef) = self.0 .0.run::<A, (Tensor, X)>(&args, "value_and_grad");
        Ok((out, build(&gdef, g)))
    }
}

/// A tree of type `G` from gradient leaves, panicking if `G` cannot have structure `def`.
#[track_caller]
fn build<G: Tree>(def: &TreeDef, leaves: Vec<Tensor>) -> G {
    G::from_def(def, &mut leaves.into_iter()).unwrap_or_else(|| {
        panic!(
            "grad: the gradient has structure {def}, which the requested result type \
             ({}) cannot hold\n  at {}",
            std::any::type_name::<G>(),
            std::panic::Location::caller()
        )
    })
}

/// A Jacobian transform; see [`jacfwd`], [`jacrev`] and [`hessian`].
#[derive(Clone)]
pub struct Jacobian<F> {
    f: F,
    forward: bool,
}

/// The Jacobian of a function of one tensor by forward mode (`jax.jacfwd`): shape
/// `out.shape + x.shape`, computed as the batched JVP along every input direction.
pub fn jacfwd<F: Fn(Tensor) -> Tensor>(f: F) -> Jacobian<F> {
    Jacobian { f, forward: true }
}

/// The Jacobian of a function of one tensor by reverse mode (`jax.jacrev`): shape
/// `out.shape + x.shape`, computed as the batched VJP along every output direction.
pub fn jacrev<F: Fn(Tensor) -> Tensor>(f: F) -> Jacobian<F> {
    Jacobian { f, forward: false }
}

/// The Hessian of a scalar function of one tensor, `jacfwd(jacrev(f))` (`jax.hessian`).
///
/// ```
/// use oxla::{hessian, Tensor};
/// let f = |x: Tensor| (&x * &x * &x).sum(None);
/// let h = hessian(f).call(Tensor::from_vec(vec![1.0f32, 2.0], &[2]))?;
/// assert_eq!(h.to_vec::<f32>(), vec![6.0, 0.0, 0.0, 12.0]);
/// # Ok::<(), oxla::Error>(())
/// ```
pub fn hessian<F: Fn(Tensor) -> Tensor + Clone>(
    f: F,
) -> Jacobian<impl Fn(Tensor) -> Tensor + Clone> {
    jacfwd(move |x: Tensor| {
        jacrev(f.clone())
            .call(x)
            .expect("jacrev of a traced function")
    })
}

/// Standard basis of `shape` in `dtype`, stacked: `[size, *shape]`.
fn basis(shape: &[usize], dtype: crate::array::DType) -> Tensor {
    let n: usize = shape.iter().product();
    let mut s = vec![n];
    s.extend_from_slice(shape);
    jnp::astype(&jnp::eye(n), dtype).reshape(&s)
}

impl<F: Fn(Tensor) -> Tensor> Jacobian<F> {
    /// The Jacobian at `x`.
    #[track_caller]
    pub fn call(&self, x: Tensor) -> Result<Tensor> {
        let f = &self.f;
        if !x.dtype().is_float() {
            panic!(
                "jacobian requires a floating-point input, got {}\n  at {}",
                x.aval(),
                std::panic::Location::caller()
            );
        }
        if self.forward {
            let push = |t: Tensor| jvp(|x: Tensor| f(x), x.clone(), t).1;
            let jt: Tensor = super::vmap(push).call(basis(x.shape(), x.dtype()))?;
            // jt is [x.size, *out.shape]: move the input axis last.
            let out_shape = jt.shape()[1..].to_vec();
            let m: usize = out_shape.iter().product();
            let flat = jt.reshape(&[x.size(), m]).t();
            let mut shape = out_shape;
            shape.extend_from_slice(x.shape());
            Ok(flat.reshape(&shape))
        } else {
            let (y, pullback) = vjp(|x: Tensor| f(x), x.clone());
            let jr: Tensor =
                super::vmap(|c: Tensor| pullback.call(c)).call(basis(y.shape(), y.dtype()))?;
            let mut shape = y.shape().to_vec();
            shape.extend_from_slice(x.shape());
            Ok(jr.reshape(&shape))
        }
    }
}
