//! Elementwise primitives: unary and binary arithmetic, comparisons, logic, `select_n`,
//! dtype conversions, `integer_pow` and the Threefry cipher.

use super::isa::multiversion;
use super::{arity, polynomial};
use crate::array::{new_values, Array, Buffer, DType, Elem, Lane, Values, ValuesMut};
use crate::core::Aval;
use crate::random::threefry;

/// Elementwise primitives of one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`.
    Neg,
    /// `e^x`.
    Exp,
    /// Natural logarithm.
    Log,
    /// `log(1 + x)`, accurate near 0.
    Log1p,
    /// Sine.
    Sin,
    /// Cosine.
    Cos,
    /// Hyperbolic tangent.
    Tanh,
    /// `1 / (1 + e^-x)`.
    Logistic,
    /// Square root.
    Sqrt,
    /// `1 / sqrt(x)`.
    Rsqrt,
    /// Absolute value.
    Abs,
    /// -1, 0 or 1 (NaN stays NaN).
    Sign,
    /// Round toward negative infinity.
    Floor,
    /// Round toward positive infinity.
    Ceil,
    /// Round half away from zero.
    Round,
    /// Logical (bool) or bitwise (integer) not.
    Not,
    /// Inverse error function.
    ErfInv,
    /// Whether a float is neither infinite nor NaN (bool result).
    IsFinite,
}

/// Elementwise primitives of two operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `x + y` (wrapping for integers).
    Add,
    /// `x - y`.
    Sub,
    /// `x * y`.
    Mul,
    /// `x / y` (integer division truncates; by zero gives -1).
    Div,
    /// Remainder with the dividend's sign (C `fmod`); by zero gives `x` for integers.
    Rem,
    /// `x ** y` for floats.
    Pow,
    /// Larger of two (NaN propagates; `or` for bools).
    Max,
    /// Smaller of two (NaN propagates; `and` for bools).
    Min,
    /// The next float after `x` toward `y`.
    Nextafter,
    /// `x == y`.
    Eq,
    /// `x != y`.
    Ne,
    /// `x < y`.
    Lt,
    /// `x <= y`.
    Le,
    /// `x > y`.
    Gt,
    /// `x >= y`.
    Ge,
    /// Logical or bitwise and.
    And,
    /// Logical or bitwise or.
    Or,
    /// Logical or bitwise exclusive or.
    Xor,
    /// `x << y` on the bits; shifts of the width or more give 0.
    ShiftLeft,
    /// `x >> y` on the bits, filling with zeros.
    ShiftRightLogical,
}

/// Which dtypes an operation admits.
#[derive(Clone, Copy, PartialEq)]
enum Class {
    Float,
    Numeric,
    IntOrBool,
    Int,
    Any,
}

impl Class {
    fn admits(self, d: DType) -> bool {
        match self {
            Class::Float => d.is_float(),
            Class::Numeric => d.is_numeric(),
            Class::IntOrBool => !d.is_float(),
            Class::Int => d.is_int(),
            Class::Any => true,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Class::Float => "a floating-point operand",
            Class::Numeric => "a numeric operand",
            Class::IntOrBool => "an integer or bool operand",
            Class::Int => "an integer operand",
            Class::Any => "any operand",
        }
    }
}

impl UnaryOp {
    /// The primitive's JAX name.
    pub fn name(self) -> &'static str {
        use UnaryOp::*;
        match self {
            Neg => "neg",
            Exp => "exp",
            Log => "log",
            Log1p => "log1p",
            Sin => "sin",
            Cos => "cos",
            Tanh => "tanh",
            Logistic => "logistic",
            Sqrt => "sqrt",
            Rsqrt => "rsqrt",
            Abs => "abs",
            Sign => "sign",
            Floor => "floor",
            Ceil => "ceil",
            Round => "round",
            Not => "not",
            ErfInv => "erf_inv",
            IsFinite => "is_finite",
        }
    }

    fn class(self) -> Class {
        use UnaryOp::*;
        match self {
            Neg | Abs | Sign => Class::Numeric,
            Not => Class::IntOrBool,
            _ => Class::Float,
        }
    }
}

