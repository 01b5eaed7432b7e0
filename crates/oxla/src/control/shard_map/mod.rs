//! The map over devices: one primitive, `shard_map`, that `pmap` and `shard_map` stage
//! (as JAX 0.10's `pmap` is `jit(shard_map)`). Its body is one device's program: each
//! mapped operand is cut into one block per device along its mapped dimension, every
//! device runs the body on its blocks at once (each on its own pool, `crate::devices`),
//! and the members meet at the body's collectives over the map's axis. Each result is
//! joined from the devices' blocks along its dimension, taken from device 0 when it is the
//! same on every device, or summed over the devices (the cotangents of unmapped operands).
//!
//! Unmapped operands are shared by the devices, not copied. Under `jit` the whole map is
//! one step. Its batching, JVP and VJP rules (`rules.rs`) stage a new map of the
//! transformed body.

mod rules;

use std::sync::{Arc, OnceLock};

use crate::array::{Array, Aval};
use crate::compiler::Executable;
use crate::core::control_flow::debug_by_identity;
use crate::core::{bind, ClosedJaxpr, ControlFlow, Prim, Tensor};
use crate::memory::BufferInfo;
use crate::prims::{reduce, shape, ReduceOp};
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

/// The parameters of a map over devices (see the module documentation).
pub struct ShardMapSpec {
    /// The axis the devices are mapped over, which the body's collectives name.
    pub(crate) axis_name: Arc<str>,
    /// The number of devices (and of blocks).
    pub(crate) size: usize,
    /// Per operand: the dimension cut into blocks, or `None` for an operand every device
    /// gets whole.
    pub(crate) in_dims: Vec<Option<usize>>,
    /// Per result: how it is made from the devices' results.
    pub(crate) out_specs: Vec<OutSpec>,
    /// One device's program, on its blocks.
    pub(crate) body: ClosedJaxpr,
    compiled: OnceLock<Executable>,
}

debug_by_identity!(ShardMapSpec, axis_name, size, in_dims, out_specs);

/// Binds a map over `size` devices of `body` (traced on the blocks of `operands`), whose
/// captured values become unmapped operands.
#[track_caller]
pub(crate) fn stage(
    axis_name: &str,
    size: usize,
    operands: &[Tensor],
    in_dims: Vec<Option<usize>>,
    body: ClosedJaxpr,
    out_specs: Vec<OutSpec>,
) -> Vec<Tensor> {
    let consts = body.consts.clone();
    let mut in_dims = in_dims;
    in_dims.extend(consts.iter().map(|_| None));
    let spec = ShardMapSpec {
        axis_name: Arc::from(axis_name),
        size,
        in_dims,
        out_specs,
        body: open(body, &[], &[]),
        compiled: OnceLock::new(),
    };
    let mut ins = operands.to_vec();
    ins.extend(consts);
    bind(
        Prim::Control(Arc::new(spec)),
        &ins,
        std::panic::Location::caller(),
    )
}

/// The aval of one block of `a` cut along `dim` into `n`.
pub(crate) fn block_aval(a: &Aval, dim: Option<usize>, n: usize) -> Aval {
    let mut shape = a.shape.to_vec();
    if let Some(d) = dim {
        shape[d] /= n;
    }
    Aval::new(a.dtype, &shape)
}

impl ShardMapSpec {
    fn compiled(&self) -> &Executable {
        self.compiled
            .get_or_init(|| Executable::new(self.body.clone()))
    }

    /// Device `d`'s block of each operand: a view for blocks along the leading axis.
    fn blocks(&self, ins: &[Array], d: usize) -> Vec<Array> {
        ins.iter()
            .zip(&self.in_dims)
            .map(|(a, dim)| match *dim {
                None => a.clone(),
                Some(0) => {
                    let b = a.shape()[0] / self.size;
                    a.rows(d * b, b)
                }
                Some(k) => {
                    let b = a.shape()[k] / self.size;
                    let mut start = vec![0; a.ndim()];
                    let mut limit = a.shape().to_vec();
                    (start[k], limit[k]) = (d * b, (d + 1) * b);
                    shape::slice(a, &start, &limit, None)
                }
            })
            .collect()
    }
}

