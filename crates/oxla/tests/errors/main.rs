//! Errors: bad input at trace time panics with a message naming the primitive (or numpy
//! function), the operand shapes and the user's source line, eagerly and inside
//! `make_jaxpr`; a caught panic leaves the interpreter usable; malformed `.npy` files are
//! `Err`, never a panic.
//!
//! One module per kind of mistake: bad operands of primitives and numpy functions, mistakes
//! only a trace makes, mistakes in transforms and builders, malformed `.npy` files.

#[path = "../panics/mod.rs"]
mod panics;

use oxla::Tensor;

fn m23() -> Tensor {
    Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])
}

/// One test that `$f` panics with `$expected` on `$arg` eagerly, and one that it does inside
/// `make_jaxpr` (where `$arg` is a tracer).
macro_rules! bad {
    ($eager:ident, $traced:ident, $expected:literal, $arg:expr, $f:expr) => {
        #[test]
        #[should_panic(expected = $expected)]
        fn $eager() {
            let f = $f;
            let _ = f($arg);
        }

        #[test]
        #[should_panic(expected = $expected)]
        fn $traced() {
            let _ = make_jaxpr($f, $arg);
        }
    };
}

mod npy;
mod operands;
mod tracing;
mod transforms;
