//! `vmap`: vectorising a function written for one example.
//!
//! `vmap(f).call(args)` traces `f` at the avals of one example, then replays its jaxpr with
//! the batching rule of every primitive ([`super::batching`]) in the current interpreter:
//! eagerly that computes the batched result; inside `make_jaxpr`, another transform or an
//! outer `vmap`, it stages the batched equations, each keeping the user's source line.

use crate::source::Source;

pub use super::axis_tree::AxisTree;
use super::batching::{batch_jaxpr, moveaxis};
use crate::core::axis_env::with_axis;
use crate::core::tree::Tree;
use crate::core::{trace_avals, with_line, Aval, ClosedJaxpr, Tensor};
use crate::error::Result;
use crate::ops as lax;

/// The vectorised form of `f`; see [`vmap`]. `B` is `()`, or [`Budget`] once
/// [`memory_budget`](Vmap::memory_budget) is given (the call can then fail, so it returns a
/// `Result`).
#[derive(Clone)]
pub struct Vmap<F, B = ()> {
    f: F,
    in_axes: AxisTree,
    out_axes: AxisTree,
    axis_size: Option<usize>,
    pub(crate) chunk: Option<usize>,
    pub(crate) budget: B,
    pub(crate) progress: bool,
    pub(crate) axis_name: Option<&'static str>,
}

/// A vmapped function traced for one example: what [`Vmap::traced`] returns.
pub(crate) struct Traced<O> {
    /// The arguments' leaves.
    pub(crate) leaves: Vec<Tensor>,
    /// Each leaf's mapped axis.
    pub(crate) axes: Vec<Option<usize>>,
    /// The mapped size.
    pub(crate) n: usize,
    /// `f` for one example.
    pub(crate) cj: ClosedJaxpr,
    /// `f`'s result, whose structure the results take.
    pub(crate) out: O,
    /// Where each result leaf's mapped axis goes.
    pub(crate) out_axes: Vec<Option<isize>>,
}

/// A [`Vmap`]'s memory budget in bytes; see [`Vmap::memory_budget`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget(pub usize);

/// Vectorises `f` over a leading (or chosen) axis of its arguments, as `jax.vmap`.
///
/// `f` takes a tree of tensors (a tensor, a tuple, a `Vec`, ...) for one example. The
/// result maps `f` over axis 0 of every argument unless [`in_axes`](Vmap::in_axes) says
/// otherwise, and stacks the outputs along [`out_axes`](Vmap::out_axes) (0 by default).
///
/// ```
/// use oxla::{numpy as jnp, vmap, Tensor};
/// let f = |x: Tensor| (x.index((.., None)) * x.index((None, ..))).sum(None);
/// let xs = jnp::arange(6.0).reshape(&[2, 3]);
/// let ys = vmap(f).call(xs);
/// assert_eq!(ys.to_vec::<f32>(), vec![9.0, 144.0]);
/// ```
///
/// A transformed function is passed to another transform with `as_fn`:
///
/// ```
/// use oxla::{numpy as jnp, vmap, Tensor};
/// let dist = |(a, b): (Tensor, Tensor)| (&a - &b).abs().sum(None);
/// let row = vmap(dist).in_axes((None, 0)).as_fn();
/// let pairs = vmap(row).in_axes((0, None));
/// let x = jnp::arange(6.0).reshape(&[3, 2]);
/// let d: Tensor = pairs.call((x.clone(), x));
/// assert_eq!(d.shape(), &[3, 3]);
/// ```
pub fn vmap<F>(f: F) -> Vmap<F> {
    Vmap {
        f,
        in_axes: AxisTree::Leaf(Some(0)),
        out_axes: AxisTree::Leaf(Some(0)),
        axis_size: None,
        chunk: None,
        budget: (),
        progress: false,
        axis_name: None,
    }
}

impl<F, B> Vmap<F, B> {
    /// Which axis of each argument to map over: a tree that is a prefix of the arguments'
    /// tree, `None` for arguments passed unmapped.
    pub fn in_axes(mut self, axes: impl Into<AxisTree>) -> Self {
        self.in_axes = axes.into();
        self
    }

