//! The map over devices: one primitive, `shard_map`, that `pmap`, `shard_map` and
//! `vmap(f).devices` stage (as JAX 0.10's `pmap` is `jit(shard_map)`). Each mapped operand
//! is cut into one block per device along its mapped dimension, in proportion to the
//! devices' shares (all equal for `pmap` and `shard_map`; `vmap(f).devices` gives the
//! first devices one example more). A body is one device's program, one per distinct
//! share; every device runs its body on its blocks at once (each on its own pool,
//! `crate::devices`), and the members meet at the bodies' collectives over the map's axis.
//! Each result is joined from the devices' blocks along its dimension, taken from device 0
//! when it is the same on every device, or summed over the devices (the cotangents of
//! unmapped operands).
//!
//! Unmapped operands are shared by the devices, not copied. Under `jit` the whole map is
//! one step. How it runs is in `run.rs`; its batching, JVP and VJP rules (`rules.rs`)
//! stage a new map of the transformed bodies.

mod rules;
mod run;
pub(crate) mod vma;

use crate::source::Source;
use std::sync::{Arc, OnceLock};

use crate::array::{Array, Aval};
use crate::compiler::Executable;
use crate::core::control_flow::debug_by_identity;
use crate::core::{bind, ClosedJaxpr, ControlFlow, Prim, Tensor};
use crate::memory::{BufferInfo, DevicePlan};
use crate::transforms::bodies::open;

/// How a result of the map is made from the devices' results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutSpec {
    /// The devices' blocks joined along this dimension.
    Concat(usize),
    /// The same on every device: device 0's.
    Invariant,
    /// The sum of the devices' results.
    Summed,
}

/// One device's program, for devices holding a given share of each mapped dimension.
struct Body {
    /// The share (see [`ShardMapSpec`]).
    share: usize,
    jaxpr: ClosedJaxpr,
    compiled: OnceLock<Executable>,
    /// A chunk size under which the block fits the device limit it was staged under.
    fits: Option<usize>,
}

/// The parameters of a map over devices (see the module documentation).
pub struct ShardMapSpec {
    /// The axis the devices are mapped over, which the body's collectives name.
    pub(crate) axis_name: Arc<str>,
    /// Per device, its share of every mapped dimension: device `d`'s block is
    /// `rows[d] / sum(rows)` of it. Even blocks (`pmap`, `shard_map`) have every share 1;
    /// `vmap(f).devices` splits a batch unevenly.
    pub(crate) rows: Vec<usize>,
    /// Per operand: the dimension cut into blocks, or `None` for an operand every device
    /// gets whole.
    pub(crate) in_dims: Vec<Option<usize>>,
    /// Per result: how it is made from the devices' results.
    pub(crate) out_specs: Vec<OutSpec>,
    /// One device's program per distinct share, in the order of the devices.
    bodies: Vec<Body>,
    /// The processes the map spans, and what each passes and gets.
    pub(crate) span: Span,
}

/// The processes a map over devices spans (under MPI), and what each passes and gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    /// Every process, the devices being every process's rank by rank; or 1, this process's
    /// devices alone.
    pub(crate) processes: usize,
    /// Every process passes the whole operands and gets the whole results, and `rows`
    /// lists every process's devices (`vmap(f).devices` across processes); else each
    /// passes and gets its own devices' blocks, which `rows` lists (a `pmap` under MPI).
    pub(crate) whole: bool,
}

impl Span {
    /// This process's devices alone.
    pub(crate) const LOCAL: Span = Span {
        processes: 1,
        whole: false,
    };
}

debug_by_identity!(ShardMapSpec, axis_name, rows, in_dims, out_specs);

/// The distinct values of `rows`, in order of first appearance: one body for each.
pub(crate) fn shares(rows: &[usize]) -> Vec<usize> {
    let mut seen = Vec::new();
    for &r in rows {
        if !seen.contains(&r) {
            seen.push(r);
        }
    }
    seen
}