impl BinaryOp {
    /// The primitive's JAX name.
    pub fn name(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "add",
            Sub => "sub",
            Mul => "mul",
            Div => "div",
            Rem => "rem",
            Pow => "pow",
            Max => "max",
            Min => "min",
            Nextafter => "nextafter",
            Eq => "eq",
            Ne => "ne",
            Lt => "lt",
            Le => "le",
            Gt => "gt",
            Ge => "ge",
            And => "and",
            Or => "or",
            Xor => "xor",
            ShiftLeft => "shift_left",
            ShiftRightLogical => "shift_right_logical",
        }
    }

    /// Whether the result is a bool comparison.
    pub fn is_comparison(self) -> bool {
        use BinaryOp::*;
        matches!(self, Eq | Ne | Lt | Le | Gt | Ge)
    }

    fn class(self) -> Class {
        use BinaryOp::*;
        match self {
            Add | Sub | Mul | Div | Rem => Class::Numeric,
            Pow | Nextafter => Class::Float,
            // As in JAX: bools are ordered (false < true), and max/min take any dtype.
            Max | Min | Eq | Ne | Lt | Le | Gt | Ge => Class::Any,
            And | Or | Xor => Class::IntOrBool,
            ShiftLeft | ShiftRightLogical => Class::Int,
        }
    }
}

pub(super) fn unary_rule(op: UnaryOp, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    arity(inputs, 1)?;
    let x = &inputs[0];
    if !op.class().admits(x.dtype) {
        return Err(format!("requires {}, got {x}", op.class().describe()));
    }
    let dtype = if op == UnaryOp::IsFinite {
        DType::Bool
    } else {
        x.dtype
    };
    Ok(vec![Aval::new(dtype, &x.shape)])
}

pub(super) fn binary_rule(op: BinaryOp, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    arity(inputs, 2)?;
    let (x, y) = (&inputs[0], &inputs[1]);
    if x.dtype != y.dtype {
        return Err(format!(
            "operands must have one dtype, got {x} and {y} (convert one with astype)"
        ));
    }
    if !op.class().admits(x.dtype) {
        return Err(format!("requires {}, got {x}", op.class().describe()));
    }
    let shape = broadcast_shapes(&x.shape, &y.shape)
        .ok_or_else(|| format!("incompatible shapes {x} and {y}"))?;
    let dtype = if op.is_comparison() {
        DType::Bool
    } else {
        x.dtype
    };
    Ok(vec![Aval::new(dtype, &shape)])
}

/// The shape of a binary operation: equal shapes, a rank-0 operand, or equal ranks whose
/// dimensions agree or are 1 (lax's degenerate-dimension broadcasting).
pub(crate) fn broadcast_shapes(x: &[usize], y: &[usize]) -> Option<Vec<usize>> {
    if x.is_empty() {
        return Some(y.to_vec());
    }
    if y.is_empty() || x == y {
        return Some(x.to_vec());
    }
    if x.len() != y.len() {
        return None;
    }
    x.iter()
        .zip(y)
        .map(|(&a, &b)| match (a, b) {
            _ if a == b => Some(a),
            (1, b) => Some(b),
            (a, 1) => Some(a),
            _ => None,
        })
        .collect()
}

pub(super) fn integer_pow_rule(y: i32, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    arity(inputs, 1)?;
    if !inputs[0].dtype.is_numeric() {
        return Err(format!("requires a numeric operand, got {}", inputs[0]));
    }
    if y < 0 && inputs[0].dtype.is_int() {
        return Err(format!(
            "integers cannot be raised to negative powers, got {} to the power {y}",
            inputs[0]
        ));
    }
    Ok(vec![inputs[0].clone()])
}

pub(super) fn select_n_rule(inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    if inputs.len() < 2 {
        return Err("needs a predicate and at least one case".into());
    }
    let (which, cases) = (&inputs[0], &inputs[1..]);
    match which.dtype {
        DType::Bool if cases.len() <= 2 => {}
        DType::I32 => {}
        _ => {
            return Err(format!(
                "predicate must be bool (for at most two cases) or int32, got {which}"
            ))
        }
    }
    if let Some(c) = cases.iter().find(|c| **c != cases[0]) {
        return Err(format!(
            "cases must have one aval, got {} and {c}",
            cases[0]
        ));
    }
    if which.ndim() != 0 && which.shape != cases[0].shape {
        return Err(format!(
            "predicate shape {which} must be scalar or match the cases' {}",
            cases[0]
        ));
    }
    Ok(vec![cases[0].clone()])
}

