//! Reading and writing numpy's `.npy` format.
//!
//! Malformed files are reported as [`Error::Npy`](crate::Error), never a panic.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use npyz::WriterBuilder;

use super::{npy_header, Array, Buffer, DType, Elem};
use crate::error::{Error, Result};

/// Reads an array from a `.npy` file.
///
/// ```no_run
/// let a = oxla::Array::read_npy("x.npy")?;
/// # Ok::<(), oxla::Error>(())
/// ```
impl Array {
    /// Reads an array from a `.npy` file on disk.
    pub fn read_npy(path: impl AsRef<Path>) -> Result<Array> {
        let path = path.as_ref();
        let file = File::open(path).map_err(|e| Error::io(path, e))?;
        Array::read_npy_from(BufReader::new(file))
            .map_err(|e| e.with_context(&path.display().to_string()))
    }

    /// Reads an array in `.npy` format from any reader.
    ///
    /// The header is checked against the file: the shape must fit in memory
    /// ([`checked_nbytes`](super::checked_nbytes)) and the data must be exactly as long as
    /// the header says; anything else is [`Error::Npy`]. A buffer the
    /// system refuses is [`Error::OutOfMemory`].
    pub fn read_npy_from(mut reader: impl Read) -> Result<Array> {
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .map_err(|e| Error::Npy(e.to_string()))?;
        let h = npy_header::parse(&bytes).map_err(Error::Npy)?;
        if h.fortran_order && h.shape.len() > 1 {
            return Err(Error::Npy(
                "Fortran-ordered arrays are not supported".into(),
            ));
        }
        let nbytes = super::check_shape(h.dtype, &h.shape).map_err(Error::Npy)?;
        let data = &bytes[h.data_start..];
        if data.len() != nbytes {
            return Err(Error::Npy(format!(
                "the header's shape {:?} of {} needs {nbytes} bytes of data, the file has {}",
                h.shape,
                h.dtype,
                data.len()
            )));
        }
        let mut buf = Buffer::try_zeroed(nbytes).map_err(|e| Error::OutOfMemory {
            needed: nbytes,
            limit: super::limit::memory_limit(),
            refused: Some(e.bytes),
            largest: Some(Box::new(crate::error::LargestBuffer {
                bytes: nbytes,
                dtype: h.dtype.short_name(),
                shape: h.shape.clone(),
                kind: crate::error::BufferKind::Output,
                primitive: "read_npy",
                equation: None,
                source: None,
            })),
            fitting_chunk_size: None,
            advice: String::new(),
        })?;
        let out = buf.as_mut_bytes();
        out.copy_from_slice(data);
        let size = h.dtype.size();
        if h.big_endian && size > 1 {
            out.chunks_exact_mut(size).for_each(<[u8]>::reverse);
        }
        if let Some(b) = (h.dtype == DType::Bool)
            .then(|| out.iter().find(|&&b| b > 1))
            .flatten()
        {
            return Err(Error::Npy(format!("invalid value for bool: {b}")));
        }
        Ok(Array::from_buffer(h.dtype, &h.shape, buf))
    }

    /// Writes the array to a `.npy` file.
    pub fn write_npy(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let file = File::create(path).map_err(|e| Error::io(path, e))?;
        let mut w = BufWriter::new(file);
        self.write_npy_to(&mut w)
            .map_err(|e| e.with_context(&path.display().to_string()))?;
        w.flush().map_err(|e| Error::io(path, e))
    }

    /// Writes the array in `.npy` format to any writer.
    pub fn write_npy_to(&self, writer: impl Write) -> Result<()> {
        fn write<T: Elem + npyz::AutoSerialize, W: Write>(a: &Array, w: W) -> std::io::Result<()> {
            let shape: Vec<u64> = a.shape().iter().map(|&d| d as u64).collect();
            let mut out = npyz::WriteOptions::new()
                .default_dtype()
                .shape(&shape)
                .writer(w)
                .begin_nd()?;
            out.extend(a.as_slice::<T>().iter().copied())?;
            out.finish()
        }
        let r = match self.dtype() {
            DType::Bool => write::<bool, _>(self, writer),
            DType::I32 => write::<i32, _>(self, writer),
            DType::U32 => write::<u32, _>(self, writer),
            DType::F32 => write::<f32, _>(self, writer),
            DType::F64 => write::<f64, _>(self, writer),
        };
        r.map_err(|e| Error::Npy(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_every_dtype() {
        let arrays = [
            Array::from_vec(vec![1.5f32, -2.0, 3.25, 0.0, 1e-7, 9.0], &[2, 3]),
            Array::from_vec(vec![1.5f64, -2.0], &[2]),
            Array::from_vec(vec![-1i32, 7, 9], &[3, 1]),
            Array::from_vec(vec![u32::MAX, 0], &[2]),
            Array::from_vec(vec![true, false, true], &[3]),
            Array::scalar(4.0f32),
        ];
        for a in arrays {
            let mut bytes = Vec::new();
            a.write_npy_to(&mut bytes).unwrap();
            let b = Array::read_npy_from(bytes.as_slice()).unwrap();
            assert_eq!(a.dtype(), b.dtype());
            assert_eq!(a.shape(), b.shape());
            assert_eq!(a.as_bytes(), b.as_bytes());
        }
    }

    #[test]
    fn malformed_files_are_errors() {
        for bad in [
            &b""[..],
            &b"\x93NUMPY"[..],
            &b"\x93NUMPY\x01\x00\x10\x00{'descr': '<f4'"[..],
            &b"not a npy file at all, just text"[..],
        ] {
            assert!(matches!(Array::read_npy_from(bad), Err(Error::Npy(_))));
        }
        let mut bytes = Vec::new();
        Array::from_vec(vec![1.0f32; 8], &[8])
            .write_npy_to(&mut bytes)
            .unwrap();
        bytes.truncate(bytes.len() - 5);
        assert!(Array::read_npy_from(bytes.as_slice()).is_err());
    }
}
