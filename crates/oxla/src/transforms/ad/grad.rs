//! The gradient transforms [`grad`] and [`value_and_grad`], their options ([`Argnums`],
//! [`Grad::has_aux`]) and how a gradient's leaves are rebuilt into the caller's type.

use super::replay::Forward;
use crate::core::trace;
use crate::core::tree::{Tree, TreeDef};
use crate::core::Tensor;
use crate::error::Result;
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
