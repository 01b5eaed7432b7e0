//! More of `jax.numpy`: the other names of existing functions (`absolute`, `amax`, `mod_`,
//! `pow`, `concat`, `permute_dims`, ...), `empty`/`asarray`/`copy`, the dtype queries
//! `can_cast` and `promote_types` (here); float decomposition (`divmod`, `modf`, `frexp`,
//! `ldexp`, `spacing`), `i0` and `kaiser` ([`float`]); `geomspace`, `logspace`,
//! `fromfunction`, `cross` and `block` ([`build`]).

mod build;
mod float;

pub use build::{block, cross, fromfunction, geomspace, logspace, Block};
pub use float::{divmod, frexp, i0, kaiser, ldexp, modf, spacing};

use super::ufuncs::promote_inexact;
use super::{
    abs, astype, concatenate, divide, invert, left_shift, max, min, power, remainder, right_shift,
    transpose, zeros_like, Axis, Operand,
};
use crate::array::{DType, Kind};
use crate::core::Tensor;
use crate::ops as lax;

/// `|x|`: [`abs`] by its other numpy name.
#[track_caller]
pub fn absolute(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    abs(x)
}

/// `|x|` in floating point: integers and bools become the default float first.
#[track_caller]
pub fn fabs(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote_inexact("fabs", &[x.into()]);
    lax::abs(&t[0])
}

/// Maximum over `axis`: [`max`] by its other numpy name.
#[track_caller]
pub fn amax(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    max(x, axis)
}

/// Minimum over `axis`: [`min`] by its other numpy name.
#[track_caller]
pub fn amin(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    min(x, axis)
}

/// Remainder with the sign of the divisor: [`remainder`] by its other numpy name (`mod`,
/// a Rust keyword, takes a trailing underscore).
#[track_caller]
pub fn mod_(x: impl Into<Operand>, y: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    remainder(x, y)
}

/// `x ** y`: [`power`] by its array-API name.
#[track_caller]
pub fn pow(x: impl Into<Operand>, y: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    power(x, y)
}

/// `x / y` in floating point: [`divide`] by its other numpy name.
#[track_caller]
pub fn true_divide(x: impl Into<Operand>, y: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    divide(x, y)
}

/// Bitwise not: [`invert`] by its array-API name.
#[track_caller]
pub fn bitwise_invert(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    invert(x)
}

/// `x << y`: [`left_shift`] by its array-API name.
#[track_caller]
pub fn bitwise_left_shift(x: impl Into<Operand>, y: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    left_shift(x, y)
}

/// `x >> y`: [`right_shift`] by its array-API name.
#[track_caller]
pub fn bitwise_right_shift(x: impl Into<Operand>, y: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    right_shift(x, y)
}

/// An array of `shape` and `dtype` (the default float with `None`); as in JAX, its
/// elements are zeros (XLA has no uninitialised memory).
#[track_caller]
pub fn empty(shape: &[usize], dtype: Option<DType>) -> Tensor {
    let _line = crate::core::user_line();
    let dtype = dtype.unwrap_or(Kind::Float.default_dtype());
    lax::broadcast_in_dim(&super::scalar_tensor(0.0, dtype), shape, &[])
}

/// An array like `x` (its shape, and its dtype unless `dtype` names one), of zeros as in
/// JAX.
#[track_caller]
pub fn empty_like(x: impl Into<Operand>, dtype: Option<DType>) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    let z = zeros_like(&x);
    match dtype {
        Some(d) => astype(z, d),
        None => z,
    }
}

/// `x` as a tensor, converted to `dtype` when one is named (a Rust scalar becomes a rank-0
/// tensor of its kind's default dtype).
#[track_caller]
pub fn asarray(x: impl Into<Operand>, dtype: Option<DType>) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into();
    match dtype {
        Some(d) => x.to_tensor_in("asarray", d),
        None => x.into_tensor(),
    }
}

/// A copy of `x`. oxla's tensors are immutable values, so the copy is `x` itself.
#[track_caller]
pub fn copy(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    x.into().into_tensor()
}

/// Arrays joined along `axis` (`None` flattens them first): [`concatenate`] by its
/// array-API name.
#[track_caller]
pub fn concat(xs: &[Tensor], axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    concatenate(xs, axis)
}

/// `x` with its axes permuted to `axes`: [`transpose`] by its array-API name, where the
/// axes are required.
#[track_caller]
pub fn permute_dims(x: impl Into<Operand>, axes: &[isize]) -> Tensor {
    let _line = crate::core::user_line();
    transpose(x, axes.to_vec())
}

/// `x` with its last two axes swapped (a batch of matrices transposed); panics at the
/// caller's line below rank 2.
#[track_caller]
pub fn matrix_transpose(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    let n = x.ndim();
    if n < 2 {
        panic!(
            "matrix_transpose: x must have at least two dimensions, got {}\n  at {}",
            x.aval(),
            std::panic::Location::caller()
        );
    }
    let mut perm: Vec<usize> = (0..n - 2).collect();
    perm.extend([n - 1, n - 2]);
    lax::transpose(&x, &perm)
}

/// The dtype both `a` and `b` promote to, by JAX's lattice ([`DType::promote`]).
pub fn promote_types(a: DType, b: DType) -> DType {
    a.promote(b)
}

/// How strict a conversion [`can_cast`] allows, as numpy's `casting=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Casting {
    /// Only to the same dtype (`"no"`).
    No,
    /// Only to the same dtype, byte order aside (`"equiv"`; oxla has one byte order).
    Equiv,
    /// Only conversions that keep every value (`"safe"`, numpy's default).
    Safe,
    /// Safe ones, or within a kind or to a higher one (`"same_kind"`: `f64` to `f32`,
    /// `u8` to `i8`, but not `f32` to `i32` nor `i8` to `u8`).
    SameKind,
    /// Any conversion (`"unsafe"`).
    Unsafe,
}

/// Whether `from` converts to `to` under the `casting` rule, as `jnp.can_cast` (numpy's
/// `can_cast` on dtypes). A safe conversion keeps every value: bools go anywhere; integers
/// to wider integers of a signedness that holds them, and to floats of more bytes (64-bit
/// integers to `f64` too); floats to wider floats (`f16` and `bf16` not to each other).
pub fn can_cast(from: DType, to: DType, casting: Casting) -> bool {
    match casting {
        Casting::No | Casting::Equiv => from == to,
        Casting::Safe => safe_cast(from, to),
        Casting::SameKind => from == DType::Bool || kind_rank(from) <= kind_rank(to),
        Casting::Unsafe => true,
    }
}

/// numpy's kinds in the order `same_kind` casting climbs: bool, unsigned, signed, float.
fn kind_rank(d: DType) -> u8 {
    if d == DType::Bool {
        0
    } else if d.is_unsigned_int() {
        1
    } else if d.is_signed_int() {
        2
    } else {
        3
    }
}

/// numpy's `safe` casting between two dtypes.
fn safe_cast(from: DType, to: DType) -> bool {
    use DType::{Bool, BF16, F16, F64};
    if from == to || from == Bool {
        return true;
    }
    if to == Bool {
        return false;
    }
    match (from.is_float(), to.is_float()) {
        (true, true) => {
            !matches!((from, to), (F16, BF16) | (BF16, F16)) && to.size() >= from.size()
        }
        (true, false) => false,
        (false, true) => to.size() > from.size() || to == F64,
        (false, false) => match (from.is_unsigned_int(), to.is_unsigned_int()) {
            (true, true) | (false, false) => to.size() >= from.size(),
            (true, false) => to.size() > from.size(),
            (false, true) => false,
        },
    }
}
