//! The collectives of `jax.lax`: reductions and exchanges over a named mapped axis, inside
//! `vmap(f).axis_name(..)` (later `pmap` and `shard_map`), or traced under
//! [`axis_env`](crate::axis_env).
//!
//! Each names its axis (or, for the `psum` family and `axis_index`, a tuple of axes, read
//! as their product, the first the major one) and reads the axis size from the axis
//! environment. Naming an axis no mapped function binds panics at trace time, naming the
//! bound axes and the caller's line.

use std::panic::Location;
use std::sync::Arc;

use super::bind1;
use crate::array::{Array, DType};
use crate::core::axis_env;
use crate::core::{Prim, Tensor};
use crate::prims::{AxisName, BinaryOp, Collective, CollectiveOp};

/// The named axes a collective runs over: one name (`"i"`), or a tuple or slice of names
/// read as their product axis (`("i", "j")`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AxisNames(Vec<Arc<str>>);

impl From<&str> for AxisNames {
    fn from(n: &str) -> Self {
        AxisNames(vec![Arc::from(n)])
    }
}

impl From<(&str, &str)> for AxisNames {
    fn from((a, b): (&str, &str)) -> Self {
        AxisNames(vec![Arc::from(a), Arc::from(b)])
    }
}

impl From<&[&str]> for AxisNames {
    fn from(ns: &[&str]) -> Self {
        AxisNames(ns.iter().map(|&n| Arc::from(n)).collect())
    }
}

impl<const N: usize> From<[&str; N]> for AxisNames {
    fn from(ns: [&str; N]) -> Self {
        AxisNames(ns.iter().map(|&n| Arc::from(n)).collect())
    }
}

impl AxisNames {
    /// The size of the product axis, every name checked to be bound.
    #[track_caller]
    fn size(&self, what: &str) -> usize {
        let at = crate::source::Source::caller();
        self.0
            .iter()
            .map(|n| axis_env::axis_size(n, what, at))
            .product()
    }

    fn axes(&self) -> Vec<AxisName> {
        self.0.iter().cloned().map(AxisName::Named).collect()
    }
}

fn scalar(v: f64, dtype: DType) -> Tensor {
    Tensor::new(Array::scalar_from_f64(v, dtype))
}

/// The collective `op(axis size)` over the one axis `axis_name`, which `what` names.
#[track_caller]
fn over_one(
    x: &Tensor,
    axis_name: &str,
    what: &str,
    op: impl FnOnce(usize) -> CollectiveOp,
) -> Tensor {
    let names = AxisNames::from(axis_name);
    let op = op(names.size(what));
    collective(op, names.axes(), std::slice::from_ref(x))
}

#[track_caller]
fn collective(op: CollectiveOp, axes: Vec<AxisName>, x: &[Tensor]) -> Tensor {
    bind1(Prim::Collective(Collective { op, axes }), x)
}

/// The sum of `x` over the named axes, the same on every member (`jax.lax.psum`). A bool
/// operand is summed as `int32`; a value that does not depend on the mapped arguments is
/// multiplied by the axis size.
///
/// ```
/// use oxla::{lax, numpy as jnp, vmap, Tensor};
/// let xs = jnp::arange(6.0).reshape(&[3, 2]);
/// let f = |x: Tensor| &x / lax::psum(&x, "i");
/// let shares: Tensor = vmap(f).axis_name("i").call(xs);
/// assert_eq!(shares.to_vec::<f32>()[..2], [0.0, 1.0 / 9.0]);
/// ```
#[track_caller]
pub fn psum(x: &Tensor, axes: impl Into<AxisNames>) -> Tensor {
    let axes = axes.into();
    let n = axes.size("psum");
    let x = match x.dtype() {
        DType::Bool => super::convert_element_type(x, DType::I32),
        _ => x.clone(),
    };
    if let Some(a) = x.try_array() {
        // A constant, computed at once even inside a trace (as JAX does).
        let n = Array::scalar_from_f64(n as f64, x.dtype());
        let times = Prim::Binary(BinaryOp::Mul).eval(&[a.clone(), n]);
        return Tensor::new(times.into_iter().next().expect("one result"));
    }
    collective(CollectiveOp::Psum, axes.axes(), &[x])
}