    /// Where the mapped axis goes in each output (`None`: the output must not depend on
    /// the mapped arguments, and is returned once; a mapped output with `None` panics, as
    /// JAX's "vmap has mapped output but out_axes is None", chunked or not).
    pub fn out_axes(mut self, axes: impl Into<AxisTree>) -> Self {
        self.out_axes = axes.into();
        self
    }

    /// Names the mapped axis, as `jax.vmap(f, axis_name=..)`: collectives in `f` over that
    /// name ([`lax::psum`](crate::lax::psum), [`all_gather`](crate::lax::all_gather),
    /// [`axis_index`](crate::lax::axis_index), ...) run over the examples.
    ///
    /// ```
    /// use oxla::{lax, numpy as jnp, vmap, Tensor};
    /// let xs = jnp::arange(4.0);
    /// let centred: Tensor = vmap(|x: Tensor| &x - lax::pmean(&x, "i")).axis_name("i").call(xs);
    /// assert_eq!(centred.to_vec::<f32>(), vec![-1.5, -0.5, 0.5, 1.5]);
    /// ```
    pub fn axis_name(mut self, name: &'static str) -> Self {
        self.axis_name = Some(name);
        self
    }

    /// `vmap`, with its axis name if it has one: how the errors name this transform.
    pub(crate) fn what(&self) -> String {
        self.axis_name
            .map_or("vmap".to_string(), |n| format!("vmap (axis_name {n:?})"))
    }

    /// The size of the mapped axis, needed when no argument is mapped.
    pub fn axis_size(mut self, n: usize) -> Self {
        self.axis_size = Some(n);
        self
    }

    /// Runs the batched function over chunks of `k` examples, one chunk after another (the
    /// last one the remainder), each chunk's results written into the preallocated output:
    /// the intermediates exist for one chunk at a time. Staged as one `chunked_map`
    /// primitive, so it nests and composes with `jit`, `grad` and an outer `vmap`; under
    /// `grad` the backward pass recomputes each chunk's forward pass, holding one chunk's
    /// residuals at a time.
    ///
    /// ```
    /// use oxla::{numpy as jnp, vmap, Tensor};
    /// let f = |x: Tensor| (&x * &x).sum(None);
    /// let xs = jnp::arange(12.0).reshape(&[6, 2]);
    /// let whole: Tensor = vmap(f).call(xs.clone());
    /// let chunked: Tensor = vmap(f).chunk_size(4).call(xs);
    /// assert_eq!(whole.to_vec::<f32>(), chunked.to_vec::<f32>());
    /// ```
    #[track_caller]
    pub fn chunk_size(mut self, k: usize) -> Self {
        if k == 0 {
            panic!(
                "vmap: chunk_size must be positive, got 0\n  at {}",
                crate::core::current_line()
            );
        }
        self.chunk = Some(k);
        self
    }

