//! The compiled program: a simplified, fused and planned jaxpr, and the loop that runs its
//! steps, checking its plan against the memory limits first.

use rustc_hash::FxHashMap;
use std::time::{Duration, Instant};

use super::kernel::{self, Target};
use super::{awake, fuse, inline, plan, simplify};
use crate::array::{quietly, AllocError, Array, Buffer};
use crate::core::callback::{current_sink, with_sink};
use crate::core::tree::{Tree, TreeDef};
use crate::core::{Atom, Aval, ClosedJaxpr, Tensor};
use crate::error::Result;
use crate::memory::MemoryAnalysis;

/// The compiled program behind a [`Compiled`], the jit cache and a loop primitive's body.
pub(crate) struct Executable {
    pub(super) jaxpr: ClosedJaxpr,
    pub(super) steps: Vec<fuse::Step>,
    pub(super) plan: plan::Plan,
    pub(super) in_avals: Vec<Aval>,
    /// The structure of the outputs.
    pub(super) out: TreeDef,
}

impl Executable {
    /// Simplifies, fuses and plans a closed jaxpr, taking and returning flat lists of arrays.
    pub(crate) fn new(cj: ClosedJaxpr) -> Executable {
        crate::env::init_threads();
        let in_avals = cj.jaxpr.invars.iter().map(|v| v.aval.clone()).collect();
        let n_out = cj.jaxpr.outvars.len();
        let jaxpr = simplify::simplify(inline::inline_calls(cj));
        let jaxpr = simplify::scale_products(simplify::reduce_products(jaxpr));
        let steps = fuse::fuse(&jaxpr);
        let plan = plan::plan(&jaxpr, &steps);
        Executable {
            jaxpr,
            steps,
            plan,
            in_avals,
            out: TreeDef::List(vec![TreeDef::Leaf; n_out]),
        }
    }

    /// The memory plan.
    pub(crate) fn analysis(&self) -> &MemoryAnalysis {
        &self.plan.analysis
    }

    /// Runs on arrays of the avals compiled for.
    pub(crate) fn run_arrays(&self, args: Vec<Array>) -> Vec<Array> {
        self.run(args, None)
    }

