//! Reading and writing numpy's `.npy` format, one copy each way.
//!
//! Reading parses the header, allocates the array's buffer once and reads the data
//! straight into it: the peak memory of a read is the array itself. Big-endian data is
//! swapped in place. A Fortran-ordered file (numpy writes a transposed array that way) is
//! read the same way and then transposed into a second buffer, so its peak is twice the
//! array. Writing sends the header and then the array's own bytes to the writer, with no
//! copy of the data.
//!
//! Malformed files are reported as [`Error::Npy`](crate::Error), never a panic.

use std::fs::File;
use std::io::{BufReader, BufWriter, ErrorKind, Read, Write};
use std::path::Path;

use super::{npy_header, strides_of, Array, Buffer, DType};
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

    /// Reads an array in `.npy` format from any reader, which is left just after the data.
    ///
    /// The header is checked against the file: the shape must fit in memory
    /// ([`checked_nbytes`](super::checked_nbytes)) and the data must be exactly as long as
    /// the header says; anything else is [`Error::Npy`]. A buffer the
    /// system refuses is [`Error::OutOfMemory`].
    pub fn read_npy_from(mut reader: impl Read) -> Result<Array> {
        let h = read_header(&mut reader)?;
        let nbytes = super::check_shape(h.dtype, &h.shape).map_err(Error::Npy)?;
        let mut buf = allocate(h.dtype, &h.shape, nbytes)?;
        let got = read_full(&mut reader, buf.as_mut_bytes())?;
        let more = if got == nbytes {
            std::io::copy(&mut reader, &mut std::io::sink()).map_err(read_error)? as usize
        } else {
            0
        };
        if got != nbytes || more != 0 {
            return Err(Error::Npy(format!(
                "the header's shape {:?} of {} needs {nbytes} bytes of data, the file has {}",
                h.shape,
                h.dtype,
                got + more
            )));
        }
        let out = buf.as_mut_bytes();
        // A complex element is two floats, each swapped on its own.
        let size = h.dtype.real_dtype().size();
        if h.big_endian && size > 1 {
            out.chunks_exact_mut(size).for_each(<[u8]>::reverse);
        }
        if let Some(b) = (h.dtype == DType::Bool)
            .then(|| out.iter().find(|&&b| b > 1))
            .flatten()
        {
            return Err(Error::Npy(format!("invalid value for bool: {b}")));
        }
        if h.fortran_order && h.shape.len() > 1 {
            buf = from_fortran(&buf, h.dtype, &h.shape)?;
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

    /// Writes the array in `.npy` format to any writer: numpy's header (C order, this
    /// machine's byte order), then the array's bytes as they lie in memory.
    pub fn write_npy_to(&self, mut writer: impl Write) -> Result<()> {
        writer
            .write_all(&npy_header::encode(self.dtype(), self.shape()))
            .and_then(|()| writer.write_all(self.as_bytes()))
            .map_err(|e| Error::Npy(e.to_string()))
    }
}

/// An I/O error met while reading, as [`Error::Npy`].
fn read_error(e: std::io::Error) -> Error {
    Error::Npy(format!("reading failed: {e}"))
}

/// Reads into `buf` until it is full or the reader ends; returns the bytes read.
fn read_full(reader: &mut impl Read, buf: &mut [u8]) -> Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match reader.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(read_error(e)),
        }
    }
    Ok(got)
}

/// Reads and parses the header, taking from the reader only the header's bytes. Nothing
/// is allocated by a declared length: the header's text is read as it arrives.
fn read_header(reader: &mut impl Read) -> Result<npy_header::Header> {
    let mut head = vec![0; npy_header::MAGIC.len() + 2];
    let got = read_full(reader, &mut head)?;
    head.truncate(got);
    npy_header::check_magic(&head).map_err(Error::Npy)?;
    let field = npy_header::len_field_size(head[6], head[7]).map_err(Error::Npy)?;
    let start = head.len();
    head.resize(start + field, 0);
    let got = read_full(reader, &mut head[start..])?;
    head.truncate(start + got);
    let (_, len) = npy_header::text_span(&head).map_err(Error::Npy)?;
    reader
        .take(len as u64)
        .read_to_end(&mut head)
        .map_err(read_error)?;
    npy_header::parse(&head).map_err(Error::Npy)
}