/// Binds a map over the devices `rows` describes (see [`ShardMapSpec::rows`]) of `bodies`
/// (one per share, as [`shares`] orders them, each traced on the blocks of `operands` for
/// its share), whose captured values become unmapped operands, over the devices of
/// the processes of `span`; `fits` holds a chunk size per body under which its block fits
/// the device limit (the advice its out-of-memory error gives).
#[allow(clippy::too_many_arguments)]
#[track_caller]
pub(crate) fn stage_advised(
    axis_name: &str,
    rows: &[usize],
    operands: &[Tensor],
    in_dims: Vec<Option<usize>>,
    bodies: Vec<ClosedJaxpr>,
    out_specs: Vec<OutSpec>,
    fits: Vec<Option<usize>>,
    span: Span,
) -> Vec<Tensor> {
    assert_eq!(
        bodies.len(),
        shares(rows).len(),
        "a map over devices takes one body per distinct share of {rows:?}"
    );
    let consts: Vec<Vec<Tensor>> = bodies.iter().map(|b| b.consts.clone()).collect();
    let avals: Vec<Vec<Aval>> = consts
        .iter()
        .map(|c| c.iter().map(Tensor::aval).collect())
        .collect();
    let mut in_dims = in_dims;
    in_dims.extend(consts.iter().flatten().map(|_| None));
    let bodies = bodies
        .into_iter()
        .zip(shares(rows))
        .zip(fits)
        .enumerate()
        .map(|(k, ((b, share), fits))| Body {
            share,
            jaxpr: open(b, &avals[..k].concat(), &avals[k + 1..].concat()),
            compiled: OnceLock::new(),
            fits,
        })
        .collect();
    let spec = ShardMapSpec {
        axis_name: Arc::from(axis_name),
        rows: rows.to_vec(),
        in_dims,
        out_specs,
        bodies,
        span,
    };
    let mut ins = operands.to_vec();
    ins.extend(consts.into_iter().flatten());
    bind(
        Prim::Control(Arc::new(spec)),
        &ins,
        std::panic::Location::caller(),
    )
}

/// The aval of one block of `a` cut along `dim`: `share` of `total` of it.
pub(crate) fn block_aval(a: &Aval, dim: Option<usize>, share: usize, total: usize) -> Aval {
    let mut shape = a.shape.to_vec();
    if let Some(d) = dim {
        shape[d] = shape[d] * share / total.max(1);
    }
    Aval::new(a.dtype, &shape)
}

impl ShardMapSpec {
    /// The number of devices in this process.
    pub(crate) fn size(&self) -> usize {
        match self.span.whole {
            true => self.rows.len() / self.span.processes,
            false => self.rows.len(),
        }
    }

    /// The position in `rows` of this process's first device.
    fn here(&self) -> usize {
        match self.span.whole {
            true => crate::devices::process_index() * self.size(),
            false => 0,
        }
    }

    fn total(&self) -> usize {
        self.rows.iter().sum()
    }

    /// Each body's program, with its share.
    pub(crate) fn programs(&self) -> impl Iterator<Item = (usize, &ClosedJaxpr)> {
        self.bodies.iter().map(|b| (b.share, &b.jaxpr))
    }

    /// The body device `d` runs.
    fn body_of(&self, d: usize) -> &Body {
        let share = self.rows[d];
        self.bodies
            .iter()
            .find(|b| b.share == share)
            .expect("a body per share")
    }

    fn compiled(b: &Body) -> &Executable {
        b.compiled.get_or_init(|| Executable::new(b.jaxpr.clone()))
    }
}

impl ShardMapSpec {
    /// The plan of the device at `position` in `rows`, numbered `device` along the axis.
    fn plan_of(&self, position: usize, device: usize, source: Source) -> DevicePlan {
        let b = self.body_of(position);
        let plan = Self::compiled(b).analysis();
        let ins = b.jaxpr.jaxpr.in_avals();
        let cut = || ins.iter().zip(&self.in_dims);
        DevicePlan {
            device,
            processes: self.span.processes,
            rows: cut().find_map(|(a, d)| d.map(|k| a.shape[k])).unwrap_or(0),
            peak_bytes: plan.peak_bytes,
            shared_bytes: cut()
                .filter(|(_, d)| d.is_none())
                .map(|(a, _)| a.nbytes())
                .sum(),
            largest: plan.largest.first().cloned(),
            fitting_chunk_size: b.fits,
            source,
            step: 0,
        }
    }

    /// The plans an eager call checks against the limit on each device: every device's
    /// when the map spans the processes whole (each can plan them all, so all refuse
    /// alike before any starts), else this process's.
    fn checked_plans(&self, source: Source) -> Vec<DevicePlan> {
        match self.span.whole {
            true => (0..self.rows.len())
                .map(|g| self.plan_of(g, g, source))
                .collect(),
            false => self.device_plans(source),
        }
    }
}

