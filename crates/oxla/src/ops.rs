//! One function per primitive, as thin as JAX's `jax.lax` (re-exported there).
//!
//! These take operands exactly as the primitive does (one dtype, equal ranks); the
//! [`numpy`](crate::numpy) layer adds promotion and broadcasting on top. Each records the
//! caller's source line in the traced equation.

use std::panic::Location;

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

/// XLA's scatter with addition.
#[track_caller]
pub fn scatter_add(
    x: &Tensor,
    indices: &Tensor,
    updates: &Tensor,
    dims: ScatterDims,
    mode: GatherMode,
) -> Tensor {
    scatter(ScatterOp::Add, x, indices, updates, dims, mode)
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
        Prim::Threefry2x32,
        &[k0.clone(), k1.clone(), x0.clone(), x1.clone()],
        Location::caller(),
    );
    let y1 = r.pop().expect("two results");
    let y0 = r.pop().expect("two results");
    (y0, y1)
}
