//! Reductions: `reduce_sum`, `reduce_max`, `reduce_min`, `reduce_prod`, `reduce_and`,
//! `reduce_or`, `argmax`, `argmin` and `cumsum`.

use super::arity;
use super::isa::multiversion;
use super::view::{new_array, signed_strides, strided};
use crate::array::{with_dtype, Array, Aval, DType, Elem};

/// The monoid of a reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Sum (`reduce_sum`).
    Sum,
    /// Product (`reduce_prod`).
    Prod,
    /// Maximum (`reduce_max`).
    Max,
    /// Minimum (`reduce_min`).
    Min,
    /// Logical and of bools (`reduce_and`).
    And,
    /// Logical or of bools (`reduce_or`).
    Or,
}

/// Which extremum an arg-reduction finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgOp {
    /// Index of the first maximum.
    Max,
    /// Index of the first minimum.
    Min,
}

impl ReduceOp {
    /// The primitive's JAX name.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "reduce_sum",
            ReduceOp::Prod => "reduce_prod",
            ReduceOp::Max => "reduce_max",
            ReduceOp::Min => "reduce_min",
            ReduceOp::And => "reduce_and",
            ReduceOp::Or => "reduce_or",
        }
    }
}

impl ArgOp {
    /// The primitive's JAX name.
    pub fn name(self) -> &'static str {
        match self {
            ArgOp::Max => "argmax",
            ArgOp::Min => "argmin",
        }
    }
}

fn check_axes(axes: &[usize], x: &Aval) -> Result<(), String> {
    for (i, &a) in axes.iter().enumerate() {
        if a >= x.ndim() || axes[..i].contains(&a) {
            return Err(format!("axes {axes:?} invalid for {x}"));
        }
    }
    Ok(())
}

fn reduced_shape(shape: &[usize], axes: &[usize]) -> Vec<usize> {
    (0..shape.len())
        .filter(|d| !axes.contains(d))
        .map(|d| shape[d])
        .collect()
}

pub(crate) fn reduce_rule(
    op: ReduceOp,
    axes: &[usize],
    inputs: &[Aval],
) -> Result<Vec<Aval>, String> {
    arity(inputs, 1)?;
    let x = &inputs[0];
    check_axes(axes, x)?;
    let ok = match op {
        ReduceOp::And | ReduceOp::Or => x.dtype == DType::Bool,
        ReduceOp::Max | ReduceOp::Min => !x.dtype.is_complex(),
        _ => x.dtype.is_numeric(),
    };
    if !ok {
        return Err(format!("cannot reduce {x}"));
    }
    Ok(vec![Aval::new(x.dtype, &reduced_shape(&x.shape, axes))])
}

pub(crate) fn arg_rule(
    axes: &[usize],
    index_dtype: DType,
    inputs: &[Aval],
) -> Result<Vec<Aval>, String> {
    arity(inputs, 1)?;
    let x = &inputs[0];
    check_axes(axes, x)?;
    if axes.len() != 1 || !index_dtype.is_int() || x.dtype.is_complex() {
        return Err(format!(
            "needs one axis, an integer index_dtype and real operands; got axes {axes:?} and \
             {index_dtype} for {x}"
        ));
    }
    if x.shape[axes[0]] == 0 {
        return Err(format!(
            "requires a non-empty reduced dimension; axis {} of {x} is empty",
            axes[0]
        ));
    }
    Ok(vec![Aval::new(index_dtype, &reduced_shape(&x.shape, axes))])
}

pub(crate) fn cumsum_rule(axis: usize, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    arity(inputs, 1)?;
    let x = &inputs[0];
    if axis >= x.ndim() || !x.dtype.is_numeric() || x.dtype.is_complex() {
        return Err(format!(
            "axis {axis} invalid for {x} (a real numeric operand)"
        ));
    }
    Ok(vec![x.clone()])
}

