//! `jax.lax`'s special functions that the elementwise table in `lax_ops` lacks (the
//! incomplete gamma family, `polygamma`, `zeta`, `betainc`, the scaled Bessel functions),
//! bound in the extension's `special.lax` submodule.

use oxla::lax;
use oxla::numpy::{self as jnp, Operand};
use oxla::Tensor;
use pyo3::prelude::*;

use crate::array::Array;
use crate::convert::Arg;
use crate::errors::guard;

/// lax's operands: arrays as they are (the primitive checks that their dtypes agree), and
/// Python scalars, weakly typed, in the dtype of the first array (JAX's default float or
/// int when there is none).
fn lax_operands<const N: usize>(args: [Arg; N]) -> [Tensor; N] {
    let ops = args.map(|a| a.operand());
    let dtype = ops
        .iter()
        .find_map(|o| match o {
            Operand::Tensor(t) => Some(t.dtype()),
            Operand::Scalar(..) => None,
        })
        .unwrap_or_else(|| jnp::result_type(&ops));
    ops.map(|o| match o {
        Operand::Tensor(t) => t,
        scalar => scalar.to_tensor(dtype),
    })
}

/// lax's primitives of array-likes, each `jax.lax.<name>` with JAX's parameter names;
/// `$register` adds them all to a module.
macro_rules! lax_fns {
    ($register:ident; $($name:ident($($arg:ident),+) $doc:literal;)*) => {
        $(
            #[doc = concat!("`jax.lax.", stringify!($name), "`: ", $doc)]
            #[pyfunction]
            fn $name($($arg: Arg),+) -> PyResult<Array> {
                guard(|| {
                    let [$($arg),+] = lax_operands([$($arg),+]);
                    Ok(Array(lax::$name($(&$arg),+)))
                })
            }
        )*

        /// Adds the functions of the table to `m`.
        fn $register(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $(m.add_function(wrap_pyfunction!($name, m)?)?;)*
            Ok(())
        }
    };
}

lax_fns! {
    register_table;
    igamma(a, x) "the regularized lower incomplete gamma function `P(a, x)`.";
    igammac(a, x) "the regularized upper incomplete gamma function `Q(a, x)`.";
    igamma_grad_a(a, x) "the derivative of `igamma(a, x)` in `a`.";
    random_gamma_grad(a, x) "the derivative in `a` of a gamma sample `x` of shape `a`.";
    polygamma(m, x) "the `m`-th derivative of digamma at `x`.";
    zeta(x, q) "the Hurwitz zeta function `sum((n + q) ** -x)`.";
    betainc(a, b, x) "the regularized incomplete beta function `I_x(a, b)`.";
    bessel_i0e(x) "`exp(-|x|) I0(x)`, the scaled modified Bessel function of order 0.";
    bessel_i1e(x) "`exp(-|x|) I1(x)`, the scaled modified Bessel function of order 1.";
}

/// Adds the `lax` submodule of lax's special functions to `m` (the `special` submodule).
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let sub = PyModule::new(m.py(), "lax")?;
    register_table(&sub)?;
    m.add_submodule(&sub)?;
    Ok(())
}
