//! The header of a `.npy` file, parsed without trusting it: every length and dimension is
//! checked against the file before anything is allocated or multiplied.
//!
//! The header is a Python dict literal, `{'descr': '<f4', 'fortran_order': False,
//! 'shape': (2, 3), }`, as numpy writes it. This parser reads that grammar only (string
//! keys; a string `descr`; `True`/`False`; a flat tuple or list of decimal dimensions), so
//! no input can make it recurse, allocate by a declared size or overflow.

use super::DType;

/// What a header declares.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Header {
    /// The element type.
    pub dtype: DType,
    /// Whether elements are stored big-endian.
    pub big_endian: bool,
    /// Whether the data is in Fortran (column-major) order.
    pub fortran_order: bool,
    /// The dimensions.
    pub shape: Vec<usize>,
    /// Where the data starts in the file.
    pub data_start: usize,
}

/// The magic string every `.npy` file starts with, before its two version bytes.
pub(super) const MAGIC: &[u8] = b"\x93NUMPY";

/// Checks that `bytes` start with the magic string and two version bytes.
pub(super) fn check_magic(bytes: &[u8]) -> Result<(), String> {
    if bytes.len() < MAGIC.len() + 2 || !bytes.starts_with(MAGIC) {
        return Err("not a .npy file (no \\x93NUMPY magic)".into());
    }
    Ok(())
}

/// The size of the header-length field that follows the magic and the version `major`.
pub(super) fn len_field_size(major: u8, minor: u8) -> Result<usize, String> {
    match major {
        1 => Ok(2),
        2 | 3 => Ok(4),
        _ => Err(format!("unsupported .npy version {major}.{minor}")),
    }
}

/// Where the header's text starts, and its declared length, from the magic, version and
/// length field at the start of `bytes`.
pub(super) fn text_span(bytes: &[u8]) -> Result<(usize, usize), String> {
    check_magic(bytes)?;
    let len_start = MAGIC.len() + 2;
    let len_size = len_field_size(bytes[6], bytes[7])?;
    let len_bytes = bytes
        .get(len_start..len_start + len_size)
        .ok_or("the file ends inside its header length")?;
    let len = len_bytes
        .iter()
        .rev()
        .fold(0usize, |n, &b| (n << 8) | b as usize);
    Ok((len_start + len_size, len))
}

/// Parses the header at the start of `bytes`, or says what is wrong with it.
pub(super) fn parse(bytes: &[u8]) -> Result<Header, String> {
    let (text_start, len) = text_span(bytes)?;
    let text = bytes
        .get(text_start..)
        .and_then(|rest| rest.get(..len))
        .ok_or_else(|| {
            format!(
                "the header declares {len} bytes but the file has {} after its length",
                bytes.len().saturating_sub(text_start)
            )
        })?;
    let text = std::str::from_utf8(text).map_err(|_| "the header is not UTF-8 text")?;
    let dict = Dict::parse(text)?;
    let descr = dict.descr.ok_or("the header has no 'descr'")?;
    let fortran_order = dict
        .fortran_order
        .ok_or("the header has no 'fortran_order'")?;
    let shape = dict.shape.ok_or("the header has no 'shape'")?;
    let (dtype, big_endian) = dtype_of(&descr)?;
    Ok(Header {
        dtype,
        big_endian,
        fortran_order,
        shape,
        data_start: text_start + len,
    })
}

/// The numpy type string of each dtype, without its byte-order character: the one table
/// that reading and writing share (a new dtype is one line here).
const DESCRS: &[(DType, &str)] = &[
    (DType::Bool, "b1"),
    (DType::I8, "i1"),
    (DType::I16, "i2"),
    (DType::I32, "i4"),
    (DType::I64, "i8"),
    (DType::U8, "u1"),
    (DType::U16, "u2"),
    (DType::U32, "u4"),
    (DType::U64, "u8"),
    (DType::F16, "f2"),
    // numpy has no bfloat16: ml_dtypes' arrays (JAX's) are saved as 2-byte void, read back
    // here as bfloat16.
    (DType::BF16, "V2"),
    (DType::F32, "f4"),
    (DType::F64, "f8"),
    (DType::C64, "c8"),
    (DType::C128, "c16"),
];

/// oxla's dtype for a numpy type string, and whether it is big-endian.
fn dtype_of(descr: &str) -> Result<(DType, bool), String> {
    let unsupported = || format!("unsupported dtype {descr:?}");
    let mut chars = descr.chars();
    let order = chars.next().ok_or_else(unsupported)?;
    let big_endian = match order {
        '<' | '|' => false,
        '>' => true,
        '=' => cfg!(target_endian = "big"),
        _ => return Err(unsupported()),
    };
    let code = chars.as_str();
    let &(dtype, _) = DESCRS
        .iter()
        .find(|(_, c)| *c == code)
        .ok_or_else(unsupported)?;
    Ok((dtype, big_endian))
}