impl ControlFlow for ShardMapSpec {
    fn name(&self) -> &'static str {
        "shard_map"
    }

    /// The shape rule: mapped operands cut, in proportion to the devices' shares, into the
    /// blocks each body takes.
    fn abstract_eval(&self, ins: &[Aval]) -> Result<Vec<Aval>, String> {
        let total = self.total();
        for b in &self.bodies {
            let want = b.jaxpr.jaxpr.in_avals();
            if ins.len() != want.len() {
                return Err(format!("{} operands for {} inputs", ins.len(), want.len()));
            }
            for (i, ((a, w), dim)) in ins.iter().zip(&want).zip(&self.in_dims).enumerate() {
                let even = dim.is_none_or(|d| {
                    d < a.ndim()
                        && self
                            .rows
                            .iter()
                            .all(|r| (a.shape[d] * r) % total.max(1) == 0)
                });
                if !even || block_aval(a, *dim, b.share, total) != *w {
                    return Err(format!(
                        "operand {i} of aval {a} cut along {dim:?} into shares {:?} does not \
                         give the body's {w}",
                        self.rows
                    ));
                }
            }
        }
        let first = self.bodies[0].jaxpr.jaxpr.out_avals();
        Ok(first
            .iter()
            .enumerate()
            .zip(&self.out_specs)
            .map(|((k, a), s)| match s {
                OutSpec::Concat(d) => {
                    let mut shape = a.shape.to_vec();
                    shape[*d] = (0..self.rows.len())
                        .map(|dev| self.body_of(dev).jaxpr.jaxpr.out_avals()[k].shape[*d])
                        .sum();
                    Aval::new(a.dtype, &shape)
                }
                OutSpec::Invariant | OutSpec::Summed => a.clone(),
            })
            .collect())
    }

    /// The parameters as the jaxpr printer shows them.
    fn params(&self) -> Vec<(&'static str, String)> {
        let spec = |d: &Option<usize>| match d {
            Some(d) => format!("P({}'{}',)", "None, ".repeat(*d), self.axis_name),
            None => "P()".into(),
        };
        let ins: Vec<String> = self.in_dims.iter().map(spec).collect();
        let outs: Vec<String> = self
            .out_specs
            .iter()
            .map(|s| match s {
                OutSpec::Concat(d) => spec(&Some(*d)),
                OutSpec::Invariant => "P()".into(),
                OutSpec::Summed => "sum".into(),
            })
            .collect();
        let mut p = vec![
            ("check_vma", "False".into()),
            ("in_specs", crate::prims::pyfmt::tuple_of_strings(&ins)),
            ("jaxpr", self.bodies[0].jaxpr.to_string()),
            (
                "mesh",
                format!("Mesh('{}': {})", self.axis_name, self.rows.len()),
            ),
            ("out_specs", crate::prims::pyfmt::tuple_of_strings(&outs)),
        ];
        if self.bodies.len() > 1 {
            let rest: Vec<String> = self.bodies[1..]
                .iter()
                .map(|b| b.jaxpr.to_string())
                .collect();
            p.push(("jaxprs", rest.join(", ")));
            p.push(("shares", crate::prims::pyfmt::tuple(&self.rows)));
        }
        p
    }

    /// Runs the body on every device at once and joins the results (`run.rs`).
    fn eval(&self, ins: &[Array]) -> Vec<Array> {
        self.run(ins)
    }

    fn bodies(&self) -> Vec<&ClosedJaxpr> {
        self.bodies.iter().map(|b| &b.jaxpr).collect()
    }

    fn binds_axis(&self) -> Option<&str> {
        Some(&self.axis_name)
    }

    /// The devices' working memory: each one's body's planned peak beyond its blocks,
    /// summed over the devices, with the largest buffers of the one that plans the most.
    fn working_bytes(&self) -> (usize, Vec<BufferInfo>) {
        let mut best = (0, vec![]);
        let mut total = 0;
        for d in 0..self.size() {
            let b = self.body_of(self.here() + d);
            let shared = b.jaxpr.jaxpr.in_avals().iter().map(Aval::nbytes).sum();
            let (bytes, largest) =
                crate::transforms::bodies::body_bytes(std::iter::once(Self::compiled(b)), shared);
            total += bytes;
            if bytes >= best.0 {
                best = (bytes, largest);
            }
        }
        (total, best.1)
    }

    fn device_plans(&self, source: Source) -> Vec<DevicePlan> {
        // Across processes, the devices of the earlier ranks come first.
        let first = match self.span.processes {
            1 => 0,
            _ => crate::devices::process_index() * self.size(),
        };
        (0..self.size())
            .map(|d| self.plan_of(self.here() + d, first + d, source))
            .collect()
    }

    fn batch(
        &self,
        args: &[Tensor],
        dims: &[Option<usize>],
        n: usize,
        name: Option<&str>,
    ) -> (Vec<Tensor>, Vec<Option<usize>>) {
        rules::batch(self, args, dims, n, name)
    }

    fn jvp(
        &self,
        primals: &[Tensor],
        tangents: &[Option<Tensor>],
    ) -> (Vec<Tensor>, Vec<Option<Tensor>>) {
        rules::jvp(self, primals, tangents)
    }

    fn vjp(
        &self,
        ins: &[Tensor],
        cts: &[Option<Tensor>],
        active: &[bool],
        _src: Source,
    ) -> Vec<Option<Tensor>> {
        rules::vjp(self, ins, cts, active)
    }
}