/// The mean of `x` over the named axes (`jax.lax.pmean`): [`psum`] divided by the axis
/// size; an integer operand's mean is `float32`.
#[track_caller]
pub fn pmean(x: &Tensor, axes: impl Into<AxisNames>) -> Tensor {
    let axes = axes.into();
    let n = axes.size("pmean");
    let s = psum(x, axes);
    let s = if s.dtype().is_inexact() {
        s
    } else {
        super::convert_element_type(&s, DType::F32)
    };
    super::div(&s, &scalar(n as f64, s.dtype()))
}

/// The maximum of `x` over the named axes (`jax.lax.pmax`). Unlike JAX, it has a
/// derivative: the tangent at the members holding the maximum, shared among ties.
#[track_caller]
pub fn pmax(x: &Tensor, axes: impl Into<AxisNames>) -> Tensor {
    extremum(CollectiveOp::Pmax, "pmax", x, axes.into())
}

/// The minimum of `x` over the named axes (`jax.lax.pmin`); see [`pmax`].
#[track_caller]
pub fn pmin(x: &Tensor, axes: impl Into<AxisNames>) -> Tensor {
    extremum(CollectiveOp::Pmin, "pmin", x, axes.into())
}

#[track_caller]
fn extremum(op: CollectiveOp, what: &str, x: &Tensor, axes: AxisNames) -> Tensor {
    axes.size(what);
    if !x.is_tracer() {
        return x.clone();
    }
    collective(op, axes.axes(), std::slice::from_ref(x))
}

/// Every member's `x` stacked along a new axis `axis` of the result (`jax.lax.all_gather`),
/// or, `tiled`, concatenated along `axis`.
#[track_caller]
pub fn all_gather(x: &Tensor, axis_name: &str, axis: usize, tiled: bool) -> Tensor {
    over_one(x, axis_name, "all_gather", |axis_size| {
        CollectiveOp::AllGather {
            dimension: axis,
            axis_size,
            tiled,
            sizes: None,
        }
    })
}

/// The sum of `x` over the axis, member `k` keeping slice `k` along `scatter_dimension`
/// (`jax.lax.psum_scatter`): untiled, the dimension's size is the axis size and it goes
/// away; `tiled`, each member keeps a block of it.
#[track_caller]
pub fn psum_scatter(x: &Tensor, axis_name: &str, scatter_dimension: usize, tiled: bool) -> Tensor {
    over_one(x, axis_name, "psum_scatter", |axis_size| {
        CollectiveOp::ReduceScatter {
            scatter_dimension,
            axis_size,
            tiled,
        }
    })
}

/// Member `src`'s `x` sent to member `dst` for each pair of `perm` (`jax.lax.ppermute`);
/// a member that no pair sends to receives zeros. A source or destination listed twice,
/// or out of range, panics at trace time.
#[track_caller]
pub fn ppermute(x: &Tensor, axis_name: &str, perm: &[(usize, usize)]) -> Tensor {
    let at = Location::caller();
    over_one(x, axis_name, "ppermute", |axis_size| {
        if let Err(m) = crate::prims::collective::check_perm(perm, axis_size) {
            panic!("ppermute: {m}\n  at {at}");
        }
        CollectiveOp::Ppermute {
            perm: perm.to_vec(),
            axis_size,
        }
    })
}

/// Member `j`'s slice `k` along `split_axis` sent to member `k`, which joins what it
/// receives along `concat_axis` in member order (`jax.lax.all_to_all`). Untiled, the split
/// axis's size is the axis size and it goes away while `concat_axis` is a new axis;
/// `tiled`, blocks of the split axis are sent and concatenated.
#[track_caller]
pub fn all_to_all(
    x: &Tensor,
    axis_name: &str,
    split_axis: usize,
    concat_axis: usize,
    tiled: bool,
) -> Tensor {
    let n = AxisNames::from(axis_name).size("all_to_all");
    let axes = AxisNames::from(axis_name).axes();
    let op = |split_axis, concat_axis| CollectiveOp::AllToAll {
        split_axis,
        concat_axis,
        axis_size: n,
        tiled,
    };
    if tiled {
        return collective(op(split_axis, concat_axis), axes, std::slice::from_ref(x));
    }
    if x.shape().get(split_axis) != Some(&n) {
        panic!(
            "all_to_all: untiled, split_axis {split_axis} of {} must have the axis size {n}\n  \
             at {}",
            x.aval(),
            Location::caller()
        );
    }
    // As JAX: a new axis at `concat_axis` (counted after the split axis goes), exchanged in
    // blocks, then the split axis (now of size 1) removed.
    let concat = concat_axis + usize::from(split_axis < concat_axis);
    let split = split_axis + usize::from(split_axis >= concat);
    let x = super::expand_dims(x, &[concat as isize]);
    let y = collective(op(split, concat), axes, &[x]);
    super::squeeze(&y, &[split])
}

