//! The elementwise operations as data: the [`UnaryOp`] and [`BinaryOp`] enums, their JAX
//! names, the dtypes each admits, and the shape rules of every elementwise primitive
//! (`unary`, `binary` with lax's degenerate broadcasting, `integer_pow`, `select_n`,
//! `convert_element_type`, `bitcast_convert_type`, `threefry2x32`).

use crate::array::{Aval, DType};
use crate::prims::arity;
use crate::prims::ThreefryWords;

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
    /// Real cube root (negative for negative `x`).
    Cbrt,
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
    /// The error function.
    Erf,
    /// The complementary error function `1 - erf(x)`.
    Erfc,
    /// `log |Γ(x)|`.
    Lgamma,
    /// `ψ(x)`, the derivative of `lgamma`.
    Digamma,
    /// Tangent.
    Tan,
    /// Inverse sine.
    Asin,
    /// Inverse cosine.
    Acos,
    /// Inverse tangent.
    Atan,
    /// Hyperbolic sine.
    Sinh,
    /// Hyperbolic cosine.
    Cosh,
    /// Inverse hyperbolic sine.
    Asinh,
    /// Inverse hyperbolic cosine.
    Acosh,
    /// Inverse hyperbolic tangent.
    Atanh,
    /// `e^x - 1`, accurate near 0.
    Expm1,
    /// `2^x`.
    Exp2,
    /// `x * x`.
    Square,
    /// Round half to even (`round` with `rounding_method=TO_NEAREST_EVEN`).
    RoundEven,
    /// The number of set bits.
    PopulationCount,
    /// The number of leading zero bits.
    Clz,
    /// `e^-|x| I_0(x)`, the scaled modified Bessel function of order 0.
    BesselI0e,
    /// `e^-|x| I_1(x)`, the scaled modified Bessel function of order 1.
    BesselI1e,
    /// Rounds to a float format of `exponent_bits` and `mantissa_bits` (as XLA does).
    ReducePrecision {
        /// The exponent bits kept.
        exponent_bits: u32,
        /// The mantissa bits kept.
        mantissa_bits: u32,
    },
    /// The real part of a complex number (a float result).
    Real,
    /// The imaginary part of a complex number (a float result).
    Imag,
    /// The complex conjugate.
    Conj,
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
    /// `ψ^(m)(x)`, the `m`-th derivative of digamma (`m` a natural number, else NaN).
    Polygamma,
    /// The Hurwitz zeta function `ζ(x, q)`.
    Zeta,
    /// The angle of the point `(y, x)`: `atan(x / y)` in the right quadrant.
    Atan2,
    /// `x >> y` on the bits, filling with the sign bit.
    ShiftRightArithmetic,
    /// The regularized lower incomplete gamma function `P(a, x)`.
    Igamma,
    /// The regularized upper incomplete gamma function `Q(a, x) = 1 - P(a, x)`.
    Igammac,
    /// `∂P(a, x)/∂a`.
    IgammaGradA,
    /// The derivative in `a` of a `Gamma(a, 1)` sample `x`.
    RandomGammaGrad,
    /// `x + i y`: the complex number of two floats.
    Complex,
}

/// Which dtypes an operation admits.
#[derive(Clone, Copy, PartialEq)]
enum Class {
    Float,
    Numeric,
    IntOrBool,
    Int,
    Any,
    Complex,
    F32OrF64,
}