/// `a` permuted so the `axes` come last, as (rows, row length).
fn reduced_last(a: &Array, axes: &[usize]) -> (Array, usize) {
    let kept: Vec<usize> = (0..a.ndim()).filter(|d| !axes.contains(d)).collect();
    let perm: Vec<usize> = kept.iter().chain(axes).copied().collect();
    let src = signed_strides(a.shape());
    let shape: Vec<usize> = perm.iter().map(|&p| a.shape()[p]).collect();
    let strides: Vec<isize> = perm.iter().map(|&p| src[p]).collect();
    let row: usize = axes.iter().map(|&d| a.shape()[d]).product();
    let permuted = if perm.iter().enumerate().all(|(i, &p)| i == p) {
        a.clone()
    } else {
        strided(a, 0, &shape, &strides)
    };
    (permuted, row)
}

/// The reductions' arithmetic: a combining operation and its identity.
pub(crate) trait Monoid: Elem {
    fn combine(op: ReduceOp, a: Self, b: Self) -> Self;
    fn identity(op: ReduceOp) -> Self;
}

macro_rules! monoid_num {
    ($t:ty, $lo:expr, $hi:expr, $add:expr, $mul:expr) => {
        impl Monoid for $t {
            #[allow(clippy::float_cmp)]
            fn combine(op: ReduceOp, a: Self, b: Self) -> Self {
                #[allow(clippy::eq_op)]
                let nan = |v: Self| v != v;
                match op {
                    ReduceOp::Sum => $add(a, b),
                    ReduceOp::Prod => $mul(a, b),
                    ReduceOp::Max if nan(a) || a >= b => a,
                    ReduceOp::Min if nan(a) || a <= b => a,
                    ReduceOp::Max | ReduceOp::Min => b,
                    ReduceOp::And | ReduceOp::Or => unreachable!("bool-only reduction"),
                }
            }
            fn identity(op: ReduceOp) -> Self {
                match op {
                    ReduceOp::Sum => <$t>::from_f64(0.0),
                    ReduceOp::Prod => <$t>::from_f64(1.0),
                    ReduceOp::Max => $lo,
                    ReduceOp::Min => $hi,
                    ReduceOp::And | ReduceOp::Or => unreachable!("bool-only reduction"),
                }
            }
        }
    };
}
monoid_num!(
    f32,
    f32::NEG_INFINITY,
    f32::INFINITY,
    |a, b| a + b,
    |a, b| a * b
);
monoid_num!(
    f64,
    f64::NEG_INFINITY,
    f64::INFINITY,
    |a, b| a + b,
    |a, b| a * b
);
// The 16-bit floats add and multiply in f32 and round each step.
monoid_num!(
    half::f16,
    half::f16::NEG_INFINITY,
    half::f16::INFINITY,
    |a: half::f16, b: half::f16| half::f16::from_f32(a.to_f32() + b.to_f32()),
    |a: half::f16, b: half::f16| half::f16::from_f32(a.to_f32() * b.to_f32())
);
monoid_num!(
    half::bf16,
    half::bf16::NEG_INFINITY,
    half::bf16::INFINITY,
    |a: half::bf16, b: half::bf16| half::bf16::from_f32(a.to_f32() + b.to_f32()),
    |a: half::bf16, b: half::bf16| half::bf16::from_f32(a.to_f32() * b.to_f32())
);
/// Integer sums and products wrap, as XLA's do.
macro_rules! monoid_int {
    ($($t:ty),*) => {$(
        monoid_num!($t, <$t>::MIN, <$t>::MAX, <$t>::wrapping_add, <$t>::wrapping_mul);
    )*};
}
monoid_int!(i8, i16, i32, i64, u8, u16, u32, u64);

/// Complex sums and products; complex numbers have no order, so the shape rule rejects
/// `reduce_max` and `reduce_min` of them.
macro_rules! monoid_complex {
    ($($t:ty),*) => {$(
        impl Monoid for num_complex::Complex<$t> {
            fn combine(op: ReduceOp, a: Self, b: Self) -> Self {
                match op {
                    ReduceOp::Sum => a + b,
                    ReduceOp::Prod => a * b,
                    _ => unreachable!("{} of complex operands", op.name()),
                }
            }
            fn identity(op: ReduceOp) -> Self {
                match op {
                    ReduceOp::Sum => num_complex::Complex::new(0.0, 0.0),
                    ReduceOp::Prod => num_complex::Complex::new(1.0, 0.0),
                    _ => unreachable!("{} of complex operands", op.name()),
                }
            }
        }
    )*};
}
monoid_complex!(f32, f64);

