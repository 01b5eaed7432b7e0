//! Reductions across the ranks: `all_reduce_into` for `psum`, `pmax` and `pmin` (and a
//! map's summed results), `reduce_scatter_block_into` for `psum_scatter`. Each rank brings
//! its process's combined value; every element type crosses: half floats as `f32` (rounded
//! back once), complex sums as their parts, bools as bytes.
//!
//! MPI's maximum and minimum of floats leave NaN to the implementation; oxla's propagate
//! it, so a float `pmax` or `pmin` first agrees on whether any rank holds a NaN, and when
//! one does, marks the elements that are NaN on any rank.

use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives, Equivalence};

use super::{
    calling, check_same, collective, fresh, max_count, pack_round, round_piece, with_mpi_dtype,
};
use crate::array::{Array, Buffer, DType, Elem};

/// How the ranks' arrays combine.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Combine {
    /// Elementwise sum.
    Sum,
    /// Elementwise maximum.
    Max,
    /// Elementwise minimum.
    Min,
}

/// `how` of every rank's `a`, elementwise, the same on every rank.
pub(crate) fn all_reduce(a: &Array, how: Combine, what: &str) -> Array {
    check_same(what);
    let nan = matches!(how, Combine::Max | Combine::Min) && a.dtype().is_float();
    let out = match a.dtype() {
        DType::F16 => through_f32::<half::f16>(a, how, what),
        DType::BF16 => through_f32::<half::bf16>(a, how, what),
        DType::C64 | DType::C128 if matches!(how, Combine::Sum) => sum_parts(a, what),
        dtype => with_mpi_dtype!(dtype, T, { reduce_as::<T>(a, how, what) },
            other => panic!("{what}: {other:?} has no maximum or minimum across processes")),
    };
    if nan {
        with_nans(a, out, what)
    } else {
        out
    }
}

/// [`all_reduce`] of `T` (or bool as bytes) into a result of `a`'s shape.
fn reduce_as<T: Elem + Equivalence>(a: &Array, how: Combine, what: &str) -> Array {
    // Bools are 0 or 1 bytes: their sum and maximum is `or`, their minimum `and`.
    let send: &[T] = bytes_as(a);
    let mut buf = fresh(a.nbytes());
    reduce_into(send, buf.as_mut_slice::<T>(), op(how, a.dtype()), what);
    Array::from_buffer(a.dtype(), a.shape(), buf)
}

/// MPI's operation for `how` over `dtype`.
fn op(how: Combine, dtype: DType) -> SystemOperation {
    match how {
        Combine::Sum if dtype == DType::Bool => SystemOperation::max(),
        Combine::Sum => SystemOperation::sum(),
        Combine::Max => SystemOperation::max(),
        Combine::Min => SystemOperation::min(),
    }
}

/// `a`'s elements as `T` (its own type, or bytes for bool).
fn bytes_as<T: Elem>(a: &Array) -> &[T] {
    if a.dtype() == DType::Bool {
        let bytes = a.as_bytes();
        // SAFETY: `T` is `u8` for bools (`with_mpi_dtype`), so the cast keeps the length
        // and alignment of the bytes.
        assert_eq!(T::DTYPE, DType::U8);
        unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), bytes.len()) }
    } else {
        a.as_slice::<T>()
    }
}

/// `how` of every rank's `send` into `recv`, in messages under MPI's count.
fn reduce_into<T: Equivalence>(send: &[T], recv: &mut [T], op: SystemOperation, what: &str) {
    let world = SimpleCommunicator::world();
    let limit = max_count();
    calling(what, |deadline| {
        for (s, r) in send.chunks(limit).zip(recv.chunks_mut(limit)) {
            collective!(
                deadline,
                world.all_reduce_into / immediate_all_reduce_into(s, r, op)
            );
        }
    });
}

/// A half-float reduction, carried and combined as `f32` and rounded back once.
fn through_f32<H: Elem + Into<f32> + FromF32>(a: &Array, how: Combine, what: &str) -> Array {
    let wide: Vec<f32> = a.as_slice::<H>().iter().map(|&h| h.into()).collect();
    let mut out = vec![0f32; wide.len()];
    reduce_into(&wide, &mut out, op(how, DType::F32), what);
    let narrow: Vec<H> = out.into_iter().map(H::from_f32).collect();
    Array::from_vec(narrow, a.shape())
}

/// Half floats made from `f32`, rounding to nearest.
trait FromF32 {
    fn from_f32(v: f32) -> Self;
}

impl FromF32 for half::f16 {
    fn from_f32(v: f32) -> Self {
        half::f16::from_f32(v)
    }
}

impl FromF32 for half::bf16 {
    fn from_f32(v: f32) -> Self {
        half::bf16::from_f32(v)
    }
}

/// The sum of complex arrays: the sums of their real and imaginary parts.
fn sum_parts(a: &Array, what: &str) -> Array {
    let mut buf = fresh(a.nbytes());
    match a.dtype() {
        DType::C64 => reduce_into(
            parts::<f32>(a.as_bytes()),
            buf.as_mut_slice::<f32>(),
            SystemOperation::sum(),
            what,
        ),
        _ => reduce_into(
            parts::<f64>(a.as_bytes()),
            buf.as_mut_slice::<f64>(),
            SystemOperation::sum(),
            what,
        ),
    }
    Array::from_buffer(a.dtype(), a.shape(), buf)
}

