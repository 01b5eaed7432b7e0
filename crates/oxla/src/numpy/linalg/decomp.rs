//! The decompositions: `cholesky`, `qr`, `eigh`, `eigvalsh`, `svd`, `svdvals`.

use super::{matrices, square};
use crate::core::Tensor;
use crate::numpy::Operand;
use crate::ops as lax;

/// The lower Cholesky factor `L` of symmetric positive-definite matrices, `a = L L^T`
/// (`jnp.linalg.cholesky`, the input symmetrized first): NaN for a matrix that is not
/// positive definite.
///
/// ```
/// use oxla::numpy as jnp;
/// let l = jnp::linalg::cholesky(jnp::array(&[4.0f32, 2.0, 2.0, 5.0], &[2, 2]));
/// assert_eq!(l.to_vec::<f32>(), vec![2.0, 0.0, 1.0, 2.0]);
/// ```
#[track_caller]
pub fn cholesky(a: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let a = square(a.into().into_tensor(), "cholesky");
    lax::cholesky(&a, true)
}

/// QR decomposition `a = Q R` (`jnp.linalg.qr`): `mode` `"reduced"` (`Q` `[..., m, k]`,
/// `R` `[..., k, n]`, `k = min(m, n)`) or `"complete"` (`Q` `[..., m, m]`, `R`
/// `[..., m, n]`).
///
/// ```
/// use oxla::numpy as jnp;
/// let (q, r) = jnp::linalg::qr(jnp::array(&[3.0f32, 4.0], &[2, 1]), "complete");
/// assert_eq!((q.shape(), r.shape()), (&[2, 2][..], &[2, 1][..]));
/// ```
#[track_caller]
pub fn qr(a: impl Into<Operand>, mode: &str) -> (Tensor, Tensor) {
    let _line = crate::core::user_line();
    let a = matrices(a.into().into_tensor(), "qr");
    let full_matrices = match mode {
        "reduced" => false,
        "complete" => true,
        _ => panic!(
            "jnp.linalg.qr: mode must be \"reduced\" or \"complete\", got {mode:?}\n  at {}",
            std::panic::Location::caller()
        ),
    };
    lax::qr(&a, full_matrices)
}

/// Eigenvalues (ascending) and unit eigenvectors (columns) of symmetric matrices
/// (`jnp.linalg.eigh`, the input symmetrized first): `(eigenvalues, eigenvectors)`.
///
/// ```
/// use oxla::numpy as jnp;
/// let (w, _v) = jnp::linalg::eigh(jnp::array(&[2.0f32, 0.0, 0.0, 1.0], &[2, 2]));
/// assert_eq!(w.to_vec::<f32>(), vec![1.0, 2.0]);
/// ```
#[track_caller]
pub fn eigh(a: impl Into<Operand>) -> (Tensor, Tensor) {
    let _line = crate::core::user_line();
    let a = square(a.into().into_tensor(), "eigh");
    let (v, w) = lax::eigh(&a, true, true);
    (w, v)
}

/// The eigenvalues of symmetric matrices, ascending (`jnp.linalg.eigvalsh`).
///
/// ```
/// use oxla::numpy as jnp;
/// let w = jnp::linalg::eigvalsh(jnp::array(&[2.0f32, 0.0, 0.0, 1.0], &[2, 2]));
/// assert_eq!(w.to_vec::<f32>(), vec![1.0, 2.0]);
/// ```
#[track_caller]
pub fn eigvalsh(a: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    eigh(a).0
}

/// Singular value decomposition `a = u diag(s) vh` (`jnp.linalg.svd`): `(u, s, vh)`, the
/// singular values descending; `u` `[..., m, m]` and `vh` `[..., n, n]` with
/// `full_matrices`, else `[..., m, k]` and `[..., k, n]`.
///
/// ```
/// use oxla::numpy as jnp;
/// let (u, s, vh) = jnp::linalg::svd(jnp::array(&[0.0f32, 2.0, 1.0, 0.0], &[2, 2]), false);
/// assert_eq!(s.to_vec::<f32>(), vec![2.0, 1.0]);
/// assert_eq!((u.shape(), vh.shape()), (&[2, 2][..], &[2, 2][..]));
/// ```
#[track_caller]
pub fn svd(a: impl Into<Operand>, full_matrices: bool) -> (Tensor, Tensor, Tensor) {
    let _line = crate::core::user_line();
    let a = matrices(a.into().into_tensor(), "svd");
    let mut r = lax::svd(&a, full_matrices, true);
    let vh = r.pop().expect("three results");
    let s = r.pop().expect("three results");
    (r.remove(0), s, vh)
}

/// The singular values, descending (`jnp.linalg.svdvals`).
///
/// ```
/// use oxla::numpy as jnp;
/// let s = jnp::linalg::svdvals(jnp::array(&[0.0f32, 2.0, 1.0, 0.0], &[2, 2]));
/// assert_eq!(s.to_vec::<f32>(), vec![2.0, 1.0]);
/// ```
#[track_caller]
pub fn svdvals(x: impl Into<Operand>) -> Tensor {
    let _line = crate::core::user_line();
    let x = matrices(x.into().into_tensor(), "svdvals");
    lax::svd(&x, false, false).remove(0)
}
