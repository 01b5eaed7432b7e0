//! Abstract values: what a tracer knows about an array without its data.

use std::fmt;

use super::{check_shape, numel, shape_of, Array, DType, Shape};

/// The abstract value of an array: its dtype and shape.
///
/// Printed as JAX prints avals: `f32[100,1]`, `i32[]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Aval {
    /// Element type.
    pub dtype: DType,
    /// Dimensions.
    pub shape: Shape,
}

impl Aval {
    /// An aval of `dtype` and `shape`.
    pub fn new(dtype: DType, shape: &[usize]) -> Aval {
        Aval {
            dtype,
            shape: shape_of(shape),
        }
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements.
    pub fn size(&self) -> usize {
        numel(&self.shape)
    }

    /// Bytes an array of this aval takes.
    ///
    /// Panics when no array could have this aval (see [`check`](Self::check)); the avals
    /// of traced values are checked when their primitive is bound.
    pub fn nbytes(&self) -> usize {
        self.check().unwrap_or_else(|m| panic!("{m}"))
    }

    /// Its bytes, or a message saying that no array could have this aval: the dimensions
    /// other than zero times the element size pass [`MAX_BYTES`](crate::array::MAX_BYTES).
    pub fn check(&self) -> Result<usize, String> {
        check_shape(self.dtype, &self.shape)
    }
}

impl fmt::Display for Aval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[", self.dtype.short_name())?;
        for (i, d) in self.shape.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}

/// The aval of a concrete array.
pub fn aval_of(a: &Array) -> Aval {
    Aval::new(a.dtype(), a.shape())
}
