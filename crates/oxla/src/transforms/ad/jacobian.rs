//! The Jacobians [`jacfwd`], [`jacrev`] and [`hessian`], of functions of trees: the
//! batched JVP along every input direction, or the batched VJP along every output
//! direction, split into one block per (output leaf, input leaf) and nested as JAX nests
//! them: the output's tree, each leaf holding the differentiated arguments' tree.

use crate::source::Source;
use std::cell::RefCell;

use super::directional::{jvp, vjp};
use super::grad::{build, Argnums, First, Selection};
use crate::core::tree::{Args, Tree, TreeDef};
use crate::core::{with_line, Tensor};
use crate::numpy as jnp;
use crate::transforms::vmap;

/// A Jacobian transform; see [`jacfwd`], [`jacrev`] and [`hessian`].
#[derive(Clone)]
pub struct Jacobian<F, S = First> {
    f: F,
    mode: Mode,
    argnums: S,
}

/// How a [`Jacobian`] is computed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Forward,
    Reverse,
    /// Forward over reverse: the Jacobian of the reverse-mode Jacobian.
    Hessian,
}

/// The Jacobian by forward mode (`jax.jacfwd`), with respect to argument 0 unless
/// [`argnums`](Jacobian::argnums) says otherwise: for a function of one tensor, shape
/// `out.shape + x.shape`, computed as the batched JVP along every input direction.
///
/// For trees, the result is the output's tree whose every leaf is the differentiated
/// arguments' tree of blocks `out_leaf.shape + in_leaf.shape` (JAX's nesting).
///
/// ```
/// use oxla::{jacfwd, numpy as jnp, Tensor};
/// let f = |(x, y): (Tensor, Tensor)| (&x * &y, x.sin());
/// let (x, y) = (jnp::arange(2.0), jnp::ones(&[2]));
/// let ((dxy_dx, dxy_dy), (dsin_dx, dsin_dy)): ((Tensor, Tensor), (Tensor, Tensor)) =
///     jacfwd(f).argnums([0, 1]).call((x, y));
/// assert_eq!(dxy_dy.to_vec::<f32>(), vec![0.0, 0.0, 0.0, 1.0]);
/// assert_eq!(dsin_dy.shape(), &[2, 2]);
/// # let _ = (dxy_dx, dsin_dx);
/// ```
pub fn jacfwd<F>(f: F) -> Jacobian<F> {
    Jacobian {
        f,
        mode: Mode::Forward,
        argnums: First,
    }
}

/// The Jacobian by reverse mode (`jax.jacrev`): as [`jacfwd`], computed as the batched VJP
/// along every output direction.
pub fn jacrev<F>(f: F) -> Jacobian<F> {
    Jacobian {
        f,
        mode: Mode::Reverse,
        argnums: First,
    }
}

/// The Hessian, `jacfwd(jacrev(f))` (`jax.hessian`), with respect to argument 0 unless
/// [`argnums`](Hessian::argnums) says otherwise. For trees it is nested as JAX nests it: the
/// output's tree of the arguments' tree of the arguments' tree.
///
/// ```
/// use oxla::{hessian, Tensor};
/// let f = |x: Tensor| (&x * &x * &x).sum(None);
/// let h = hessian(f).call(Tensor::from_vec(vec![1.0f32, 2.0], &[2]));
/// assert_eq!(h.to_vec::<f32>(), vec![6.0, 0.0, 0.0, 12.0]);
/// // With respect to both arguments of f(x, y) = x^2 y: ((f_xx, f_xy), (f_yx, f_yy)).
/// let g = |(x, y): (Tensor, Tensor)| &x * &x * &y;
/// let ((xx, xy), (yx, yy)): ((Tensor, Tensor), (Tensor, Tensor)) = hessian(g)
///     .argnums([0, 1])
///     .call((Tensor::scalar(3.0f32), Tensor::scalar(2.0f32)));
/// assert_eq!([xx.item(), xy.item(), yx.item(), yy.item()], [4.0, 6.0, 6.0, 0.0]);
/// ```
pub fn hessian<F>(f: F) -> Hessian<F> {
    Hessian(Jacobian {
        f,
        mode: Mode::Hessian,
        argnums: First,
    })
}