impl Monoid for bool {
    fn combine(op: ReduceOp, a: bool, b: bool) -> bool {
        match op {
            ReduceOp::And | ReduceOp::Min | ReduceOp::Prod => a && b,
            ReduceOp::Or | ReduceOp::Max | ReduceOp::Sum => a || b,
        }
    }
    fn identity(op: ReduceOp) -> bool {
        matches!(op, ReduceOp::And | ReduceOp::Min | ReduceOp::Prod)
    }
}

/// Float sums of longer rows than this are pairwise (cascade) sums of halves, as numpy's
/// are: the rounding error grows with `log(n)` instead of `n` (a sequential `f32` sum of
/// 200,000 terms is off by about 2e-4 relative; XLA's is not). Shorter rows sum in order.
const PAIRWISE_BLOCK: usize = 128;

/// Runs `$body` with `$id` and `$f` bound to the identity and combining function of
/// reduction `$op` over `$T`, the operation fixed at compile time for the common ones.
macro_rules! with_monoid {
    ($op:expr, $T:ty, |$id:ident, $f:ident| $body:expr) => {
        match $op {
            $crate::prims::ReduceOp::Sum => {
                let ($id, $f) = (
                    <$T as $crate::prims::Monoid>::identity($crate::prims::ReduceOp::Sum),
                    |a, b| {
                        <$T as $crate::prims::Monoid>::combine($crate::prims::ReduceOp::Sum, a, b)
                    },
                );
                $body
            }
            $crate::prims::ReduceOp::Max => {
                let ($id, $f) = (
                    <$T as $crate::prims::Monoid>::identity($crate::prims::ReduceOp::Max),
                    |a, b| {
                        <$T as $crate::prims::Monoid>::combine($crate::prims::ReduceOp::Max, a, b)
                    },
                );
                $body
            }
            $crate::prims::ReduceOp::Min => {
                let ($id, $f) = (
                    <$T as $crate::prims::Monoid>::identity($crate::prims::ReduceOp::Min),
                    |a, b| {
                        <$T as $crate::prims::Monoid>::combine($crate::prims::ReduceOp::Min, a, b)
                    },
                );
                $body
            }
            other => {
                let ($id, $f) = (<$T as $crate::prims::Monoid>::identity(other), |a, b| {
                    <$T as $crate::prims::Monoid>::combine(other, a, b)
                });
                $body
            }
        }
    };
}
pub(crate) use with_monoid;

multiversion! {
    /// Combines `s`: by halves above [`PAIRWISE_BLOCK`] when `pairwise`, and within a block
    /// in eight interleaved partial results (which the compiler turns into vector
    /// instructions), combined as a tree at the end.
    pub(crate) fn fold[T: Monoid](op: ReduceOp, s: &[T], pairwise: bool) -> T {
        with_monoid!(op, T, |id, f| fold_by(s, pairwise, id, f))
    }
}

/// [`fold`] with the combining function `f` and its identity `id`.
#[inline(always)]
pub(crate) fn fold_by<T: Copy>(s: &[T], pairwise: bool, id: T, f: impl Fn(T, T) -> T + Copy) -> T {
    if pairwise && s.len() > PAIRWISE_BLOCK {
        let (lo, hi) = s.split_at(s.len() / 2);
        return f(fold_halves(lo, id, f), fold_halves(hi, id, f));
    }
    if s.len() < SHORT_RUN {
        return fold_parts::<T, 4>(s, id, f);
    }
    fold_parts::<T, 8>(s, id, f)
}