impl ControlFlow for ShardMapSpec {
    fn name(&self) -> &'static str {
        "shard_map"
    }

    /// The shape rule: mapped operands cut evenly into the blocks the body takes.
    fn abstract_eval(&self, ins: &[Aval]) -> Result<Vec<Aval>, String> {
        let want = self.body.jaxpr.in_avals();
        if ins.len() != want.len() {
            return Err(format!("{} operands for {} inputs", ins.len(), want.len()));
        }
        for (i, ((a, w), dim)) in ins.iter().zip(&want).zip(&self.in_dims).enumerate() {
            let even = dim.is_none_or(|d| d < a.ndim() && a.shape[d] % self.size == 0);
            if !even || block_aval(a, *dim, self.size) != *w {
                return Err(format!(
                    "operand {i} of aval {a} cut along {dim:?} into {} blocks does not give the \
                     body's {w}",
                    self.size
                ));
            }
        }
        Ok(self
            .body
            .jaxpr
            .out_avals()
            .iter()
            .zip(&self.out_specs)
            .map(|(a, s)| match s {
                OutSpec::Concat(d) => {
                    let mut shape = a.shape.to_vec();
                    shape[*d] *= self.size;
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
        vec![
            ("check_vma", "False".into()),
            ("in_specs", crate::prims::pyfmt::tuple_of_strings(&ins)),
            ("jaxpr", self.body.to_string()),
            ("mesh", format!("Mesh('{}': {})", self.axis_name, self.size)),
            ("out_specs", crate::prims::pyfmt::tuple_of_strings(&outs)),
        ]
    }

    /// Runs the body on every device at once and joins the results.
    fn eval(&self, ins: &[Array]) -> Vec<Array> {
        let exe = self.compiled();
        // Lines the body prints go where the caller's go.
        let sink = crate::core::callback::current_sink();
        let outs = crate::devices::run(&self.axis_name, self.size, |d| {
            crate::core::callback::with_sink(sink.clone(), || exe.run_arrays(self.blocks(ins, d)))
        });
        (0..self.out_specs.len())
            .map(|k| {
                let mine: Vec<Array> = outs.iter().map(|o| o[k].clone()).collect();
                match self.out_specs[k] {
                    OutSpec::Concat(d) => shape::concatenate(&mine, d),
                    OutSpec::Invariant => mine[0].clone(),
                    OutSpec::Summed => {
                        let stacked = shape::concatenate(
                            &mine
                                .iter()
                                .map(|a| {
                                    let mut s = vec![1];
                                    s.extend_from_slice(a.shape());
                                    a.reshaped(&s)
                                })
                                .collect::<Vec<_>>(),
                            0,
                        );
                        reduce::reduce(ReduceOp::Sum, &stacked, &[0])
                    }
                }
            })
            .collect()
    }

    fn bodies(&self) -> Vec<&ClosedJaxpr> {
        vec![&self.body]
    }

    fn binds_axis(&self) -> Option<&str> {
        Some(&self.axis_name)
    }

    /// Every device's working memory: the body's planned peak beyond its blocks, once per
    /// device.
    fn working_bytes(&self) -> (usize, Vec<BufferInfo>) {
        let shared = self.body.jaxpr.in_avals().iter().map(Aval::nbytes).sum();
        let (bytes, largest) =
            crate::transforms::bodies::body_bytes(std::iter::once(self.compiled()), shared);
        (bytes * self.size, largest)
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
        _src: &'static std::panic::Location<'static>,
    ) -> Vec<Option<Tensor>> {
        rules::vjp(self, ins, cts, active)
    }
}