pub(super) fn convert_rule(new_dtype: DType, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    arity(inputs, 1)?;
    Ok(vec![Aval::new(new_dtype, &inputs[0].shape)])
}

pub(super) fn bitcast_rule(new_dtype: DType, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    arity(inputs, 1)?;
    if inputs[0].dtype.size() != new_dtype.size() || new_dtype == DType::Bool {
        return Err(format!(
            "cannot bitcast {} to {new_dtype}: widths differ",
            inputs[0]
        ));
    }
    Ok(vec![Aval::new(new_dtype, &inputs[0].shape)])
}

pub(super) fn threefry_rule(inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    arity(inputs, 4)?;
    if let Some(a) = inputs.iter().find(|a| a.dtype != DType::U32) {
        return Err(format!("operands must be uint32, got {a}"));
    }
    let shape = inputs
        .iter()
        .map(|a| &a.shape)
        .max_by_key(|s| s.len())
        .unwrap();
    if let Some(a) = inputs.iter().find(|a| a.ndim() != 0 && a.shape != *shape) {
        return Err(format!("operand shapes must agree, got {a}"));
    }
    Ok(vec![Aval::new(DType::U32, shape); 2])
}

/// Arithmetic shared by the numeric element types, with XLA's semantics at the edges
/// (integer division by zero gives -1, remainder by zero gives the dividend, NaN propagates
/// through max/min).
trait Num: Elem {
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    fn rem(self, o: Self) -> Self;
    fn max(self, o: Self) -> Self;
    fn min(self, o: Self) -> Self;
    fn neg(self) -> Self;
    fn abs(self) -> Self;
    fn sign(self) -> Self;
    fn one() -> Self;
}

macro_rules! num_int {
    ($t:ty, $signed:expr) => {
        impl Num for $t {
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            fn sub(self, o: Self) -> Self {
                self.wrapping_sub(o)
            }
            fn mul(self, o: Self) -> Self {
                self.wrapping_mul(o)
            }
            fn div(self, o: Self) -> Self {
                if o == 0 {
                    (0 as $t).wrapping_sub(1)
                } else {
                    self.wrapping_div(o)
                }
            }
            fn rem(self, o: Self) -> Self {
                if o == 0 {
                    self
                } else {
                    self.wrapping_rem(o)
                }
            }
            fn max(self, o: Self) -> Self {
                Ord::max(self, o)
            }
            fn min(self, o: Self) -> Self {
                Ord::min(self, o)
            }
            fn neg(self) -> Self {
                (0 as $t).wrapping_sub(self)
            }
            #[allow(unused_comparisons)]
            fn abs(self) -> Self {
                if $signed && self < 0 {
                    self.neg()
                } else {
                    self
                }
            }
            #[allow(unused_comparisons)]
            fn sign(self) -> Self {
                if self > 0 {
                    1
                } else if self == 0 {
                    0
                } else {
                    (0 as $t).wrapping_sub(1)
                }
            }
            fn one() -> Self {
                1
            }
        }
    };
}
num_int!(i32, true);
num_int!(u32, false);

macro_rules! num_float {
    ($t:ty) => {
        impl Num for $t {
            fn add(self, o: Self) -> Self {
                self + o
            }
            fn sub(self, o: Self) -> Self {
                self - o
            }
            fn mul(self, o: Self) -> Self {
                self * o
            }
            fn div(self, o: Self) -> Self {
                self / o
            }
            fn rem(self, o: Self) -> Self {
                self % o
            }
            fn max(self, o: Self) -> Self {
                if self.is_nan() || o.is_nan() {
                    <$t>::NAN
                } else {
                    <$t>::max(self, o)
                }
            }
            fn min(self, o: Self) -> Self {
                if self.is_nan() || o.is_nan() {
                    <$t>::NAN
                } else {
                    <$t>::min(self, o)
                }
            }
            fn neg(self) -> Self {
                -self
            }
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            fn sign(self) -> Self {
                if self.is_nan() || self == 0.0 {
                    self
                } else {
                    <$t>::signum(self)
                }
            }
            fn one() -> Self {
                1.0
            }
        }
    };
}
num_float!(f32);
num_float!(f64);

