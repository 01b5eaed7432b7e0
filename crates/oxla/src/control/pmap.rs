//! `pmap` and `shard_map`: a function run once per device, both staged as the one
//! `shard_map` primitive (`shard_map/`).
//!
//! `pmap(f)` has JAX 0.10's semantics: `vmap`, but one example per device. The mapped size
//! must not pass the device count; each device's block of one example is squeezed before
//! `f` sees it and its results are expanded again, exactly as JAX's `pmap` is built on
//! `shard_map`. `shard_map(f)` hands `f` blocks that keep their rank, one per device, cut
//! along the dimensions its `in_specs` name.

use crate::source::Source;

use super::shard_map::{block_aval, stage_advised, OutSpec, Span};
use crate::core::axis_env::with_axis;
use crate::core::tree::Tree;
use crate::core::{trace_avals, with_line, Aval, Tensor};
use crate::ops as lax;
use crate::transforms::axis_tree::AxisTree;

/// The name a `pmap` without an axis name maps over (collectives cannot name it).
const UNNAMED: &str = "_internal_pmap_axis_name";

/// `f` mapped over devices; see [`pmap`].
#[derive(Clone)]
pub struct Pmap<F> {
    f: F,
    axis_name: &'static str,
    in_axes: AxisTree,
    out_axes: AxisTree,
}

/// Runs `f` once per device on one example each, as `jax.pmap`: the mapped axis (0 unless
/// [`in_axes`](Pmap::in_axes) says otherwise) must not be longer than
/// [`local_device_count`](crate::local_device_count), and collectives over
/// [`axis_name`](Pmap::axis_name) run across the devices. Under MPI (`--features mpi`)
/// each process maps over all its devices and the axis is every process's, rank by rank.
///
/// ```
/// use oxla::{lax, numpy as jnp, pmap, Tensor};
/// oxla::set_num_devices(2);
/// let xs = jnp::arange(2.0) + 1.0;
/// let shares: Tensor = pmap(|x: Tensor| &x / lax::psum(&x, "i")).axis_name("i").call(xs);
/// assert_eq!(shares.to_vec::<f32>(), vec![1.0 / 3.0, 2.0 / 3.0]);
/// ```
pub fn pmap<F>(f: F) -> Pmap<F> {
    Pmap {
        f,
        axis_name: UNNAMED,
        in_axes: AxisTree::Leaf(Some(0)),
        out_axes: AxisTree::Leaf(Some(0)),
    }
}

impl<F> Pmap<F> {
    /// Names the mapped axis, for the collectives in `f`.
    pub fn axis_name(mut self, name: &'static str) -> Self {
        self.axis_name = name;
        self
    }

    /// Which axis of each argument is mapped (`None`: every device gets it whole, shared
    /// rather than copied), as [`Vmap::in_axes`](crate::transforms::Vmap::in_axes).
    pub fn in_axes(mut self, axes: impl Into<AxisTree>) -> Self {
        self.in_axes = axes.into();
        self
    }

    /// Where the mapped axis goes in each result (`None`: the result is the same on every
    /// device, and device 0's is returned).
    pub fn out_axes(mut self, axes: impl Into<AxisTree>) -> Self {
        self.out_axes = axes.into();
        self
    }

    /// Runs `f` on every device.
    ///
    /// Mistakes in the axes, and a mapped size larger than the device count, panic naming
    /// the caller's line.
    #[track_caller]
    pub fn call<A: Tree, O: Tree>(&self, args: A) -> O
    where
        F: Fn(A) -> O,
    {
        self.call_at(args, crate::core::current_line())
    }

    /// The mapped function as a function, to pass to another transform.
    #[track_caller]
    pub fn as_fn<A: Tree, O: Tree>(self) -> impl Fn(A) -> O
    where
        F: Fn(A) -> O,
    {
        let at = crate::core::current_line();
        move |args| self.call_at(args, at)
    }