/// Complex elements' bytes as their parts, real then imaginary.
fn parts<T: Elem>(bytes: &[u8]) -> &[T] {
    let n = bytes.len() / std::mem::size_of::<T>();
    // SAFETY: a complex element is two `T` side by side (`num_complex::Complex` is
    // `repr(C)`), and an array's bytes are aligned for its element, so for `T`.
    unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<T>(), n) }
}

/// A float maximum or minimum `out` of every rank's `a`, with NaN wherever any rank's `a`
/// is NaN, as oxla's own reductions give.
fn with_nans(a: &Array, out: Array, what: &str) -> Array {
    let here = match a.dtype() {
        DType::F32 => a.as_slice::<f32>().iter().any(|v| v.is_nan()),
        DType::F64 => a.as_slice::<f64>().iter().any(|v| v.is_nan()),
        DType::F16 => a.as_slice::<half::f16>().iter().any(|v| v.is_nan()),
        _ => a.as_slice::<half::bf16>().iter().any(|v| v.is_nan()),
    };
    let mut anywhere = [0u8];
    reduce_into(
        &[u8::from(here)],
        &mut anywhere,
        SystemOperation::max(),
        what,
    );
    if anywhere[0] == 0 {
        return out;
    }
    let mask: Vec<u8> = a
        .to_f64_vec()
        .iter()
        .map(|v| u8::from(v.is_nan()))
        .collect();
    let mut marked = vec![0u8; mask.len()];
    reduce_into(&mask, &mut marked, SystemOperation::max(), what);
    let values = out.to_f64_vec();
    let fixed: Vec<f64> = values
        .iter()
        .zip(&marked)
        .map(|(&v, &m)| if m == 1 { f64::NAN } else { v })
        .collect();
    from_f64(fixed, out.dtype(), out.shape())
}

/// Floats of `dtype` from `f64` values.
fn from_f64(values: Vec<f64>, dtype: DType, shape: &[usize]) -> Array {
    match dtype {
        DType::F64 => Array::from_vec(values, shape),
        DType::F32 => Array::from_vec(values.iter().map(|&v| v as f32).collect(), shape),
        DType::F16 => Array::from_vec(
            values.iter().map(|&v| half::f16::from_f64(v)).collect(),
            shape,
        ),
        DType::BF16 => Array::from_vec(
            values.iter().map(|&v| half::bf16::from_f64(v)).collect(),
            shape,
        ),
        other => unreachable!("{other:?} is no real float"),
    }
}

/// `psum_scatter` across the ranks: the sum of every rank's `a`, of which this rank keeps
/// its block along `dimension` (the `r`-th of as many as ranks).
pub(crate) fn reduce_scatter(a: &Array, dimension: usize, what: &str) -> Array {
    let world = SimpleCommunicator::world();
    let ranks = world.size() as usize;
    let rank = world.rank() as usize;
    let mut shape = a.shape().to_vec();
    assert!(
        shape[dimension].is_multiple_of(ranks),
        "{what}: dimension {dimension} of {shape:?} does not split over {ranks} processes"
    );
    shape[dimension] /= ranks;
    // Rank-major: each rank's block of every outer row together.
    let blocks = super::moves::rank_major(a, dimension, ranks);
    let per_rank = a.size() / ranks;
    match a.dtype() {
        DType::F16 | DType::BF16 | DType::C64 | DType::C128 => {
            // Rare types: the whole sum, then this rank's block.
            let sum = all_reduce(&blocks, Combine::Sum, what);
            let bytes = sum.nbytes() / ranks;
            let mine = Buffer::from_slice(&sum.as_bytes()[rank * bytes..(rank + 1) * bytes]);
            Array::from_buffer(a.dtype(), &shape, mine)
        }
        dtype => with_mpi_dtype!(dtype, T, {
            check_same(what);
            let mut buf = fresh(per_rank * dtype.size());
            scatter_into(bytes_as::<T>(&blocks), buf.as_mut_slice::<T>(), op(Combine::Sum, dtype), what);
            Array::from_buffer(dtype, &shape, buf)
        }, other => unreachable!("{other:?} handled above")),
    }
}

/// The sum of every rank's `send` (one block per rank, rank by rank) of which this rank
/// keeps its block in `recv`. Past what one call counts (the whole send buffer), in
/// rounds, each packing the next piece of every block together.
fn scatter_into<T: Equivalence + Copy>(
    send: &[T],
    recv: &mut [T],
    op: SystemOperation,
    what: &str,
) {
    let world = SimpleCommunicator::world();
    let (block, limit) = (recv.len(), max_count());
    calling(what, |deadline| {
        if send.len() <= limit {
            collective!(
                deadline,
                world.reduce_scatter_block_into
                    / immediate_reduce_scatter_block_into(send, recv, op)
            );
            return;
        }
        let ranks = send.len() / block;
        let piece = round_piece(limit, ranks);
        let mut packed = Vec::with_capacity(piece * ranks);
        for lo in (0..block).step_by(piece) {
            let len = piece.min(block - lo);
            pack_round(send, block, lo, len, &mut packed);
            let mine = &mut recv[lo..lo + len];
            collective!(
                deadline,
                world.reduce_scatter_block_into
                    / immediate_reduce_scatter_block_into(&packed[..], mine, op)
            );
        }
    });
}
