//! The collectives' kernels on devices: each member of a mapped call runs its collective
//! with the others of its [`Group`](crate::devices::Group).
//!
//! The members exchange their operands without copying them (arrays share their
//! buffers). A sum, maximum or minimum is computed once: each member combines its own
//! range of elements of every operand, in member order, into one result buffer that every
//! member then shares, so the result is the same, bit for bit, on every device. A gather
//! has each member copy its operand into its place in one shared result; a `ppermute`
//! hands over the sender's array itself.

use std::sync::{Arc, Mutex};

#[cfg(feature = "mpi")]
use super::across;
use super::{Collective, CollectiveOp};
use crate::array::{with_dtype, Array, Buffer};
use crate::devices::{member, Group};
use crate::prims::{reduce, shape, ReduceOp};

/// The operands of every member, and the result buffer they fill together.
struct Filling {
    inputs: Vec<Array>,
    out: Mutex<Option<Buffer>>,
    /// The address of `out`'s bytes, which the members write through.
    at: usize,
}

impl Filling {
    /// Room for `bytes` bytes, every one of which the members write before the buffer is
    /// read.
    fn new(inputs: Vec<Array>, bytes: usize) -> Filling {
        // SAFETY: every byte is written by one member (`fill_range`, `place`) before the
        // buffer is handed out, after the second meeting.
        let mut buf = unsafe { Buffer::uninit(bytes) };
        let at = buf.as_mut_ptr() as usize;
        Filling {
            inputs,
            out: Mutex::new(Some(buf)),
            at,
        }
    }

    /// The filled buffer as an array (taken once, by the last member to finish).
    fn finish(&self, like: &Array, shape: &[usize]) -> Array {
        let buf = self.out.lock().unwrap_or_else(|e| e.into_inner()).take();
        Array::from_buffer(like.dtype(), shape, buf.expect("taken once"))
    }
}

/// Elements `lo..hi` of `n` split among the members, for member `rank`.
fn part(n: usize, members: usize, rank: usize) -> (usize, usize) {
    (n * rank / members, n * (rank + 1) / members)
}

impl Collective {
    /// Runs a collective over a named axis as the calling member of its group.
    ///
    /// # Panics
    /// Outside a mapped call over that axis.
    pub(super) fn exchange(&self, x: Option<&Array>) -> Array {
        let names = self.names();
        let Some((group, rank)) = member().filter(|(g, _)| names.iter().all(|n| **n == *g.axis()))
        else {
            panic!(
                "{} over axis {}: a collective has a value only inside a function mapped over \
                 its axis (vmap(f).axis_name, pmap, shard_map)",
                self.name(),
                crate::prims::pyfmt::tuple(&self.axes)
            )
        };
        let Some(x) = x else {
            return Array::scalar((group.first() + rank) as i32);
        };
        // Members of uneven blocks gather operands of different lengths along the
        // gathered dimension, shown as `_`.
        let operand = match &self.op {
            CollectiveOp::AllGather {
                sizes: Some(_),
                dimension,
                ..
            } => {
                let dims: Vec<String> = x
                    .shape()
                    .iter()
                    .enumerate()
                    .map(|(k, s)| {
                        if k == *dimension {
                            "_".into()
                        } else {
                            s.to_string()
                        }
                    })
                    .collect();
                format!("{}[{}]", x.dtype(), dims.join(","))
            }
            CollectiveOp::AllGather { sizes: None, .. }
            | CollectiveOp::Psum
            | CollectiveOp::Pmax
            | CollectiveOp::Pmin
            | CollectiveOp::ReduceScatter { .. }
            | CollectiveOp::Ppermute { .. }
            | CollectiveOp::AllToAll { .. }
            | CollectiveOp::AxisIndex => crate::array::aval_of(x).to_string(),
        };
        let what = format!("{}[{}] of {operand}", self.name(), self.printed());
        match &self.op {
            CollectiveOp::Psum | CollectiveOp::Pmax | CollectiveOp::Pmin => {
                let op = self.monoid().expect("a reduction");
                let x = match self.positions() {
                    p if p.is_empty() => x.clone(),
                    p => reduce::reduce(op, x, &p),
                };
                all_reduce(&group, rank, what, op, &x)
            }
            CollectiveOp::AllGather {
                dimension, sizes, ..
            } => {
                let out = self
                    .rule(&[crate::array::aval_of(x)])
                    .expect("checked when bound");
                // Each process's part of the result along `dimension`: its members'.
                let (n, processes) = (group.size(), group.processes());
                let parts: Vec<usize> = match sizes {
                    Some(sizes) => sizes.chunks(n).map(|s| s.iter().sum()).collect(),
                    None => vec![out[0].shape[*dimension] / processes; processes],
                };
                all_gather(&group, rank, what, x, *dimension, &out[0].shape, &parts)
            }
            CollectiveOp::ReduceScatter {
                scatter_dimension,
                tiled,
                ..
            } => {
                let sum = scatter_sum(&group, rank, what, x, *scatter_dimension);
                if *tiled {
                    sum
                } else {
                    let mut s = sum.shape().to_vec();
                    s.remove(*scatter_dimension);
                    sum.reshaped(&s)
                }
            }
            CollectiveOp::Ppermute { perm, .. } => {
                #[cfg(feature = "mpi")]
                if group.processes() > 1 {
                    return across::ppermute(&group, rank, what, x, perm);
                }
                let xs = group.meet(rank, what, x.clone(), |xs| xs);
                match perm.iter().find(|p| p.1 == rank) {
                    Some(&(src, _)) => xs[src].clone(),
                    None => Array::zeros(x.dtype(), x.shape()),
                }
            }
            CollectiveOp::AllToAll {
                split_axis,
                concat_axis,
                ..
            } => {
                #[cfg(feature = "mpi")]
                if group.processes() > 1 {
                    return across::all_to_all(&group, rank, what, x, *split_axis, *concat_axis);
                }
                let xs = group.meet(rank, what, x.clone(), |xs| xs);
                let blocks: Vec<Array> = xs
                    .iter()
                    .map(|a| block(a, *split_axis, xs.len(), rank))
                    .collect();
                shape::concatenate(&blocks, *concat_axis)
            }
            CollectiveOp::AxisIndex => unreachable!("has no operand"),
        }
    }