/// A buffer for an array of `dtype` and `shape` being read (`nbytes` long), or
/// [`Error::OutOfMemory`] naming it.
fn allocate(dtype: DType, shape: &[usize], nbytes: usize) -> Result<Buffer> {
    Buffer::try_zeroed(nbytes).map_err(|e| Error::OutOfMemory {
        needed: nbytes,
        limit: super::limit::memory_limit(),
        refused: Some(e.bytes),
        largest: Some(Box::new(crate::error::LargestBuffer {
            bytes: nbytes,
            dtype: dtype.short_name(),
            shape: shape.to_vec(),
            kind: crate::error::BufferKind::Output,
            primitive: "read_npy",
            equation: None,
            source: None,
        })),
        fitting_chunk_size: None,
        advice: String::new(),
        device: None,
    })
}

/// The row-major buffer of an array of `shape` whose elements of `size` bytes `data` holds
/// in Fortran (column-major) order: a second buffer, the transpose of the first.
fn from_fortran(data: &Buffer, dtype: DType, shape: &[usize]) -> Result<Buffer> {
    let size = dtype.size();
    let mut out = allocate(dtype, shape, data.len_bytes())?;
    let n = shape.len();
    // Element strides of the source, per dimension of `shape`: column-major.
    let reversed: Vec<usize> = shape.iter().rev().copied().collect();
    let src_strides: Vec<usize> = strides_of(&reversed).into_iter().rev().collect();
    let (src, dst) = (data.as_bytes(), out.as_mut_bytes());
    let inner = shape[n - 1];
    let mut index = vec![0usize; n - 1];
    for row in dst.chunks_exact_mut(inner * size) {
        let base: usize = index.iter().zip(&src_strides).map(|(i, s)| i * s).sum();
        for (j, elem) in row.chunks_exact_mut(size).enumerate() {
            let at = (base + j * src_strides[n - 1]) * size;
            elem.copy_from_slice(&src[at..at + size]);
        }
        for d in (0..n - 1).rev() {
            index[d] += 1;
            if index[d] < shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Ok(out)
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
            Array::from_vec(Vec::<f32>::new(), &[0, 3]),
        ];
        for a in arrays {
            let mut bytes = Vec::new();
            a.write_npy_to(&mut bytes).unwrap();
            assert!((bytes.len() - a.nbytes()).is_multiple_of(64));
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
            &b"\x93NUMPY\x01"[..],
            &b"\x93NUMPY\x01\x00\x10"[..],
            &b"\x93NUMPY\x01\x00\x10\x00{'descr': '<f4'"[..],
            &b"\x93NUMPY\x09\x00\x10\x00{'descr': '<f4'"[..],
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

    #[test]
    fn fortran_order_is_transposed() {
        // numpy's `np.asfortranarray(np.arange(24).reshape(2, 3, 4))` holds its elements
        // column-major: element (i, j, k) at i + 2 * j + 6 * k.
        let shape = [2, 3, 4];
        let mut data = [0i32; 24];
        for (i, j, k) in
            (0..2).flat_map(|i| (0..3).flat_map(move |j| (0..4).map(move |k| (i, j, k))))
        {
            data[i + 2 * j + 6 * k] = (i * 12 + j * 4 + k) as i32;
        }
        let dict = "{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3, 4), }";
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend((dict.len() as u16).to_le_bytes());
        bytes.extend(dict.as_bytes());
        data.iter().for_each(|v| bytes.extend(v.to_le_bytes()));
        let a = Array::read_npy_from(bytes.as_slice()).unwrap();
        assert_eq!(a.shape(), shape);
        assert_eq!(a.to_vec::<i32>(), (0..24).collect::<Vec<_>>());
    }
}
