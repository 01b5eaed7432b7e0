//! The gradient transforms [`grad`] and [`value_and_grad`], their options ([`Argnums`],
//! [`Grad::has_aux`]) and how a gradient's leaves are rebuilt into the caller's type.

use crate::source::Source;

use super::replay::Forward;
use crate::core::tree::{Args, Tree, TreeDef};
use crate::core::Tensor;
use crate::core::{trace, with_line};
use crate::transforms::jvp_rules::zeros_of_aval;

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
    pub(super) fn one(n: isize) -> Argnums {
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
    /// The leaf mask and gradient structure for arguments of structure `def`; mistakes
    /// panic naming `what` (the transform) and the user's line `at`.
    pub(super) fn select(
        &self,
        def: &TreeDef,
        leaves: &[Tensor],
        what: &str,
        at: Source,
    ) -> (Vec<bool>, TreeDef) {
        let args: Vec<TreeDef> = match def {
            TreeDef::Tuple(c) => c.clone(),
            d => vec![d.clone()],
        };
        let mut starts = vec![0];
        for a in &args {
            starts.push(starts.last().unwrap() + a.num_leaves());
        }
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
                if !leaves[i].dtype().is_inexact() {
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

/// Which arguments a derivative is taken with respect to, and so the type it has: [`First`]
/// (argument 0, the default: the type is read from the arguments' type, so a gradient of a
/// function of `P` is a `P`) or [`Argnums`] (chosen by value, so the caller names the type,
/// and a type that cannot hold the derivative's structure panics at the call).
pub trait Selection<A: Tree, G: Tree> {
    /// The argument indices.
    fn argnums(&self) -> Argnums;
}

/// The default selection: argument 0 (see [`Selection`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct First;

impl<A: Args> Selection<A, A::First> for First {
    fn argnums(&self) -> Argnums {
        Argnums::one(0)
    }
}

impl<A: Tree, G: Tree> Selection<A, G> for Argnums {
    fn argnums(&self) -> Argnums {
        self.clone()
    }
}

/// Options shared by [`grad`] and [`value_and_grad`].
#[derive(Clone)]
pub struct Grad<F, S = First> {
    f: F,
    argnums: S,
}

/// The gradient of a scalar function (`jax.grad`), differentiating argument 0 unless
/// [`argnums`](Grad::argnums) says otherwise.
///
/// The gradient has the differentiated argument's type: a function of `P` (or of a tuple
/// whose first element is a `P`) has a gradient that is a `P`. With
/// [`argnums`](Grad::argnums) the caller names the type (a tuple for several).
///
/// ```
/// use oxla::{grad, Tensor};
/// let loss = |(w, x): (Tensor, Tensor)| (&w * &x).sum(None);
/// let w = Tensor::from_vec(vec![1.0f32, 2.0], &[2]);
/// let x = Tensor::from_vec(vec![3.0f32, 4.0], &[2]);
/// let g = grad(loss).call((w.clone(), x.clone()));
/// assert_eq!(g.to_vec::<f32>(), vec![3.0, 4.0]);
/// let (gw, gx): (Tensor, Tensor) = grad(loss).argnums([0, 1]).call((w, x));
/// assert_eq!(gx.to_vec::<f32>(), vec![1.0, 2.0]);
/// ```
///
/// Naming another type for the default gradient is a compile error:
///
/// ```compile_fail
/// use oxla::{grad, Tensor};
/// let loss = |(w, x): (Tensor, Tensor)| (&w * &x).sum(None);
/// let w = Tensor::scalar(1.0f32);
/// let (gw, gx): (Tensor, Tensor) = grad(loss).call((w.clone(), w));
/// ```
pub fn grad<F>(f: F) -> Grad<F> {
    Grad { f, argnums: First }
}

/// The value and the gradient of a scalar function (`jax.value_and_grad`).
pub fn value_and_grad<F>(f: F) -> ValueAndGrad<F> {
    ValueAndGrad(grad(f))
}

/// See [`value_and_grad`].
#[derive(Clone)]
pub struct ValueAndGrad<F, S = First>(Grad<F, S>);

/// A gradient transform whose function also returns auxiliary data; see
/// [`Grad::has_aux`].
#[derive(Clone)]
pub struct WithAux<G>(G);

impl<F, S> Grad<F, S> {
    /// Which arguments to differentiate: an index, or several (`[0, 2]`, `(0, 1)`); the
    /// call's result type is then named by the caller.
    pub fn argnums(self, n: impl Into<Argnums>) -> Grad<F, Argnums> {
        Grad {
            f: self.f,
            argnums: n.into(),
        }
    }

    /// The function returns `(loss, aux)`; the call returns `(gradient, aux)`.
    pub fn has_aux(self) -> WithAux<Self> {
        WithAux(self)
    }

    /// Value and gradient leaves of `f` at `args`, with the gradient's structure.
    fn run<A: Tree, O: Tree, G: Tree>(
        &self,
        args: &A,
        what: &str,
        at: Source,
    ) -> (O, Vec<Tensor>, TreeDef)
    where
        F: Fn(A) -> O,
        S: Selection<A, G>,
    {
        // What the transform itself binds is recorded at the user's line (the traced
        // function keeps its own lines).
        with_line(at, || {
            let leaves = args.leaves();
            let (mask, gdef) = self
                .argnums
                .argnums()
                .select(&args.def(), &leaves, what, at);
            let (cj, out) = trace(&self.f, args);
            let (forward, outs) = Forward::run(cj, &leaves, &mask);
            let loss = &outs[0];
            if loss.ndim() != 0 || !loss.dtype().is_float() {
                panic!(
                    "{what} requires a scalar floating-point output, got {}\n  at {at}",
                    loss.aval(),
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
        })
    }

    /// The gradient at `args`: a `G`, the differentiated argument's type.
    #[track_caller]
    pub fn call<A: Tree, G: Tree>(&self, args: A) -> G
    where
        F: Fn(A) -> Tensor,
        S: Selection<A, G>,
    {
        self.call_at(args, crate::core::current_line())
    }

    fn call_at<A: Tree, G: Tree>(&self, args: A, at: Source) -> G
    where
        F: Fn(A) -> Tensor,
        S: Selection<A, G>,
    {
        let (_, g, gdef) = self.run::<A, Tensor, G>(&args, "grad", at);
        build(&gdef, g, at)
    }

    /// The gradient as a function, to pass to another transform:
    /// `vmap(grad(loss).as_fn())`. Its mistakes panic naming this call's line.
    #[track_caller]
    pub fn as_fn<A: Tree, G: Tree>(self) -> impl Fn(A) -> G
    where
        F: Fn(A) -> Tensor,
        S: Selection<A, G>,
    {
        let at = crate::core::current_line();
        move |args| self.call_at(args, at)
    }
}

impl<F, S> ValueAndGrad<F, S> {
    /// Which arguments to differentiate; see [`Grad::argnums`].
    pub fn argnums(self, n: impl Into<Argnums>) -> ValueAndGrad<F, Argnums> {
        ValueAndGrad(self.0.argnums(n))
    }

    /// The function returns `(loss, aux)`; the call returns `((loss, aux), gradient)`.
    pub fn has_aux(self) -> WithAux<Self> {
        WithAux(self)
    }

    /// `(f(args), gradient)`.
    #[track_caller]
    pub fn call<A: Tree, G: Tree>(&self, args: A) -> (Tensor, G)
    where
        F: Fn(A) -> Tensor,
        S: Selection<A, G>,
    {
        self.call_at(args, crate::core::current_line())
    }

    fn call_at<A: Tree, G: Tree>(&self, args: A, at: Source) -> (Tensor, G)
    where
        F: Fn(A) -> Tensor,
        S: Selection<A, G>,
    {
        let (v, g, gdef) = self.0.run::<A, Tensor, G>(&args, "value_and_grad", at);
        (v, build(&gdef, g, at))
    }

    /// `(value, gradient)` as a function, to pass to another transform.
    #[track_caller]
    pub fn as_fn<A: Tree, G: Tree>(self) -> impl Fn(A) -> (Tensor, G)
    where
        F: Fn(A) -> Tensor,
        S: Selection<A, G>,
    {
        let at = crate::core::current_line();
        move |args| self.call_at(args, at)
    }
}

impl<F, S> WithAux<Grad<F, S>> {
    /// `(gradient, aux)`.
    #[track_caller]
    pub fn call<A: Tree, X: Tree, G: Tree>(&self, args: A) -> (G, X)
    where
        F: Fn(A) -> (Tensor, X),
        S: Selection<A, G>,
    {
        self.call_at(args, crate::core::current_line())
    }

    fn call_at<A: Tree, X: Tree, G: Tree>(&self, args: A, at: Source) -> (G, X)
    where
        F: Fn(A) -> (Tensor, X),
        S: Selection<A, G>,
    {
        let ((_, aux), g, gdef) = self.0.run::<A, (Tensor, X), G>(&args, "grad", at);
        (build(&gdef, g, at), aux)
    }

    /// `(gradient, aux)` as a function, to pass to another transform.
    #[track_caller]
    pub fn as_fn<A: Tree, X: Tree, G: Tree>(self) -> impl Fn(A) -> (G, X)
    where
        F: Fn(A) -> (Tensor, X),
        S: Selection<A, G>,
    {
        let at = crate::core::current_line();
        move |args| self.call_at(args, at)
    }
}

impl<F, S> WithAux<ValueAndGrad<F, S>> {
    /// `((loss, aux), gradient)`.
    #[track_caller]
    pub fn call<A: Tree, X: Tree, G: Tree>(&self, args: A) -> ((Tensor, X), G)
    where
        F: Fn(A) -> (Tensor, X),
        S: Selection<A, G>,
    {
        self.call_at(args, crate::core::current_line())
    }

    fn call_at<A: Tree, X: Tree, G: Tree>(&self, args: A, at: Source) -> ((Tensor, X), G)
    where
        F: Fn(A) -> (Tensor, X),
        S: Selection<A, G>,
    {
        let (out, g, gdef) = self
            .0
             .0
            .run::<A, (Tensor, X), G>(&args, "value_and_grad", at);
        (out, build(&gdef, g, at))
    }

    /// `((loss, aux), gradient)` as a function, to pass to another transform.
    #[track_caller]
    pub fn as_fn<A: Tree, X: Tree, G: Tree>(self) -> impl Fn(A) -> ((Tensor, X), G)
    where
        F: Fn(A) -> (Tensor, X),
        S: Selection<A, G>,
    {
        let at = crate::core::current_line();
        move |args| self.call_at(args, at)
    }
}

/// A tree of type `G` from derivative leaves, panicking (naming the user's line `at`) if
/// `G` cannot have structure `def`.
pub(super) fn build<G: Tree>(def: &TreeDef, leaves: Vec<Tensor>, at: Source) -> G {
    G::from_def(def, &mut leaves.into_iter()).unwrap_or_else(|| {
        panic!(
            "grad: the gradient has structure {def}, which the requested result type \
             ({}) cannot hold\n  at {at}",
            std::any::type_name::<G>(),
        )
    })
}
