//! `safetensors` files (the `safetensors` cargo feature): names to tensors, little-endian,
//! as Hugging Face's `safetensors.numpy.save_file` / `load_file` write and read them.

use std::borrow::Cow;
use std::path::Path;

use safetensors::tensor::{Dtype, SafeTensors, View};

use super::Tensors;
use crate::array::{Array, Buffer, DType};
use crate::core::Tensor;
use crate::error::{Error, Result};

/// The safetensors dtype of each oxla dtype: a new dtype is one line here.
const DTYPES: &[(DType, Dtype)] = &[
    (DType::Bool, Dtype::BOOL),
    (DType::I32, Dtype::I32),
    (DType::U32, Dtype::U32),
    (DType::F32, Dtype::F32),
    (DType::F64, Dtype::F64),
];

/// Reads every tensor of a `.safetensors` file, in the order of their data.
///
/// The file is read whole, then each tensor is copied into its own buffer: the peak is
/// twice the file. A malformed file or an unsupported dtype is [`Error::Safetensors`].
pub fn load_safetensors(path: impl AsRef<Path>) -> Result<Tensors> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let at = |m: String| Error::Safetensors(format!("{}: {m}", path.display()));
    let file = SafeTensors::deserialize(&bytes).map_err(|e| at(e.to_string()))?;
    let (_, metadata) = SafeTensors::read_metadata(&bytes).map_err(|e| at(e.to_string()))?;
    let mut entries = Vec::with_capacity(file.len());
    for name in metadata.offset_keys() {
        let view = file.tensor(&name).map_err(|e| at(e.to_string()))?;
        let dtype = DTYPES
            .iter()
            .find(|(_, d)| *d == view.dtype())
            .map(|(d, _)| *d)
            .ok_or_else(|| at(format!("{name}: unsupported dtype {:?}", view.dtype())))?;
        crate::array::checked_nbytes(view.shape(), dtype.size())
            .filter(|&n| n == view.data().len())
            .ok_or_else(|| {
                at(format!(
                    "{name}: shape {:?} does not fit its data",
                    view.shape()
                ))
            })?;
        let mut buf = Buffer::from_bytes(view.data());
        if cfg!(target_endian = "big") {
            buf.as_mut_bytes()
                .chunks_exact_mut(dtype.size())
                .for_each(<[u8]>::reverse);
        }
        if dtype == DType::Bool && buf.as_bytes().iter().any(|&b| b > 1) {
            return Err(at(format!("{name}: a bool other than 0 or 1")));
        }
        entries.push((
            name,
            Tensor::new(Array::from_buffer(dtype, view.shape(), buf)),
        ));
    }
    Ok(Tensors { entries })
}

/// A concrete array as safetensors sees it: its own bytes, not copied.
struct ArrayView<'a>(&'a Array);

impl View for ArrayView<'_> {
    fn dtype(&self) -> Dtype {
        DTYPES
            .iter()
            .find(|(d, _)| *d == self.0.dtype())
            .map(|(_, d)| *d)
            .expect("every dtype has a safetensors dtype")
    }

    fn shape(&self) -> &[usize] {
        self.0.shape()
    }

    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(self.0.as_bytes())
    }

    fn data_len(&self) -> usize {
        self.0.nbytes()
    }
}

/// Writes named tensors to a `.safetensors` file, streaming each tensor's bytes (no copy;
/// the format is little-endian, as the machines oxla runs on are).
/// The tensors must be concrete; safetensors orders them by alignment, then name.
#[track_caller]
pub fn save_safetensors<N: AsRef<str>, T: std::borrow::Borrow<Tensor>>(
    path: impl AsRef<Path>,
    tensors: impl IntoIterator<Item = (N, T)>,
) -> Result<()> {
    let path = path.as_ref();
    let owned: Vec<(String, T)> = tensors
        .into_iter()
        .map(|(n, t)| (n.as_ref().to_string(), t))
        .collect();
    let views = owned
        .iter()
        .map(|(n, t)| (n.as_str(), ArrayView(t.borrow().array())));
    safetensors::serialize_to_file(views, None, path)
        .map_err(|e| Error::Safetensors(format!("{}: {e}", path.display())))
}
