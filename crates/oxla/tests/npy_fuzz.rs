//! A fuzzer for `.npy` parsing, driven by proptest from a seed corpus kept in the repo
//! (`tests/fuzz_corpus/npy/`): random truncations, byte mutations, header edits (shapes,
//! dtypes, lengths) and trailing data. Reading never panics or aborts, and returns `Ok` only
//! when the file holds exactly the data its header declares. Bounded case counts keep it to
//! seconds; `PROPTEST_CASES` runs it longer.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use oxla::{Array, DType};
use proptest::prelude::*;

/// The seed files: `bad_*` are malformed, the rest valid.
fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_corpus/npy");
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .expect("the seed corpus")
        .map(|e| {
            let path = e.expect("a corpus entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).expect("a seed file"))
        })
        .collect();
    files.sort();
    assert!(files.len() >= 10, "the corpus holds {} files", files.len());
    files
}

/// Where the data starts, as the fixed part of the format says (magic, version, length).
fn data_start(bytes: &[u8]) -> Option<usize> {
    match bytes.get(6)? {
        1 => Some(10 + u16::from_le_bytes(bytes.get(8..10)?.try_into().ok()?) as usize),
        2 | 3 => Some(12 + u32::from_le_bytes(bytes.get(8..12)?.try_into().ok()?) as usize),
        _ => None,
    }
}

/// Reads `bytes`, which must not panic; an `Ok` must hold exactly the file's data.
fn check(bytes: &[u8]) -> Result<Array, String> {
    let read = catch_unwind(AssertUnwindSafe(|| Array::read_npy_from(bytes)));
    let a = match read {
        Err(_) => panic!("read_npy panicked on {:?}", String::from_utf8_lossy(bytes)),
        Ok(Err(e)) => return Err(e.to_string()),
        Ok(Ok(a)) => a,
    };
    let start = data_start(bytes).expect("an Ok file has a version and a header length");
    let data = &bytes[start..];
    let size: usize = a.shape().iter().product();
    assert_eq!(a.nbytes(), size * a.dtype().size(), "{a:?}");
    assert_eq!(
        data.len(),
        a.nbytes(),
        "Ok with other data than declared: {a:?}"
    );
    let text = String::from_utf8_lossy(&bytes[..start]);
    if text.contains("'<") || text.contains("'|") || text.contains("\"<") || text.contains("\"|") {
        assert_eq!(a.as_bytes(), data, "little-endian data is read as it lies");
    }
    if a.dtype() == DType::Bool {
        assert!(a.as_bytes().iter().all(|&b| b <= 1));
    }
    Ok(a)
}

#[test]
fn the_seed_corpus_reads_as_named() {
    for (name, bytes) in corpus() {
        let r = check(&bytes);
        assert_eq!(r.is_ok(), !name.starts_with("bad_"), "{name}: {r:?}");
        if let Ok(a) = r {
            // What oxla writes back reads back the same.
            let mut again = Vec::new();
            a.write_npy_to(&mut again).unwrap();
            let b = check(&again).unwrap();
            assert_eq!(
                (a.dtype(), a.shape(), a.as_bytes()),
                (b.dtype(), b.shape(), b.as_bytes())
            );
        }
    }
}

/// An edit of a seed file.
#[derive(Clone, Debug)]
enum Edit {
    /// Keep the first `n` bytes (as a fraction of the length, per mille).
    Truncate(u16),
    /// Set bytes at positions (per mille of the length) to values.
    Bytes(Vec<(u16, u8)>),
    /// Replace the shape tuple's text.
    Shape(String),
    /// Replace the dtype string.
    Descr(String),
    /// Overwrite the header length field.
    HeaderLen(u32),
    /// Append bytes.
    Append(Vec<u8>),
}

