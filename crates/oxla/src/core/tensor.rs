//! `Tensor`: the user's handle on a value, concrete or traced.

use std::fmt;

use super::jaxpr::Var;
use crate::array::{Array, Aval, DType, Elem};

/// A traced value: a variable of the trace `trace` (unique per trace), at nesting `level`.
#[derive(Clone, Debug)]
pub(crate) struct Tracer {
    pub(crate) trace: u64,
    pub(crate) level: usize,
    pub(crate) var: Var,
}

#[derive(Clone, Debug)]
pub(crate) enum Repr {
    Array(Array),
    Tracer(Tracer),
}

/// An array value as user code sees it: concrete, or a tracer while a function is traced.
///
/// Clones are cheap (shared buffers). Arithmetic operators, methods such as
/// [`sum`](Tensor::sum) and [`index`](Tensor::index), and the free functions of
/// [`numpy`](crate::numpy) all work on both, so one function body serves eager execution,
/// `make_jaxpr` and every transform.
///
/// ```
/// use oxla::numpy as jnp;
/// let x = jnp::arange(4.0);
/// let y = &x * 2.0 + 1.0;
/// assert_eq!(y.to_vec::<f32>(), vec![1.0, 3.0, 5.0, 7.0]);
/// ```
#[derive(Clone)]
pub struct Tensor {
    pub(crate) repr: Repr,
}

impl Tensor {
    pub(crate) fn from_tracer(t: Tracer) -> Tensor {
        Tensor {
            repr: Repr::Tracer(t),
        }
    }

    /// A tensor holding a concrete array.
    pub fn new(a: Array) -> Tensor {
        Tensor {
            repr: Repr::Array(a),
        }
    }

    /// A concrete tensor with the given elements and shape (row-major), taking over the
    /// `Vec`'s allocation without copying ([`Array::from_vec`]).
    #[track_caller]
    pub fn from_vec<T: Elem>(data: Vec<T>, shape: &[usize]) -> Tensor {
        Tensor::new(Array::from_vec(data, shape))
    }

    /// A concrete rank-0 tensor.
    pub fn scalar<T: Elem>(v: T) -> Tensor {
        Tensor::new(Array::scalar(v))
    }

    /// Reads an array from a `.npy` file.
    pub fn read_npy(path: impl AsRef<std::path::Path>) -> crate::Result<Tensor> {
        Array::read_npy(path).map(Tensor::new)
    }

    /// Writes the (concrete) tensor to a `.npy` file.
    #[track_caller]
    pub fn write_npy(&self, path: impl AsRef<std::path::Path>) -> crate::Result<()> {
        self.array().write_npy(path)
    }

    /// The abstract value: dtype and shape.
    pub fn aval(&self) -> Aval {
        match &self.repr {
            Repr::Array(a) => Aval::new(a.dtype(), a.shape()),
            Repr::Tracer(t) => t.var.aval.clone(),
        }
    }

    /// The dimensions.
    pub fn shape(&self) -> &[usize] {
        match &self.repr {
            Repr::Array(a) => a.shape(),
            Repr::Tracer(t) => &t.var.aval.shape,
        }
    }

    /// The element type.
    pub fn dtype(&self) -> DType {
        match &self.repr {
            Repr::Array(a) => a.dtype(),
            Repr::Tracer(t) => t.var.aval.dtype,
        }
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape().len()
    }

    /// Number of elements.
    pub fn size(&self) -> usize {
        crate::array::numel(self.shape())
    }

    /// Whether this is a tracer (inside `make_jaxpr` or a transform) rather than a value.
    pub fn is_tracer(&self) -> bool {
        matches!(self.repr, Repr::Tracer(_))
    }

    /// The concrete array, if this tensor is concrete.
    pub fn try_array(&self) -> Option<&Array> {
        match &self.repr {
            Repr::Array(a) => Some(a),
            Repr::Tracer(_) => None,
        }
    }

    /// The concrete array. Panics on a tracer: a traced value has no data yet.
    #[track_caller]
    pub fn array(&self) -> &Array {
        match self.try_array() {
            Some(a) => a,
            None => panic!(
                "a tracer of aval {} has no concrete value: the function is being traced \
                 (make_jaxpr, vmap, grad or jit), so it cannot depend on the data\n  at {}",
                self.aval(),
                std::panic::Location::caller()
            ),
        }
    }

    /// The elements as a `Vec<T>`; `T` must match the dtype.
    #[track_caller]
    pub fn to_vec<T: Elem>(&self) -> Vec<T> {
        self.array().to_vec()
    }

    /// The value of a one-element tensor as `f64`.
    #[track_caller]
    pub fn item(&self) -> f64 {
        self.array().item()
    }
}

impl From<Array> for Tensor {
    fn from(a: Array) -> Tensor {
        Tensor::new(a)
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.repr {
            Repr::Array(a) => fmt::Debug::fmt(a, f),
            Repr::Tracer(t) => write!(f, "Tracer<{}>", t.var.aval),
        }
    }
}

impl fmt::Display for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.repr {
            Repr::Array(a) => fmt::Display::fmt(a, f),
            Repr::Tracer(t) => write!(f, "Tracer<{}>", t.var.aval),
        }
    }
}