/// A Hessian transform; see [`hessian`].
#[derive(Clone)]
pub struct Hessian<F, S = First>(Jacobian<F, S>);

/// Which arguments a Hessian is taken with respect to, for a function of `A` with output
/// `O`, and so the type `H` it has: [`First`] (the type follows from `A` and `O`) or
/// [`Argnums`] (the caller names it).
pub trait HessianSelection<A: Tree, O: Tree, H: Tree> {
    /// The argument indices.
    fn argnums(&self) -> Argnums;
}

impl<A: Args, O: Nest<A::First>> HessianSelection<A, O, <O::Out as Nest<A::First>>::Out> for First
where
    O::Out: Nest<A::First>,
{
    fn argnums(&self) -> Argnums {
        Selection::<A, A::First>::argnums(self)
    }
}

impl<A: Tree, O: Tree, H: Tree> HessianSelection<A, O, H> for Argnums {
    fn argnums(&self) -> Argnums {
        self.clone()
    }
}

impl<F, S> Hessian<F, S> {
    /// Which arguments to differentiate: an index, or several (`[0, 1]`); the call's result
    /// type is then named by the caller.
    pub fn argnums(self, n: impl Into<Argnums>) -> Hessian<F, Argnums> {
        Hessian(self.0.argnums(n))
    }

    /// The Hessian at `args`.
    #[track_caller]
    pub fn call<A: Tree, O: Tree, H: Tree>(&self, args: A) -> H
    where
        F: Fn(A) -> O,
        S: HessianSelection<A, O, H>,
    {
        self.call_at(args, crate::core::current_line())
    }

    /// The Hessian as a function, to pass to another transform.
    #[track_caller]
    pub fn as_fn<A: Tree, O: Tree, H: Tree>(self) -> impl Fn(A) -> H + Clone
    where
        F: Fn(A) -> O + Clone,
        S: HessianSelection<A, O, H> + Clone,
    {
        let at = crate::core::current_line();
        move |args| self.call_at(args, at)
    }

    fn call_at<A: Tree, O: Tree, H: Tree>(&self, args: A, at: Source) -> H
    where
        F: Fn(A) -> O,
        S: HessianSelection<A, O, H>,
    {
        let argnums = self.0.argnums.argnums();
        with_line(at, || self.0.jacobian(args, argnums, at))
    }
}

/// An output tree whose every leaf becomes a tree `G`: the type of a Jacobian of a
/// function with this output, with respect to arguments of type `G`. Implemented for
/// tensors, tuples, `Vec`, arrays and `Option`; other outputs take a Jacobian with
/// [`argnums`](Jacobian::argnums), whose result type the caller names.
pub trait Nest<G: Tree>: Tree {
    /// The nested type.
    type Out: Tree;
}

impl<G: Tree> Nest<G> for Tensor {
    type Out = G;
}

impl<G: Tree, T: Nest<G>> Nest<G> for Vec<T> {
    type Out = Vec<T::Out>;
}

impl<G: Tree, T: Nest<G>, const N: usize> Nest<G> for [T; N] {
    type Out = [T::Out; N];
}

impl<G: Tree, T: Nest<G>> Nest<G> for Option<T> {
    type Out = Option<T::Out>;
}

macro_rules! tuple_nest {
    ($($T:ident),+) => {
        impl<G: Tree, $($T: Nest<G>),+> Nest<G> for ($($T,)+) {
            type Out = ($($T::Out,)+);
        }
    };
}
tuple_nest!(A);
tuple_nest!(A, B);
tuple_nest!(A, B, C);
tuple_nest!(A, B, C, D);
tuple_nest!(A, B, C, D, E);
tuple_nest!(A, B, C, D, E, F);

/// Which arguments a Jacobian is taken with respect to, for a function of `A` with output
/// `O`, and so the type `J` it has: [`First`] (the type follows from `A` and `O`) or
/// [`Argnums`] (the caller names it).
pub trait JacobianSelection<A: Tree, O: Tree, J: Tree> {
    /// The argument indices.
    fn argnums(&self) -> Argnums;
}

impl<A: Args, O: Nest<A::First>> JacobianSelection<A, O, O::Out> for First {
    fn argnums(&self) -> Argnums {
        Selection::<A, A::First>::argnums(self)
    }
}