    /// The parameters as a jaxpr prints them, to tell collectives apart.
    fn printed(&self) -> String {
        let p: Vec<String> = self
            .params()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        p.join(" ")
    }
}

/// `op` of every member's `x`, the same on every member: each member combines its range
/// of elements into the one result.
fn all_reduce(group: &Group, rank: usize, what: String, op: ReduceOp, x: &Array) -> Array {
    let done = combined(group, rank, what.clone(), op, x, |here| {
        reduce_across(group, here, op, &what)
    });
    (*done).clone()
}

/// `across` of `op` of this process's members' `x` (each member combining its range of
/// elements into the one result), called once, by the last member to finish its range;
/// every member gets its result. A process's only member's `x` is its own combination.
pub(super) fn combined<R: Send + Sync + 'static>(
    group: &Group,
    rank: usize,
    what: String,
    op: ReduceOp,
    x: &Array,
    across: impl FnOnce(Array) -> R,
) -> Arc<R> {
    if group.size() == 1 {
        return Arc::new(across(x.clone()));
    }
    let filling = group.meet(rank, what.clone(), x.clone(), |xs| {
        let bytes = xs[0].nbytes();
        Filling::new(xs, bytes)
    });
    let (lo, hi) = part(x.size(), group.size(), rank);
    fill_range(op, &filling, lo, hi);
    group.meet(rank, format!("{what} (combined)"), (), |_| {
        across(filling.finish(x, x.shape()))
    })
}

/// The sum of every member's `x`, of which member `rank` keeps its block along `dimension`
/// (`psum_scatter`).
fn scatter_sum(group: &Group, rank: usize, what: String, x: &Array, dimension: usize) -> Array {
    #[cfg(feature = "mpi")]
    if group.processes() > 1 {
        return across::reduce_scatter(group, rank, what, x, dimension);
    }
    // Each member sums its own block of every member's operand.
    let xs = group.meet(rank, what, x.clone(), |xs| xs);
    let parts: Vec<Array> = xs
        .iter()
        .map(|a| block(a, dimension, xs.len(), rank))
        .collect();
    fold_all(ReduceOp::Sum, &parts)
}

/// Block `k` of `n` of `a` along `dimension`.
pub(super) fn block(a: &Array, dimension: usize, n: usize, k: usize) -> Array {
    let mut start = vec![0; a.ndim()];
    let mut limit = a.shape().to_vec();
    let size = limit[dimension] / n;
    (start[dimension], limit[dimension]) = (k * size, (k + 1) * size);
    shape::slice(a, &start, &limit, None)
}

/// Elements `lo..hi` of `op` over the members' operands, written into the result.
fn fill_range(op: ReduceOp, filling: &Filling, lo: usize, hi: usize) {
    let inputs = &filling.inputs;
    with_dtype!(inputs[0].dtype(), T, {
        crate::prims::with_monoid!(op, T, |_id, f| {
            // SAFETY: `at` is the start of a live buffer of `inputs[0].size()` elements of
            // `T` (taken only after every member has met again), and the members' ranges
            // `lo..hi` do not overlap, so this is the only reference to these elements.
            let out =
                unsafe { std::slice::from_raw_parts_mut((filling.at as *mut T).add(lo), hi - lo) };
            out.copy_from_slice(&inputs[0].as_slice::<T>()[lo..hi]);
            for a in &inputs[1..] {
                for (o, &v) in out.iter_mut().zip(&a.as_slice::<T>()[lo..hi]) {
                    *o = f(*o, v);
                }
            }
        })
    })
}

