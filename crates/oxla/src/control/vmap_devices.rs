//! `vmap(f).devices(d)`: a batch split over devices in blocks as even as the batch allows,
//! with no padding (JAX's `pmap` needs the batch padded to a multiple of the device
//! count). Staged as a map over devices (`shard_map`) whose body, one per block length, is
//! the batched `f` on that block: two bodies at most, `n / d + 1` and `n / d` examples.
//!
//! Collectives over the vmap's axis name see the whole batch: the batching rules complete
//! each one over a device's block with one across the devices (see
//! `transforms/batching/across_devices.rs`). With `chunk_size` or `memory_budget`, each
//! device runs its block in chunks, the budget being each device's.

use crate::source::Source;

use super::shard_map::{shares, stage_advised, OutSpec, Span};
use crate::compiler::Executable;
use crate::core::axis_env::with_split_axis;
use crate::core::tree::Tree;
use crate::core::{trace_avals, with_line, Aval, Tensor};
use crate::error::{Error, Result};
use crate::transforms::batching::{batch_jaxpr, moveaxis};
use crate::transforms::chunked::budget::chunk_for_budget;
use crate::transforms::vmap::{check_out_axis, place_output, Traced};
use crate::transforms::{Budget, Vmap};

/// The axis of a map over devices whose vmap has no name.
const UNNAMED: &str = "_internal_vmap_devices_axis";

/// A [`Vmap`] whose batch is split over devices; see [`Vmap::devices`].
#[derive(Clone)]
pub struct OnDevices<F, B = ()> {
    vmap: Vmap<F, B>,
    devices: usize,
}

impl<F, B> Vmap<F, B> {
    /// Splits the batch over `d` devices (see [`crate::devices`]): device `k` runs the
    /// vectorised function on its block of `n / d` or `n / d + 1` examples, all at once,
    /// and the results are joined. No padding: any batch size works, and a batch smaller
    /// than `d` uses `n` devices.
    ///
    /// Under MPI, `d` above this process's devices spans every process, as many devices
    /// on each (so `d` is a multiple of [`process_count`](crate::process_count), up to
    /// [`device_count`](crate::device_count)): every process passes the same arguments,
    /// computes its devices' blocks and returns the whole result, joined across the
    /// processes (blocks of uneven length included); a batch of `n` examples then uses at
    /// most `n / process_count` devices on each.
    ///
    /// Collectives over the vmap's [`axis_name`](Vmap::axis_name) see the whole batch:
    /// `psum`, `pmean`, `pmax`, `pmin`, `all_gather`, `psum_scatter`, `axis_index` and
    /// `axis_size`. `ppermute` and `all_to_all`, which exchange blocks between members
    /// wherever they are, panic at trace time. With [`chunk_size`](Vmap::chunk_size) or
    /// [`memory_budget`](Vmap::memory_budget), each device runs its block in chunks,
    /// and the budget is each device's.
    ///
    /// ```
    /// use oxla::{lax, numpy as jnp, vmap, Tensor};
    /// oxla::set_num_devices(2);
    /// let xs = jnp::arange(5.0);
    /// let centred: Tensor = vmap(|x: Tensor| &x - lax::pmean(&x, "i"))
    ///     .axis_name("i")
    ///     .devices(2)
    ///     .call(xs);
    /// assert_eq!(centred.to_vec::<f32>(), vec![-2.0, -1.0, 0.0, 1.0, 2.0]);
    /// ```
    pub fn devices(self, d: usize) -> OnDevices<F, B> {
        OnDevices {
            vmap: self,
            devices: d,
        }
    }
}

impl<F, B> OnDevices<F, B> {
    /// Each device runs its block in chunks of `k` examples; see [`Vmap::chunk_size`].
    #[track_caller]
    pub fn chunk_size(self, k: usize) -> Self {
        OnDevices {
            vmap: self.vmap.chunk_size(k),
            devices: self.devices,
        }
    }

    /// Each device runs its block in chunks that fit `bytes` on that device; see
    /// [`Vmap::memory_budget`].
    pub fn memory_budget(self, bytes: usize) -> OnDevices<F, Budget> {
        OnDevices {
            vmap: self.vmap.memory_budget(bytes),
            devices: self.devices,
        }
    }

