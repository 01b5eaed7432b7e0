//! `jnp.linalg`: decompositions (`cholesky`, `qr`, `eigh`, `svd`), solves and inverses
//! (`solve`, `inv`, `det`, `slogdet`, `lstsq`, `pinv`), norms, and the array API's matrix
//! helpers (`trace`, `diagonal`, `outer`, `vecdot`, ...). Each works on the last two
//! dimensions, those before them a batch; integer inputs become floats first.

mod decomp;
mod helpers;
mod norms;
mod solve;

pub use decomp::{cholesky, eigh, eigvalsh, qr, svd, svdvals};
pub use helpers::{cross, diagonal, matrix_transpose, multi_dot, outer, trace, vecdot};
pub use norms::{cond, matrix_norm, matrix_rank, norm, vector_norm, MatrixOrd};
pub use solve::{det, inv, lstsq, matrix_power, pinv, slogdet, solve};

use super::inexact;
use crate::core::Tensor;
use crate::ops as lax;

/// `x` with its last two dimensions swapped.
fn mt(x: &Tensor) -> Tensor {
    let r = x.ndim();
    let mut perm: Vec<usize> = (0..r).collect();
    perm.swap(r - 2, r - 1);
    lax::transpose(x, &perm)
}

/// `x` as a float tensor of rank 2 or more, or a panic naming `what` and the caller's line.
#[track_caller]
fn matrices(x: Tensor, what: &str) -> Tensor {
    if x.ndim() < 2 {
        panic!(
            "jnp.linalg.{what}: needs an array of rank 2 or more (a batch of matrices), got \
             shape {:?}\n  at {}",
            x.shape(),
            std::panic::Location::caller()
        );
    }
    inexact(&x)
}

/// `x` as [`matrices`] of square matrices.
#[track_caller]
fn square(x: Tensor, what: &str) -> Tensor {
    let x = matrices(x, what);
    let r = x.ndim();
    if x.shape()[r - 1] != x.shape()[r - 2] {
        panic!(
            "jnp.linalg.{what}: needs square matrices, got shape {:?}\n  at {}",
            x.shape(),
            std::panic::Location::caller()
        );
    }
    x
}

/// The last two dimensions of `x`.
fn mn(x: &Tensor) -> (usize, usize) {
    let r = x.ndim();
    (x.shape()[r - 2], x.shape()[r - 1])
}
