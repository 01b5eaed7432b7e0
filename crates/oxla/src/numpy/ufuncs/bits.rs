//! Shifts (`left_shift`, `right_shift`), `bitwise_count`, and `gcd`/`lcm`, as `jax.numpy`
//! builds them.

use crate::array::DType;
use crate::core::Tensor;
use crate::numpy::{promote, scalar_tensor, where_, Operand};
use crate::ops as lax;

/// Panics at the caller's line, naming the numpy function, unless `t` is an integer array.
#[track_caller]
fn integers(what: &str, t: &Tensor) {
    if !t.dtype().is_int() {
        panic!(
            "{what}: needs integer operands, got {}\n  at {}",
            t.aval(),
            std::panic::Location::caller()
        );
    }
}

/// `x << y` on integer arrays (shifts of the width or more give 0).
#[track_caller]
pub fn left_shift(x: impl Into<Operand>, y: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote("left_shift", &[x.into(), y.into()]);
    integers("left_shift", &t[0]);
    lax::shift_left(&t[0], &t[1])
}

/// `x >> y` on integer arrays: arithmetic (sign-filling) for signed dtypes, logical for
/// unsigned ones.
#[track_caller]
pub fn right_shift(x: impl Into<Operand>, y: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let t = promote("right_shift", &[x.into(), y.into()]);
    integers("right_shift", &t[0]);
    if t[0].dtype().is_unsigned_int() {
        lax::shift_right_logical(&t[0], &t[1])
    } else {
        lax::shift_right_arithmetic(&t[0], &t[1])
    }
}

/// The number of set bits of `|x|`, as `uint8` (numpy's `bitwise_count`).
#[track_caller]
pub fn bitwise_count(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = x.into().into_tensor();
    let x = if x.dtype() == DType::Bool {
        lax::convert_element_type(&x, crate::array::Kind::Int.default_dtype())
    } else {
        x
    };
    integers("bitwise_count", &x);
    let a = if x.dtype().is_signed_int() {
        lax::abs(&x)
    } else {
        x
    };
    lax::convert_element_type(&lax::population_count(&a), DType::U8)
}

/// `|x1|` and `|x2|` promoted to one integer dtype and broadcast to one shape.
#[track_caller]
fn abs_pair(what: &str, x1: Operand, x2: Operand) -> (Tensor, Tensor) {
    let t = promote(what, &[x1, x2]);
    integers(what, &t[0]);
    let shape = crate::prims::broadcast_shapes(t[0].shape(), t[1].shape())
        .expect("promote broadcasts the shapes");
    let prep = |v: &Tensor| {
        let v = if v.dtype().is_signed_int() {
            lax::abs(v)
        } else {
            v.clone()
        };
        if v.shape() == shape.as_slice() {
            return v;
        }
        let dims: Vec<usize> = (0..v.ndim()).collect();
        lax::broadcast_in_dim(&v, &shape, &dims)
    };
    (prep(&t[0]), prep(&t[1]))
}

/// The greatest common divisor of `|x1|` and `|x2|` (0 for two zeros), by Euclid's
/// algorithm as JAX runs it, unrolled to the most steps the dtype's width can need.
#[track_caller]
pub fn gcd(x1: impl Into<Operand>, x2: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let (a, b) = abs_pair("gcd", x1.into(), x2.into());
    euclid(a, b)
}

fn euclid(mut a: Tensor, mut b: Tensor) -> Tensor {
    let zero = scalar_tensor(0.0, a.dtype());
    // Consecutive Fibonacci numbers are the worst case: about 1.44 steps per bit.
    let steps = 3 * 8 * a.dtype().size() / 2 + 2;
    for _ in 0..steps {
        let nz = lax::ne(&b, &zero);
        let safe = where_(&nz, &b, scalar_tensor(1.0, b.dtype()));
        let (na, nb) = (where_(&nz, &b, &a), where_(&nz, lax::rem(&a, &safe), &zero));
        let swap = lax::lt(&na, &nb);
        a = where_(&swap, &nb, &na);
        b = where_(&swap, &na, &nb);
    }
    a
}

/// The least common multiple of `|x1|` and `|x2|` (0 if either is 0).
#[track_caller]
pub fn lcm(x1: impl Into<Operand>, x2: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let (a, b) = abs_pair("lcm", x1.into(), x2.into());
    let d = euclid(a.clone(), b.clone());
    let zero = scalar_tensor(0.0, d.dtype());
    let is_zero = lax::eq(&d, &zero);
    let safe = where_(&is_zero, scalar_tensor(1.0, d.dtype()), &d);
    where_(
        is_zero,
        &zero,
        lax::mul(&a, &crate::numpy::floor_divide(&b, &safe)),
    )
}