impl Class {
    fn admits(self, d: DType) -> bool {
        match self {
            Class::Float => d.is_float() || d.is_complex(),
            Class::Numeric => d.is_numeric(),
            Class::IntOrBool => !d.is_inexact(),
            Class::Int => d.is_int(),
            Class::Any => true,
            Class::Complex => d.is_complex(),
            Class::F32OrF64 => matches!(d, DType::F32 | DType::F64),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Class::Float => "a floating-point operand",
            Class::Numeric => "a numeric operand",
            Class::IntOrBool => "an integer or bool operand",
            Class::Int => "an integer operand",
            Class::Any => "any operand",
            Class::Complex => "a complex operand",
            Class::F32OrF64 => "float32 or float64 operands",
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
            Cbrt => "cbrt",
            Rsqrt => "rsqrt",
            Abs => "abs",
            Sign => "sign",
            Floor => "floor",
            Ceil => "ceil",
            Round => "round",
            Not => "not",
            ErfInv => "erf_inv",
            IsFinite => "is_finite",
            Erf => "erf",
            Erfc => "erfc",
            Lgamma => "lgamma",
            Digamma => "digamma",
            Tan => "tan",
            Asin => "asin",
            Acos => "acos",
            Atan => "atan",
            Sinh => "sinh",
            Cosh => "cosh",
            Asinh => "asinh",
            Acosh => "acosh",
            Atanh => "atanh",
            Expm1 => "expm1",
            Exp2 => "exp2",
            Square => "square",
            RoundEven => "round",
            PopulationCount => "population_count",
            Clz => "clz",
            BesselI0e => "bessel_i0e",
            BesselI1e => "bessel_i1e",
            ReducePrecision { .. } => "reduce_precision",
            Real => "real",
            Imag => "imag",
            Conj => "conj",
        }
    }

    /// Whether the operation takes complex operands.
    fn admits_complex(self) -> bool {
        use UnaryOp::*;
        matches!(
            self,
            Neg | Exp | Log | Sin | Cos | Tanh | Sqrt | Rsqrt | Abs | Sign | Real | Imag | Conj
        )
    }

    /// The result's dtype for an operand of dtype `x`: a float for `abs`, `real` and `imag`
    /// of a complex operand, bool for `is_finite`, else `x`.
    pub(crate) fn out_dtype(self, x: DType) -> DType {
        match self {
            UnaryOp::IsFinite => DType::Bool,
            UnaryOp::Abs | UnaryOp::Real | UnaryOp::Imag => x.real_dtype(),
            _ => x,
        }
    }

    fn class(self) -> Class {
        use UnaryOp::*;
        match self {
            Neg | Abs | Sign | Square => Class::Numeric,
            Not => Class::IntOrBool,
            PopulationCount | Clz => Class::Int,
            Exp
            | Log
            | Log1p
            | Sin
            | Cos
            | Tanh
            | Logistic
            | Sqrt
            | Cbrt
            | Rsqrt
            | Floor
            | Ceil
            | Round
            | ErfInv
            | IsFinite
            | Erf
            | Erfc
            | Lgamma
            | Digamma
            | Tan
            | Asin
            | Acos
            | Atan
            | Sinh
            | Cosh
            | Asinh
            | Acosh
            | Atanh
            | Expm1
            | Exp2
            | RoundEven
            | BesselI0e
            | BesselI1e
            | ReducePrecision { .. } => Class::Float,
            Real | Imag | Conj => Class::Complex,
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
            Polygamma => "polygamma",
            Zeta => "zeta",
            Atan2 => "atan2",
            ShiftRightArithmetic => "shift_right_arithmetic",
            Igamma => "igamma",
            Igammac => "igammac",
            IgammaGradA => "igamma_grad_a",
            RandomGammaGrad => "random_gamma_grad",
            Complex => "complex",
        }
    }

    /// Whether the operation takes complex operands.
    fn admits_complex(self) -> bool {
        use BinaryOp::*;
        matches!(self, Add | Sub | Mul | Div | Eq | Ne)
    }