/// Combines `s` in `P` interleaved partial results, then those as a tree.
#[inline(always)]
fn fold_parts<T: Copy, const P: usize>(s: &[T], id: T, f: impl Fn(T, T) -> T + Copy) -> T {
    let mut part = [id; P];
    let chunks = s.chunks_exact(P);
    let rest = chunks.remainder().iter().fold(id, |a, &v| f(a, v));
    for c in chunks {
        for (p, &v) in part.iter_mut().zip(c) {
            *p = f(*p, v);
        }
    }
    let mut n = P;
    while n > 1 {
        n /= 2;
        for i in 0..n {
            part[i] = f(part[i], part[i + n]);
        }
    }
    f(rest, part[0])
}

/// Runs shorter than this fold in four partial results, longer ones in eight.
pub(crate) const SHORT_RUN: usize = 32;

multiversion! {
    /// The pairwise [`fold_by`] of a long run, out of line.
    fn fold_halves[T: Copy](s: &[T], id: T, f: impl Fn(T, T) -> T + Copy) -> T {
        fold_by(s, true, id, f)
    }
}

pub(crate) fn reduce(op: ReduceOp, a: &Array, axes: &[usize]) -> Array {
    fn run<T: Monoid>(op: ReduceOp, a: &Array, axes: &[usize]) -> Array {
        let (p, row) = reduced_last(a, axes);
        let src = p.as_slice::<T>();
        let pairwise = op == ReduceOp::Sum && a.dtype().is_float();
        new_array::<T>(&reduced_shape(a.shape(), axes), |out| {
            for (i, o) in out.iter_mut().enumerate() {
                *o = fold(op, &src[i * row..(i + 1) * row], pairwise);
            }
        })
    }
    with_dtype!(a.dtype(), T, run::<T>(op, a, axes))
}

pub(crate) fn arg_reduce(op: ArgOp, a: &Array, axis: usize, index_dtype: DType) -> Array {
    fn run<T: Elem + PartialOrd>(op: ArgOp, a: &Array, axis: usize, out: &mut [i32]) {
        let (p, row) = reduced_last(a, &[axis]);
        let src = p.as_slice::<T>();
        #[allow(clippy::eq_op)]
        let nan = |v: T| v != v;
        for (o, r) in out.iter_mut().zip(src.chunks(row.max(1))) {
            let mut best = 0;
            for (i, &v) in r.iter().enumerate() {
                let b = r[best];
                if nan(b) {
                    break;
                }
                let better = match op {
                    ArgOp::Max => v > b,
                    ArgOp::Min => v < b,
                };
                if better || nan(v) {
                    best = i;
                }
            }
            *o = best as i32;
        }
    }
    let shape = reduced_shape(a.shape(), &[axis]);
    let out = new_array::<i32>(&shape, |out| {
        with_dtype!(a.dtype(), T, Real, run::<T>(op, a, axis, out))
    });
    super::elementwise::convert(&out, index_dtype)
}

/// The bytes a reduction run alone holds beyond its operand and result: a copy of the
/// operand with the reduced axes moved last, unless they are last already.
pub(crate) fn permuted_bytes(x: &Aval, axes: &[usize]) -> usize {
    let kept = (0..x.ndim()).filter(|d| !axes.contains(d));
    let in_order = kept
        .chain(axes.iter().copied())
        .enumerate()
        .all(|(i, p)| i == p);
    if in_order {
        0
    } else {
        x.nbytes()
    }
}

pub(crate) fn cumsum(a: &Array, axis: usize, reverse: bool) -> Array {
    fn run<T: Monoid>(a: &Array, axis: usize, reverse: bool) -> Array {
        let n = a.shape()[axis];
        let inner: usize = a.shape()[axis + 1..].iter().product();
        let outer: usize = a.shape()[..axis].iter().product();
        let src = a.as_slice::<T>();
        new_array::<T>(a.shape(), |out| {
            for o in 0..outer {
                for i in 0..inner {
                    let mut acc = T::identity(ReduceOp::Sum);
                    for k in 0..n {
                        let k = if reverse { n - 1 - k } else { k };
                        let pos = (o * n + k) * inner + i;
                        acc = T::combine(ReduceOp::Sum, acc, src[pos]);
                        out[pos] = acc;
                    }
                }
            }
        })
    }
    with_dtype!(a.dtype(), T, Num, run::<T>(a, axis, reverse))
}