    /// Runs the map on `args`, each device's chunks planned for `budget`.
    fn run<A: Tree, O: Tree>(&self, args: A, budget: Option<usize>, at: Source) -> Result<O>
    where
        F: Fn(A) -> O,
    {
        let v = &self.vmap;
        with_line(at, || {
            let Traced {
                leaves,
                axes,
                n,
                cj,
                out,
                out_axes,
            } = v.traced(&args, at);
            let (rows, span) = self.rows(n, at);
            let operands: Vec<Tensor> = leaves
                .iter()
                .zip(&axes)
                .map(|(t, a)| a.map_or(t.clone(), |a| moveaxis(t, a, 0)))
                .collect();
            let mapped: Vec<bool> = axes.iter().map(Option::is_some).collect();
            let chunked = v.chunk.is_some() || budget.is_some();
            let name = v.axis_name.unwrap_or(UNNAMED);
            let mut kinds: Option<Vec<Option<usize>>> = None;
            let mut bodies = Vec::new();
            if chunked {
                v.refuse_chunked_collective(&cj, at);
                let trace = v.chunk_trace(&cj, &operands, &mapped, &out_axes, at);
                for share in shares(&rows) {
                    let chunk = match (v.chunk, budget) {
                        (Some(k), _) => k,
                        (_, Some(b)) => chunk_for_budget(&mapped, share, b, at, &trace)
                            .map_err(|e| on_device(e, rows.iter().position(|&r| r == share)))?,
                        (None, None) => share,
                    };
                    let body = |xs: Vec<Tensor>| {
                        let n_out = cj.jaxpr.outvars.len();
                        crate::transforms::chunked::stage(
                            &xs,
                            mapped.clone(),
                            vec![false; n_out],
                            share,
                            chunk,
                            v.progress,
                            &trace,
                        )
                    };
                    bodies.push(
                        trace_avals(body, &operands, &block_avals(&operands, &mapped, share)).0,
                    );
                }
                kinds = Some(vec![Some(0); out_axes.len()]);
            } else {
                for share in shares(&rows) {
                    let body = |xs: Vec<Tensor>| {
                        let args = xs.into_iter().zip(mapped.iter().map(|&m| m.then_some(0)));
                        let batched = with_split_axis(name, &rows, || {
                            batch_jaxpr(&cj, args.collect(), share, v.axis_name)
                        });
                        let dims: Vec<Option<usize>> = batched.iter().map(|(_, d)| *d).collect();
                        assert!(
                            kinds.as_ref().is_none_or(|k| *k == dims),
                            "every block's results are mapped alike"
                        );
                        kinds = Some(dims);
                        batched
                            .into_iter()
                            .zip(&out_axes)
                            .enumerate()
                            .map(|(i, ((t, d), a))| {
                                check_out_axis(&t, d, *a, i, at);
                                d.map_or(t.clone(), |d| moveaxis(&t, d, 0))
                            })
                            .collect::<Vec<Tensor>>()
                    };
                    bodies.push(
                        trace_avals(body, &operands, &block_avals(&operands, &mapped, share)).0,
                    );
                }
            }
            let kinds = kinds.expect("a body traced");
            let out_specs = kinds
                .iter()
                .map(|d| d.map_or(OutSpec::Invariant, |_| OutSpec::Concat(0)))
                .collect();
            let fits = match crate::memory::device_memory_limit() {
                Some(limit) if !chunked => {
                    let trace = v.chunk_trace(&cj, &operands, &mapped, &out_axes, at);
                    let chunkable = v.axis_name.is_none_or(|a| !cj.jaxpr.names_axis(a));
                    bodies
                        .iter()
                        .zip(shares(&rows))
                        .map(|(b, share)| {
                            let over = Executable::new(b.clone()).analysis().peak_bytes > limit;
                            (over && chunkable)
                                .then(|| chunk_for_budget(&mapped, share, limit, at, &trace).ok())
                                .flatten()
                        })
                        .collect()
                }
                Some(_) | None => vec![None; bodies.len()],
            };
            let in_dims = mapped.iter().map(|&m| m.then_some(0)).collect();
            let joined = stage_advised(
                name, &rows, &operands, in_dims, bodies, out_specs, fits, span,
            );
            let results: Vec<Tensor> = joined
                .into_iter()
                .zip(kinds)
                .zip(out_axes)
                .enumerate()
                .map(|(i, ((t, d), a))| match (chunked, a) {
                    // A chunked map stacks every result; one mapped nowhere is any row.
                    (true, None) => t.index(0),
                    // A mapped result's axis is first (the body moved it).
                    (false, _) | (true, Some(_)) => place_output(t, d.map(|_| 0), a, n, i),
                })
                .collect();
            Ok(out.rebuild(&mut results.into_iter()))
        })
    }

