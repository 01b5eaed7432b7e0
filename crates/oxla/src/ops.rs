//! One function per primitive, as thin as JAX's `jax.lax` (re-exported there).
//!
//! These take operands exactly as the primitive does (one dtype, equal ranks); the
//! [`numpy`](crate::numpy) layer adds promotion and broadcasting on top. Each records the
//! caller's source line in the traced equation.

mod collectives;
mod conv;
mod cumulative;
mod helpers;
mod linalg;
mod structural;

use std::panic::Location;

pub use collectives::{
    all_gather, all_to_all, axis_index, axis_size, pbroadcast, pmax, pmean, pmin, ppermute,
    pshuffle, psum, psum_scatter, pswapaxes, AxisNames,
};
pub(crate) use conv::conv_with_params;
pub use conv::{
    conv_dimension_numbers, conv_general_dilated, padtype_to_pads, ConvDimensionNumbers,
    ConvLayout, Padding,
};
pub(crate) use cumulative::logaddexp;
pub use cumulative::{
    associative_scan, cumlogsumexp, cummax, cummin, cumprod, sort_key_val, top_k,
};
pub use helpers::{
    broadcasted_iota, clamp, collapse, dynamic_index_in_dim, dynamic_slice_in_dim,
    dynamic_update_index_in_dim, dynamic_update_slice_in_dim, expand_dims, full, full_like,
    index_in_dim, reduce_precision, slice_in_dim,
};
pub(crate) use linalg::linalg_prim;
pub use linalg::{cholesky, eigh, lu, qr, svd, triangular_solve};
pub use structural::{
    batch_matmul, broadcast, broadcast_to_rank, dot, optimization_barrier, scatter_add,
    scatter_max, scatter_min, scatter_mul, select, split,
};

use crate::array::{DType, Shape};
use crate::core::{bind, Prim, Tensor};
use crate::prims::{
    ArgOp, BinaryOp, GatherDims, GatherMode, ReduceOp, ScatterDims, ScatterOp, UnaryOp,
};

#[track_caller]
fn bind1(prim: Prim, inputs: &[Tensor]) -> Tensor {
    bind(prim, inputs, Location::caller())
        .pop()
        .expect("one result")
}

macro_rules! unary {
    ($($name:ident => $op:ident),* $(,)?) => {$(
        #[doc = concat!("The `", stringify!($name), "` primitive, elementwise.")]
        #[track_caller]
        pub fn $name(x: &Tensor) -> Tensor {
            bind1(Prim::Unary(UnaryOp::$op), std::slice::from_ref(x))
        }
    )*};
}
unary!(
    neg => Neg, exp => Exp, log => Log, log1p => Log1p, sin => Sin, cos => Cos, tanh => Tanh,
    logistic => Logistic, sqrt => Sqrt, cbrt => Cbrt, rsqrt => Rsqrt, abs => Abs, sign => Sign,
    floor => Floor, ceil => Ceil, round => Round, not => Not, erf_inv => ErfInv, is_finite => IsFinite,
    real => Real, imag => Imag, conj => Conj,
);
unary!(erf => Erf, erfc => Erfc, lgamma => Lgamma, digamma => Digamma);
unary!(
    tan => Tan, asin => Asin, acos => Acos, atan => Atan, sinh => Sinh, cosh => Cosh,
    asinh => Asinh, acosh => Acosh, atanh => Atanh, expm1 => Expm1, exp2 => Exp2,
    square => Square, population_count => PopulationCount, clz => Clz,
    bessel_i0e => BesselI0e, bessel_i1e => BesselI1e,
);

/// How [`round_with`] rounds values halfway between two integers (JAX's
/// `lax.RoundingMethod`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundingMethod {
    /// Away from zero (`0.5 -> 1`, `-0.5 -> -1`): [`round`]'s.
    AwayFromZero,
    /// To the even neighbour (`0.5 -> 0`, `1.5 -> 2`), as numpy rounds.
    ToNearestEven,
}

/// The `round` primitive with its `rounding_method` (JAX's `lax.round(x, rounding_method)`;
/// [`round`] is `AwayFromZero`).
#[track_caller]
pub fn round_with(x: &Tensor, rounding_method: RoundingMethod) -> Tensor {
    let op = match rounding_method {
        RoundingMethod::AwayFromZero => UnaryOp::Round,
        RoundingMethod::ToNearestEven => UnaryOp::RoundEven,
    };
    bind1(Prim::Unary(op), std::slice::from_ref(x))
}