/// The member's index along the named axes, an `int32` scalar (`jax.lax.axis_index`); for
/// a tuple of names, the index along their product axis, the first name the major one.
#[track_caller]
pub fn axis_index(axes: impl Into<AxisNames>) -> Tensor {
    let axes = axes.into();
    axes.size("axis_index");
    if let [n] = axes.0.as_slice() {
        return collective(
            CollectiveOp::AxisIndex,
            vec![AxisName::Named(n.clone())],
            &[],
        );
    }
    // As JAX: the minor names first, each index times the sizes after it.
    let mut index = Tensor::scalar(0i32);
    let mut stride = 1;
    for name in axes.0.iter().rev() {
        let i = collective(
            CollectiveOp::AxisIndex,
            vec![AxisName::Named(name.clone())],
            &[],
        );
        index = super::add(&index, &super::mul(&i, &Tensor::scalar(stride as i32)));
        stride *= AxisNames(vec![name.clone()]).size("axis_index");
    }
    index
}

/// The size of the named axes (their product for a tuple), a Rust number known at trace
/// time (`jax.lax.axis_size`).
#[track_caller]
pub fn axis_size(axes: impl Into<AxisNames>) -> usize {
    axes.into().size("axis_size")
}

/// [`ppermute`] with the permutation given by sources: member `k` receives member
/// `perm[k]`'s `x` (`jax.lax.pshuffle`). `perm` must list every member once.
#[track_caller]
pub fn pshuffle(x: &Tensor, axis_name: &str, perm: &[usize]) -> Tensor {
    let n = AxisNames::from(axis_name).size("pshuffle");
    let mut seen = vec![false; n];
    for &p in perm {
        if p < n {
            seen[p] = true;
        }
    }
    if perm.len() != n || seen.contains(&false) {
        panic!(
            "pshuffle: perm {perm:?} is not a permutation of the {n} members of axis \
             {axis_name:?}\n  at {}",
            Location::caller()
        );
    }
    let pairs: Vec<(usize, usize)> = perm.iter().enumerate().map(|(k, &s)| (s, k)).collect();
    ppermute(x, axis_name, &pairs)
}

/// The mapped axis swapped with axis `axis` of `x`, whose size must be the axis size
/// (`jax.lax.pswapaxes`): member `k` gets every member's slice `k`, stacked at `axis`.
#[track_caller]
pub fn pswapaxes(x: &Tensor, axis_name: &str, axis: usize) -> Tensor {
    all_to_all(x, axis_name, axis, axis, false)
}

/// Member `source`'s `x` on every member (`jax.lax.pbroadcast`): the sum of `x` where the
/// member is the source, zero elsewhere, so its derivative flows back to the source alone.
#[track_caller]
pub fn pbroadcast(x: &Tensor, axis_name: &str, source: usize) -> Tensor {
    let n = AxisNames::from(axis_name).size("pbroadcast");
    if source >= n {
        panic!(
            "pbroadcast: source {source} is out of range for axis {axis_name:?} of size {n}\n  \
             at {}",
            Location::caller()
        );
    }
    let here = super::eq(&axis_index(axis_name), &Tensor::scalar(source as i32));
    let here = super::broadcast_in_dim(&here, x.shape(), &[]);
    let zero = super::broadcast_in_dim(&scalar(0.0, x.dtype()), x.shape(), &[]);
    let sum = psum(&super::select_n(&here, &[zero, x.clone()]), axis_name);
    // A bool's sum is an int32 (of one nonzero member): back to bool, as JAX keeps it.
    if sum.dtype() == x.dtype() {
        sum
    } else {
        super::convert_element_type(&sum, x.dtype())
    }
}