    #[track_caller]
    pub(super) fn run_tree<A: Tree, O: Tree>(
        &self,
        args: A,
        times: Option<&mut Vec<Duration>>,
    ) -> Result<O> {
        let leaves = args.leaves();
        let avals: Vec<Aval> = leaves.iter().map(Tensor::aval).collect();
        if avals != self.in_avals {
            let show = |v: &[Aval]| {
                v.iter()
                    .map(|a| a.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            panic!(
                "compiled for arguments ({}) but called with ({})\n  at {}",
                show(&self.in_avals),
                show(&avals),
                std::panic::Location::caller()
            );
        }
        self.run_leaves(&leaves, times)
    }

    /// Whether the plan fits the memory limits, of the call and of each device.
    fn fits(&self) -> Result<()> {
        let plan = &self.plan.analysis;
        if let Some(limit) = crate::memory::memory_limit() {
            if plan.peak_bytes > limit {
                return Err(plan.out_of_memory(limit));
            }
        }
        if let Some(limit) = crate::memory::device_memory_limit() {
            if let Some(d) = plan.devices.iter().find(|d| d.peak_bytes > limit) {
                return Err(d.out_of_memory(limit));
            }
        }
        Ok(())
    }

    /// Runs on leaves of the avals compiled for, if the plan fits the memory limits (on
    /// every process its maps span).
    pub(crate) fn run_leaves<O: Tree>(
        &self,
        leaves: &[Tensor],
        times: Option<&mut Vec<Duration>>,
    ) -> Result<O> {
        crate::devices::agree_on_memory(self.fits(), &self.plan.analysis)?;
        let arrays: Vec<Array> = leaves.iter().map(|t| t.array().clone()).collect();
        // A buffer the system refuses unwinds quietly out of the steps (`run_steps`); the
        // values made so far are dropped on the way, the arguments are only read.
        let run = std::panic::AssertUnwindSafe(|| self.run(arrays, times));
        let outs = match std::panic::catch_unwind(run) {
            Ok(outs) => outs,
            Err(payload) => match payload.downcast::<AllocError>() {
                Ok(e) => {
                    let err = self.plan.analysis.refused(e.bytes);
                    crate::devices::failed_across_processes(&err, &self.plan.analysis);
                    return Err(err);
                }
                Err(other) => std::panic::resume_unwind(other),
            },
        };
        let out = O::from_def(&self.out, &mut outs.into_iter().map(Tensor::new));
        Ok(out.expect("the output structure is the traced function's"))
    }

    /// Runs the equations in order, freeing every value after its last use; with `times`,
    /// records each step's wall time. A buffer the system refuses unwinds quietly (see
    /// `quietly`) to the compiled call or the eager primitive that runs this program.
    fn run(&self, args: Vec<Array>, times: Option<&mut Vec<Duration>>) -> Vec<Array> {
        let plan = &self.plan.analysis;
        if plan.peak_bytes < awake::WORTH_WAKING || !plan.devices.is_empty() {
            // Too small for its kernels to go parallel: handing it to the pool would
            // cost more than it runs. A map over devices runs on the devices' own pools,
            // whose cores this pool's polling threads would take.
            return quietly(|| self.run_steps(args, times));
        }
        // The thread of the pool that runs the steps prints where the caller's thread does,
        // and is the same member of a map over devices.
        let (sink, member) = (current_sink(), crate::devices::member());
        awake::run_awake(|| {
            crate::devices::as_member(member, || {
                with_sink(sink, || quietly(|| self.run_steps(args, times)))
            })
        })
    }

    /// [`run`](Self::run) on the calling thread.
    fn run_steps(&self, args: Vec<Array>, mut times: Option<&mut Vec<Duration>>) -> Vec<Array> {
        let j = &self.jaxpr.jaxpr;
        let mut env: FxHashMap<u32, Array> = FxHashMap::default();
        for (v, t) in j.constvars.iter().zip(&self.jaxpr.consts) {
            env.insert(v.id, t.array().clone());
        }
        for (v, a) in j.invars.iter().zip(args) {
            env.insert(v.id, a);
        }
        let read = |env: &FxHashMap<u32, Array>, a: &Atom| match a {
            Atom::Var(v) => env[&v.id].clone(),
            Atom::Lit(l) => l.clone(),
        };
        let plan = &self.plan;
        // A buffer freed by the step before, kept for the next step's result.
        let mut spare: Option<(u32, Buffer)> = None;
        for (i, (step, frees)) in self.steps.iter().zip(&plan.frees).enumerate() {
            let start = times.is_some().then(Instant::now);
            match step {
                fuse::Step::Prim(i) => {
                    // The primitive's own kernel, on operands the plan checked: not `bind`,
                    // so no open trace can record it and no shape rule runs again.
                    let e = &j.eqns[*i];
                    let ins: Vec<Array> = e.inputs.iter().map(|a| read(&env, a)).collect();
                    // A collective's meeting names the user's line in its errors.
                    let outs = if matches!(e.prim, crate::core::Prim::Collective(_)) {
                        crate::devices::at_line(e.source, || e.prim.eval(&ins))
                    } else {
                        e.prim.eval(&ins)
                    };
                    drop(ins);
                    for (v, a) in e.outputs.iter().zip(outs) {
                        env.insert(v.id, a);
                    }
                }
                fuse::Step::Kernel(k) if plan.row_views[i].is_some() => {
                    let v = plan.row_views[i].as_ref().expect("a row view");
                    let rows = env[&k.inputs[0].id]
                        .reshaped(&v.shape)
                        .rows(v.start, v.rows);
                    env.insert(k.out.id, rows);
                }
                fuse::Step::Kernel(k) => {
                    let ins: Vec<Array> = k.inputs.iter().map(|v| env[&v.id].clone()).collect();
                    let spare = spare.take();
                    let target = if let Some(slot) = plan.in_place[i] {
                        // The buffer dies here: let the kernel hold its only reference.
                        for id in frees {
                            env.remove(id);
                        }
                        Target::InPlace(slot)
                    } else {
                        // The buffer the step before freed, if it is the one planned here.
                        spare
                            .filter(|(sid, _)| plan.reuse[i] == Some(*sid))
                            .map_or(Target::Fresh, |(_, b)| Target::Reuse(b))
                    };
                    env.insert(k.out.id, kernel::run(k, ins, target));
                }
            }
            let mut freed: Vec<(u32, Array)> = frees
                .iter()
                .filter_map(|id| env.remove(id).map(|a| (*id, a)))
                .collect();
            if let Some(&Some(next)) = plan.reuse.get(i + 1) {
                let kept = freed.iter().position(|(id, _)| *id == next);
                let kept = kept.map(|p| freed.swap_remove(p));
                // Views of the kept buffer go first, so that it has one owner.
                drop(freed);
                spare = kept.and_then(|(id, a)| a.into_buffer().ok().map(|b| (id, b)));
            }
            if let (Some(times), Some(start)) = (times.as_deref_mut(), start) {
                times.push(start.elapsed());
            }
        }
        j.outvars.iter().map(|a| read(&env, a)).collect()
    }
}