impl<A: Tree, O: Tree, J: Tree> JacobianSelection<A, O, J> for Argnums {
    fn argnums(&self) -> Argnums {
        self.clone()
    }
}

impl<F, S> Jacobian<F, S> {
    /// Which arguments to differentiate: an index, or several (`[0, 1]`); the call's result
    /// type is then named by the caller.
    pub fn argnums(self, n: impl Into<Argnums>) -> Jacobian<F, Argnums> {
        Jacobian {
            f: self.f,
            mode: self.mode,
            argnums: n.into(),
        }
    }

    /// The Jacobian at `args`.
    #[track_caller]
    pub fn call<A: Tree, O: Tree, J: Tree>(&self, args: A) -> J
    where
        F: Fn(A) -> O,
        S: JacobianSelection<A, O, J>,
    {
        self.call_at(args, crate::core::current_line())
    }

    /// The Jacobian as a function, to pass to another transform. Its mistakes panic naming
    /// this call's line.
    #[track_caller]
    pub fn as_fn<A: Tree, O: Tree, J: Tree>(self) -> impl Fn(A) -> J + Clone
    where
        F: Fn(A) -> O + Clone,
        S: JacobianSelection<A, O, J> + Clone,
    {
        let at = crate::core::current_line();
        move |args| self.call_at(args, at)
    }

    fn call_at<A: Tree, O: Tree, J: Tree>(&self, args: A, at: Source) -> J
    where
        F: Fn(A) -> O,
        S: JacobianSelection<A, O, J>,
    {
        // What the transform itself binds is recorded at the user's line (the traced
        // function keeps its own lines).
        let argnums = self.argnums.argnums();
        with_line(at, || self.jacobian(args, argnums, at))
    }

    /// The Jacobian (or Hessian) of `f` at `args` with respect to `argnums`, as a `J`.
    fn jacobian<A: Tree, O: Tree, J: Tree>(&self, args: A, argnums: Argnums, at: Source) -> J
    where
        F: Fn(A) -> O,
    {
        let what = match self.mode {
            Mode::Forward => "jacfwd",
            Mode::Reverse => "jacrev",
            Mode::Hessian => "hessian",
        };
        let leaves = args.leaves();
        let (mask, gdef) = argnums.select(&args.def(), &leaves, what, at);
        // A function of the differentiated leaves alone, the others held fixed; it notes the
        // output's structure when it is traced.
        let out_def = RefCell::new(None);
        let f = |xs: Vec<Tensor>| -> Vec<Tensor> {
            let mut xs = xs.into_iter();
            let all: Vec<Tensor> = leaves
                .iter()
                .zip(&mask)
                .map(|(t, &m)| {
                    if m {
                        xs.next().expect("a leaf")
                    } else {
                        t.clone()
                    }
                })
                .collect();
            let out = (self.f)(args.rebuild(&mut all.into_iter()));
            *out_def.borrow_mut() = Some(out.def());
            out.leaves()
        };
        let xs: Vec<Tensor> = leaves
            .iter()
            .zip(&mask)
            .filter(|(_, &m)| m)
            .map(|(t, _)| t.clone())
            .collect();
        let blocks = match self.mode {
            Mode::Forward => forward_blocks(&f, &xs),
            Mode::Reverse => reverse_blocks(&f, &xs, what, at),
            Mode::Hessian => {
                let jacrev = |xs: Vec<Tensor>| reverse_blocks(&f, &xs, what, at);
                forward_blocks(&jacrev, &xs)
            }
        };
        let out_def = out_def.into_inner().expect("the function was traced");
        let def = match self.mode {
            Mode::Forward | Mode::Reverse => nest(&out_def, &gdef),
            Mode::Hessian => nest(&nest(&out_def, &gdef), &gdef),
        };
        build(&def, blocks, at)
    }
}

