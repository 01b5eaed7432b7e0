//! Shapes too large for memory are refused where they are made, never wrapped: element and
//! byte counts are checked (as numpy does, the dimensions other than zero times the element
//! size must fit in one allocation), so a shape that would overflow panics at the user's
//! line naming the primitive and the shape, and a `.npy` header that declares one is an
//! error. Before, `zeros(&[1 << 32, 1 << 32])` was a 0-byte array and a jitted call on
//! `zeros(&[1 << 62])` ended the process with SIGSEGV.

use std::panic::{catch_unwind, AssertUnwindSafe};

use oxla::{jit, numpy as jnp, Array, DType, Error, Tensor};

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic without a message".into())
}

/// The message of the panic `f` raises, which must name this file at `line`.
fn panics_at<T>(line: u32, f: impl FnOnce() -> T) -> String {
    let msg = panic_message(
        catch_unwind(AssertUnwindSafe(f))
            .map(|_| ())
            .expect_err("a too-large shape must panic"),
    );
    assert!(
        msg.contains(&format!("reliability_shapes.rs:{line}")),
        "{msg}"
    );
    assert!(msg.contains("too large"), "{msg}");
    msg
}

#[test]
fn zeros_of_an_overflowing_shape_panics_at_the_users_line() {
    let msg = panics_at(line!(), || jnp::zeros(&[1 << 32, 1 << 32]));
    assert!(msg.starts_with("broadcast_in_dim:"), "{msg}");
    assert!(msg.contains("f32[4294967296,4294967296]"), "{msg}");
    let msg = panics_at(line!(), || Array::zeros(DType::F64, &[1 << 61, 0, 2]));
    assert!(msg.contains("f64[2305843009213693952,0,2]"), "{msg}");
}

#[test]
fn jit_never_runs_on_a_wrapped_shape() {
    // zeros(&[1 << 62]) of f32 is 2^64 bytes: refused where it is made...
    let f = jit(|x: Tensor| &x * 2.0 + 1.0);
    let msg = panics_at(line!(), || f.call(jnp::zeros(&[1 << 62])));
    assert!(msg.contains("f32[4611686018427387904]"), "{msg}");
    // ... and inside a traced function, at the line of the function's body.
    let line = line!() + 1;
    let g = jit(|x: Tensor| jnp::broadcast_to(&x, &[1 << 62]) * 2.0 + 1.0);
    panics_at(line, || g.call(jnp::ones(&[1])));
    assert_eq!(
        f.call(jnp::ones(&[2])).unwrap().to_vec::<f32>(),
        vec![3.0; 2]
    );
}

#[test]
fn shape_rules_check_their_results() {
    // An empty f32[0, 2^60] is a valid array of 0 bytes; three of them side by side are not.
    let x = Tensor::new(Array::zeros(DType::F32, &[0, 1 << 60]));
    let xs = [x.clone(), x.clone(), x.clone()];
    let msg = panics_at(line!(), || jnp::concatenate(&xs, 1));
    assert!(msg.starts_with("concatenate:"), "{msg}");
    let msg = panics_at(line!(), || oxla::lax::reshape(&x, &[1 << 40, 1 << 40, 0]));
    assert!(msg.starts_with("reshape:"), "{msg}");
}

/// A version-1.0 `.npy` of `descr` whose header declares `shape`, padded as numpy pads it to
/// 128 bytes, with no data.
fn npy_128(descr: &str, shape: &str) -> Vec<u8> {
    let mut h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + h.len() + 1) % 64 != 0 {
        h.push(' ');
    }
    h.push('\n');
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend((h.len() as u16).to_le_bytes());
    b.extend(h.as_bytes());
    b
}

#[test]
fn an_npy_header_is_checked_against_the_file() {
    // The file: f32 (2^62, 0) in 128 bytes; its dimensions pass 2^64 bytes.
    let bytes = npy_128("<f4", "(4611686018427387904, 0)");
    assert_eq!(bytes.len(), 128);
    let err = Array::read_npy_from(bytes.as_slice()).expect_err("too large");
    assert!(matches!(err, Error::Npy(_)), "{err}");
    assert!(err.to_string().contains("too large"), "{err}");
    // As bool the same dimensions fit (numpy writes such a file): an empty array, whose
    // file must end with its header.
    let exact = npy_128("|b1", "(4611686018427387904, 0)");
    let mut longer = exact.clone();
    longer.push(0);
    let err = Array::read_npy_from(longer.as_slice()).expect_err("data past the array");
    assert!(matches!(err, Error::Npy(_)), "{err}");
    let x = Tensor::new(Array::read_npy_from(exact.as_slice()).expect("an empty array"));
    assert_eq!(x.shape(), &[1 << 62, 0]);
    // Summed over its empty axis, as i32, it would be i32[2^62], 2^64 bytes: refused when
    // traced (already the i32 conversion before the sum is too large).
    let line = line!() + 1;
    let f = jit(|x: Tensor| x.sum(1) * 2.0 + 1.0);
    let msg = panics_at(line, || f.call(x.clone()));
    assert!(msg.starts_with("convert_element_type:"), "{msg}");
    // f32[2^60, 0] summed is f32[2^60]: a valid shape of 2^62 bytes that no system has, so
    // the call is out of memory, with the plan's view.
    let f4 = npy_128("<f4", "(1152921504606846976, 0)");
    let x = Tensor::new(Array::read_npy_from(f4.as_slice()).expect("an empty array"));
    match f.call(x) {
        Err(Error::OutOfMemory {
            needed, refused, ..
        }) => {
            assert_eq!(refused, Some(1 << 62));
            // The result and the kernel's lane buffers (under 1 MiB).
            assert!(
                (1 << 62..(1 << 62) + (1 << 20)).contains(&needed),
                "{needed}"
            );
        }
        other => panic!("expected OutOfMemory, got {:?}", other.map(|t| t.aval())),
    }
}
