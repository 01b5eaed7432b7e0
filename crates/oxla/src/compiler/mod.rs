//! `jit`: compiling a function per input avals, with its memory plan known before it runs.
//!
//! `jit(f)` traces `f` at the avals of its arguments, simplifies the jaxpr
//! (`simplify/`), plans its memory (`plan.rs`) and caches the
//! executable by input avals. Called inside another trace (`vmap(jit(f))`, `grad(jit(f))`,
//! `make_jaxpr`), it traces `f` into that trace instead, so the outermost `jit` compiles the
//! whole program.

mod awake;
mod disable;
mod executable;
mod fuse;
mod kernel;
mod pairwise;
mod plan;
mod row_view;
mod simplify;

use rustc_hash::FxHashMap;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::core::tree::{Tree, TreeDef};
use crate::core::{is_tracing, Aval, ClosedJaxpr, Tensor};
use crate::error::Result;
use crate::memory::MemoryAnalysis;
pub use disable::disable_jit;
pub(crate) use executable::Executable;
pub(crate) use simplify::simplify;

/// A function compiled per input avals; see [`jit`].
pub struct Jit<F, A, O> {
    f: F,
    /// Keyed with rustc's Fx hash: the keys come from the program, not an adversary, and
    /// every call hashes its key, so the hasher's cost is part of each call's dispatch.
    cache: Mutex<FxHashMap<Signature, Arc<Executable>>>,
    _sig: PhantomData<fn(A) -> O>,
}

/// Compiles `f` (`jax.jit`): the first call with new input avals traces, simplifies and
/// plans it; later calls with the same avals reuse that executable.
///
/// ```
/// use oxla::{jit, numpy as jnp, Tensor};
/// let f = jit(|x: Tensor| jnp::sin(&x) * 2.0);
/// let y = f.call(jnp::zeros(&[3]))?;
/// assert_eq!(y.to_vec::<f32>(), vec![0.0; 3]);
/// assert_eq!(f.cache_size(), 1);
/// # Ok::<(), oxla::Error>(())
/// ```
pub fn jit<A: Tree, O: Tree, F: Fn(A) -> O>(f: F) -> Jit<F, A, O> {
    Jit {
        f,
        cache: Mutex::new(FxHashMap::default()),
        _sig: PhantomData,
    }
}

/// The memory plan `jit(f)` follows on arguments like `args`, without running it: peak,
/// temporary and result bytes, and the largest buffers at the peak with the equation and
/// source line that make each (its `Display` is a table).
///
/// ```
/// use oxla::{explain, numpy as jnp, Tensor};
/// let f = |x: Tensor| jnp::sort(&(x.index((.., None)) * x.index((None, ..))), None);
/// let plan = explain(f, &jnp::ones(&[1000]));
/// assert_eq!(plan.largest[0].bytes, 4_000_000);
/// println!("{plan}");
/// ```
pub fn explain<A: Tree, O: Tree, F: Fn(A) -> O>(f: F, args: &A) -> MemoryAnalysis {
    let compiled = jit(f).lower(args).compile();
    compiled.memory_analysis().clone()
}

/// Whether a `jit` call on `args` made now runs its compiled program: no trace is open,
/// no argument is a tracer, and `jit` is not disabled.
pub(crate) fn runs_compiled(args: &[Tensor]) -> bool {
    !(is_tracing() || args.iter().any(Tensor::is_tracer) || disable::jit_disabled())
}

/// What a compiled executable is specific to: the argument tree and its leaves' avals.
/// What a compiled program is cached by: the arguments' tree and avals, and the x64 switch
/// (which decides the dtypes tracing gives Rust scalars and defaults), as JAX's cache keys.
type Signature = (TreeDef, Vec<Aval>, bool);

impl<A: Tree, O: Tree, F: Fn(A) -> O> Jit<F, A, O> {
    /// Runs the compiled function, compiling it first for new input avals.
    #[track_caller]
    pub fn call(&self, args: A) -> Result<O> {
        let leaves = args.leaves();
        if !runs_compiled(&leaves) {
            // Inside another trace: stage f's primitives there; under `disable_jit`: run
            // them eagerly.
            return Ok((self.f)(args));
        }
        let key: Signature = (
            args.def(),
            leaves.iter().map(Tensor::aval).collect(),
            crate::config::x64_enabled(),
        );
        let cached = self.cache.lock().expect("jit cache").get(&key).cloned();
        let exe = match cached {
            Some(e) => e,
            None => {
                let e = Arc::new(self.lower(&args).compile().exe);
                self.cache.lock().expect("jit cache").insert(key, e.clone());
                e
            }
        };
        match exe.run_leaves(&leaves, None) {
            Err(crate::Error::OutOfMemory {
                needed,
                limit: Some(limit),
                refused: None,
                largest,
                device: None,
                ..
            }) => {
                let fit = self.fitting_chunk(&args, exe.analysis(), limit);
                Err(crate::Error::OutOfMemory {
                    needed,
                    limit: Some(limit),
                    refused: None,
                    largest,
                    fitting_chunk_size: fit.as_ref().map(|(k, _)| *k),
                    advice: fit.map_or_else(String::new, |(_, advice)| advice),
                    device: None,
                })
            }
            out => out,
        }
    }

    /// The chunk size that makes a chunked map of the program fit `limit`, with the advice
    /// in words, checked: the program is traced again with that map sized by the budget the
    /// plan leaves it ([`MemoryAnalysis::fitting_budget`]), and advised only if the new plan
    /// fits.
    fn fitting_chunk(
        &self,
        args: &A,
        plan: &MemoryAnalysis,
        limit: usize,
    ) -> Option<(usize, String)> {
        let (budget, map) = plan.fitting_budget(limit)?;
        let source = map.source;
        let replanned = crate::memory::with_budget(source, budget, || self.lower(args).compile());
        let a = replanned.memory_analysis();
        let k = a
            .chunks
            .iter()
            .find(|c| c.source == source)
            .map(|c| c.chunk)
            .filter(|&k| k < map.chunk && a.peak_bytes <= limit);
        k.map(|k| {
            let advice = format!(
                "; the chunked map at {}:{}:{} fits in chunks of {k} \
                 (vmap(..).chunk_size({k}) or lax::map(..).batch_size({k})): \
                 planned so, the call needs {}",
                source.file(),
                source.line(),
                source.column(),
                crate::memory::format_bytes(a.peak_bytes)
            );
            (k, advice)
        })
    }

    /// Traces `f` at the avals of `args` (ahead-of-time use: `.lower(&args).compile()`).
    #[track_caller]
    pub fn lower(&self, args: &A) -> Lowered<O> {
        let (jaxpr, out) = crate::core::trace_for_compiler(&self.f, args);
        Lowered {
            jaxpr,
            out,
            in_avals: args.leaves().iter().map(Tensor::aval).collect(),
        }
    }

    /// How many executables the cache holds (one per distinct input avals).
    pub fn cache_size(&self) -> usize {
        self.cache.lock().expect("jit cache").len()
    }
}

/// A traced program, not yet compiled.
pub struct Lowered<O> {
    jaxpr: ClosedJaxpr,
    out: O,
    in_avals: Vec<Aval>,
}

impl<O: Tree> Lowered<O> {
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