/// The header numpy writes for a C-ordered array of `dtype` and `shape` whose data is in
/// this machine's byte order: the dict padded with spaces and a newline so that the data
/// starts at a multiple of 64 bytes, byte for byte as `np.save` writes it, version 1.0 unless the dict needs 2.0's longer length.
pub(super) fn encode(dtype: DType, shape: &[usize]) -> Vec<u8> {
    let code = DESCRS
        .iter()
        .find(|(d, _)| *d == dtype)
        .map(|(_, c)| *c)
        .expect("every dtype has a numpy type string");
    let order = match (dtype.size(), cfg!(target_endian = "big")) {
        (1, _) => '|',
        (_, false) => '<',
        (_, true) => '>',
    };
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    let shape = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    // numpy leaves room for the first dimension to grow to 21 digits in place.
    let room = dims.first().map_or(0, |d| 21usize.saturating_sub(d.len()));
    let dict = format!(
        "{{'descr': '{order}{code}', 'fortran_order': False, 'shape': {shape}, }}{}",
        " ".repeat(room)
    );
    let padded = |prefix: usize| (prefix + dict.len() + 1).next_multiple_of(64) - prefix;
    let prefix = if padded(10) <= usize::from(u16::MAX) {
        10
    } else {
        12
    };
    let len = padded(prefix);
    let mut out = Vec::with_capacity(prefix + len);
    out.extend_from_slice(MAGIC);
    if prefix == 10 {
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&(len as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&[2, 0]);
        out.extend_from_slice(&(len as u32).to_le_bytes());
    }
    out.extend_from_slice(dict.as_bytes());
    out.resize(prefix + len - 1, b' ');
    out.push(b'\n');
    out
}

/// The three entries of a header's dict.
#[derive(Default)]
struct Dict {
    descr: Option<String>,
    fortran_order: Option<bool>,
    shape: Option<Vec<usize>>,
}

impl Dict {
    /// Parses `{'key': value, ...}` with a trailing comma allowed, then only spaces.
    fn parse(text: &str) -> Result<Dict, String> {
        let mut p = Parser { rest: text };
        let mut dict = Dict::default();
        p.expect('{')?;
        while !p.eat('}') {
            let key = p.string()?;
            p.expect(':')?;
            match key.as_str() {
                "descr" if dict.descr.is_none() => dict.descr = Some(p.descr()?),
                "fortran_order" if dict.fortran_order.is_none() => {
                    dict.fortran_order = Some(p.boolean()?)
                }
                "shape" if dict.shape.is_none() => dict.shape = Some(p.shape()?),
                _ => return Err(format!("unexpected key {key:?} in the header")),
            }
            if !p.eat(',') {
                p.expect('}')?;
                break;
            }
        }
        if !p.rest.trim().is_empty() {
            return Err("text after the header's dict".into());
        }
        Ok(dict)
    }
}

/// A cursor over header text.
struct Parser<'a> {
    rest: &'a str,
}