/// The Jacobian blocks `d out_j / d x_i` (shape `out_j.shape + x_i.shape`), ordered by
/// output, then input, by pushing the stacked standard basis of every input forward.
fn forward_blocks(f: &dyn Fn(Vec<Tensor>) -> Vec<Tensor>, xs: &[Tensor]) -> Vec<Tensor> {
    let bases = stacked_bases(xs);
    let push = |ts: Vec<Tensor>| jvp(f, xs.to_vec(), ts).1;
    let jts: Vec<Tensor> = vmap(push).call(bases);
    let offsets = offsets(xs);
    let mut blocks = Vec::new();
    for jt in &jts {
        let out_shape = &jt.shape()[1..];
        let m: usize = out_shape.iter().product();
        for (x, &off) in xs.iter().zip(&offsets) {
            let rows = rows(jt, 0, off, off + x.size());
            let mut shape = out_shape.to_vec();
            shape.extend_from_slice(x.shape());
            blocks.push(rows.reshape(&[x.size(), m]).t().reshape(&shape));
        }
    }
    blocks
}

/// As [`forward_blocks`], by pulling the stacked standard basis of every output back.
fn reverse_blocks(
    f: &dyn Fn(Vec<Tensor>) -> Vec<Tensor>,
    xs: &[Tensor],
    what: &str,
    at: Source,
) -> Vec<Tensor> {
    let (ys, pullback) = vjp(f, xs.to_vec());
    if let Some(y) = ys.iter().find(|y| !y.dtype().is_float()) {
        panic!(
            "{what} requires real-valued outputs (output dtype that is a sub-dtype of \
             np.floating), but got {}\n  at {at}",
            y.aval()
        );
    }
    let bases = stacked_bases(&ys);
    let jrs: Vec<Vec<Tensor>> = ys_rows(&ys, vmap(|cs: Vec<Tensor>| pullback.call(cs)).call(bases));
    jrs.into_iter().flatten().collect()
}

/// The reverse-mode rows `[M, *x_i.shape]` split per output: for each output `y_j`, its
/// blocks against every input, shaped `y_j.shape + x_i.shape`.
fn ys_rows(ys: &[Tensor], jrs: Vec<Tensor>) -> Vec<Vec<Tensor>> {
    let offsets = offsets(ys);
    ys.iter()
        .zip(&offsets)
        .map(|(y, &off)| {
            jrs.iter()
                .map(|jr| {
                    let mut shape = y.shape().to_vec();
                    shape.extend_from_slice(&jr.shape()[1..]);
                    rows(jr, 0, off, off + y.size()).reshape(&shape)
                })
                .collect()
        })
        .collect()
}

/// Where each tensor's elements start in their concatenation.
fn offsets(ts: &[Tensor]) -> Vec<usize> {
    ts.iter()
        .scan(0, |off, t| {
            let start = *off;
            *off += t.size();
            Some(start)
        })
        .collect()
}

/// The standard basis of all of `ts` together, one tensor per `t`: `[N, *t.shape]` in
/// `t`'s dtype, where `N` is their total size and row `k` is 1 at the `k`-th element of the
/// concatenation.
fn stacked_bases(ts: &[Tensor]) -> Vec<Tensor> {
    let n: usize = ts.iter().map(Tensor::size).sum();
    let eye = jnp::eye(n);
    ts.iter()
        .zip(offsets(ts))
        .map(|(t, off)| {
            let mut shape = vec![n];
            shape.extend_from_slice(t.shape());
            jnp::astype(rows(&eye, 1, off, off + t.size()), t.dtype()).reshape(&shape)
        })
        .collect()
}

/// Elements `lo..hi` of `t` along `axis`.
fn rows(t: &Tensor, axis: usize, lo: usize, hi: usize) -> Tensor {
    let mut start = vec![0; t.ndim()];
    let mut limit = t.shape().to_vec();
    start[axis] = lo;
    limit[axis] = hi;
    crate::ops::slice(t, &start, &limit, None)
}

/// The Jacobian's structure: `out` with every leaf replaced by `inner`.
fn nest(out: &TreeDef, inner: &TreeDef) -> TreeDef {
    match out {
        TreeDef::Leaf => inner.clone(),
        TreeDef::Tuple(c) => TreeDef::Tuple(c.iter().map(|d| nest(d, inner)).collect()),
        TreeDef::List(c) => TreeDef::List(c.iter().map(|d| nest(d, inner)).collect()),
        TreeDef::None => TreeDef::None,
        TreeDef::Some(c) => TreeDef::Some(Box::new(nest(c, inner))),
        TreeDef::Struct { name, fields } => TreeDef::Struct {
            name,
            fields: fields.iter().map(|(f, d)| (*f, nest(d, inner))).collect(),
        },
    }
}