    /// The result's dtype for operands of dtype `x`: bool for comparisons, the complex dtype
    /// of `x` for `complex`, else `x`.
    pub(crate) fn out_dtype(self, x: DType) -> DType {
        if self.is_comparison() {
            DType::Bool
        } else if self == BinaryOp::Complex {
            x.complex_dtype()
        } else {
            x
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
            Pow | Nextafter | Polygamma | Zeta | Atan2 | Igamma | Igammac | IgammaGradA
            | RandomGammaGrad => Class::Float,
            // As in JAX: bools are ordered (false < true), and max/min take any dtype.
            Max | Min | Eq | Ne | Lt | Le | Gt | Ge => Class::Any,
            And | Or | Xor => Class::IntOrBool,
            ShiftLeft | ShiftRightLogical | ShiftRightArithmetic => Class::Int,
            Complex => Class::F32OrF64,
        }
    }
}

pub(crate) fn unary_rule(op: UnaryOp, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    arity(inputs, 1)?;
    let x = &inputs[0];
    if !op.class().admits(x.dtype) {
        return Err(format!("requires {}, got {x}", op.class().describe()));
    }
    if x.dtype.is_complex() && !op.admits_complex() {
        return Err(format!("does not support complex operands, got {x}"));
    }
    Ok(vec![Aval::new(op.out_dtype(x.dtype), &x.shape)])
}

pub(crate) fn binary_rule(op: BinaryOp, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    arity(inputs, 2)?;
    let (x, y) = (&inputs[0], &inputs[1]);
    if op == BinaryOp::Pow && x.dtype.is_float() && y.dtype.is_int() {
        // As lax.pow: an integer exponent with a float base keeps its dtype.
        let shape = broadcast_shapes(&x.shape, &y.shape)
            .ok_or_else(|| format!("incompatible shapes {x} and {y}"))?;
        return Ok(vec![Aval::new(x.dtype, &shape)]);
    }
    if x.dtype != y.dtype {
        return Err(format!(
            "operands must have one dtype, got {x} and {y} (convert one with astype)"
        ));
    }
    if !op.class().admits(x.dtype) {
        return Err(format!("requires {}, got {x}", op.class().describe()));
    }
    if x.dtype.is_complex() && !op.admits_complex() {
        return Err(format!(
            "does not support complex operands, got {x} and {y}"
        ));
    }
    let shape = broadcast_shapes(&x.shape, &y.shape)
        .ok_or_else(|| format!("incompatible shapes {x} and {y}"))?;
    Ok(vec![Aval::new(op.out_dtype(x.dtype), &shape)])
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

pub(crate) fn integer_pow_rule(y: i32, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    arity(inputs, 1)?;
    if !inputs[0].dtype.is_numeric() || inputs[0].dtype.is_complex() {
        return Err(format!(
            "requires a real numeric operand, got {}",
            inputs[0]
        ));
    }
    if y < 0 && inputs[0].dtype.is_int() {
        return Err(format!(
            "integers cannot be raised to negative powers, got {} to the power {y}",
            inputs[0]
        ));
    }
    Ok(vec![inputs[0].clone()])
}

pub(crate) fn select_n_rule(inputs: &[Aval]) -> Result<Vec<Aval>, String> {
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

pub(crate) fn convert_rule(new_dtype: DType, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    arity(inputs, 1)?;
    Ok(vec![Aval::new(new_dtype, &inputs[0].shape)])
}

pub(crate) fn bitcast_rule(new_dtype: DType, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
    arity(inputs, 1)?;
    if inputs[0].dtype.size() != new_dtype.size()
        || new_dtype == DType::Bool
        || inputs[0].dtype.is_complex()
        || new_dtype.is_complex()
    {
        return Err(format!(
            "cannot bitcast {} to {new_dtype}: widths differ or one is complex",
            inputs[0]
        ));
    }
    Ok(vec![Aval::new(new_dtype, &inputs[0].shape)])
}

pub(crate) fn threefry_rule(words: ThreefryWords, inputs: &[Aval]) -> Result<Vec<Aval>, String> {
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
    let count = if words == ThreefryWords::Both { 2 } else { 1 };
    Ok(vec![Aval::new(DType::U32, shape); count])
}