/// `op` of `parts`, elementwise, in order.
fn fold_all(op: ReduceOp, parts: &[Array]) -> Array {
    let filling = Filling::new(parts.to_vec(), parts[0].nbytes());
    fill_range(op, &filling, 0, parts[0].size());
    filling.finish(&parts[0], parts[0].shape())
}

/// Every member's `x` placed along `dimension` of one shared result of `shape` (stacked, or
/// concatenated when tiled: either way the result is `[outer, members, inner]` with
/// `outer` the dimensions before `dimension` and `inner` the operand's from there, which
/// may differ between members when their blocks are uneven). Process `p`'s members fill
/// `parts[p]` of the result's length along `dimension`.
fn all_gather(
    group: &Group,
    rank: usize,
    what: String,
    x: &Array,
    dimension: usize,
    shape: &[usize],
    parts: &[usize],
) -> Array {
    // This process's members' part of the result (all of it without MPI).
    let mut local = shape.to_vec();
    local[dimension] = parts[group.first() / group.size()];
    let filling = group.meet(rank, what.clone(), x.clone(), |xs| {
        // The members' runs must tile the result: one rank, and one shape but for the
        // gathered dimension (which the shape rule checked against the sizes).
        let cut = |a: &Array| {
            let mut s = a.shape().to_vec();
            if !s.is_empty() {
                s.remove(dimension.min(s.len() - 1));
            }
            (a.ndim(), s)
        };
        assert!(
            xs.iter().all(|a| cut(a) == cut(&xs[0])),
            "{what}: the members' operands differ beyond the gathered dimension: {:?}",
            xs.iter().map(|a| a.shape().to_vec()).collect::<Vec<_>>()
        );
        let bytes = xs.iter().map(Array::nbytes).sum();
        assert_eq!(
            bytes,
            local.iter().product::<usize>() * x.dtype().size(),
            "{what}: the members' operands do not fill the result of shape {local:?}"
        );
        Filling::new(xs, bytes)
    });
    let outer: usize = x.shape()[..dimension].iter().product();
    let inners: Vec<usize> = filling
        .inputs
        .iter()
        .map(|a| a.nbytes() / outer.max(1))
        .collect();
    let stride: usize = inners.iter().sum();
    let (offset, inner) = (inners[..rank].iter().sum::<usize>(), inners[rank]);
    let src = x.as_bytes();
    for o in 0..outer {
        // SAFETY: the result holds `outer * stride` bytes and stays alive until every member
        // has met again; member `rank` alone writes the runs `o * stride + offset`, of its
        // `inner` bytes each, which the other members' runs do not overlap.
        unsafe {
            let dst = (filling.at as *mut u8).add(o * stride + offset);
            std::ptr::copy_nonoverlapping(src[o * inner..].as_ptr(), dst, inner);
        }
    }
    let done = group.meet(rank, format!("{what} (gathered)"), (), |_| {
        let here = filling.finish(x, &local);
        if group.processes() == 1 {
            return here;
        }
        // This process's members joined, then the processes' joined in rank order.
        gather_across(here, dimension, parts, &what)
    });
    (*done).clone()
}

/// A reduction's result in this process, combined with the other processes' (MPI).
#[cfg(feature = "mpi")]
fn reduce_across(group: &Group, local: Array, op: ReduceOp, what: &str) -> Array {
    use crate::devices::distributed::{all_reduce, Combine};
    if group.processes() == 1 {
        return local;
    }
    let how = match op {
        ReduceOp::Sum => Combine::Sum,
        ReduceOp::Max => Combine::Max,
        ReduceOp::Min => Combine::Min,
        other => unreachable!("no collective reduces by {other:?}"),
    };
    all_reduce(&local, how, what)
}

/// Without MPI a group is one process's.
#[cfg(not(feature = "mpi"))]
fn reduce_across(_group: &Group, local: Array, _op: ReduceOp, _what: &str) -> Array {
    local
}

/// A gather's result in this process, joined with the other processes' along `dimension`
/// (process `p`'s `parts[p]` long along it).
#[cfg(feature = "mpi")]
fn gather_across(local: Array, dimension: usize, parts: &[usize], what: &str) -> Array {
    crate::devices::distributed::all_gather(&local, dimension, parts, what)
}

/// Without MPI a group is one process's.
#[cfg(not(feature = "mpi"))]
fn gather_across(local: Array, _dimension: usize, _parts: &[usize], _what: &str) -> Array {
    local
}