impl Parser<'_> {
    /// Skips spaces, then takes `c` if it comes next.
    fn eat(&mut self, c: char) -> bool {
        self.rest = self.rest.trim_start();
        match self.rest.strip_prefix(c) {
            Some(r) => {
                self.rest = r;
                true
            }
            None => false,
        }
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!(
                "expected {c:?} in the header at {:?}",
                self.excerpt()
            ))
        }
    }

    /// A few characters of what comes next, for messages.
    fn excerpt(&self) -> String {
        self.rest.chars().take(16).collect()
    }

    /// A quoted string without escapes.
    fn string(&mut self) -> Result<String, String> {
        self.rest = self.rest.trim_start();
        let quote = match self.rest.chars().next() {
            Some(q @ ('\'' | '"')) => q,
            _ => {
                return Err(format!(
                    "expected a string in the header at {:?}",
                    self.excerpt()
                ))
            }
        };
        let body = &self.rest[1..];
        let end = body
            .find(quote)
            .ok_or("a string in the header is not closed")?;
        if body[..end].contains('\\') {
            return Err("escapes in header strings are not supported".into());
        }
        self.rest = &body[end + 1..];
        Ok(body[..end].to_string())
    }

    /// The dtype: a type string (structured dtypes, written as lists, are not supported).
    fn descr(&mut self) -> Result<String, String> {
        self.string().map_err(|_| {
            format!(
                "unsupported dtype {:?} (only plain type strings are)",
                self.excerpt()
            )
        })
    }

    fn boolean(&mut self) -> Result<bool, String> {
        self.rest = self.rest.trim_start();
        for (word, value) in [("True", true), ("False", false)] {
            if let Some(r) = self.rest.strip_prefix(word) {
                self.rest = r;
                return Ok(value);
            }
        }
        Err(format!(
            "expected True or False in the header at {:?}",
            self.excerpt()
        ))
    }

    /// `(d0, d1, ...)` or `[d0, ...]`, decimal dimensions that each fit in `usize`.
    fn shape(&mut self) -> Result<Vec<usize>, String> {
        let close = if self.eat('(') {
            ')'
        } else if self.eat('[') {
            ']'
        } else {
            return Err(format!(
                "expected a shape tuple in the header at {:?}",
                self.excerpt()
            ));
        };
        let mut shape = Vec::new();
        while !self.eat(close) {
            self.rest = self.rest.trim_start();
            let digits = self.rest.len()
                - self
                    .rest
                    .trim_start_matches(|c: char| c.is_ascii_digit())
                    .len();
            if digits == 0 {
                return Err(format!(
                    "expected a dimension in the header at {:?}",
                    self.excerpt()
                ));
            }
            let d = self.rest[..digits]
                .parse::<usize>()
                .map_err(|_| format!("dimension {} is too large", &self.rest[..digits]))?;
            self.rest = &self.rest[digits..];
            shape.push(d);
            if !self.eat(',') {
                self.expect(close)?;
                break;
            }
        }
        Ok(shape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(dict: &str) -> Vec<u8> {
        let mut b = b"\x93NUMPY\x01\x00".to_vec();
        b.extend((dict.len() as u16).to_le_bytes());
        b.extend(dict.as_bytes());
        b
    }

    #[test]
    fn reads_what_numpy_writes_and_variants_of_it() {
        let numpy = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }  \n";
        let h = parse(&file(numpy)).unwrap();
        assert_eq!(
            (h.dtype, h.big_endian, h.fortran_order),
            (DType::F32, false, false)
        );
        assert_eq!((h.shape, h.data_start), (vec![2, 3], 10 + numpy.len()));
        let h = parse(&file(
            "{\"shape\":[],\"descr\":\">i4\",\"fortran_order\":True}",
        ))
        .unwrap();
        assert_eq!(
            (h.dtype, h.big_endian, h.fortran_order),
            (DType::I32, true, true)
        );
        assert!(h.shape.is_empty());
        assert_eq!(
            parse(&file("{'descr':'|b1','fortran_order':False,'shape':(7,)}"))
                .unwrap()
                .shape,
            [7]
        );
    }

    #[test]
    fn writes_what_numpy_writes() {
        // `np.save` of `np.zeros((2, 3), np.float32)` and of `np.float64(1.0)`.
        let pad = |dict: &str| format!("{dict}{}\n", " ".repeat(117 - dict.len()));
        let f32_2x3 = pad("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
        let f64_scalar = pad("{'descr': '<f8', 'fortran_order': False, 'shape': (), }");
        for (dtype, shape, dict) in [
            (DType::F32, &[2, 3][..], f32_2x3),
            (DType::F64, &[], f64_scalar),
        ] {
            let mut numpy = b"\x93NUMPY\x01\x00v\x00".to_vec();
            numpy.extend(dict.as_bytes());
            assert_eq!(
                String::from_utf8_lossy(&encode(dtype, shape)),
                String::from_utf8_lossy(&numpy)
            );
        }
        let h = encode(DType::Bool, &[7; 30]);
        assert_eq!(h.len() % 64, 0);
        assert_eq!(parse(&h).unwrap().shape, [7; 30]);
    }

    #[test]
    fn rejects_what_it_cannot_trust() {
        for dict in [
            "{'descr': '<f4', 'fortran_order': False}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': ((2,),)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}",
            "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}",
            "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}",
            "{'descr': '<c32', 'fortran_order': False, 'shape': (2,)}",
            "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x",
            "{'de\\scr': '<f4'}",
        ] {
            assert!(parse(&file(dict)).is_err(), "{dict}");
        }
        let mut long = file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}");
        long[8] = 0xff;
        assert!(parse(&long).is_err());
        let mut v2 = b"\x93NUMPY\x02\x00\xff\xff\xff\xff{".to_vec();
        assert!(parse(&v2).is_err());
        v2[6] = 9;
        assert!(parse(&v2).is_err());
    }
}