    /// Runs in chunks (as [`chunk_size`](Self::chunk_size)) of the largest size whose
    /// planned peak — the arguments, the results and what one chunk holds while it runs —
    /// fits in `bytes`. The size is worked out from the compiler's memory plan before
    /// anything runs (planned at two chunk sizes, where the bytes are affine in the size,
    /// then checked); the compiled program's
    /// [`memory_analysis`](crate::compiler::Compiled::memory_analysis) shows it.
    ///
    /// A budget that even one example at a time does not fit (the arguments, the results
    /// and one example's working memory) makes the call return
    /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) naming the budget and what one
    /// example needs; nothing runs. So with a budget, `call` returns a `Result`.
    ///
    /// ```
    /// use oxla::{numpy as jnp, vmap, Tensor};
    /// let f = |x: Tensor| (&x * &x).sum(None);
    /// let xs = jnp::arange(12.0).reshape(&[6, 2]);
    /// let ys: Tensor = vmap(f).memory_budget(1 << 20).call(xs)?;
    /// assert_eq!(ys.shape(), &[6]);
    /// # Ok::<(), oxla::Error>(())
    /// ```
    pub fn memory_budget(self, bytes: usize) -> Vmap<F, Budget> {
        Vmap {
            f: self.f,
            in_axes: self.in_axes,
            out_axes: self.out_axes,
            axis_size: self.axis_size,
            chunk: self.chunk,
            budget: Budget(bytes),
            progress: self.progress,
            axis_name: self.axis_name,
        }
    }

    /// Draws a progress bar on stderr while the chunks run (with `chunk_size` or
    /// `memory_budget`).
    pub fn progress(mut self, on: bool) -> Self {
        self.progress = on;
        self
    }

    /// Runs the vectorised function on `args` under `budget` (if any).
    ///
    /// Mistakes in the axes (out of range, sizes that disagree, trees that do not match, a
    /// mapped output with `out_axes` `None`) panic at trace time naming the argument, the
    /// sizes and the user's line `at`.
    fn run<A: Tree, O: Tree>(&self, args: A, budget: Option<usize>, at: Source) -> Result<O>
    where
        F: Fn(A) -> O,
    {
        // What the transform itself binds is recorded at the user's line (the traced
        // function keeps its own lines).
        with_line(at, || {
            let Traced {
                leaves,
                axes,
                n,
                cj,
                out,
                out_axes,
            } = self.traced(&args, at);
            if self.chunk.is_some() || budget.is_some() {
                self.refuse_chunked_collective(&cj, at);
                let results = self.chunked(&cj, &leaves, &axes, n, &out_axes, budget, at)?;
                return Ok(out.rebuild(&mut results.into_iter()));
            }
            let batched = batch_jaxpr(
                &cj,
                leaves.into_iter().zip(axes).collect(),
                n,
                self.axis_name,
            );
            let results: Vec<Tensor> = batched
                .into_iter()
                .zip(out_axes)
                .enumerate()
                .map(|(i, ((t, d), a))| {
                    check_out_axis(&t, d, a, i, at);
                    place_output(t, d, a, n, i)
                })
                .collect();
            Ok(out.rebuild(&mut results.into_iter()))
        })
    }

    /// `f` traced for one example of `args` (with this vmap's axis name bound to the mapped
    /// size), with the arguments' leaves, their mapped axes and the size.
    pub(crate) fn traced<A: Tree, O: Tree>(&self, args: &A, at: Source) -> Traced<O>
    where
        F: Fn(A) -> O,
    {
        let leaves = args.leaves();
        let axes = self
            .in_axes
            .leaf_axes(&args.def(), &leaves, &self.what(), at);
        let n = self.size(&leaves, &axes, at);
        let in_avals: Vec<Aval> = leaves
            .iter()
            .zip(&axes)
            .map(|(t, a)| {
                let mut shape = t.shape().to_vec();
                if let Some(a) = a {
                    shape.remove(*a);
                }
                Aval::new(t.dtype(), &shape)
            })
            .collect();
        let (cj, out) = match self.axis_name {
            Some(name) => with_axis(name, n, || trace_avals(&self.f, args, &in_avals)),
            None => trace_avals(&self.f, args, &in_avals),
        };
        let out_axes = self.out_axes.per_leaf(&out.def(), "vmap", "out_axes", at);
        Traced {
            leaves,
            axes,
            n,
            cj,
            out,
            out_axes,
        }
    }

    /// The mapped axis size: agreed by every mapped argument, or `axis_size`.
    fn size(&self, leaves: &[Tensor], axes: &[Option<usize>], at: Source) -> usize {
        let sizes: Vec<(usize, usize, usize)> = leaves
            .iter()
            .zip(axes)
            .enumerate()
            .filter_map(|(i, (t, a))| a.map(|a| (i, a, t.shape()[a])))
            .collect();
        let n = match (sizes.first(), self.axis_size) {
            (None, None) => panic!(
                "{}: no argument is mapped (every in_axes is None), so the mapped size is \
                 unknown: give .axis_size(n)\n  at {at}",
                self.what()
            ),
            (None, Some(n)) => n,
            (Some(&(_, _, n)), _) => n,
        };
        let disagree = sizes.iter().any(|s| s.2 != n) || self.axis_size.is_some_and(|m| m != n);
        if disagree {
            let list: Vec<String> = sizes
                .iter()
                .map(|(i, a, s)| format!("argument leaf {i} has size {s} along axis {a}"))
                .collect();
            let given = self
                .axis_size
                .map_or(String::new(), |m| format!("; axis_size is {m}"));
            panic!(
                "{}: mapped axes must all have one size, but {}{given}\n  at {at}",
                self.what(),
                list.join(", "),
            );
        }
        n
    }
}

