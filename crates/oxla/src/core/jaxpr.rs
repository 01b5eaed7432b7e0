//! The program representation every transform reads and writes: JAX's jaxpr.

use crate::source::Source;

use super::tensor::Tensor;
use crate::array::Array;
use crate::array::Aval;
use crate::core::Prim;

/// A variable of a jaxpr: an identity and an abstract value.
///
/// Ids are unique within the jaxpr that binds the variable; names (`a`, `b`, ... `ba`) are
/// given when printing.
#[derive(Clone, Debug)]
pub struct Var {
    /// Identity of the variable within its jaxpr.
    pub id: u32,
    /// Its abstract value.
    pub aval: Aval,
}

impl PartialEq for Var {
    fn eq(&self, other: &Var) -> bool {
        self.id == other.id
    }
}
impl Eq for Var {}

/// An equation operand: a variable, or a rank-0 constant printed inline (`1.0:f32[]`).
#[derive(Clone, Debug)]
pub enum Atom {
    /// A variable bound earlier in the jaxpr.
    Var(Var),
    /// A scalar literal.
    Lit(Array),
}

impl Atom {
    /// The variable, if the operand is one.
    pub fn var(&self) -> Option<&Var> {
        match self {
            Atom::Var(v) => Some(v),
            Atom::Lit(_) => None,
        }
    }

    /// The abstract value of the operand.
    pub fn aval(&self) -> Aval {
        match self {
            Atom::Var(v) => v.aval.clone(),
            Atom::Lit(a) => Aval::new(a.dtype(), a.shape()),
        }
    }
}

/// One equation: `outputs = prim[params] inputs`, with the user's source line that made it.
#[derive(Clone, Debug)]
pub struct Eqn {
    /// The primitive and its parameters.
    pub prim: Prim,
    /// Operands.
    pub inputs: Vec<Atom>,
    /// Results.
    pub outputs: Vec<Var>,
    /// Where in the user's code the equation was traced.
    pub source: Source,
}

/// A program in A-normal form: `{ lambda constvars ; invars. let eqns in (outvars) }`.
#[derive(Clone, Debug, Default)]
pub struct Jaxpr {
    /// Variables bound to constants (see [`ClosedJaxpr`]).
    pub constvars: Vec<Var>,
    /// Inputs.
    pub invars: Vec<Var>,
    /// Equations in execution order.
    pub eqns: Vec<Eqn>,
    /// Results.
    pub outvars: Vec<Atom>,
}

/// A jaxpr with the values of its constvars: concrete arrays, or tracers of an enclosing
/// trace that the function closed over.
#[derive(Clone, Debug)]
pub struct ClosedJaxpr {
    /// The program.
    pub jaxpr: Jaxpr,
    /// One value per constvar.
    pub consts: Vec<Tensor>,
}

impl Jaxpr {
    /// Avals of the inputs.
    pub fn in_avals(&self) -> Vec<Aval> {
        self.invars.iter().map(|v| v.aval.clone()).collect()
    }

    /// Whether an equation has effects (a host callback, or a loop holding one).
    pub fn has_effects(&self) -> bool {
        self.eqns.iter().any(|e| e.prim.has_effects())
    }

    /// Whether an equation is a collective over the mapped axis `name`, or holds one.
    pub(crate) fn names_axis(&self, name: &str) -> bool {
        self.eqns.iter().any(|e| e.prim.names_axis(name))
    }

    /// Whether an equation is a collective over a named axis, or holds one.
    pub(crate) fn names_any_axis(&self) -> bool {
        self.eqns.iter().any(|e| e.prim.names_any_axis())
    }

    /// Avals of the outputs.
    pub fn out_avals(&self) -> Vec<Aval> {
        self.outvars.iter().map(Atom::aval).collect()
    }
}
