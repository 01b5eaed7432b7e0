//! The API surface, function by function, from tables: every public function of oxla's JAX
//! modules (`numpy`, `numpy::linalg`, `numpy::fft`, `lax`, `nn`, `random`, `scipy::special`)
//! has rows here, and each row is checked four ways:
//!
//! - `golden`: run eagerly on the committed inputs and compared with JAX 0.10's outputs; the
//!   batched run (`vmap`) is compared with JAX's `jax.vmap` of the same function too;
//! - `vmap`: `vmap` of the function over a batch of three draws of the inputs, against a loop
//!   of the function over the batch;
//! - `grad`: oxla's `vjp` with JAX's cotangents against JAX's `jax.vjp`, and against central
//!   finite differences of the function in f64 along a fixed direction. A function JAX does
//!   not differentiate must not be differentiable in oxla either: its row says `nograd`, or
//!   no float input reaches a float output;
//! - `jit`: `jit` of the function, and `eval_jaxpr` of its `make_jaxpr`, against eager.
//!
//! A table is a file here (`numpy.rs`, ...) with one row a case: `name [options]: |a|
//! program;`, where `a` holds the case's inputs and the program returns its output leaves. The
//! golden files are made by `scripts/gen_golden_surface.py` from the same case in
//! `scripts/surface/tables/<table>.py`, so adding a function is one row on each side, and the
//! row adds its four tests (`cargo test --test surface numpy::flip_axis0`). Each table also
//! checks that every case directory of its golden table has a row (`accounted_for`).
//!
//! Options (see [`check::Case`]): `tol(rtol, atol)` for values (cotangents: within 1e-4/1e-5 of
//! JAX's), `bits` (bit for bit: samplers), `nograd` (JAX does not differentiate it),
//! `novmap` (its case has no batch), `nofd` (finite differences do not apply: say why in the
//! table's doc).

#[path = "../common/mod.rs"]
mod common;

mod check;

/// One module per row, with the four tests; `COVERED` lists the rows and `accounted_for`
/// checks them against the table's golden directory.
macro_rules! surface {
    ($($name:ident $([$($opt:ident $(($($v:expr),*))?),+ $(,)?])? : |$a:ident| $body:expr;)*) => {
        $(
            #[allow(non_snake_case)]
            mod $name {
                #[allow(unused_imports)]
                use super::*;

                #[allow(unused_variables)]
                fn program($a: &[oxla::Tensor]) -> Vec<oxla::Tensor> {
                    $body
                }

                fn case() -> $crate::check::Case {
                    $crate::check::Case::new(module_path!(), program)
                        $($(.$opt($($($v),*)?))+)?
                }

                #[test]
                fn golden() {
                    case().golden();
                }

                #[test]
                fn vmap() {
                    case().vmap();
                }

                #[test]
                fn grad() {
                    case().grad();
                }

                #[test]
                fn jit() {
                    case().jit();
                }
            }
        )*

        /// Every golden case of this table has a row, and every row a golden case.
        #[test]
        fn accounted_for() {
            $crate::check::accounted_for(module_path!(), &[$(stringify!($name)),*]);
        }
    };
}

mod conv;
mod fft;
mod lax_cumulative;
mod lax_elementwise;
mod lax_reduce;
mod lax_structural;
mod linalg;
mod nn;
mod numpy;
mod numpy_extra;
mod numpy_index;
mod numpy_misc;
mod numpy_sets;
mod numpy_shape;
mod numpy_stats;
mod random;
mod scipy_special;
mod special_extra;