    /// Each device's number of examples of `n`, as even as they can be, the longer blocks
    /// first, on no more devices than examples; and the processes the devices span: this
    /// one's alone, or every process's (under MPI) when `d` passes the local devices.
    fn rows(&self, n: usize, at: Source) -> (Vec<usize>, Span) {
        let (local, processes) = (
            crate::devices::local_device_count(),
            crate::devices::process_count(),
        );
        let count = local * processes;
        let d = self.devices;
        let what = self.vmap.what();
        if d == 0 {
            panic!("{what}: .devices(0): a batch needs at least one device\n  at {at}");
        }
        if d > count {
            let across = match processes {
                1 => String::new(),
                p => format!(", {local} on each of {p} processes"),
            };
            panic!(
                "{what}: .devices({d}), but {count} devices are available{across} \
                 (OXLA_NUM_DEVICES or oxla::set_num_devices sets a process's count)\n  at {at}"
            );
        }
        let even = |used: usize| -> Vec<usize> {
            (0..used)
                .map(|k| n / used + usize::from(k < n % used))
                .collect()
        };
        if d <= local {
            return (even(d.min(n).max(1)), Span::LOCAL);
        }
        // Across processes: as many devices on each, and an example for every device.
        if !d.is_multiple_of(processes) {
            panic!(
                "{what}: .devices({d}) spans {processes} processes, which run as many devices \
                 each: ask for a multiple of {processes} (up to {count}), or for at most the \
                 {local} of one process\n  at {at}"
            );
        }
        if n < processes {
            panic!(
                "{what}: a batch of {n} examples over .devices({d}) of {processes} processes: \
                 each process needs at least one; ask for at most the {local} devices of one \
                 process\n  at {at}"
            );
        }
        let each = (d / processes).min(n / processes);
        (
            even(each * processes),
            Span {
                processes,
                whole: true,
            },
        )
    }
}

/// `e`, an out-of-memory error of one device's chunk plan, naming that device.
fn on_device(mut e: Error, device: Option<usize>) -> Error {
    if let Error::OutOfMemory { device: d, .. } = &mut e {
        *d = device;
    }
    e
}

/// The avals of one block of `share` examples of `operands`, mapped ones along axis 0.
fn block_avals(operands: &[Tensor], mapped: &[bool], share: usize) -> Vec<Aval> {
    operands
        .iter()
        .zip(mapped)
        .map(|(t, &m)| {
            let mut shape = t.shape().to_vec();
            if m {
                shape[0] = share;
            }
            Aval::new(t.dtype(), &shape)
        })
        .collect()
}

impl<F> OnDevices<F> {
    /// Runs the vectorised function on `args`, split over the devices.
    ///
    /// Mistakes in the axes panic as in [`Vmap::call`]; so does a device count above the
    /// machine's, or a `ppermute` or `all_to_all` over the vmap's axis (refused for any
    /// split, even blocks included).
    #[track_caller]
    pub fn call<A: Tree, O: Tree>(&self, args: A) -> O
    where
        F: Fn(A) -> O,
    {
        self.run(args, None, crate::core::current_line())
            .expect("a map without a memory budget cannot fail")
    }

    /// The function as a function, to pass to another transform.
    #[track_caller]
    pub fn as_fn<A: Tree, O: Tree>(self) -> impl Fn(A) -> O
    where
        F: Fn(A) -> O,
    {
        let at = crate::core::current_line();
        move |args| {
            self.run(args, None, at)
                .expect("a map without a memory budget cannot fail")
        }
    }
}

impl<F> OnDevices<F, Budget> {
    /// Runs the vectorised function on `args`, split over the devices, each device's
    /// block in chunks that fit the budget there; or returns
    /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) when one example at a time does
    /// not fit, before anything runs.
    #[track_caller]
    pub fn call<A: Tree, O: Tree>(&self, args: A) -> Result<O>
    where
        F: Fn(A) -> O,
    {
        self.run(args, Some(self.vmap.budget.0), crate::core::current_line())
    }

    /// The budgeted function as a function returning a `Result`, to pass on.
    #[track_caller]
    pub fn as_fn<A: Tree, O: Tree>(self) -> impl Fn(A) -> Result<O>
    where
        F: Fn(A) -> O,
    {
        let at = crate::core::current_line();
        move |args| self.run(args, Some(self.vmap.budget.0), at)
    }
}
