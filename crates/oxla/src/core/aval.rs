//! Abstract values: what a tracer knows about an array without its data.

use std::fmt;

use crate::array::{numel, shape_of, DType, Shape};

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
    pub fn nbytes(&self) -> usize {
        self.size() * self.dtype.size()
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
