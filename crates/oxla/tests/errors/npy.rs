//! Malformed `.npy` files are errors, not panics.

use std::panic::catch_unwind;

use oxla::{Array, Tensor};

/// Writes `bytes` to a fresh file under the temp dir and reads it back as an array.
fn read_npy_bytes(name: &str, bytes: &[u8]) -> oxla::Result<Array> {
    let file = format!("oxla-errors-{}-{name}.npy", std::process::id());
    let path = std::env::temp_dir().join(file);
    std::fs::write(&path, bytes).unwrap();
    let r = catch_unwind(|| Array::read_npy(&path));
    let t = catch_unwind(|| Tensor::read_npy(&path));
    std::fs::remove_file(&path).unwrap();
    let r = r.unwrap_or_else(|_| panic!("reading {name}.npy panicked"));
    let t = t.unwrap_or_else(|_| panic!("reading {name}.npy as a tensor panicked"));
    assert_eq!(r.is_ok(), t.is_ok());
    r
}

/// A version-1.0 `.npy` header holding `dict`, padded as numpy pads it.
fn header(dict: &str) -> Vec<u8> {
    let mut h = dict.as_bytes().to_vec();
    while !(10 + h.len() + 1).is_multiple_of(64) {
        h.push(b' ');
    }
    h.push(b'\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(h.len() as u16).to_le_bytes());
    out.extend_from_slice(&h);
    out
}

#[test]
fn a_well_formed_file_reads_back() {
    let mut bytes = header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }");
    bytes.extend_from_slice(&1.5f32.to_le_bytes());
    bytes.extend_from_slice(&(-2.0f32).to_le_bytes());
    let a = read_npy_bytes("good", &bytes).expect("a valid file");
    assert_eq!(a.shape(), &[2]);
    assert_eq!(a.to_vec::<f32>(), vec![1.5, -2.0]);
}

#[test]
fn malformed_npy_files_are_errors() {
    let f4 = |shape: &str| {
        header(&format!(
            "{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}"
        ))
    };
    let with_data = |mut h: Vec<u8>, n: usize| {
        h.extend(std::iter::repeat_n(0u8, n));
        h
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", vec![]),
        ("bad_magic", b"\x93NUMPZ\x01\x00\x10\x00{}".to_vec()),
        ("text", b"this is not a npy file at all".to_vec()),
        ("magic_only", b"\x93NUMPY".to_vec()),
        ("truncated_header", f4("(2,)")[..30].to_vec()),
        (
            "header_length_past_the_end",
            b"\x93NUMPY\x01\x00\xff\x7f{'descr'".to_vec(),
        ),
        ("not_a_dict", header("[1, 2, 3]")),
        (
            "missing_shape",
            header("{'descr': '<f4', 'fortran_order': False, }"),
        ),
        (
            "missing_descr",
            header("{'fortran_order': False, 'shape': (2,), }"),
        ),
        (
            "bad_shape",
            header("{'descr': '<f4', 'fortran_order': False, 'shape': 'x', }"),
        ),
        ("negative_dim", with_data(f4("(-1,)"), 4)),
        (
            "unicode_dtype",
            with_data(
                header("{'descr': '<U2', 'fortran_order': False, 'shape': (1,), }"),
                8,
            ),
        ),
        (
            "object_dtype",
            with_data(
                header("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }"),
                8,
            ),
        ),
        (
            "structured_dtype",
            with_data(
                header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }"),
                4,
            ),
        ),
        ("too_little_data", with_data(f4("(4,)"), 10)),
        ("no_data", f4("(3, 2)")),
        ("huge_shape", with_data(f4("(4611686018427387904,)"), 16)),
        (
            "bool_out_of_range",
            with_data(
                header("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }"),
                1,
            )
            .into_iter()
            .chain([2u8])
            .collect(),
        ),
    ];
    for (name, bytes) in cases {
        let r = read_npy_bytes(name, &bytes);
        assert!(r.is_err(), "{name}: read {r:?}");
        // The error says what is wrong with which file.
        let msg = r.unwrap_err().to_string();
        assert!(msg.contains(&format!("{name}.npy")), "{name}: {msg}");
    }
}

#[test]
fn an_npy_shape_whose_size_overflows_is_an_error() {
    let h =
        header("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 2), }");
    assert!(read_npy_bytes("overflow", &h).is_err());
}

#[test]
fn a_missing_npy_file_is_an_io_error() {
    let path = std::env::temp_dir().join("oxla-errors-no-such-dir/none.npy");
    match Array::read_npy(&path) {
        Err(oxla::Error::Io { path: p, .. }) => assert!(p.contains("none.npy")),
        other => panic!("expected an Io error, got {other:?}"),
    }
}