    fn call_at<A: Tree, O: Tree>(&self, args: A, at: Source) -> O
    where
        F: Fn(A) -> O,
    {
        with_line(at, || {
            let leaves = args.leaves();
            let axes = self.in_axes.leaf_axes(&args.def(), &leaves, "pmap", at);
            let sizes: Vec<usize> = leaves
                .iter()
                .zip(&axes)
                .filter_map(|(t, a)| a.map(|a| t.shape()[a]))
                .collect();
            let Some(&n) = sizes.first() else {
                panic!("pmap: no argument is mapped (every in_axes is None)\n  at {at}");
            };
            if sizes.iter().any(|&s| s != n) {
                panic!("pmap: mapped axes must all have one size, got {sizes:?}\n  at {at}");
            }
            // Each process maps over its own devices; under MPI the axis is every
            // process's devices, rank by rank.
            let devices = crate::devices::local_device_count();
            if n > devices {
                panic!(
                    "pmap: the mapped axis has size {n}, which requires {n} devices, but only \
                     {devices} are available (OXLA_NUM_DEVICES or oxla::set_num_devices sets \
                     the count)\n  at {at}"
                );
            }
            let processes = crate::devices::process_count();
            if processes > 1 && n != devices {
                panic!(
                    "pmap across {processes} processes maps over every local device, as JAX's \
                     does: the mapped axis has size {n}, this process has {devices} devices\n  \
                     at {at}"
                );
            }
            let avals: Vec<Aval> = leaves
                .iter()
                .zip(&axes)
                .map(|(t, a)| block_aval(&t.aval(), *a, 1, n))
                .collect();
            let mut out_def = None;
            let mut out_specs = Vec::new();
            let body = |blocks: A| {
                let leaves: Vec<Tensor> = blocks
                    .leaves()
                    .into_iter()
                    .zip(&axes)
                    .map(|(b, a)| a.map_or(b.clone(), |a| lax::squeeze(&b, &[a])))
                    .collect();
                let out = (self.f)(blocks.rebuild(&mut leaves.into_iter()));
                let def = out.def();
                let oa = self.out_axes.per_leaf(&def, "pmap", "out_axes", at);
                out_def = Some(def);
                out.leaves()
                    .into_iter()
                    .zip(oa)
                    .map(|(t, a)| match a {
                        None => {
                            out_specs.push(OutSpec::Invariant);
                            t
                        }
                        Some(a) => {
                            let r = t.ndim() as isize + 1;
                            if a < -r || a >= r {
                                panic!("pmap: out_axes {a} is out of range for a result of rank {r}\n  at {at}");
                            }
                            let a = a.rem_euclid(r) as usize;
                            out_specs.push(OutSpec::Concat(a));
                            lax::expand_dims(&t, &[a as isize])
                        }
                    })
                    .collect::<Vec<Tensor>>()
            };
            let (cj, _) = with_axis(self.axis_name, n * processes, || {
                trace_avals(body, &args, &avals)
            });
            let outs = stage_advised(
                self.axis_name,
                &vec![1; n],
                &leaves,
                axes,
                vec![cj],
                out_specs,
                vec![None],
                Span {
                    processes,
                    ..Span::LOCAL
                },
            );
            O::from_def(&out_def.expect("traced"), &mut outs.into_iter())
                .expect("the traced structure")
        })
    }
}

/// `f` on blocks over devices; see [`shard_map`].
#[derive(Clone)]
pub struct ShardMap<F> {
    f: F,
    axis_name: &'static str,
    devices: Option<usize>,
    in_specs: AxisTree,
    out_specs: AxisTree,
    check_vma: bool,
}

/// Runs `f` once per device on blocks of its arguments, as `jax.shard_map` over a 1-D
/// mesh whose axis is [`axis_name`](ShardMap::axis_name): each argument is cut into one
/// block per device along the dimension its [`in_specs`](ShardMap::in_specs) entry names
/// (`None`: whole on every device), `f` sees blocks of the same rank, and each result is
/// joined along its [`out_specs`](ShardMap::out_specs) dimension (`None`: the same on every
/// device). Dimensions must divide evenly.
///
/// Under MPI (`--features mpi`, after `oxla::distributed::initialize`), the mesh is every
/// process's devices, rank by rank, as `pmap`'s axis is: each process passes its own part
/// of each cut argument, its devices take their blocks of it, and each joined result is
/// this process's part.
///
/// ```
/// use oxla::{lax, numpy as jnp, shard_map, Tensor};
/// let x = jnp::arange(8.0);
/// let total: Tensor = shard_map(|b: Tensor| lax::psum(&b.sum(None), "i"))
///     .axis_name("i")
///     .out_specs(None::<i32>)
///     .call(x);
/// assert_eq!(total.item(), 28.0);
/// ```
pub fn shard_map<F>(f: F) -> ShardMap<F> {
    ShardMap {
        f,
        axis_name: UNNAMED,
        devices: None,
        in_specs: AxisTree::Leaf(Some(0)),
        out_specs: AxisTree::Leaf(Some(0)),
        check_vma: true,
    }
}

impl<F> ShardMap<F> {
    /// Names the mesh's axis, for the collectives in `f`.
    pub fn axis_name(mut self, name: &'static str) -> Self {
        self.axis_name = name;
        self
    }

