//! Reductions: `sum`, `mean`, `max`, `min`, `prod`, `argmax`, `argmin`, `all`, `any` (each
//! with `keepdims` through [`Axis`]), `cumsum`, `sort`, `isclose`, `allclose`.

use super::{astype, inexact, promote, scalar_tensor, Axis, Operand};
use crate::array::{DType, Kind};
use crate::core::Tensor;
use crate::ops as lax;
use crate::prims::{ArgOp, ReduceOp};

/// Puts back the reduced axes as size-1 dimensions.
#[track_caller]
fn keep(r: &Tensor, shape: &[usize], axes: &[usize]) -> Tensor {
    let full: Vec<usize> = (0..shape.len())
        .map(|d| if axes.contains(&d) { 1 } else { shape[d] })
        .collect();
    let dims: Vec<usize> = (0..shape.len()).filter(|d| !axes.contains(d)).collect();
    lax::broadcast_in_dim(r, &full, &dims)
}

/// A jnp reduction: as `jnp.max` and `jnp.min` raise where JAX's reductions without an
/// identity meet an empty reduced axis, this panics at the caller's line.
#[track_caller]
fn reduce(x: &Tensor, op: ReduceOp, axes: Axis, what: &str) -> Tensor {
    let a = axes.resolve(x.ndim(), what);
    if matches!(op, ReduceOp::Max | ReduceOp::Min) && a.iter().any(|&d| x.shape()[d] == 0) {
        panic!(
            "{what}: zero-size array to reduction operation {what} which has no identity \
             (reducing axes {a:?} of {})\n  at {}",
            x.aval(),
            std::panic::Location::caller()
        );
    }
    reduce_axes(x, op, &a, axes.keeps_dims())
}

/// The maximum over `axis` keeping it as size 1 (whatever `axis` asks), with JAX's `initial=-inf`: an empty axis
/// gives `-inf` (`lax.reduce_max`'s identity) rather than panicking, as `jax.nn.softmax`
/// asks of `jnp.max`.
#[track_caller]
pub(crate) fn max_keepdims_initial(x: &Tensor, axis: &Axis) -> Tensor {
    reduce_axes(x, ReduceOp::Max, &axis.resolve(x.ndim(), "max"), true)
}

/// The dtype `jnp.sum` and `jnp.prod` of a bool or integer `d` accumulate in (JAX's
/// `promote_integers`): the default integer for bools and narrower signed integers, its
/// unsigned counterpart for narrower unsigned ones, else `d` itself.
pub(crate) fn sum_integer_dtype(d: DType) -> DType {
    let int = Kind::Int.default_dtype();
    let uint = if int == DType::I64 {
        DType::U64
    } else {
        DType::U32
    };
    match d {
        DType::Bool => int,
        d if d.is_signed_int() && d.size() < int.size() => int,
        d if d.is_int() && !d.is_signed_int() && d.size() < uint.size() => uint,
        d => d,
    }
}

#[track_caller]
fn reduce_axes(x: &Tensor, op: ReduceOp, a: &[usize], keepdims: bool) -> Tensor {
    let sum_or_prod = matches!(op, ReduceOp::Sum | ReduceOp::Prod);
    let x = match (op, x.dtype()) {
        (ReduceOp::And | ReduceOp::Or, d) if d != DType::Bool => lax::ne(x, &scalar_tensor(0.0, d)),
        // JAX's `promote_integers`: bools and narrow integers sum in the default integer.
        (_, d) if sum_or_prod && (d == DType::Bool || d.is_int()) => {
            astype(x, sum_integer_dtype(d))
        }
        // As JAX's `upcast_f16_for_computation`: 16-bit floats sum in f32, then round.
        (_, d) if sum_or_prod && d.is_half() => {
            let r = lax::reduce(&astype(x, DType::F32), op, a);
            let r = astype(&r, d);
            return if keepdims { keep(&r, x.shape(), a) } else { r };
        }
        _ => x.clone(),
    };
    let r = lax::reduce(&x, op, a);
    if keepdims {
        keep(&r, x.shape(), a)
    } else {
        r
    }
}