impl<F> Vmap<F> {
    /// Runs the vectorised function on `args`.
    ///
    /// Mistakes in the axes (out of range, sizes that disagree, trees that do not match, a
    /// mapped output with `out_axes` `None`) panic at trace time with the argument, the
    /// sizes and the caller's line named.
    #[track_caller]
    pub fn call<A: Tree, O: Tree>(&self, args: A) -> O
    where
        F: Fn(A) -> O,
    {
        self.call_at(args, crate::core::current_line())
    }

    fn call_at<A: Tree, O: Tree>(&self, args: A, at: Source) -> O
    where
        F: Fn(A) -> O,
    {
        self.run(args, None, at)
            .expect("a vmap without a memory budget cannot fail")
    }

    /// The vectorised function as a function, to pass to another transform:
    /// `vmap(vmap(f).in_axes((None, 0)).as_fn())`. Its mistakes panic naming this call's
    /// line.
    #[track_caller]
    pub fn as_fn<A: Tree, O: Tree>(self) -> impl Fn(A) -> O
    where
        F: Fn(A) -> O,
    {
        let at = crate::core::current_line();
        move |args| self.call_at(args, at)
    }
}

impl<F> Vmap<F, Budget> {
    /// Runs the vectorised function on `args` in chunks that fit the budget, or returns
    /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) when one example at a time does
    /// not fit; nothing runs then. Axis mistakes panic as in [`Vmap::call`].
    #[track_caller]
    pub fn call<A: Tree, O: Tree>(&self, args: A) -> Result<O>
    where
        F: Fn(A) -> O,
    {
        self.run(args, Some(self.budget.0), crate::core::current_line())
    }

    /// The budgeted function as a function returning a `Result`, to pass on.
    #[track_caller]
    pub fn as_fn<A: Tree, O: Tree>(self) -> impl Fn(A) -> Result<O>
    where
        F: Fn(A) -> O,
    {
        let at = crate::core::current_line();
        move |args| self.run(args, Some(self.budget.0), at)
    }
}

/// Panics, naming the user's call `at`, unless output leaf `i` (`t`, batched along `d`)
/// can be placed at `axis`: in range, and `None` only for an output that is not mapped
/// (JAX's "vmap has mapped output but out_axes is None").
pub(crate) fn check_out_axis(
    t: &Tensor,
    d: Option<usize>,
    axis: Option<isize>,
    i: usize,
    at: Source,
) {
    match (axis, d) {
        (None, Some(d)) => {
            let mut one = t.shape().to_vec();
            one.remove(d);
            panic!(
                "vmap has mapped output but out_axes is None: output leaf {i} ({} per \
                 example) depends on the mapped arguments; give it an out_axes\n  at {at}",
                Aval::new(t.dtype(), &one)
            )
        }
        (Some(a), _) => {
            let r = t.ndim() as isize + if d.is_some() { 0 } else { 1 };
            if a < -r || a >= r {
                panic!(
                    "vmap: out_axes {a} is out of range for output leaf {i} of rank {r}\n  \
                     at {at}"
                );
            }
        }
        (None, None) => {}
    }
}

/// Moves a batched output's mapped axis to `axis`, or broadcasts an unbatched one.
#[track_caller]
pub(crate) fn place_output(
    t: Tensor,
    d: Option<usize>,
    axis: Option<isize>,
    n: usize,
    i: usize,
) -> Tensor {
    let Some(axis) = axis else {
        assert!(
            d.is_none(),
            "vmap: out_axes is None for output leaf {i}, but it depends on the mapped arguments"
        );
        return t;
    };
    let r = t.ndim() as isize + if d.is_some() { 0 } else { 1 };
    if axis < -r || axis >= r {
        panic!("vmap: out_axes {axis} is out of range for output leaf {i} of rank {r}");
    }
    let axis = axis.rem_euclid(r) as usize;
    match d {
        Some(d) => moveaxis(&t, d, axis),
        None => {
            let mut shape = t.shape().to_vec();
            shape.insert(axis, n);
            let dims: Vec<usize> = (0..shape.len()).filter(|&k| k != axis).collect();
            lax::broadcast_in_dim(&t, &shape, &dims)
        }
    }
}