fn dims() -> impl Strategy<Value = String> {
    let dim = prop_oneof![
        0u64..5,
        Just(1 << 31),
        Just(1 << 32),
        Just(1 << 60),
        Just(1 << 62),
        Just(u64::MAX),
        any::<u64>(),
    ];
    let text = prop_oneof![
        dim.prop_map(|d| d.to_string()),
        Just("-1".to_string()),
        Just("99999999999999999999999".to_string()),
        Just("(2,)".to_string()),
        Just("'x'".to_string()),
    ];
    prop::collection::vec(text, 0..5).prop_map(|ds| format!("({},)", ds.join(", ")))
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0u16..=1000).prop_map(Edit::Truncate),
        prop::collection::vec((0u16..1000, any::<u8>()), 1..6).prop_map(Edit::Bytes),
        dims().prop_map(Edit::Shape),
        prop::sample::select(vec![
            "<f4", ">f8", "|b1", "<i4", "<u4", "<i8", "|u1", "<f", "", "<f4'"
        ])
        .prop_map(|d| Edit::Descr(d.to_string())),
        prop_oneof![0u32..200, any::<u32>()].prop_map(Edit::HeaderLen),
        prop::collection::vec(any::<u8>(), 1..40).prop_map(Edit::Append),
    ]
}

/// `bytes` with `edit` applied.
fn apply(mut bytes: Vec<u8>, edit: &Edit) -> Vec<u8> {
    let at = |p: u16, len: usize| p as usize * len / 1000;
    let replace = |bytes: &[u8], open: &str, close: u8, new: &str| -> Vec<u8> {
        let key = bytes.windows(open.len()).position(|w| w == open.as_bytes());
        let Some(key) = key else {
            return bytes.to_vec();
        };
        let start = key + open.len();
        let Some(end) = bytes[start..].iter().position(|&b| b == close) else {
            return bytes.to_vec();
        };
        let mut out = bytes[..start].to_vec();
        out.extend_from_slice(new.as_bytes());
        out.extend_from_slice(&bytes[start + end..]);
        out
    };
    match edit {
        Edit::Truncate(p) => {
            bytes.truncate(at(*p, bytes.len()));
            bytes
        }
        Edit::Bytes(sets) => {
            let len = bytes.len();
            for &(p, v) in sets {
                if len > 0 {
                    bytes[at(p, len).min(len - 1)] = v;
                }
            }
            bytes
        }
        Edit::Shape(s) => replace(&bytes, "'shape': ", b')', &s[..s.len() - 1]),
        Edit::Descr(d) => replace(&bytes, "'descr': '", b'\'', d),
        Edit::HeaderLen(n) => {
            if bytes.len() >= 12 && bytes[6] != 1 {
                bytes[8..12].copy_from_slice(&n.to_le_bytes());
            } else if bytes.len() >= 10 {
                bytes[8..10].copy_from_slice(&(*n as u16).to_le_bytes());
            }
            bytes
        }
        Edit::Append(extra) => {
            bytes.extend_from_slice(extra);
            bytes
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Up to three edits of a seed file: never a panic, and `Ok` only with exactly the
    /// declared data.
    #[test]
    fn edited_files_never_panic_and_ok_means_complete(
        seed in prop::sample::select(corpus()),
        edits in prop::collection::vec(edit(), 1..4),
    ) {
        let bytes = edits.iter().fold(seed.1.clone(), apply);
        let _ = check(&bytes);
    }

    /// A file oxla wrote, cut anywhere short of its end, is an error; whole, it reads back.
    #[test]
    fn every_truncation_of_a_written_file_is_an_error(
        data in prop::collection::vec(any::<f32>(), 0..12),
        cut in any::<prop::sample::Index>(),
    ) {
        let a = Array::from_vec(data.clone(), &[data.len()]);
        let mut bytes = Vec::new();
        a.write_npy_to(&mut bytes).unwrap();
        let whole = check(&bytes).unwrap();
        prop_assert_eq!(whole.as_bytes(), a.as_bytes());
        let n = cut.index(bytes.len());
        prop_assert!(check(&bytes[..n]).is_err(), "read {} of {} bytes", n, bytes.len());
    }
}
