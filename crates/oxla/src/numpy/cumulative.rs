//! `cumprod`, `cumulative_sum`, `cumulative_prod` (the array API's, with
//! `include_initial`), and `logaddexp`, `logaddexp2`, as `jax.numpy` has them.

use super::reductions::sum_integer_dtype;
use super::{astype, inexact, promote, scalar_tensor, Axis, Operand};
use crate::array::{DType, Kind};
use crate::core::Tensor;
use crate::ops as lax;

/// Inclusive cumulative product along `axis` (`None`: of the flattened array), as
/// `jnp.cumprod`: bools multiply as the default integer.
#[track_caller]
pub fn cumprod(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let axis = axis.into();
    axis.no_keepdims("cumprod");
    let x = if x.dtype() == DType::Bool {
        astype(x, Kind::Int.default_dtype())
    } else {
        x.clone()
    };
    match axis.single(x.ndim(), "cumprod") {
        None => lax::cumprod(&super::ravel(&x), 0, false),
        Some(a) => lax::cumprod(&x, a, false),
    }
}

/// The axis of the array API's cumulative functions: `None` only for a vector.
#[track_caller]
fn array_api_axis(x: &Tensor, axis: Axis, what: &str) -> usize {
    axis.no_keepdims(what);
    if x.ndim() == 0 {
        panic!(
            "{what}: the input must be non-scalar, got {}\n  at {}",
            x.aval(),
            std::panic::Location::caller()
        );
    }
    match axis.single(x.ndim(), what) {
        Some(a) => a,
        None if x.ndim() == 1 => 0,
        None => panic!(
            "{what}: the input {} has rank {}, so the axis must be given (it is optional \
             only for vectors)\n  at {}",
            x.aval(),
            x.ndim(),
            std::panic::Location::caller()
        ),
    }
}

/// `init` of `x`'s dtype before the scan `r` along `axis`, when `include_initial`.
fn with_initial(r: Tensor, axis: usize, include_initial: bool, init: f64) -> Tensor {
    if !include_initial {
        return r;
    }
    let mut shape = r.shape().to_vec();
    shape[axis] = 1;
    let first = lax::broadcast_in_dim(&scalar_tensor(init, r.dtype()), &shape, &[]);
    lax::concatenate(&[first, r], axis)
}

/// The array API's cumulative sum along `axis` (which may be `None` only for a vector), as
/// `jnp.cumulative_sum`: bools and narrow integers sum in the default integer, and
/// `include_initial` puts a zero first.
#[track_caller]
pub fn cumulative_sum(
    x: impl Into<Operand>,
    axis: impl Into<Axis>,
    include_initial: bool,
) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let a = array_api_axis(x, axis.into(), "cumulative_sum");
    let x = match x.dtype() {
        d if d == DType::Bool || d.is_int() => astype(x, sum_integer_dtype(d)),
        _ => x.clone(),
    };
    with_initial(lax::cumsum(&x, a, false), a, include_initial, 0.0)
}

/// The array API's cumulative product along `axis` (which may be `None` only for a
/// vector), as `jnp.cumulative_prod`: bools multiply as the default integer, and
/// `include_initial` puts a one first.
#[track_caller]
pub fn cumulative_prod(
    x: impl Into<Operand>,
    axis: impl Into<Axis>,
    include_initial: bool,
) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let a = array_api_axis(x, axis.into(), "cumulative_prod");
    let x = if x.dtype() == DType::Bool {
        astype(x, Kind::Int.default_dtype())
    } else {
        x.clone()
    };
    with_initial(lax::cumprod(&x, a, false), a, include_initial, 1.0)
}

/// `log(exp(x) + exp(y))` without overflow, as `jnp.logaddexp` (integers become floats).
/// Its derivative is the composition's, `exp(x - out)` for `x`, and matches JAX's custom rule
/// wherever the operands are finite.
#[track_caller]
pub fn logaddexp(x: impl Into<Operand>, y: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote("logaddexp", &[x.into(), y.into()]);
    lax::logaddexp(&inexact(&t[0]), &inexact(&t[1]))
}

/// `log2(2^x + 2^y)` without overflow, as `jnp.logaddexp2` (integers become floats); its
/// derivative matches JAX's custom rule wherever the operands are finite.
#[track_caller]
pub fn logaddexp2(x: impl Into<Operand>, y: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote("logaddexp2", &[x.into(), y.into()]);
    let (x, y) = (inexact(&t[0]), inexact(&t[1]));
    let d = x.dtype();
    let ln2 = std::f64::consts::LN_2;
    let delta = lax::sub(&x, &y);
    let exp2 = lax::exp(&lax::mul(
        &lax::neg(&lax::abs(&delta)),
        &scalar_tensor(ln2, d),
    ));
    let smooth = lax::add(
        &lax::max(&x, &y),
        &lax::mul(&scalar_tensor(1.0 / ln2, d), &lax::log1p(&exp2)),
    );
    lax::select_n(&lax::ne(&delta, &delta), &[smooth, lax::add(&x, &y)])
}