/// `1 / x`, as JAX's `lax.reciprocal`: `integer_pow(x, -1)`.
#[track_caller]
pub fn reciprocal(x: &Tensor) -> Tensor {
    integer_pow(x, -1)
}

macro_rules! binary {
    ($($name:ident => $op:ident),* $(,)?) => {$(
        #[doc = concat!("The `", stringify!($name), "` primitive: one dtype, equal shapes, \
                         a rank-0 operand, or size-1 dimensions.")]
        #[track_caller]
        pub fn $name(x: &Tensor, y: &Tensor) -> Tensor {
            bind1(Prim::Binary(BinaryOp::$op), &[x.clone(), y.clone()])
        }
    )*};
}
binary!(
    add => Add, sub => Sub, mul => Mul, div => Div, rem => Rem, pow => Pow, max => Max,
    min => Min, nextafter => Nextafter, eq => Eq, ne => Ne, lt => Lt, le => Le, gt => Gt,
    ge => Ge, and => And, or => Or, xor => Xor, shift_left => ShiftLeft,
    shift_right_logical => ShiftRightLogical, complex => Complex,
);
binary!(
    polygamma => Polygamma, zeta => Zeta, atan2 => Atan2,
    shift_right_arithmetic => ShiftRightArithmetic, igamma => Igamma, igammac => Igammac,
    igamma_grad_a => IgammaGradA, random_gamma_grad => RandomGammaGrad,
);

/// `x` itself, as a constant to differentiation: its derivative is zero under `grad`,
/// `jvp` and `vjp`; `vmap` maps it and `jit` compiles it away.
///
/// ```
/// use oxla::{grad, lax, numpy as jnp, Tensor};
/// // d/dx (x * stop_gradient(x)) = stop_gradient(x) = x.
/// let g = grad(|x: Tensor| (&x * &lax::stop_gradient(&x)).sum(None));
/// let dx = g.call(jnp::array(&[3.0f32], &[1]));
/// assert_eq!(dx.to_vec::<f32>(), vec![3.0]);
/// ```
#[track_caller]
pub fn stop_gradient(x: &Tensor) -> Tensor {
    bind1(Prim::StopGradient, std::slice::from_ref(x))
}

/// `x ** y` for a constant integer exponent.
#[track_caller]
pub fn integer_pow(x: &Tensor, y: i32) -> Tensor {
    bind1(Prim::IntegerPow { y }, std::slice::from_ref(x))
}

/// `cases[which]` elementwise (`which` bool for two cases, else int32).
#[track_caller]
pub fn select_n(which: &Tensor, cases: &[Tensor]) -> Tensor {
    let mut ins = vec![which.clone()];
    ins.extend_from_slice(cases);
    bind1(Prim::SelectN, &ins)
}

/// Converts values to `dtype` (float to int truncates toward zero, saturating).
#[track_caller]
pub fn convert_element_type(x: &Tensor, dtype: DType) -> Tensor {
    bind1(
        Prim::ConvertElementType { new_dtype: dtype },
        std::slice::from_ref(x),
    )
}

/// Reinterprets the bits as `dtype` of the same width.
#[track_caller]
pub fn bitcast_convert_type(x: &Tensor, dtype: DType) -> Tensor {
    bind1(
        Prim::BitcastConvertType { new_dtype: dtype },
        std::slice::from_ref(x),
    )
}

/// `0, 1, 2, ...` along `dimension` of a new array of `shape`.
#[track_caller]
pub fn iota(dtype: DType, shape: &[usize], dimension: usize) -> Tensor {
    bind1(
        Prim::Iota {
            dtype,
            shape: Shape::from_slice(shape),
            dimension,
        },
        &[],
    )
}

/// Broadcasts `x` to `shape`, its dimension `i` becoming `broadcast_dimensions[i]`.
#[track_caller]
pub fn broadcast_in_dim(x: &Tensor, shape: &[usize], broadcast_dimensions: &[usize]) -> Tensor {
    bind1(
        Prim::BroadcastInDim {
            shape: Shape::from_slice(shape),
            broadcast_dimensions: broadcast_dimensions.to_vec(),
        },
        std::slice::from_ref(x),
    )
}

/// Row-major reshape.
#[track_caller]
pub fn reshape(x: &Tensor, new_sizes: &[usize]) -> Tensor {
    bind1(
        Prim::Reshape {
            new_sizes: Shape::from_slice(new_sizes),
        },
        std::slice::from_ref(x),
    )
}