/// Transcendental functions of the float types.
trait Float: Num {
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn ln_1p(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tanh(self) -> Self;
    fn sqrt(self) -> Self;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn round(self) -> Self;
    fn powf(self, o: Self) -> Self;
    fn erf_inv(self) -> Self;
    fn is_finite(self) -> bool;
    fn next_after(self, toward: Self) -> Self;
}

macro_rules! float {
    ($t:ty, $erf_inv:path, $exp:path, $ln:path, $tanh:path) => {
        impl Float for $t {
            #[inline(always)]
            fn exp(self) -> Self {
                $exp(self)
            }
            #[inline(always)]
            fn ln(self) -> Self {
                $ln(self)
            }
            fn ln_1p(self) -> Self {
                <$t>::ln_1p(self)
            }
            fn sin(self) -> Self {
                <$t>::sin(self)
            }
            fn cos(self) -> Self {
                <$t>::cos(self)
            }
            #[inline(always)]
            fn tanh(self) -> Self {
                $tanh(self)
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn floor(self) -> Self {
                <$t>::floor(self)
            }
            fn ceil(self) -> Self {
                <$t>::ceil(self)
            }
            fn round(self) -> Self {
                <$t>::round(self)
            }
            fn powf(self, o: Self) -> Self {
                <$t>::powf(self, o)
            }
            #[inline(always)]
            fn erf_inv(self) -> Self {
                $erf_inv(self)
            }
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            fn next_after(self, toward: Self) -> Self {
                if self.is_nan() || toward.is_nan() {
                    return <$t>::NAN;
                }
                if self == toward {
                    return toward;
                }
                if self == 0.0 {
                    let tiny = <$t>::from_bits(1);
                    return if toward > 0.0 { tiny } else { -tiny };
                }
                let bits = self.to_bits();
                let up = (toward > self) == (self > 0.0);
                <$t>::from_bits(if up { bits + 1 } else { bits - 1 })
            }
        }
    };
}
float!(
    f32,
    threefry::erf_inv_f32,
    polynomial::exp,
    polynomial::ln,
    polynomial::tanh
);
float!(f64, threefry::erf_inv_f64, f64::exp, f64::ln, f64::tanh);

/// Bitwise operations of the integer types and bool.
trait Bits: Elem {
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn not(self) -> Self;
}

macro_rules! bits {
    ($t:ty, $not:expr) => {
        impl Bits for $t {
            fn and(self, o: Self) -> Self {
                self & o
            }
            fn or(self, o: Self) -> Self {
                self | o
            }
            fn xor(self, o: Self) -> Self {
                self ^ o
            }
            fn not(self) -> Self {
                $not(self)
            }
        }
    };
}
bits!(i32, |x: i32| !x);
bits!(u32, |x: u32| !x);
bits!(bool, |x: bool| !x);

/// `out[i] = f(x[i])`; a one-element `x` is repeated.
#[inline(always)]
fn map1<T: Copy, U: Copy>(x: &[T], out: &mut [U], f: impl Fn(T) -> U) {
    if x.len() == out.len() {
        for (o, &v) in out.iter_mut().zip(x) {
            *o = f(v);
        }
    } else {
        out.fill(f(x[0]));
    }
}

/// `out[i] = erf_inv(x[i])`; a one-element `x` is repeated.
#[inline(always)]
fn erf_inv_lanes<T: Float>(x: &[T], out: &mut [T]) {
    if x.len() == out.len() {
        for (o, &v) in out.iter_mut().zip(x) {
            *o = v.erf_inv();
        }
    } else {
        out.fill(x[0].erf_inv());
    }
}

/// `out[i] = f(x[i], y[i])`; one-element operands are repeated.
#[inline(always)]
fn map2<T: Copy, U: Copy>(x: &[T], y: &[T], out: &mut [U], f: impl Fn(T, T) -> U) {
    match (x.len() == out.len(), y.len() == out.len()) {
        (true, true) => {
            for ((o, &u), &v) in out.iter_mut().zip(x).zip(y) {
                *o = f(u, v);
            }
        }
        (true, false) => {
            let v = y[0];
            for (o, &u) in out.iter_mut().zip(x) {
                *o = f(u, v);
            }
        }
        (false, true) => {
            let u = x[0];
            for (o, &v) in out.iter_mut().zip(y) {
                *o = f(u, v);
            }
        }
        (false, false) => out.fill(f(x[0], y[0])),
    }
}

/// Runs an elementwise primitive on typed runs (one-element operands repeat) into `out`.
pub(super) fn apply_into(prim: &super::Prim, args: &[Values], out: ValuesMut) {
    use super::Prim;
    match prim {
        Prim::Unary(op) => unary_into(*op, args[0], out),
        Prim::Binary(op) => binary_into(*op, args[0], args[1], out),
        Prim::IntegerPow { y } => integer_pow_into(*y, args[0], out),
        Prim::SelectN => select_into(args[0], &args[1..], out),
        Prim::ConvertElementType { .. } => convert_into(args[0], out),
        Prim::BitcastConvertType { .. } => bitcast_into(args[0], out),
        other => unreachable!("{} is not elementwise", other.name()),
    }
}

pub(super) fn unary(op: UnaryOp, a: &Array) -> Array {
    let dtype = if op == UnaryOp::IsFinite {
        DType::Bool
    } else {
        a.dtype()
    };
    new_values(dtype, a.shape(), |out| unary_into(op, a.values(), out))
}

multiversion! {
    fn unary_into(op: UnaryOp, x: Values, out: ValuesMut) {
        use UnaryOp::*;
        macro_rules! float_map {
            ($f:expr) => {
                with_dtype!(
                    x.dtype(),
                    T,
                    [F32, F64],
                    map1(T::slice(x), T::slice_mut(out), $f)
                )
            };
        }
        macro_rules! num_map {
            ($f:expr) => {
                with_dtype!(
                    x.dtype(),
                    T,
                    [I32, U32, F32, F64],
                    map1(T::slice(x), T::slice_mut(out), $f)
                )
            };
        }
        match op {
            Neg => num_map!(Num::neg),
            Abs => num_map!(Num::abs),
            Sign => num_map!(Num::sign),
            Exp => float_map!(Float::exp),
            Log => float_map!(Float::ln),
            Log1p => float_map!(Float::ln_1p),
            Sin => float_map!(Float::sin),
            Cos => float_map!(Float::cos),
            Tanh => float_map!(Float::tanh),
            Logistic => float_map!(|x: T| T::one().div(T::one().add(x.neg().exp()))),
            Sqrt => float_map!(Float::sqrt),
            Rsqrt => float_map!(|x: T| T::one().div(x.sqrt())),
            Floor => float_map!(Float::floor),
            Ceil => float_map!(Float::ceil),
            Round => float_map!(Float::round),
            // A long polynomial: called here, not through a function value, so that it is
        // compiled into each instruction set's version of this kernel.
        ErfInv => with_dtype!(
            x.dtype(),
            T,
            [F32, F64],
            erf_inv_lanes(T::slice(x), T::slice_mut(out))
        ),
            IsFinite => with_dtype!(
                x.dtype(),
                T,
                [F32, F64],
                map1(T::slice(x), bool::slice_mut(out), Float::is_finite)
            ),
            Not => with_dtype!(
                x.dtype(),
                T,
                [Bool, I32, U32],
                map1(T::slice(x), T::slice_mut(out), Bits::not)
            ),
        }
    }
}

pub(super) fn binary(op: BinaryOp, a: &Array, b: &Array) -> Array {
    let dtype = if op.is_comparison() {
        DType::Bool
    } else {
        a.dtype()
    };
    if a.shape() == b.shape() || b.ndim() == 0 {
        new_values(dtype, a.shape(), |out| {
            binary_into(op, a.values(), b.values(), out)
        })
    } else if a.ndim() == 0 {
        new_values(dtype, b.shape(), |out| {
            binary_into(op, a.values(), b.values(), out)
        })
    } else {
        // Size-1 dimensions are read in place (stride 0), never materialised.
        let shape = broadcast_shapes(a.shape(), b.shape()).expect("checked by the shape rule");
        with_dtype!(a.dtype(), T, {
            super::broadcast::zip_broadcast::<T>(dtype, &shape, &[a, b], |args, out| {
                binary_into(op, args[0], args[1], out)
            })
        })
    }
}

multiversion! {
    // Comparisons are generic over every dtype, bool included.
    #[allow(clippy::bool_comparison)]
    fn binary_into(op: BinaryOp, x: Values, y: Values, out: ValuesMut) {
        use BinaryOp::*;
        macro_rules! zip_as {
            ([$($d:ident),*], $f:expr) => {
                with_dtype!(
                    x.dtype(),
                    T,
                    [$($d),*],
                    map2(T::slice(x), T::slice(y), T::slice_mut(out), $f)
                )
            };
        }
        macro_rules! cmp {
            ($f:expr) => {
                with_dtype!(
                    x.dtype(),
                    T,
                    map2(T::slice(x), T::slice(y), bool::slice_mut(out), $f)
                )
            };
        }
        // Shifts act on the bits as u32; shifting by the width or more gives zero.
        macro_rules! shift {
            ($f:expr) => {
                zip_as!([I32, U32], |a: T, b: T| {
                    let (a, b) = (a.to_bits64() as u32, b.to_bits64() as u32);
                    T::from_bits64($f(a, b).unwrap_or(0) as u64)
                })
            };
        }
        let is_bool = x.dtype() == DType::Bool;
        match op {
            Add => zip_as!([I32, U32, F32, F64], Num::add),
            Sub => zip_as!([I32, U32, F32, F64], Num::sub),
            Mul => zip_as!([I32, U32, F32, F64], Num::mul),
            Div => zip_as!([I32, U32, F32, F64], Num::div),
            Rem => zip_as!([I32, U32, F32, F64], Num::rem),
            Max if is_bool => zip_as!([Bool], Bits::or),
            Min if is_bool => zip_as!([Bool], Bits::and),
            Max => zip_as!([I32, U32, F32, F64], Num::max),
            Min => zip_as!([I32, U32, F32, F64], Num::min),
            Pow => zip_as!([F32, F64], Float::powf),
            Nextafter => zip_as!([F32, F64], Float::next_after),
            Eq => cmp!(|a: T, b: T| a == b),
            Ne => cmp!(|a: T, b: T| a != b),
            Lt => cmp!(|a: T, b: T| a < b),
            Le => cmp!(|a: T, b: T| a <= b),
            Gt => cmp!(|a: T, b: T| a > b),
            Ge => cmp!(|a: T, b: T| a >= b),
            And => zip_as!([Bool, I32, U32], Bits::and),
            Or => zip_as!([Bool, I32, U32], Bits::or),
            Xor => zip_as!([Bool, I32, U32], Bits::xor),
            ShiftLeft => shift!(u32::checked_shl),
            ShiftRightLogical => shift!(u32::checked_shr),
        }
    }
}

pub(super) fn integer_pow(a: &Array, y: i32) -> Array {
    new_values(a.dtype(), a.shape(), |out| {
        integer_pow_into(y, a.values(), out)
    })
}

multiversion! {
    fn integer_pow_into(y: i32, x: Values, out: ValuesMut) {
        #[inline(always)]
        fn pow<T: Num>(mut x: T, y: i32) -> T {
            let mut n = y.unsigned_abs();
            let mut acc = T::one();
            while n > 0 {
                if n & 1 == 1 {
                    acc = acc.mul(x);
                }
                x = x.mul(x);
                n >>= 1;
            }
            if y < 0 {
                T::one().div(acc)
            } else {
                acc
            }
        }
        with_dtype!(
            x.dtype(),
            T,
            [I32, U32, F32, F64],
            map1(T::slice(x), T::slice_mut(out), |v| pow(v, y))
        )
    }
}

pub(super) fn select_n(inputs: &[Array]) -> Array {
    let cases: Vec<Values> = inputs[1..].iter().map(Array::values).collect();
    new_values(inputs[1].dtype(), inputs[1].shape(), |out| {
        select_into(inputs[0].values(), &cases, out)
    })
}

multiversion! {
    /// `out[i] = cases[which[i]][i]`; an integer `which` is clamped to the cases.
    fn select_into(which: Values, cases: &[Values], out: ValuesMut) {
        with_dtype!(cases[0].dtype(), T, {
            let out = T::slice_mut(out);
            let n = out.len();
            let srcs: Vec<&[T]> = cases.iter().map(|c| T::slice(*c)).collect();
            let at = |s: &[T], i: usize| if s.len() == 1 { s[0] } else { s[i] };
            let pick_bool = |b: bool| (b as usize).min(srcs.len() - 1);
            match which {
                Values::Bool(p) if p.len() == 1 => map1(srcs[pick_bool(p[0])], out, |v| v),
                Values::Bool(p) if srcs.len() == 2 && srcs.iter().all(|s| s.len() == n) => {
                    let (f, t) = (srcs[0], srcs[1]);
                    for (i, o) in out.iter_mut().enumerate() {
                        *o = if p[i] { t[i] } else { f[i] };
                    }
                }
                Values::Bool(p) => {
                    for (i, o) in out.iter_mut().enumerate() {
                        *o = at(srcs[pick_bool(p[i])], i);
                    }
                }
                _ => {
                    let p = i32::slice(which);
                    let last = srcs.len() - 1;
                    let pick = |i: usize| {
                        let w = if p.len() == 1 { p[0] } else { p[i] };
                        (Ord::max(w, 0) as usize).min(last)
                    };
                    for (i, o) in out.iter_mut().enumerate() {
                        *o = at(srcs[pick(i)], i);
                    }
                }
            }
        })
    }
}

pub(super) fn convert(a: &Array, to: DType) -> Array {
    if a.dtype() == to {
        return a.clone();
    }
    new_values(to, a.shape(), |out| convert_into(a.values(), out))
}

multiversion! {
    fn convert_into(x: Values, out: ValuesMut) {
        let (from, to) = (x.dtype(), out.dtype());
        if from.is_int() && to.is_int() || from == to {
            // Same-width integer conversions wrap, as XLA's do.
            return bitcast_into(x, out);
        }
        with_dtype!(from, S, {
            with_dtype!(
                to,
                T,
                map1(S::slice(x), T::slice_mut(out), |v| T::from_f64(v.to_f64()))
            )
        })
    }
}

pub(super) fn bitcast(a: &Array, to: DType) -> Array {
    if a.dtype() == to {
        return a.clone();
    }
    new_values(to, a.shape(), |out| bitcast_into(a.values(), out))
}

multiversion! {
    /// Reinterprets elements of one width as another dtype of the same width.
    fn bitcast_into(x: Values, out: ValuesMut) {
        with_dtype!(x.dtype(), S, {
            with_dtype!(
                out.dtype(),
                T,
                map1(S::slice(x), T::slice_mut(out), |v| T::from_bits64(
                    v.to_bits64()
                ))
            )
        })
    }
}

pub(super) fn threefry2x32(inputs: &[Array]) -> Vec<Array> {
    let shape = inputs
        .iter()
        .map(|a| a.shape())
        .max_by_key(|s| s.len())
        .expect("four operands")
        .to_vec();
    let n = crate::array::numel(&shape);
    // Operands are read in place, a one-element operand repeating.
    let [k0, k1, x0, x1] = [0, 1, 2, 3].map(|i| inputs[i].as_slice::<u32>());
    let at = |s: &[u32], i: usize| if s.len() == n { s[i] } else { s[0] };
    let mut o1 = Buffer::zeroed(n * 4);
    let o0 = super::view::new_array::<u32>(&shape, |o0| {
        let o1 = o1.as_mut_slice::<u32>();
        if k0.len() == 1 && k1.len() == 1 && x0.len() == n && x1.len() == n {
            threefry::threefry2x32_slices([k0[0], k1[0]], x0, x1, o0, o1);
        } else {
            for i in 0..n {
                [o0[i], o1[i]] =
                    threefry::threefry2x32([at(k0, i), at(k1, i)], [at(x0, i), at(x1, i)]);
            }
        }
    });
    vec![o0, Array::from_buffer(DType::U32, &shape, o1)]
}
