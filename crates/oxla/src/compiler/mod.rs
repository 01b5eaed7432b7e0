//! The compiler: a traced program simplified (`simplify/`), fused (`fuse/`) and planned
//! (`plan.rs`), with its memory plan known before it runs. [`jit`](crate::jit) (in
//! `pjit/`) decides what to compile and caches the executables.

mod awake;
mod disable;
mod executable;
mod fuse;
mod inline;
mod kernel;
mod pairwise;
mod plan;
mod row_view;
mod simplify;

use std::marker::PhantomData;
use std::time::Duration;

use crate::core::tree::Tree;
use crate::core::{is_tracing, Aval, ClosedJaxpr, Tensor};
use crate::error::Result;
use crate::memory::MemoryAnalysis;
pub use disable::disable_jit;
pub(crate) use disable::jit_disabled;
pub(crate) use executable::Executable;
use simplify::max_id;
pub(crate) use simplify::simplify;

/// Whether a `jit` call on `args` made now runs its compiled program: no trace is open,
/// no argument is a tracer, and `jit` is not disabled.
pub(crate) fn runs_compiled(args: &[Tensor]) -> bool {
    !(is_tracing() || args.iter().any(Tensor::is_tracer) || jit_disabled())
}

/// A traced program, not yet compiled.
pub struct Lowered<O> {
    jaxpr: ClosedJaxpr,
    out: O,
    in_avals: Vec<Aval>,
}

impl<O: Tree> Lowered<O> {
    /// The program `jaxpr` traced on arguments of `in_avals`, returning `out`.
    pub(crate) fn new(jaxpr: ClosedJaxpr, out: O, in_avals: Vec<Aval>) -> Lowered<O> {
        Lowered {
            jaxpr,
            out,
            in_avals,
        }
    }

    /// The traced jaxpr.
    pub fn jaxpr(&self) -> &ClosedJaxpr {
        &self.jaxpr
    }

    /// Simplifies, fuses and plans the program.
    pub fn compile(self) -> Compiled<O> {
        let mut exe = Executable::new(self.jaxpr);
        exe.in_avals = self.in_avals;
        exe.out = self.out.def();
        Compiled {
            exe,
            _out: PhantomData,
        }
    }
}

/// One step of a compiled program, as the fusion inspector reports it.
#[derive(Clone, Debug)]
pub struct FusedStep {
    /// The value the step materialises (for a step without results, a host callback: the
    /// empty `f32[0]`).
    pub output: Aval,
    /// The primitives it computes (the root first); one for a step that runs alone.
    pub primitives: Vec<&'static str>,
    /// The materialised values a fused kernel reads.
    pub inputs: Vec<Aval>,
    /// Whether the step is a fused loop-nest kernel.
    pub fused: bool,
    /// A fused kernel's schedule, decided when the program was compiled: its loops, the
    /// reduced ones, the order they are walked in, the loop walked in blocks of lanes,
    /// tiling and the split over threads. `None` for a step that runs alone.
    pub schedule: Option<String>,
}

/// A compiled program with its memory plan.
pub struct Compiled<O> {
    exe: Executable,
    _out: PhantomData<fn() -> O>,
}

impl<O: Tree> Compiled<O> {
    /// Runs the program on arguments of the avals it was compiled for (others panic, naming
    /// the caller's line).
    #[track_caller]
    pub fn call<A: Tree>(&self, args: A) -> Result<O> {
        self.exe.run_tree(args, None)
    }

    /// Runs like [`call`](Self::call) and also returns the wall time of every step, in the
    /// order of [`fusion`](Self::fusion): where a program's time goes.
    ///
    /// ```
    /// use oxla::{jit, numpy as jnp, Tensor};
    /// let f = jit(|x: Tensor| jnp::exp(&x).sum(None));
    /// let x = jnp::ones(&[1000]);
    /// let c = f.lower(&x).compile();
    /// let (y, times) = c.profile(x).unwrap();
    /// assert_eq!(times.len(), c.fusion().len());
    /// assert!((y.item() - 1000.0 * 1f64.exp()).abs() < 1e-2);
    /// ```
    #[track_caller]
    pub fn profile<A: Tree>(&self, args: A) -> Result<(O, Vec<Duration>)> {
        let mut times = Vec::with_capacity(self.exe.steps.len());
        let out = self.exe.run_tree(args, Some(&mut times))?;
        Ok((out, times))
    }
}

impl<O> Compiled<O> {
    /// The executable, to cache.
    pub(crate) fn into_executable(self) -> Executable {
        self.exe
    }

    /// The memory plan: argument, output, temporary and peak bytes, and the largest buffers
    /// live at the peak with the equation and source line that made each.
    pub fn memory_analysis(&self) -> &MemoryAnalysis {
        &self.exe.plan.analysis
    }

    /// The simplified jaxpr that runs.
    pub fn jaxpr(&self) -> &ClosedJaxpr {
        &self.exe.jaxpr
    }

    /// What was fused: one entry per step of the program, in order.
    pub fn fusion(&self) -> Vec<FusedStep> {
        let j = &self.exe.jaxpr.jaxpr;
        self.exe
            .steps
            .iter()
            .map(|s| match s {
                fuse::Step::Prim(i) => FusedStep {
                    output: j.eqns[*i].outputs.first().map_or_else(
                        || Aval::new(crate::array::DType::F32, &[0]),
                        |o| o.aval.clone(),
                    ),
                    primitives: vec![j.eqns[*i].prim.name()],
                    inputs: vec![],
                    fused: false,
                    schedule: None,
                },
                fuse::Step::Kernel(k) => FusedStep {
                    output: k.out.aval.clone(),
                    primitives: k.eqns.iter().map(|&i| j.eqns[i].prim.name()).collect(),
                    inputs: k.inputs.iter().map(|v| v.aval.clone()).collect(),
                    fused: true,
                    schedule: Some(kernel::schedule(k)),
                },
            })
            .collect()
    }
}