/// Permutes dimensions: `result.shape[i] = x.shape[permutation[i]]`.
#[track_caller]
pub fn transpose(x: &Tensor, permutation: &[usize]) -> Tensor {
    bind1(
        Prim::Transpose {
            permutation: permutation.to_vec(),
        },
        std::slice::from_ref(x),
    )
}

/// Reverses the listed dimensions.
#[track_caller]
pub fn rev(x: &Tensor, dimensions: &[usize]) -> Tensor {
    bind1(
        Prim::Rev {
            dimensions: dimensions.to_vec(),
        },
        std::slice::from_ref(x),
    )
}

/// Removes the listed size-1 dimensions.
#[track_caller]
pub fn squeeze(x: &Tensor, dimensions: &[usize]) -> Tensor {
    bind1(
        Prim::Squeeze {
            dimensions: dimensions.to_vec(),
        },
        std::slice::from_ref(x),
    )
}

/// A static strided window.
#[track_caller]
pub fn slice(x: &Tensor, start: &[usize], limit: &[usize], strides: Option<&[usize]>) -> Tensor {
    bind1(
        Prim::Slice {
            start_indices: start.to_vec(),
            limit_indices: limit.to_vec(),
            strides: strides.map(<[usize]>::to_vec),
        },
        std::slice::from_ref(x),
    )
}

/// Pads with the scalar `value`: `(low, high, interior)` per dimension.
#[track_caller]
pub fn pad(x: &Tensor, value: &Tensor, padding_config: &[(i64, i64, i64)]) -> Tensor {
    bind1(
        Prim::Pad {
            padding_config: padding_config.to_vec(),
        },
        &[x.clone(), value.clone()],
    )
}

/// Joins operands along `dimension`.
#[track_caller]
pub fn concatenate(xs: &[Tensor], dimension: usize) -> Tensor {
    bind1(Prim::Concatenate { dimension }, xs)
}

/// A monoid reduction over `axes`.
#[track_caller]
pub fn reduce(x: &Tensor, op: ReduceOp, axes: &[usize]) -> Tensor {
    bind1(
        Prim::Reduce {
            op,
            axes: axes.to_vec(),
        },
        std::slice::from_ref(x),
    )
}

/// Index of the first maximum (or minimum) along `axis`.
#[track_caller]
pub fn arg_reduce(x: &Tensor, op: ArgOp, axis: usize, index_dtype: DType) -> Tensor {
    bind1(
        Prim::ArgReduce {
            op,
            axes: vec![axis],
            index_dtype,
        },
        std::slice::from_ref(x),
    )
}

/// Inclusive prefix sum along `axis`.
#[track_caller]
pub fn cumsum(x: &Tensor, axis: usize, reverse: bool) -> Tensor {
    bind1(Prim::Cumsum { axis, reverse }, std::slice::from_ref(x))
}

/// General contraction: `((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))`.
#[track_caller]
pub fn dot_general(
    lhs: &Tensor,
    rhs: &Tensor,
    contracting: (&[usize], &[usize]),
    batch: (&[usize], &[usize]),
    preferred_element_type: Option<DType>,
) -> Tensor {
    bind1(
        Prim::DotGeneral {
            contracting: (contracting.0.to_vec(), contracting.1.to_vec()),
            batch: (batch.0.to_vec(), batch.1.to_vec()),
            preferred_element_type,
        },
        &[lhs.clone(), rhs.clone()],
    )
}

/// A window of `slice_sizes` at dynamic start indices (clamped into bounds).
#[track_caller]
pub fn dynamic_slice(x: &Tensor, start: &[Tensor], slice_sizes: &[usize]) -> Tensor {
    let mut ins = vec![x.clone()];
    ins.extend_from_slice(start);
    bind1(
        Prim::DynamicSlice {
            slice_sizes: slice_sizes.to_vec(),
        },
        &ins,
    )
}

/// Writes `update` into `x` at dynamic start indices (clamped into bounds).
#[track_caller]
pub fn dynamic_update_slice(x: &Tensor, update: &Tensor, start: &[Tensor]) -> Tensor {
    let mut ins = vec![x.clone(), update.clone()];
    ins.extend_from_slice(start);
    bind1(Prim::DynamicUpdateSlice, &ins)
}

/// XLA's gather.
#[track_caller]
pub fn gather(
    x: &Tensor,
    indices: &Tensor,
    dims: GatherDims,
    slice_sizes: &[usize],
    mode: GatherMode,
) -> Tensor {
    bind1(
        Prim::Gather {
            dims,
            slice_sizes: slice_sizes.to_vec(),
            mode,
        },
        &[x.clone(), indices.clone()],
    )
}