    /// How many devices the mesh has (default: every device).
    pub fn devices(mut self, n: usize) -> Self {
        self.devices = Some(n);
        self
    }

    /// The dimension of each argument cut among the devices (`None`: not cut).
    pub fn in_specs(mut self, specs: impl Into<AxisTree>) -> Self {
        self.in_specs = specs.into();
        self
    }

    /// The dimension of each result its blocks are joined along (`None`: the result is the
    /// same on every device).
    pub fn out_specs(mut self, specs: impl Into<AxisTree>) -> Self {
        self.out_specs = specs.into();
        self
    }

    /// Whether to refuse a result that [`out_specs`](Self::out_specs) says is the same on
    /// every device (`None`) but that varies over the axis (default `true`, as JAX's
    /// `check_vma`): made from a cut argument's block, `axis_index`, `ppermute`,
    /// `all_to_all` or `psum_scatter` with no `psum`, `pmax`, `pmin` or `all_gather`
    /// over the axis after. With `false`, such a result is device 0's.
    ///
    /// ```should_panic
    /// use oxla::{numpy as jnp, shard_map, Tensor};
    /// // Each device's block sum differs: `out_specs(None)` would hide all but one.
    /// let _: Tensor = shard_map(|b: Tensor| b.sum(None))
    ///     .axis_name("i")
    ///     .out_specs(None::<i32>)
    ///     .call(jnp::arange(8.0));
    /// ```
    pub fn check_vma(mut self, check: bool) -> Self {
        self.check_vma = check;
        self
    }

    /// Runs `f` on every device. Dimensions that do not divide evenly, a mesh larger than
    /// the device count, and a result said to be the same on every device that varies
    /// (see [`check_vma`](Self::check_vma)) panic naming the caller's line.
    #[track_caller]
    pub fn call<A: Tree, O: Tree>(&self, args: A) -> O
    where
        F: Fn(A) -> O,
    {
        let at = crate::core::current_line();
        with_line(at, || {
            let leaves = args.leaves();
            let dims = self
                .in_specs
                .leaf_axes(&args.def(), &leaves, "shard_map", at);
            let count = crate::devices::local_device_count();
            let n = self.devices.unwrap_or(count);
            if n == 0 || n > count {
                panic!("shard_map: a mesh of {n} devices, but {count} are available\n  at {at}");
            }
            let processes = crate::devices::process_count();
            if processes > 1 && n != count {
                panic!(
                    "shard_map across {processes} processes meshes every local device: \
                     {n} devices asked for, this process has {count}\n  at {at}"
                );
            }
            for (i, (t, d)) in leaves.iter().zip(&dims).enumerate() {
                if let Some(d) = d {
                    if t.shape()[*d] % n != 0 {
                        panic!(
                            "shard_map: argument leaf {i} of shape {:?} is cut along dimension \
                             {d} among {n} devices, but {} does not divide evenly\n  at {at}",
                            t.shape(),
                            t.shape()[*d]
                        );
                    }
                }
            }
            let avals: Vec<Aval> = leaves
                .iter()
                .zip(&dims)
                .map(|(t, a)| block_aval(&t.aval(), *a, 1, n))
                .collect();
            let mut out_def = None;
            let mut out_specs = Vec::new();
            let body = |blocks: A| {
                let out = (self.f)(blocks);
                let def = out.def();
                let specs = self.out_specs.per_leaf(&def, "shard_map", "out_specs", at);
                for (k, (s, t)) in specs.into_iter().zip(out.leaves()).enumerate() {
                    out_specs.push(match s {
                        None => OutSpec::Invariant,
                        Some(d) => {
                            let r = t.ndim() as isize;
                            if d < -r || d >= r {
                                panic!(
                                    "shard_map: out_specs {d} is out of range for result leaf \
                                     {k} of rank {r}\n  at {at}"
                                );
                            }
                            OutSpec::Concat(d.rem_euclid(r) as usize)
                        }
                    });
                }
                out_def = Some(def);
                out.leaves()
            };
            let (cj, _) = with_axis(self.axis_name, n * processes, || {
                trace_avals(body, &args, &avals)
            });
            if self.check_vma {
                super::shard_map::vma::check(&cj, &dims, &out_specs, self.axis_name, at);
            }
            let outs = stage_advised(
                self.axis_name,
                &vec![1; n],
                &leaves,
                dims,
                vec![cj],
                out_specs,
                vec![None],
                Span {
                    processes,
                    ..Span::LOCAL
                },
            );
            O::from_def(&out_def.expect("traced"), &mut outs.into_iter())
                .expect("the traced structure")
        })
    }
}
