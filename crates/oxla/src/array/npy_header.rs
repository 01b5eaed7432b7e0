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

/// Parses the header at the start of `bytes`, or says what is wrong with it.
pub(super) fn parse(bytes: &[u8]) -> Result<Header, String> {
    let magic = b"\x93NUMPY";
    if bytes.len() < magic.len() + 2 || &bytes[..magic.len()] != magic {
        return Err("not a .npy file (no \\x93NUMPY magic)".into());
    }
    let (major, minor) = (bytes[6], bytes[7]);
    let (len_start, len_size) = match major {
        1 => (8, 2),
        2 | 3 => (8, 4),
        _ => return Err(format!("unsupported .npy version {major}.{minor}")),
    };
    let len_bytes = bytes
        .get(len_start..len_start + len_size)
        .ok_or("the file ends inside its header length")?;
    let len = len_bytes
        .iter()
        .rev()
        .fold(0usize, |n, &b| (n << 8) | b as usize);
    let text_start = len_start + len_size;
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
    let dtype = match chars.as_str() {
        "b1" => DType::Bool,
        "i4" => DType::I32,
        "u4" => DType::U32,
        "f4" => DType::F32,
        "f8" => DType::F64,
        _ => return Err(unsupported()),
    };
    Ok((dtype, big_endian))
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
    fn rejects_what_it_cannot_trust() {
        for dict in [
            "{'descr': '<f4', 'fortran_order': False}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': ((2,),)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}",
            "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}",
            "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}",
            "{'descr': '<c8', 'fortran_order': False, 'shape': (2,)}",
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
