//! `jax.scipy.special`'s functions, bound for Python in the extension's `special`
//! submodule (its `lax` submodule, from [`special_lax`](crate::special_lax), holds lax's
//! special functions).

use oxla::scipy::special as sp;
use pyo3::exceptions::PyNotImplementedError;
use pyo3::prelude::*;

use crate::array::Array;
use crate::convert::Arg;
use crate::errors::guard;

/// Functions of array-likes only, each `jax.scipy.special.<name>` with JAX's parameter
/// names; `$register` adds them all to a module.
macro_rules! special_fns {
    ($register:ident; $($name:ident($($arg:ident),+) $doc:literal;)*) => {
        $(
            #[doc = concat!("`jax.scipy.special.", stringify!($name), "`: ", $doc)]
            #[pyfunction]
            fn $name($($arg: Arg),+) -> PyResult<Array> {
                guard(|| Ok(Array(sp::$name($($arg.operand()),+))))
            }
        )*

        /// Adds the functions of the table to `m`.
        fn $register(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $(m.add_function(wrap_pyfunction!($name, m)?)?;)*
            Ok(())
        }
    };
}

special_fns! {
    register_table;
    xlogy(x, y) "`x * log(y)`, 0 where `x == 0`.";
    xlog1py(x, y) "`x * log1p(y)`, 0 where `x == 0`.";
    entr(x) "the elementwise entropy `-x * log(x)`.";
    rel_entr(p, q) "the elementwise relative entropy `p * log(p / q)`.";
    kl_div(p, q) "the elementwise Kullback-Leibler divergence `p * log(p / q) - p + q`.";
    expit(x) "the logistic sigmoid `1 / (1 + exp(-x))`.";
    logit(x) "the inverse of `expit`, `log(x / (1 - x))`.";
    spence(x) "Spence's function (the dilogarithm of `1 - x`).";
    ndtri(p) "the inverse of the standard normal CDF.";
    ndtr(x) "the standard normal CDF.";
    erf(x) "the error function.";
    erfc(x) "the complementary error function `1 - erf(x)`.";
    erfinv(x) "the inverse error function.";
    gammaln(x) "`log|Γ(x)|`.";
    digamma(x) "the digamma function `Γ'(x) / Γ(x)`.";
    gammasgn(x) "the sign of `Γ(x)`.";
    gamma(x) "the gamma function `Γ(x)`.";
    polygamma(n, x) "the `n`-th derivative of digamma at `x` (`n` integer).";
    betaln(a, b) "`log|B(a, b)|`.";
    beta(a, b) "the beta function `B(a, b)`.";
    poch(z, m) "the Pochhammer symbol `Γ(z + m) / Γ(z)`.";
    i0e(x) "the exponentially scaled modified Bessel function of order 0.";
    i1e(x) "the exponentially scaled modified Bessel function of order 1.";
    i0(x) "the modified Bessel function of order 0.";
    i1(x) "the modified Bessel function of order 1.";
    gammainc(a, x) "the regularized lower incomplete gamma function `P(a, x)`.";
    gammaincc(a, x) "the regularized upper incomplete gamma function `Q(a, x)`.";
    betainc(a, b, x) "the regularized incomplete beta function `I_x(a, b)`.";
}

/// `jax.scipy.special.log_ndtr(x, series_order=3)`: the log of the standard normal CDF,
/// by an asymptotic series of `series_order` terms in the lower tail.
#[pyfunction]
#[pyo3(signature = (x, series_order=3))]
fn log_ndtr(x: Arg, series_order: usize) -> PyResult<Array> {
    guard(|| Ok(Array(sp::log_ndtr(x.operand(), series_order))))
}

/// `jax.scipy.special.factorial(n, exact=False)`: `Γ(n + 1)` as a float, 0 for `n < 0`.
#[pyfunction]
#[pyo3(signature = (n, exact=false))]
fn factorial(n: Arg, exact: bool) -> PyResult<Array> {
    if exact {
        return Err(PyNotImplementedError::new_err("factorial with exact=True"));
    }
    guard(|| Ok(Array(sp::factorial(n.operand()))))
}

/// `jax.scipy.special.zeta(x, q=None)`: the Hurwitz zeta function (JAX lacks the Riemann
/// one, `q=None`).
#[pyfunction]
#[pyo3(signature = (x, q=None))]
fn zeta(x: Arg, q: Option<Arg>) -> PyResult<Array> {
    let q = q.ok_or_else(|| {
        PyNotImplementedError::new_err(
            "Riemann zeta function not implemented; pass q != None to compute the Hurwitz \
             Zeta function.",
        )
    })?;
    guard(|| Ok(Array(sp::zeta(x.operand(), q.operand()))))
}

/// `jax.scipy.special.multigammaln(a, d)`: the log of the multivariate gamma function of
/// dimension `d`.
#[pyfunction]
fn multigammaln(a: Arg, d: usize) -> PyResult<Array> {
    guard(|| Ok(Array(sp::multigammaln(a.operand(), d))))
}

/// Adds the `special` submodule: `jax.scipy.special`'s functions, and lax's special
/// functions in its `lax` submodule.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let sub = PyModule::new(m.py(), "special")?;
    register_table(&sub)?;
    sub.add_function(wrap_pyfunction!(log_ndtr, &sub)?)?;
    sub.add_function(wrap_pyfunction!(factorial, &sub)?)?;
    sub.add_function(wrap_pyfunction!(zeta, &sub)?)?;
    sub.add_function(wrap_pyfunction!(multigammaln, &sub)?)?;
    crate::special_lax::register(&sub)?;
    m.add_submodule(&sub)?;
    Ok(())
}
