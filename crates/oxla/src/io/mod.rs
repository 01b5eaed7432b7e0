//! Data in and out: numpy's `.npz` archives of named arrays (`np.savez`, `np.load`).
//!
//! Single arrays read and write as `.npy` with [`Tensor::read_npy`] and
//! [`Tensor::write_npy`]. An `.npz` file is a zip archive of `.npy` files, one per name;
//! [`load_npz`] reads each entry straight into its array's buffer (one copy, as for
//! `.npy`), whether numpy stored it plainly (`np.savez`) or compressed
//! (`np.savez_compressed`), and [`savez`] / [`savez_compressed`] stream each array's bytes
//! into the archive without a copy.
//!
//! Behind cargo features: `safetensors` files (`load_safetensors`, `save_safetensors`),
//! and conversions between tensors and `ndarray` arrays (`ndarray`: `From<ArrayD<T>>` for
//! [`Tensor`], `TryFrom<&Tensor>` for `ArrayD<T>`, and the zero-copy view
//! `Tensor::as_ndarray`).
//!
//! ```
//! use oxla::{io, numpy as jnp, Tensor};
//! let path = std::env::temp_dir().join(format!("oxla-doc-{}.npz", std::process::id()));
//! let w = jnp::arange(6.0).reshape(&[2, 3]);
//! io::savez(&path, [("w", &w), ("b", &Tensor::scalar(1i32))])?;
//! let arrays = io::load_npz(&path)?;
//! assert_eq!(arrays.names().collect::<Vec<_>>(), ["w", "b"]);
//! assert_eq!(arrays["w"].to_vec::<f32>(), w.to_vec::<f32>());
//! # std::fs::remove_file(&path).unwrap();
//! # Ok::<(), oxla::Error>(())
//! ```

use std::borrow::Borrow;
use std::fs::File;
use std::io::{BufReader, BufWriter, Seek, Write};
use std::path::Path;

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use crate::array::Array;
use crate::core::Tensor;
use crate::error::{Error, Result};

#[cfg(feature = "ndarray")]
mod ndarray;
#[cfg(feature = "safetensors")]
mod safetensors;
#[cfg(feature = "safetensors")]
pub use safetensors::{load_safetensors, save_safetensors};

/// Named tensors in a file's order: what [`load_npz`] (numpy's `NpzFile`) and
/// `load_safetensors` read.
#[derive(Clone, Debug, Default)]
pub struct Tensors {
    entries: Vec<(String, Tensor)>,
}

impl Tensors {
    /// The array named `name`, if there is one.
    pub fn get(&self, name: &str) -> Option<&Tensor> {
        self.entries.iter().find(|(n, _)| n == name).map(|(_, t)| t)
    }

    /// The names, in order (numpy's `files`).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|(n, _)| n.as_str())
    }

    /// The names and arrays, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Tensor)> {
        self.entries.iter().map(|(n, t)| (n.as_str(), t))
    }

    /// Number of arrays.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl std::ops::Index<&str> for Tensors {
    type Output = Tensor;

    /// The array named `name`; panics at the caller's line, listing the names, when there is
    /// none.
    #[track_caller]
    fn index(&self, name: &str) -> &Tensor {
        self.get(name).unwrap_or_else(|| {
            panic!(
                "no array named {name:?} in the .npz file; it has {:?}",
                self.names().collect::<Vec<_>>()
            )
        })
    }
}

impl IntoIterator for Tensors {
    type Item = (String, Tensor);
    type IntoIter = std::vec::IntoIter<(String, Tensor)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

/// Reads every array of an `.npz` file (numpy's `np.load` of an archive).
///
/// A file that is not a zip archive, or an entry that is not a valid `.npy`, is
/// [`Error::Npz`] naming the file and entry; a missing file is [`Error::Io`].
pub fn load_npz(path: impl AsRef<Path>) -> Result<Tensors> {
    let path = path.as_ref();
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    let at = |m: String| Error::Npz(format!("{}: {m}", path.display()));
    let mut zip = ZipArchive::new(BufReader::new(file)).map_err(|e| at(e.to_string()))?;
    let mut entries = Vec::with_capacity(zip.len());
    for i in 0..zip.len() {
        let entry = zip.by_index(i).map_err(|e| at(e.to_string()))?;
        let entry_name = entry.name().map_err(|e| at(e.to_string()))?.into_owned();
        let name = entry_name
            .strip_suffix(".npy")
            .unwrap_or(&entry_name)
            .to_string();
        let array = Array::read_npy_from(entry).map_err(|e| match e {
            Error::Npy(m) => at(format!("{entry_name}: {m}")),
            e => e,
        })?;
        entries.push((name, Tensor::new(array)));
    }
    Ok(Tensors { entries })
}

/// Writes named arrays to an uncompressed `.npz` file (numpy's `np.savez(path, **arrays)`):
/// entry `name.npy` for each, in order. The tensors must be concrete.
#[track_caller]
pub fn savez<N: AsRef<str>, T: Borrow<Tensor>>(
    path: impl AsRef<Path>,
    arrays: impl IntoIterator<Item = (N, T)>,
) -> Result<()> {
    write_npz(path.as_ref(), arrays, CompressionMethod::Stored)
}

/// [`savez`], deflate-compressed (numpy's `np.savez_compressed`).
#[track_caller]
pub fn savez_compressed<N: AsRef<str>, T: Borrow<Tensor>>(
    path: impl AsRef<Path>,
    arrays: impl IntoIterator<Item = (N, T)>,
) -> Result<()> {
    write_npz(path.as_ref(), arrays, CompressionMethod::Deflated)
}

#[track_caller]
fn write_npz<N: AsRef<str>, T: Borrow<Tensor>>(
    path: &Path,
    arrays: impl IntoIterator<Item = (N, T)>,
    method: CompressionMethod,
) -> Result<()> {
    let file = File::create(path).map_err(|e| Error::io(path, e))?;
    let mut zip = ZipWriter::new(BufWriter::new(file));
    let at = |m: String| Error::Npz(format!("{}: {m}", path.display()));
    for (name, tensor) in arrays {
        let array = tensor.borrow().array();
        let options = SimpleFileOptions::default()
            .compression_method(method)
            .large_file(array.nbytes() >= u32::MAX as usize / 2);
        zip.start_file(format!("{}.npy", name.as_ref()), options)
            .map_err(|e| at(e.to_string()))?;
        array.write_npy_to(&mut zip)?;
    }
    let mut out = zip.finish().map_err(|e| at(e.to_string()))?;
    out.flush()
        .and_then(|()| out.rewind())
        .map_err(|e| Error::io(path, e))
}
