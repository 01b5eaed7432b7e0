//! `jnp`: the numpy-style API, built only from `lax` primitives ([`crate::lax`]).
//!
//! Functions promote dtypes by JAX's lattice (Rust scalars are weakly typed: they take the
//! tensor's dtype when their kind fits) and broadcast shapes as numpy does. Every function
//! records the caller's source line in traced equations.
//!
//! ```
//! use oxla::numpy as jnp;
//! let x = jnp::arange(6.0).reshape(&[2, 3]);
//! let y = jnp::exp(&x).sum(1);
//! assert_eq!(y.shape(), &[2]);
//! ```
//!
//! Every function takes tensors owned or borrowed, and Rust scalars, alike (an [`Operand`];
//! tensor clones are cheap, shared handles):
//!
//! ```
//! use oxla::numpy as jnp;
//! let x = jnp::arange(6.0).reshape(&[2, 3]);
//! let (a, b) = (jnp::arange(3.0), jnp::ones(&[3]));
//! assert_eq!(jnp::sum(jnp::abs(&a - &b), None).item(), 2.0);
//! assert_eq!(jnp::maximum(&a, 1.5).to_vec::<f32>(), vec![1.5, 1.5, 2.0]);
//! assert_eq!((0.5 * &x).matmul(&b).to_vec::<f32>(), vec![1.5, 6.0]);
//! assert_eq!(jnp::abs(-2).item(), 2.0);
//! ```

