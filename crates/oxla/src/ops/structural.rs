//! `jax.lax`'s conveniences over single primitives: `dot`, `batch_matmul`, `broadcast`,
//! `broadcast_to_rank`, `select`, `split`, the scatter variants by name (`scatter_add` ...),
//! and `optimization_barrier`.

use super::{broadcast_in_dim, dot_general, scatter, select_n, slice};
use crate::array::DType;
use crate::core::Tensor;
use crate::prims::{GatherMode, ScatterDims, ScatterOp};

/// A vector or matrix product (JAX's `lax.dot`): the last axis of `lhs` against the first
/// of `rhs`, for operands of rank 1 or 2.
///
/// ```
/// use oxla::{lax, numpy as jnp};
/// let a = jnp::array(&[1.0f32, 2.0], &[2]);
/// assert_eq!(lax::dot(&a, &a, None).item(), 5.0);
/// ```
#[track_caller]
pub fn dot(lhs: &Tensor, rhs: &Tensor, preferred_element_type: Option<DType>) -> Tensor {
    if !(1..=2).contains(&lhs.ndim()) || !(1..=2).contains(&rhs.ndim()) {
        panic!(
            "dot: operands must be vectors or matrices, got {} and {}\n  at {}",
            lhs.aval(),
            rhs.aval(),
            std::panic::Location::caller()
        );
    }
    dot_general(
        lhs,
        rhs,
        (&[lhs.ndim() - 1], &[0]),
        (&[], &[]),
        preferred_element_type,
    )
}

/// Matrix products over leading batch dimensions (JAX's `lax.batch_matmul`): operands of
/// one rank, at least 2, with equal batch dimensions.
#[track_caller]
pub fn batch_matmul(lhs: &Tensor, rhs: &Tensor) -> Tensor {
    let n = lhs.ndim();
    if n < 2 || rhs.ndim() != n || lhs.shape()[..n - 2] != rhs.shape()[..n - 2] {
        panic!(
            "batch_matmul: operands need one rank of at least 2 and equal batch dimensions, \
             got {} and {}\n  at {}",
            lhs.aval(),
            rhs.aval(),
            std::panic::Location::caller()
        );
    }
    let batch: Vec<usize> = (0..n - 2).collect();
    dot_general(lhs, rhs, (&[n - 1], &[n - 2]), (&batch, &batch), None)
}

/// `x` with leading dimensions `sizes` added (JAX's `lax.broadcast`).
#[track_caller]
pub fn broadcast(x: &Tensor, sizes: &[usize]) -> Tensor {
    let mut shape = sizes.to_vec();
    shape.extend_from_slice(x.shape());
    let dims: Vec<usize> = (sizes.len()..shape.len()).collect();
    broadcast_in_dim(x, &shape, &dims)
}

/// `x` with leading size-1 dimensions up to `rank` (JAX's `lax.broadcast_to_rank`).
#[track_caller]
pub fn broadcast_to_rank(x: &Tensor, rank: usize) -> Tensor {
    if rank <= x.ndim() {
        return x.clone();
    }
    broadcast(x, &vec![1; rank - x.ndim()])
}

/// `on_true` where `pred`, else `on_false` (JAX's `lax.select`, `select_n` of two cases).
#[track_caller]
pub fn select(pred: &Tensor, on_true: &Tensor, on_false: &Tensor) -> Tensor {
    select_n(pred, &[on_false.clone(), on_true.clone()])
}

/// `x` cut along `axis` into consecutive pieces of `sizes`, which must sum to its length
/// (JAX's `lax.split`).
#[track_caller]
pub fn split(x: &Tensor, sizes: &[usize], axis: usize) -> Vec<Tensor> {
    if axis >= x.ndim() || sizes.iter().sum::<usize>() != x.shape()[axis] {
        panic!(
            "split: sizes {sizes:?} must sum to the length of axis {axis} of {}\n  at {}",
            x.aval(),
            std::panic::Location::caller()
        );
    }
    let mut start = 0;
    sizes
        .iter()
        .map(|&n| {
            let mut starts = vec![0; x.ndim()];
            let mut limits = x.shape().to_vec();
            starts[axis] = start;
            limits[axis] = start + n;
            start += n;
            slice(x, &starts, &limits, None)
        })
        .collect()
}

macro_rules! scatter_named {
    ($($name:ident => $op:ident),* $(,)?) => {$(
        #[doc = concat!("JAX's `lax.", stringify!($name), "`: [`scatter`] with `ScatterOp::",
                        stringify!($op), "`.")]
        #[track_caller]
        pub fn $name(
            x: &Tensor,
            indices: &Tensor,
            updates: &Tensor,
            dims: ScatterDims,
            mode: GatherMode,
        ) -> Tensor {
            scatter(ScatterOp::$op, x, indices, updates, dims, mode)
        }
    )*};
}
scatter_named!(scatter_add => Add, scatter_mul => Mul, scatter_min => Min, scatter_max => Max);

/// The operands unchanged (JAX's `lax.optimization_barrier`): in JAX a fence XLA may not
/// move computation across; oxla's compiler has no such rewrite to fence, so it is the
/// identity.
pub fn optimization_barrier(xs: Vec<Tensor>) -> Vec<Tensor> {
    xs
}
