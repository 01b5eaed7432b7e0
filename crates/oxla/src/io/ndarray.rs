//! Conversions between tensors and `ndarray` arrays (the `ndarray` cargo feature).

use ndarray::{ArrayD, ArrayViewD, IxDyn};

use crate::array::{Array, Elem};
use crate::core::Tensor;
use crate::error::{Error, Result};

impl<T: Elem, D: ndarray::Dimension> From<ndarray::Array<T, D>> for Tensor {
    /// A tensor of the array's elements, taking over its allocation when the array is in
    /// standard (row-major, contiguous) layout from its first element, else copying them.
    fn from(a: ndarray::Array<T, D>) -> Tensor {
        let shape = a.shape().to_vec();
        let data = if a.is_standard_layout() {
            match a.into_raw_vec_and_offset() {
                (v, Some(0) | None) => v,
                (v, Some(offset)) => v[offset..offset + crate::array::numel(&shape)].to_vec(),
            }
        } else {
            a.iter().copied().collect()
        };
        Tensor::from_vec(data, &shape)
    }
}

impl<T: Elem> TryFrom<&Tensor> for ArrayD<T> {
    type Error = Error;

    /// The tensor's elements copied into an `ndarray` array; [`Error::Conversion`] when `T`
    /// is not the tensor's dtype or the tensor is a tracer.
    fn try_from(t: &Tensor) -> Result<ArrayD<T>> {
        Ok(t.as_ndarray::<T>()?.to_owned())
    }
}

impl Tensor {
    /// A zero-copy `ndarray` view of the tensor's elements (oxla's arrays are always
    /// contiguous and row-major); [`Error::Conversion`] when `T` is not the tensor's dtype
    /// or the tensor is a tracer.
    ///
    /// ```
    /// let t = oxla::numpy::arange(6.0).reshape(&[2, 3]);
    /// let v = t.as_ndarray::<f32>()?;
    /// assert_eq!(v[[1, 2]], 5.0);
    /// # Ok::<(), oxla::Error>(())
    /// ```
    pub fn as_ndarray<T: Elem>(&self) -> Result<ArrayViewD<'_, T>> {
        let a: &Array = self.try_array().ok_or_else(|| {
            Error::Conversion(format!(
                "a tracer of aval {} has no data to view",
                self.aval()
            ))
        })?;
        if a.dtype() != T::DTYPE {
            return Err(Error::Conversion(format!(
                "a {} tensor viewed as {}",
                a.dtype(),
                T::DTYPE
            )));
        }
        Ok(ArrayViewD::from_shape(IxDyn(a.shape()), a.as_slice::<T>())
            .expect("an array's elements fill its shape"))
    }
}