/// Numpy functions of one operand that compute in floats: `pub fn name(x)` converting `x`
/// to the default float dtype when it is an integer or bool, then applying the `lax`
/// primitive (the including module imports `lax`, `inexact`, `Operand` and `Tensor`).
macro_rules! float_fn {
    ($($(#[$doc:meta])* $name:ident => $lax:ident),* $(,)?) => {$(
        $(#[$doc])*
        #[track_caller]
        pub fn $name(x: impl Into<Operand>) -> Tensor {
            let _line = crate::core::user_line();
            let x = &x.into().into_tensor();
            lax::$lax(&inexact(x))
        }
    )*};
}

mod axis;
mod bitwise;
mod calculus;
mod complex;
mod convolve;
mod creation;
mod cumulative;
mod diag;
mod edit;
mod einsum;
mod elementwise;
mod extra;
pub mod fft;
mod grid;
mod histogram;
mod index;
mod join;
pub mod linalg;
mod matrix_products;
mod nan;
mod ops;
mod pick;
mod polynomial;
mod products;
mod quantile;
mod rearrange;
mod reductions;
mod sets;
mod shape;
mod sorting;
mod statistics;
mod take;
mod ufuncs;
mod windows;

pub use axis::{keepdims, Axis};
pub use bitwise::{
    bitwise_and, bitwise_not, bitwise_or, bitwise_xor, invert, logical_and, logical_not,
    logical_or, logical_xor,
};
pub use calculus::{array_equal, array_equiv, gradient, trapezoid, unwrap};
pub use complex::{angle, conj, conjugate, imag, iscomplex, iscomplexobj, isreal, isrealobj, real};
pub use convolve::{convolve, correlate};
pub use creation::{
    arange, arange_step, array, eye, full, full_like, linspace, ones, ones_like, zeros, zeros_like,
};
pub use cumulative::{cumprod, cumulative_prod, cumulative_sum, logaddexp, logaddexp2};
pub use diag::{
    diag, diagflat, diagonal, fill_diagonal, trace, tri, tril, tril_indices, tril_indices_from,
    triu, triu_indices, triu_indices_from,
};
pub use edit::{delete, ediff1d, insert, pad_mode, rollaxis, select, unstack, PadMode};
pub use einsum::einsum;
pub use elementwise::*;
pub use grid::{broadcast_arrays, broadcast_shapes, identity, indices, unravel_index};
pub use index::{ix_, s, At, AtMode, Ellipsis, Index, IndexItem, NewAxis, Slice};
pub use join::{
    append, array_split, column_stack, diff, dsplit, dstack, hsplit, hstack, meshgrid, split,
    vsplit, vstack, Indexing, SplitAt,
};
pub use matrix_products::{dot, matmul};
pub use nan::{
    nanargmax, nanargmin, nancumprod, nancumsum, nanmax, nanmean, nanmin, nanprod, nanstd, nansum,
    nanvar,
};
pub use ops::Dim;
pub use polynomial::{poly, polyadd, polyder, polyint, polymul, polysub, polyval, vander};
pub use products::{inner, kron, matvec, outer, tensordot, vdot, vecdot, vecmat, TensordotAxes};
pub use quantile::{median, nanmedian, nanpercentile, nanquantile, percentile, quantile};
pub use rearrange::{
    atleast_1d, atleast_2d, atleast_3d, flip, fliplr, flipud, moveaxis, repeat, rot90, swapaxes,
    tile, Repeats,
};
pub(crate) use reductions::max_keepdims_initial;
pub use reductions::{
    all, allclose, any, argmax, argmin, cumsum, isclose, max, mean, min, prod, sort, sum,
};
pub use shape::{
    broadcast_to, concatenate, expand_dims, pad, ravel, reshape, roll, squeeze, stack, transpose,
};
pub use take::{take, take_along_axis, TakeMode};
pub use ufuncs::*;

pub use extra::{
    absolute, amax, amin, asarray, bitwise_invert, bitwise_left_shift, bitwise_right_shift, block,
    can_cast, concat, copy, cross, divmod, empty, empty_like, fabs, frexp, fromfunction, geomspace,
    i0, kaiser, ldexp, logspace, matrix_transpose, mod_, modf, permute_dims, pow, promote_types,
    spacing, true_divide, Block, Casting,
};
pub use histogram::{histogram, histogram_bin_edges, interp, Bins, Outside};
pub use pick::{compress, diag_indices, diag_indices_from, extract, ravel_multi_index, resize};
pub use sets::{
    intersect1d, setdiff1d, setxor1d, union1d, unique_counts, unique_inverse, unique_values,
};

pub use sorting::{
    argpartition, argsort, argwhere, bincount, digitize, flatnonzero, isin, lexsort, nonzero,
    partition, searchsorted,
};
pub use statistics::{average, corrcoef, count_nonzero, cov, ptp, std, var};
pub use windows::{bartlett, blackman, hamming, hanning};

use crate::array::{Array, DType, Kind};
use crate::core::Tensor;
use crate::ops as lax;

/// An operand of a numpy-style function: a tensor, or a Rust scalar (weakly typed).
#[derive(Clone, Debug)]
pub enum Operand {
    /// A tensor, with its own dtype.
    Tensor(Tensor),
    /// A Rust scalar: its value (exact for integers up to 2^53 in magnitude, so for every
    /// integer that fits an integer dtype) and kind.
    Scalar(f64, Kind),
}

impl From<Tensor> for Operand {
    fn from(t: Tensor) -> Operand {
        Operand::Tensor(t)
    }
}

impl From<&Tensor> for Operand {
    fn from(t: &Tensor) -> Operand {
        Operand::Tensor(t.clone())
    }
}

macro_rules! scalar_operand {
    ($($t:ty => $k:ident),*) => {$(
        impl From<$t> for Operand {
            fn from(v: $t) -> Operand {
                Operand::Scalar(v as f64, Kind::$k)
            }
        }
    )*};
}
scalar_operand!(
    f32 => Float, f64 => Float, i8 => Int, i16 => Int, i32 => Int, i64 => Int, u8 => Int,
    u16 => Int, u32 => Int, u64 => Int, usize => Int
);

impl From<bool> for Operand {
    fn from(v: bool) -> Operand {
        Operand::Scalar(v as u8 as f64, Kind::Bool)
    }
}

impl Operand {
    /// The dtype the operand has on its own (a scalar takes its kind's default).
    pub fn dtype(&self) -> DType {
        match self {
            Operand::Tensor(t) => t.dtype(),
            Operand::Scalar(_, k) => k.default_dtype(),
        }
    }

    /// The operand as a tensor of `dtype` (a scalar becomes a rank-0 literal); panics at the
    /// caller's line if an integer scalar does not fit `dtype` (see [`Operand::Scalar`]).
    #[track_caller]
    pub fn to_tensor(&self, dtype: DType) -> Tensor {
        self.to_tensor_in("to_tensor", dtype)
    }

    /// The operand as a tensor: itself, or a Rust scalar as a rank-0 tensor of its kind's
    /// default dtype (`f32`, `i32` or `bool`), as a numpy function of one array converts it.
    pub fn into_tensor(self) -> Tensor {
        match self {
            Operand::Tensor(t) => t,
            Operand::Scalar(v, kind) => scalar_tensor(v, kind.default_dtype()),
        }
    }

    /// [`Operand::to_tensor`] for the numpy function `what`, which a panic names.
    #[track_caller]
    pub(crate) fn to_tensor_in(&self, what: &str, dtype: DType) -> Tensor {
        let _line = crate::core::user_line();
        match self {
            Operand::Tensor(t) => astype(t, dtype),
            Operand::Scalar(v, kind) => weak_scalar(what, *v, *kind, dtype),
        }
    }
}

/// A Rust scalar as a rank-0 tensor of the dtype it takes beside an array, as JAX converts
/// a weakly typed Python scalar. An integer must fit the default integer (`i32`; `i64` with
/// x64 on; `uint32` and `uint64` take their whole range too) and wraps into a narrower
/// dtype, as JAX's conversion does (`u8 + 300` is `u8 + 44`, `u32 + (-1)` is `u32 - 1`);
/// otherwise this panics at the caller's line, where JAX raises `OverflowError`. Integers
/// become floats by rounding; floats and bools convert as `astype`.
#[track_caller]
fn weak_scalar(what: &str, v: f64, kind: Kind, dtype: DType) -> Tensor {
    // JAX converts a Python int through the default integer (`int32`, or `int64` with x64
    // on) and then wraps it into a narrower dtype; only `uint32`/`uint64` also take the
    // values past the signed maximum.
    let fits = match (kind, dtype) {
        (Kind::Int, DType::U64) => (-(2f64.powi(63))..2f64.powi(64)).contains(&v),
        (Kind::Int, DType::I64) => (-(2f64.powi(63))..2f64.powi(63)).contains(&v),
        (Kind::Int, DType::U32) => (f64::from(i32::MIN)..=f64::from(u32::MAX)).contains(&v),
        (Kind::Int, d) if d.is_int() => {
            let int = Kind::Int.default_dtype();
            let half = 2f64.powi(8 * int.size() as i32 - 1);
            (-half..half).contains(&v)
        }
        _ => true,
    };
    if !fits {
        panic!(
            "{what}: the Rust scalar {v} does not fit {dtype}, the dtype it takes beside the \
             array (weak typing; JAX raises OverflowError)\n  at {}",
            std::panic::Location::caller()
        );
    }
    scalar_tensor(v, dtype)
}

/// A concrete rank-0 tensor of `dtype` holding `v`.
pub(crate) fn scalar_tensor(v: f64, dtype: DType) -> Tensor {
    Tensor::new(Array::scalar_from_f64(v, dtype))
}

/// The dtype operands promote to: tensors by the lattice, then scalars weakly.
pub fn result_type(ops: &[Operand]) -> DType {
    let tensor = ops
        .iter()
        .filter_map(|o| match o {
            Operand::Tensor(t) => Some(t.dtype()),
            Operand::Scalar(..) => None,
        })
        .reduce(DType::promote);
    let scalar = ops
        .iter()
        .filter_map(|o| match o {
            Operand::Scalar(_, k) => Some(*k),
            Operand::Tensor(_) => None,
        })
        .max();
    match (tensor, scalar) {
        (Some(d), Some(k)) => d.with_weak(k),
        (Some(d), None) => d,
        (None, Some(k)) => k.default_dtype(),
        (None, None) => Kind::Float.default_dtype(),
    }
}

/// Operands promoted to one dtype and to one rank, as JAX's `promote_args` does; `what`
/// (the numpy function) names a broadcasting error.
#[track_caller]
pub(crate) fn promote(what: &str, ops: &[Operand]) -> Vec<Tensor> {
    let dtype = result_type(ops);
    promote_to(what, ops, dtype)
}

/// Operands converted to the dtype they promote to, shapes untouched; `what` (the numpy
/// function) names a scalar that does not fit.
#[track_caller]
pub(crate) fn promote_dtypes(what: &str, ops: &[Operand]) -> Vec<Tensor> {
    let dtype = result_type(ops);
    convert_all(what, ops, dtype)
}

/// Operands converted to `dtype` and brought to one rank.
#[track_caller]
pub(crate) fn promote_to(what: &str, ops: &[Operand], dtype: DType) -> Vec<Tensor> {
    let ts = convert_all(what, ops, dtype);
    promote_shapes(what, ts)
}

/// Every operand as a tensor of `dtype` (a loop, not a closure, so that a panic names the
/// caller's line).
#[track_caller]
fn convert_all(what: &str, ops: &[Operand], dtype: DType) -> Vec<Tensor> {
    let mut ts = Vec::with_capacity(ops.len());
    for o in ops {
        ts.push(o.to_tensor_in(what, dtype));
    }
    ts
}

/// Tensors brought to one rank by prepending size-1 dimensions, unless lax's own rules
/// (rank-0 operands, equal ranks) already cover them; mismatched sizes panic as numpy does,
/// naming the numpy function `what`, the operands' avals and the caller's line.
#[track_caller]
pub(crate) fn promote_shapes(what: &str, ts: Vec<Tensor>) -> Vec<Tensor> {
    let shapes: Vec<&[usize]> = ts.iter().map(|t| t.shape()).collect();
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    for d in 0..rank {
        let sizes: Vec<usize> = shapes
            .iter()
            .filter(|s| s.len() + d >= rank)
            .map(|s| s[s.len() + d - rank])
            .filter(|&n| n != 1)
            .collect();
        if sizes.windows(2).any(|w| w[0] != w[1]) {
            let all: Vec<String> = ts.iter().map(|t| t.aval().to_string()).collect();
            panic!(
                "{what}: shapes {} cannot be broadcast together (numpy broadcasting)\n  at {}",
                all.join(", "),
                std::panic::Location::caller()
            );
        }
    }
    let mut nonscalar: Vec<usize> = shapes
        .iter()
        .filter(|s| !s.is_empty())
        .map(|s| s.len())
        .collect();
    nonscalar.sort_unstable();
    nonscalar.dedup();
    if nonscalar.len() < 2 {
        return ts;
    }
    ts.into_iter()
        .map(|t| {
            let n = t.ndim();
            if n == rank {
                t
            } else {
                let mut shape = vec![1; rank - n];
                shape.extend_from_slice(t.shape());
                let dims: Vec<usize> = (rank - n..rank).collect();
                lax::broadcast_in_dim(&t, &shape, &dims)
            }
        })
        .collect()
}

/// `x` converted to `dtype`; no equation when it already has it.
#[track_caller]
pub fn astype(x: impl Into<Operand>, dtype: DType) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    if x.dtype() == dtype {
        x.clone()
    } else {
        lax::convert_element_type(x, dtype)
    }
}

/// `x` as a floating-point tensor (ints and bools become the default float, `f32` or `f64`
/// with x64 on), as JAX's inexact promotion.
#[track_caller]
pub(crate) fn inexact(x: &Tensor) -> Tensor {
    if x.dtype().is_inexact() {
        x.clone()
    } else {
        astype(x, Kind::Float.default_dtype())
    }
}
