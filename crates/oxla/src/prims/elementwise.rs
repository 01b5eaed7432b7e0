//! Elementwise primitives: unary and binary arithmetic, comparisons, logic, `select_n`,
//! dtype conversions, `integer_pow` and the Threefry cipher.

use super::arity;
use super::view::new_array;
use crate::array::{Array, DType, Elem};
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
    ($t:ty, $erf_inv:path, $bits:ty) => {
        impl Float for $t {
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            fn ln(self) -> Self {
                <$t>::ln(self)
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
            fn tanh(self) -> Self {
                <$t>::tanh(self)
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
float!(f32, threefry::erf_inv_f32, u32);
float!(f64, threefry::erf_inv_f64, u64);

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

fn map<T: Elem, U: Elem>(a: &Array, f: impl Fn(T) -> U) -> Array {
    let x = a.as_slice::<T>();
    new_array::<U>(a.shape(), |out| {
        for (o, &v) in out.iter_mut().zip(x) {
            *o = f(v);
        }
    })
}

fn zip<T: Elem, U: Elem>(a: &Array, b: &Array, f: impl Fn(T, T) -> U) -> Array {
    let (x, y) = (a.as_slice::<T>(), b.as_slice::<T>());
    if a.shape() == b.shape() {
        new_array::<U>(a.shape(), |out| {
            for ((o, &u), &v) in out.iter_mut().zip(x).zip(y) {
                *o = f(u, v);
            }
        })
    } else if b.ndim() == 0 {
        let v = y[0];
        new_array::<U>(a.shape(), |out| {
            for (o, &u) in out.iter_mut().zip(x) {
                *o = f(u, v);
            }
        })
    } else if a.ndim() == 0 {
        let u = x[0];
        new_array::<U>(b.shape(), |out| {
            for (o, &v) in out.iter_mut().zip(y) {
                *o = f(u, v);
            }
        })
    } else {
        let shape = broadcast_shapes(a.shape(), b.shape()).expect("checked by the shape rule");
        let xs = expand(a, &shape);
        let ys = expand(b, &shape);
        let (x, y) = (xs.as_slice::<T>(), ys.as_slice::<T>());
        new_array::<U>(&shape, |out| {
            for ((o, &u), &v) in out.iter_mut().zip(x).zip(y) {
                *o = f(u, v);
            }
        })
    }
}

/// `a` materialised at a broadcast `shape` of equal rank (size-1 dimensions repeat).
fn expand(a: &Array, shape: &[usize]) -> Array {
    if a.shape() == shape {
        return a.clone();
    }
    let strides: Vec<isize> = super::view::signed_strides(a.shape())
        .iter()
        .zip(a.shape())
        .map(|(&s, &d)| if d == 1 { 0 } else { s })
        .collect();
    super::view::strided(a, 0, shape, &strides)
}

pub(super) fn unary(op: UnaryOp, a: &Array) -> Array {
    use UnaryOp::*;
    macro_rules! float_map {
        ($f:expr) => {
            with_dtype!(a.dtype(), T, [F32, F64], map::<T, T>(a, $f))
        };
    }
    macro_rules! num_map {
        ($f:expr) => {
            with_dtype!(a.dtype(), T, [I32, U32, F32, F64], map::<T, T>(a, $f))
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
        ErfInv => float_map!(Float::erf_inv),
        IsFinite => with_dtype!(
            a.dtype(),
            T,
            [F32, F64],
            map::<T, bool>(a, Float::is_finite)
        ),
        Not => with_dtype!(a.dtype(), T, [Bool, I32, U32], map::<T, T>(a, Bits::not)),
    }
}

// Comparisons are generic over every dtype, bool included.
#[allow(clippy::bool_comparison)]
pub(super) fn binary(op: BinaryOp, a: &Array, b: &Array) -> Array {
    use BinaryOp::*;
    macro_rules! num_zip {
        ($f:expr) => {
            with_dtype!(a.dtype(), T, [I32, U32, F32, F64], zip::<T, T>(a, b, $f))
        };
    }
    macro_rules! cmp {
        ($f:expr) => {
            with_dtype!(a.dtype(), T, zip::<T, bool>(a, b, $f))
        };
    }
    macro_rules! bits_zip {
        ($f:expr) => {
            with_dtype!(a.dtype(), T, [Bool, I32, U32], zip::<T, T>(a, b, $f))
        };
    }
    match op {
        Add => num_zip!(Num::add),
        Sub => num_zip!(Num::sub),
        Mul => num_zip!(Num::mul),
        Div => num_zip!(Num::div),
        Rem => num_zip!(Num::rem),
        Max if a.dtype() == DType::Bool => bits_zip!(Bits::or),
        Min if a.dtype() == DType::Bool => bits_zip!(Bits::and),
        Max => num_zip!(Num::max),
        Min => num_zip!(Num::min),
        Pow => with_dtype!(a.dtype(), T, [F32, F64], zip::<T, T>(a, b, Float::powf)),
        Nextafter => with_dtype!(
            a.dtype(),
            T,
            [F32, F64],
            zip::<T, T>(a, b, Float::next_after)
        ),
        Eq => cmp!(|x: T, y: T| x == y),
        Ne => cmp!(|x: T, y: T| x != y),
        Lt => cmp!(|x: T, y: T| x < y),
        Le => cmp!(|x: T, y: T| x <= y),
        Gt => cmp!(|x: T, y: T| x > y),
        Ge => cmp!(|x: T, y: T| x >= y),
        And => bits_zip!(Bits::and),
        Or => bits_zip!(Bits::or),
        Xor => bits_zip!(Bits::xor),
        ShiftLeft => shift(a, b, |x, s| x.checked_shl(s).unwrap_or(0)),
        ShiftRightLogical => shift(a, b, |x, s| x.checked_shr(s).unwrap_or(0)),
    }
}

/// Shifts act on the bits as u32; shifting by the width or more gives zero.
fn shift(a: &Array, b: &Array, f: fn(u32, u32) -> u32) -> Array {
    let as_u32 = |x: &Array| bitcast(x, DType::U32);
    let r = zip::<u32, u32>(&as_u32(a), &as_u32(b), f);
    bitcast(&r, a.dtype())
}

pub(super) fn integer_pow(a: &Array, y: i32) -> Array {
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
        a.dtype(),
        T,
        [I32, U32, F32, F64],
        map::<T, T>(a, |x| pow(x, y))
    )
}

pub(super) fn select_n(inputs: &[Array]) -> Array {
    let which = &inputs[0];
    let cases = &inputs[1..];
    let pick: Vec<usize> = match which.dtype() {
        DType::Bool => which
            .as_slice::<bool>()
            .iter()
            .map(|&b| b as usize)
            .collect(),
        _ => which
            .as_slice::<i32>()
            .iter()
            .map(|&i| (Ord::max(i, 0) as usize).min(cases.len() - 1))
            .collect(),
    };
    let shape = cases[0].shape();
    with_dtype!(cases[0].dtype(), T, {
        let srcs: Vec<&[T]> = cases.iter().map(|c| c.as_slice::<T>()).collect();
        new_array::<T>(shape, |out| {
            for (i, o) in out.iter_mut().enumerate() {
                let p = if pick.len() == 1 { pick[0] } else { pick[i] };
                *o = srcs[p][i];
            }
        })
    })
}

pub(super) fn convert(a: &Array, to: DType) -> Array {
    if a.dtype() == to {
        return a.clone();
    }
    if a.dtype().is_int() && to.is_int() {
        // Same-width integer conversions wrap, as XLA's do.
        return bitcast(a, to);
    }
    with_dtype!(a.dtype(), S, {
        with_dtype!(to, T, map::<S, T>(a, |x| T::from_f64(x.to_f64())))
    })
}

pub(super) fn bitcast(a: &Array, to: DType) -> Array {
    if a.dtype() == to {
        return a.clone();
    }
    Array::from_buffer(
        to,
        a.shape(),
        crate::array::Buffer::from_bytes(a.as_bytes()),
    )
}

pub(super) fn threefry2x32(inputs: &[Array]) -> Vec<Array> {
    let shape = inputs
        .iter()
        .map(|a| a.shape())
        .max_by_key(|s| s.len())
        .expect("four operands")
        .to_vec();
    let n = crate::array::numel(&shape);
    let full = |a: &Array| -> Vec<u32> {
        let s = a.as_slice::<u32>();
        if s.len() == n {
            s.to_vec()
        } else {
            vec![s[0]; n]
        }
    };
    let (x0, x1) = (full(&inputs[2]), full(&inputs[3]));
    let mut o0 = vec![0u32; n];
    let mut o1 = vec![0u32; n];
    if inputs[0].ndim() == 0 && inputs[1].ndim() == 0 {
        let key = [
            inputs[0].as_slice::<u32>()[0],
            inputs[1].as_slice::<u32>()[0],
        ];
        threefry::threefry2x32_slices(key, &x0, &x1, &mut o0, &mut o1);
    } else {
        let (k0, k1) = (full(&inputs[0]), full(&inputs[1]));
        for i in 0..n {
            [o0[i], o1[i]] = threefry::threefry2x32([k0[i], k1[i]], [x0[i], x1[i]]);
        }
    }
    vec![Array::from_vec(o0, &shape), Array::from_vec(o1, &shape)]
}
