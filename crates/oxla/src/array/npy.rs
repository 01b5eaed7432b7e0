//! Reading and writing numpy's `.npy` format.
//!
//! Malformed files are reported as [`Error::Npy`](crate::Error), never a panic.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use npyz::{Deserialize, NpyFile, Order, TypeChar, WriterBuilder};

use super::{Array, DType, Elem};
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
    pub fn read_npy_from(mut reader: impl Read) -> Result<Array> {
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .map_err(|e| Error::Npy(e.to_string()))?;
        check_shape_fits(&bytes)?;
        let npy = NpyFile::new(bytes.as_slice()).map_err(|e| Error::Npy(e.to_string()))?;
        if npy.order() == Order::Fortran && npy.shape().len() > 1 {
            return Err(Error::Npy(
                "Fortran-ordered arrays are not supported".into(),
            ));
        }
        let shape = npy
            .shape()
            .iter()
            .map(|&d| {
                usize::try_from(d).map_err(|_| Error::Npy(format!("dimension {d} too large")))
            })
            .collect::<Result<Vec<usize>>>()?;
        let dtype = match npy.dtype() {
            npyz::DType::Plain(ts) => match (ts.type_char(), ts.size_field()) {
                (TypeChar::Bool, 1) => DType::Bool,
                (TypeChar::Int, 4) => DType::I32,
                (TypeChar::Uint, 4) => DType::U32,
                (TypeChar::Float, 4) => DType::F32,
                (TypeChar::Float, 8) => DType::F64,
                _ => return Err(Error::Npy(format!("unsupported dtype {ts}"))),
            },
            other => return Err(Error::Npy(format!("unsupported dtype {}", other.descr()))),
        };
        fn load<T: Elem + Deserialize, R: Read>(npy: NpyFile<R>, shape: &[usize]) -> Result<Array> {
            let data = npy.into_vec::<T>().map_err(|e| Error::Npy(e.to_string()))?;
            if data.len() != super::numel(shape) {
                return Err(Error::Npy(format!(
                    "{} elements for shape {shape:?}",
                    data.len()
                )));
            }
            Ok(Array::from_vec(data, shape))
        }
        match dtype {
            DType::Bool => load::<bool, _>(npy, &shape),
            DType::I32 => load::<i32, _>(npy, &shape),
            DType::U32 => load::<u32, _>(npy, &shape),
            DType::F32 => load::<f32, _>(npy, &shape),
            DType::F64 => load::<f64, _>(npy, &shape),
        }
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

/// Rejects a header whose shape has more elements than memory can address, before the
/// npy parser multiplies the dimensions.
fn check_shape_fits(bytes: &[u8]) -> Result<()> {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
    let Some(start) = text.find("'shape'") else {
        return Ok(());
    };
    let rest = &text[start..];
    let (Some(open), Some(close)) = (rest.find('('), rest.find(')')) else {
        return Ok(());
    };
    if close < open {
        return Ok(());
    }
    let mut total: u64 = 1;
    for part in rest[open + 1..close]
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        let d: u64 = part
            .parse()
            .map_err(|_| Error::Npy(format!("bad dimension {part:?} in the header")))?;
        total = total
            .checked_mul(d)
            .filter(|&t| t <= isize::MAX as u64)
            .ok_or_else(|| {
                Error::Npy(format!("shape ({}) is too large", &rest[open + 1..close]))
            })?;
    }
    Ok(())
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