macro_rules! reduction {
    ($($(#[$doc:meta])* $name:ident => $op:ident),* $(,)?) => {$(
        $(#[$doc])*
        #[track_caller]
        pub fn $name(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
            let _line = crate::core::user_line();
            let x = &x.into().into_tensor();
            reduce(x, ReduceOp::$op, axis.into(), stringify!($name))
        }
    )*};
}
reduction!(
    /// Sum over `axis` (bools count as `i32`).
    sum => Sum,
    /// Maximum over `axis` (NaN propagates).
    max => Max,
    /// Minimum over `axis` (NaN propagates).
    min => Min,
    /// Product over `axis` (bools count as `i32`).
    prod => Prod,
    /// Whether every element over `axis` is true (nonzero).
    all => And,
    /// Whether any element over `axis` is true (nonzero).
    any => Or,
);

/// Arithmetic mean over `axis` (integers are averaged as `f32`).
#[track_caller]
pub fn mean(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let axis = axis.into();
    let a = axis.resolve(x.ndim(), "mean");
    let n: usize = a.iter().map(|&d| x.shape()[d]).product();
    let x = inexact(x);
    let s = reduce_axes(&x, ReduceOp::Sum, &a, axis.keeps_dims());
    lax::div(&s, &scalar_tensor(n as f64, x.dtype()))
}

#[track_caller]
fn arg(x: &Tensor, op: ArgOp, axis: Axis) -> Tensor {
    let what = op.name();
    let keepdims = axis.keeps_dims();
    match axis.single(x.ndim(), what) {
        None => {
            let flat = super::ravel(x);
            nonempty(&flat, 0, what);
            let r = lax::arg_reduce(&flat, op, 0, Kind::Int.default_dtype());
            if keepdims {
                lax::broadcast_in_dim(&r, &vec![1; x.ndim()], &[])
            } else {
                r
            }
        }
        Some(a) => {
            nonempty(x, a, what);
            let r = lax::arg_reduce(x, op, a, Kind::Int.default_dtype());
            if keepdims {
                keep(&r, x.shape(), &[a])
            } else {
                r
            }
        }
    }
}

/// Panics at the caller's line, as `jnp.argmax` raises, if axis `a` of `x` is empty.
#[track_caller]
fn nonempty(x: &Tensor, a: usize, what: &str) {
    if x.shape()[a] == 0 {
        panic!(
            "{what}: requires a non-empty reduced dimension; axis {a} of {} is empty (JAX: \
             attempt to get {what} of an empty sequence)\n  at {}",
            x.aval(),
            std::panic::Location::caller()
        );
    }
}

/// Index of the first maximum along `axis` (`None`: of the flattened array), `i32`.
#[track_caller]
pub fn argmax(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    arg(x, ArgOp::Max, axis.into())
}

/// Index of the first minimum along `axis` (`None`: of the flattened array), `i32`.
#[track_caller]
pub fn argmin(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    arg(x, ArgOp::Min, axis.into())
}

/// Inclusive cumulative sum along `axis` (`None`: of the flattened array).
#[track_caller]
pub fn cumsum(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let axis = axis.into();
    axis.no_keepdims("cumsum");
    let x = if x.dtype() == DType::Bool {
        astype(x, Kind::Int.default_dtype())
    } else {
        x.clone()
    };
    match axis.single(x.ndim(), "cumsum") {
        None => lax::cumsum(&super::ravel(&x), 0, false),
        Some(a) => lax::cumsum(&x, a, false),
    }
}

/// Sorted copy along `axis` (`None`: of the flattened array; numpy's default is `-1`);
/// NaNs sort last.
#[track_caller]
pub fn sort(x: impl Into<Operand>, axis: impl Into<Axis>) -> Tensor {
    let _line = crate::core::user_line();
    let x = &x.into().into_tensor();
    let axis = axis.into();
    axis.no_keepdims("sort");
    let (x, a) = match axis.single(x.ndim(), "sort") {
        None => (super::ravel(x), 0),
        Some(a) => (x.clone(), a),
    };
    lax::sort(&[x], a, 1).pop().expect("one result")
}

/// Whether `|a - b| <= atol + rtol * |b|` elementwise; infinities equal only themselves,
/// NaNs equal nothing.
#[track_caller]
pub fn isclose(a: impl Into<Operand>, b: impl Into<Operand>, rtol: f64, atol: f64) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote("isclose", &[a.into(), b.into()]);
    let (a, b) = (inexact(&t[0]), inexact(&t[1]));
    let d = a.dtype();
    let close = lax::le(
        &lax::abs(&lax::sub(&a, &b)),
        &lax::add(
            &scalar_tensor(atol, d),
            &lax::mul(&scalar_tensor(rtol, d), &lax::abs(&b)),
        ),
    );
    let (ainf, binf) = (super::isinf(&a), super::isinf(&b));
    let any_inf = lax::or(&ainf, &binf);
    let same_inf = lax::and(&lax::and(&ainf, &binf), &lax::eq(&a, &b));
    let finite_close = lax::and(&close, &lax::not(&any_inf));
    let r = lax::or(&finite_close, &same_inf);
    lax::and(
        &r,
        &lax::not(&lax::or(&super::isnan(&a), &super::isnan(&b))),
    )
}

/// Whether all elements are [`isclose`] with numpy's defaults (`rtol=1e-5`, `atol=1e-8`);
/// a bool scalar.
#[track_caller]
pub fn allclose(a: impl Into<Operand>, b: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    all(isclose(a, b, 1e-5, 1e-8), None)
}
