//! `jit`: a function compiled per input avals, and the call it stages under eager
//! transforms.
//!
//! Called on concrete arguments, `jit(f)` traces `f` at their avals, compiles the program
//! (`crate::compiler`) and caches the executable by avals. Inside a program being compiled
//! (`jit(vmap(jit(f)))`) it traces `f` into that program, so the outermost `jit` compiles
//! the whole. Under an eager transform or `make_jaxpr` (`vmap(jit(f))`, `grad(jit(f))`) it
//! stages one `jit` primitive holding `f`'s jaxpr ([`JitCall`], as JAX's `jit`, once
//! `pjit`): the transforms' rules make a new call of the transformed jaxpr, compiled once
//! and cached, so the order of the transforms never costs speed.

mod call;
mod split;
#[cfg(test)]
mod tests;

use rustc_hash::FxHashMap;
use std::marker::PhantomData;
use std::panic::Location;
use std::sync::{Arc, Mutex};

use crate::compiler::{jit_disabled, runs_compiled, Executable, Lowered};
use crate::core::axis_env::{bound_axes, Bound};
use crate::core::callback::effects_dropped;
use crate::core::tree::{Tree, TreeDef};
use crate::core::{
    bind, eval_jaxpr, for_compiler, is_tracing, trace_for_compiler, Aval, Prim, Tensor,
};
use crate::error::Result;
use crate::memory::MemoryAnalysis;
pub use call::JitCall;

/// A call staged under an eager transform: the primitive, the values `f` captures (its
/// operands after the arguments) and the structure of `f`'s result.
#[derive(Clone)]
struct Staged {
    call: Arc<JitCall>,
    captured: Vec<Tensor>,
    out: TreeDef,
}

/// The signature of a call on `args`.
fn signature<A: Tree>(args: &A, leaves: &[Tensor]) -> Signature {
    (
        args.def(),
        leaves.iter().map(Tensor::aval).collect(),
        crate::config::x64_enabled(),
    )
}

/// The name JAX would print for `F`: a function's own name, `<lambda>` for a closure.
fn call_name<F>() -> String {
    let mut path = std::any::type_name::<F>();
    // `module::name<T, U>`: the generic arguments of a function's path end it.
    if path.ends_with('>') {
        let mut depth = 0;
        for (i, c) in path.char_indices().rev() {
            depth += match c {
                '>' => 1,
                '<' => -1,
                _ => 0,
            };
            if depth == 0 {
                path = &path[..i];
                break;
            }
        }
    }
    // A closure, or a type that is no function's path (`fn(..) -> T`, `&dyn Fn`, a box).
    let function = !path.contains(['(', ' ', '&']);
    match path.rsplit("::").next() {
        Some(name) if function && name != "{{closure}}" && name != "Box" => name.to_string(),
        _ => "<lambda>".to_string(),
    }
}

/// A function compiled per input avals; see [`jit`].
pub struct Jit<F, A, O> {
    f: F,
    /// The calls staged under eager transforms, by signature, when nothing they capture
    /// is a tracer: the call and the values it captures.
    staged: Mutex<FxHashMap<StageKey, Staged>>,
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
        staged: Mutex::new(FxHashMap::default()),
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

/// What a compiled program is cached by: the arguments' tree and avals, and the x64 switch
/// (which decides the dtypes tracing gives Rust scalars and defaults), as JAX's cache keys.
type Signature = (TreeDef, Vec<Aval>, bool);

/// What a staged call is cached by: the signature, the bound axes and whether host
/// callbacks are dropped (what tracing reads of its context).
type StageKey = (Signature, Vec<Bound>, bool);

impl<A: Tree, O: Tree, F: Fn(A) -> O> Jit<F, A, O> {
    /// Runs the compiled function, compiling it first for new input avals.
    #[track_caller]
    pub fn call(&self, args: A) -> Result<O> {
        let leaves = args.leaves();
        if !runs_compiled(&leaves) {
            if is_tracing() && !for_compiler() && !jit_disabled() {
                // Under an eager transform or `make_jaxpr`: one call, compiled when it
                // runs, whose rules transform it as a whole.
                return Ok(self.stage(args, &leaves));
            }
            // Inside a program being compiled: f's primitives join it; under
            // `disable_jit`: they run eagerly.
            return Ok((self.f)(args));
        }
        let key = signature(&args, &leaves);
        let cached = self.cache.lock().expect("jit cache").get(&key).cloned();
        let exe = match cached {
            Some(e) => e,
            None => {
                let e = Arc::new(self.lower(&args).compile().into_executable());
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
                "; the chunked map at {source} fits in chunks of {k} \
                 (vmap(..).chunk_size({k}) or lax::map(..).batch_size({k})): \
                 planned so, the call needs {}",
                crate::memory::format_bytes(a.peak_bytes)
            );
            (k, advice)
        })
    }

    /// Traces `f` at the avals of `args` (ahead-of-time use: `.lower(&args).compile()`).
    #[track_caller]
    pub fn lower(&self, args: &A) -> Lowered<O> {
        let (jaxpr, out) = trace_for_compiler(&self.f, args);
        Lowered::new(jaxpr, out, args.leaves().iter().map(Tensor::aval).collect())
    }

    /// Binds one `jit` call of `f` on `args`, traced once per signature (and bound axes
    /// and callback mode, which tracing reads). A function that captures a tracer of the
    /// trace around it is traced into that trace instead, as inside `jit`: its call could
    /// not be reused.
    #[track_caller]
    fn stage(&self, args: A, leaves: &[Tensor]) -> O {
        let key = (signature(&args, leaves), bound_axes(), effects_dropped());
        let cached = self
            .staged
            .lock()
            .expect("jit staged calls")
            .get(&key)
            .cloned();
        let staged = match cached {
            Some(staged) => staged,
            None => {
                let (jaxpr, out) = trace_for_compiler(&self.f, &args);
                if jaxpr.consts.iter().any(Tensor::is_tracer) {
                    let outs = eval_jaxpr(&jaxpr, leaves);
                    return out.rebuild(&mut outs.into_iter());
                }
                let staged = Staged {
                    call: Arc::new(JitCall::new(call_name::<F>(), jaxpr.clone())),
                    captured: jaxpr.consts,
                    out: out.def(),
                };
                let mut cache = self.staged.lock().expect("jit staged calls");
                cache.insert(key, staged.clone());
                staged
            }
        };
        let mut ins = leaves.to_vec();
        ins.extend(staged.captured.iter().cloned());
        let outs = bind(Prim::Control(staged.call), &ins, Location::caller());
        O::from_def(&staged.out, &mut outs.into_iter()).expect("the traced function's structure")
    }

    /// How many executables the cache holds (one per distinct input avals; the calls
    /// staged under eager transforms compile their own, not counted here).
    pub fn cache_size(&self) -> usize {
        self.cache.lock().expect("jit cache").len()
    }
}
