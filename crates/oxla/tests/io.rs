//! Data in and out: `.npz` archives and `.npy` files that numpy wrote (`tests/golden_io/`,
//! from `scripts/gen_golden_io.py`) read as numpy reads them; what oxla writes reads back
//! the same; malformed archives are errors, not panics; `from_vec` does not copy.

use std::path::PathBuf;

use oxla::{io, numpy as jnp, DType, Error, Tensor};

fn golden(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden_io")
        .join(name)
}

/// A path under the temp dir, removed when dropped.
struct Temp(PathBuf);

impl Temp {
    fn new(name: &str) -> Temp {
        Temp(std::env::temp_dir().join(format!("oxla-io-{}-{name}", std::process::id())))
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The arrays `gen_golden_io.py` saves, in its order.
fn numpy_arrays() -> Vec<(&'static str, Tensor)> {
    vec![
        (
            "f",
            Tensor::from_vec((0..24).map(|i| i as f32 / 4.0).collect(), &[2, 3, 4]),
        ),
        ("d", Tensor::from_vec(vec![0.5f64, -1.25], &[2])),
        ("i", Tensor::from_vec(vec![-3i32, 7], &[1, 2])),
        ("u", Tensor::from_vec(vec![4_000_000_000u32], &[1])),
        ("b", Tensor::from_vec(vec![true, false, true], &[3])),
        ("s", Tensor::scalar(2.5f32)),
    ]
}

fn assert_same(got: &io::Tensors, want: &[(&str, Tensor)]) {
    assert_eq!(
        got.names().collect::<Vec<_>>(),
        want.iter().map(|w| w.0).collect::<Vec<_>>()
    );
    for (name, w) in want {
        let g = &got[name];
        assert_eq!((g.dtype(), g.shape()), (w.dtype(), w.shape()), "{name}");
        assert_eq!(g.array().as_bytes(), w.array().as_bytes(), "{name}");
    }
}

#[test]
fn npz_files_numpy_wrote_read_as_numpy_reads_them() {
    for file in ["savez.npz", "savez_compressed.npz"] {
        let npz = io::load_npz(golden(file)).unwrap();
        assert_same(&npz, &numpy_arrays());
    }
}

#[test]
fn fortran_ordered_and_big_endian_npy_files_read_in_c_order() {
    let f = Tensor::read_npy(golden("fortran.npy")).unwrap();
    assert_eq!(f.shape(), &[2, 3, 4]);
    assert_eq!(
        f.to_vec::<f32>(),
        (0..24).map(|i| i as f32 / 4.0).collect::<Vec<_>>()
    );
    let b = Tensor::read_npy(golden("big_endian.npy")).unwrap();
    assert_eq!((b.dtype(), b.shape()), (DType::F64, &[2, 3][..]));
    assert_eq!(b.to_vec::<f64>(), vec![-2.5, -1.5, -0.5, 0.5, 1.5, 2.5]);
}

#[test]
fn what_oxla_writes_reads_back() {
    let arrays = numpy_arrays();
    for (compressed, name) in [(false, "plain.npz"), (true, "compressed.npz")] {
        let path = Temp::new(name);
        let pairs = arrays.iter().map(|(n, t)| (*n, t));
        if compressed {
            io::savez_compressed(&path.0, pairs).unwrap();
        } else {
            io::savez(&path.0, pairs).unwrap();
        }
        assert_same(&io::load_npz(&path.0).unwrap(), &arrays);
    }
    let empty = Temp::new("empty.npz");
    io::savez(&empty.0, Vec::<(&str, Tensor)>::new()).unwrap();
    assert!(io::load_npz(&empty.0).unwrap().is_empty());
    let npy = Temp::new("x.npy");
    let x = jnp::arange(10.0).reshape(&[2, 5]);
    x.write_npy(&npy.0).unwrap();
    assert_eq!(
        Tensor::read_npy(&npy.0).unwrap().to_vec::<f32>(),
        x.to_vec::<f32>()
    );
}

#[test]
fn malformed_npz_files_are_errors() {
    let not_zip = Temp::new("not_zip.npz");
    std::fs::write(&not_zip.0, b"this is not a zip archive").unwrap();
    for path in [not_zip.0.clone(), golden("bad_entry.npz")] {
        match io::load_npz(&path) {
            Err(Error::Npz(m)) => assert!(m.contains(".npz"), "{m}"),
            other => panic!("{}: {other:?}", path.display()),
        }
    }
    match io::load_npz(golden("bad_entry.npz")) {
        Err(e) => assert!(e.to_string().contains("x.npy"), "{e}"),
        Ok(_) => unreachable!(),
    }
    // An archive cut short anywhere is an error, never a panic.
    let whole = std::fs::read(golden("savez.npz")).unwrap();
    let cut = Temp::new("cut.npz");
    for n in (0..whole.len()).step_by(97) {
        std::fs::write(&cut.0, &whole[..n]).unwrap();
        assert!(io::load_npz(&cut.0).is_err(), "cut at {n}");
    }
    assert!(matches!(
        io::load_npz(std::env::temp_dir().join("oxla-no-such-dir/none.npz")),
        Err(Error::Io { .. })
    ));
}

#[test]
fn from_vec_takes_the_allocation() {
    let v: Vec<f64> = (0..1000).map(f64::from).collect();
    let at = v.as_ptr();
    let t = Tensor::from_vec(v, &[10, 100]);
    assert_eq!(t.array().as_slice::<f64>().as_ptr(), at);
    assert_eq!(t.array().as_slice::<f64>()[999], 999.0);
    let doubled = &t * 2.0;
    assert_eq!(doubled.to_vec::<f64>()[999], 1998.0);
}

#[cfg(feature = "safetensors")]
#[test]
fn safetensors_files_round_trip_and_malformed_ones_are_errors() {
    let arrays = numpy_arrays();
    let path = Temp::new("x.safetensors");
    io::save_safetensors(&path.0, arrays.iter().map(|(n, t)| (*n, t))).unwrap();
    let back = io::load_safetensors(&path.0).unwrap();
    assert_eq!(back.len(), arrays.len());
    for (name, want) in &arrays {
        let got = &back[name];
        assert_eq!(
            (got.dtype(), got.shape()),
            (want.dtype(), want.shape()),
            "{name}"
        );
        assert_eq!(got.array().as_bytes(), want.array().as_bytes(), "{name}");
    }
    let whole = std::fs::read(&path.0).unwrap();
    for n in [0, 4, 8, 20, whole.len() - 1] {
        std::fs::write(&path.0, &whole[..n]).unwrap();
        assert!(
            matches!(io::load_safetensors(&path.0), Err(Error::Safetensors(_))),
            "cut at {n}"
        );
    }
    // A dtype oxla does not have.
    let header = br#"{"x":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[0,2]}}"#;
    let mut file = (header.len() as u64).to_le_bytes().to_vec();
    file.extend_from_slice(header);
    file.extend_from_slice(&[0, 0]);
    std::fs::write(&path.0, &file).unwrap();
    match io::load_safetensors(&path.0) {
        Err(Error::Safetensors(m)) => assert!(m.contains("unsupported dtype"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[cfg(feature = "ndarray")]
#[test]
fn ndarray_arrays_convert_both_ways() {
    use ndarray::{ArrayD, IxDyn};
    let a = ArrayD::from_shape_vec(IxDyn(&[2, 3]), (0..6).map(|i| i as f32).collect()).unwrap();
    let moved = a.clone();
    let at = moved.as_ptr();
    let t = Tensor::from(moved);
    assert_eq!(
        t.array().as_slice::<f32>().as_ptr(),
        at,
        "taken over, not copied"
    );
    assert_eq!(t.shape(), &[2, 3]);
    let view = t.as_ndarray::<f32>().unwrap();
    assert_eq!(view.as_ptr(), at, "a view, not a copy");
    assert_eq!(view, a.view());
    assert_eq!(ArrayD::<f32>::try_from(&t).unwrap(), a);
    // A transposed (not row-major) array is copied in its logical order.
    let tt = Tensor::from(a.t().to_owned());
    assert_eq!(tt.to_vec::<f32>(), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    let b = Tensor::from(ndarray::arr1(&[true, false]));
    assert_eq!(b.dtype(), DType::Bool);
    assert!(matches!(t.as_ndarray::<f64>(), Err(Error::Conversion(_))));
    assert!(matches!(
        ArrayD::<i32>::try_from(&t),
        Err(Error::Conversion(_))
    ));
}