/// XLA's scatter family: `op` combines each update with the value in place (`Replace` is
/// `lax.scatter`, the others `lax.scatter_add`, `_mul`, `_min`, `_max`); updates at one
/// place apply in order.
#[track_caller]
pub fn scatter(
    op: ScatterOp,
    x: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
    dims: ScatterDims,
    mode: GatherMode,
) -> Tensor {
    bind1(
        Prim::Scatter { op, dims, mode },
        &[x.clone(), indices.clone(), updates.clone()],
    )
}

/// Sorts operands along `dimension` by the first `num_keys` (stable, lexicographic).
#[track_caller]
pub fn sort(xs: &[Tensor], dimension: usize, num_keys: usize) -> Vec<Tensor> {
    bind(
        Prim::Sort {
            dimension,
            is_stable: true,
            num_keys,
        },
        xs,
        Location::caller(),
    )
}

/// The Threefry-2x32 cipher of `(x0, x1)` under key `(k0, k1)`, elementwise on u32 arrays.
#[track_caller]
pub fn threefry2x32(k0: &Tensor, k1: &Tensor, x0: &Tensor, x1: &Tensor) -> (Tensor, Tensor) {
    let mut r = bind(
        Prim::Threefry2x32 {
            words: crate::prims::ThreefryWords::Both,
        },
        &[k0.clone(), k1.clone(), x0.clone(), x1.clone()],
        Location::caller(),
    );
    let y1 = r.pop().expect("two results");
    let y0 = r.pop().expect("two results");
    (y0, y1)
}

macro_rules! reductions {
    ($($name:ident => $op:ident),* $(,)?) => {$(
        #[doc = concat!("The `", stringify!($name), "` primitive over `axes` (JAX's `lax.",
                        stringify!($name), "`): [`reduce`] with that monoid.")]
        #[track_caller]
        pub fn $name(x: &Tensor, axes: &[usize]) -> Tensor {
            reduce(x, ReduceOp::$op, axes)
        }
    )*};
}
reductions!(
    reduce_sum => Sum, reduce_prod => Prod, reduce_max => Max, reduce_min => Min,
    reduce_and => And, reduce_or => Or,
);

/// Index of the first maximum along `axis`, as `index_dtype` (JAX's `lax.argmax`).
#[track_caller]
pub fn argmax(x: &Tensor, axis: usize, index_dtype: DType) -> Tensor {
    arg_reduce(x, ArgOp::Max, axis, index_dtype)
}

/// Index of the first minimum along `axis`, as `index_dtype` (JAX's `lax.argmin`).
#[track_caller]
pub fn argmin(x: &Tensor, axis: usize, index_dtype: DType) -> Tensor {
    arg_reduce(x, ArgOp::Min, axis, index_dtype)
}

/// Bitwise (or, for bools, logical) and: JAX's `lax.bitwise_and`, the `and` primitive.
#[track_caller]
pub fn bitwise_and(x: &Tensor, y: &Tensor) -> Tensor {
    and(x, y)
}

/// Bitwise (or, for bools, logical) or: JAX's `lax.bitwise_or`, the `or` primitive.
#[track_caller]
pub fn bitwise_or(x: &Tensor, y: &Tensor) -> Tensor {
    or(x, y)
}

/// Bitwise (or, for bools, logical) exclusive or: JAX's `lax.bitwise_xor`, the `xor`
/// primitive.
#[track_caller]
pub fn bitwise_xor(x: &Tensor, y: &Tensor) -> Tensor {
    xor(x, y)
}

/// Bitwise (or, for bools, logical) not: JAX's `lax.bitwise_not`, the `not` primitive.
#[track_caller]
pub fn bitwise_not(x: &Tensor) -> Tensor {
    not(x)
}

/// The discrete Fourier transform of `x` over its trailing `fft_lengths.len()` axes (1 to
/// 3): `FFT`/`IFFT` (complex, the inverse scaled by `1 / n`), `RFFT` (a float operand; the
/// last axis keeps its `n / 2 + 1` non-negative frequencies) and `IRFFT` (its inverse, of
/// last length `fft_lengths[-1]`): `jax.lax.fft`.
#[track_caller]
pub fn fft(x: &Tensor, fft_type: crate::prims::FftType, fft_lengths: &[usize]) -> Tensor {
    bind1(
        Prim::Fft {
            fft_type,
            fft_lengths: fft_lengths.to_vec(),
        },
        std::slice::from_ref(x),
    )
}
