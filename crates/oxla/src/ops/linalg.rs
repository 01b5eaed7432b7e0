//! `jax.lax.linalg`: the decompositions and the triangular solve, each on the last two
//! dimensions of its operands (the dimensions before them a batch).

use std::panic::Location;

use crate::array::Array;
use crate::core::{bind, Prim, Tensor};
use crate::prims::LinalgOp;

#[track_caller]
fn bind_linalg(op: LinalgOp, xs: &[Tensor]) -> Vec<Tensor> {
    bind(Prim::Linalg(op), xs, Location::caller())
}

/// `(x + x^T) / 2` over the last two dimensions (JAX's `symmetrize`).
#[track_caller]
fn symmetrize(x: &Tensor) -> Tensor {
    let r = x.ndim();
    let mut perm: Vec<usize> = (0..r).collect();
    if r >= 2 {
        perm.swap(r - 2, r - 1);
    }
    let two = Tensor::new(Array::scalar_from_f64(2.0, x.dtype()));
    super::div(&super::add(x, &super::transpose(x, &perm)), &two)
}

/// The lower Cholesky factor `L` of symmetric positive-definite matrices `x = L L^T`
/// (`jax.lax.linalg.cholesky`): `[..., n, n]`, zeros above the diagonal, all NaN for a
/// matrix that is not positive definite. With `symmetrize_input`, `x` is first replaced by
/// `(x + x^T) / 2`; without, only its lower triangle is read.
///
/// ```
/// use oxla::{lax, numpy as jnp};
/// let l = lax::cholesky(&jnp::array(&[4.0f32, 2.0, 2.0, 5.0], &[2, 2]), true);
/// assert_eq!(l.to_vec::<f32>(), vec![2.0, 0.0, 1.0, 2.0]);
/// ```
#[track_caller]
pub fn cholesky(x: &Tensor, symmetrize_input: bool) -> Tensor {
    let x = if symmetrize_input {
        symmetrize(x)
    } else {
        x.clone()
    };
    bind_linalg(LinalgOp::Cholesky, &[x]).remove(0)
}

/// `X` with `op(a) X = b` (`left_side`) or `X op(a) = b`, for triangular `a`
/// (`jax.lax.linalg.triangular_solve`): `a` is `[..., m, m]`, of which only the `lower` (or
/// upper) triangle is read (its diagonal taken as ones with `unit_diagonal`); `op(a)` is
/// `a^T` with `transpose_a`; `b` is `[..., m, n]` (`[..., n, m]` when not `left_side`), or
/// one rank less for a single vector. `conjugate_a` has no effect on real dtypes.
///
/// ```
/// use oxla::{lax, numpy as jnp};
/// let a = jnp::array(&[2.0f32, 0.0, 1.0, 4.0], &[2, 2]);
/// let b = jnp::array(&[2.0f32, 9.0], &[2, 1]);
/// let x = lax::triangular_solve(&a, &b, true, true, false, false, false);
/// assert_eq!(x.to_vec::<f32>(), vec![1.0, 2.0]);
/// ```
#[track_caller]
pub fn triangular_solve(
    a: &Tensor,
    b: &Tensor,
    left_side: bool,
    lower: bool,
    transpose_a: bool,
    conjugate_a: bool,
    unit_diagonal: bool,
) -> Tensor {
    let op = LinalgOp::TriangularSolve {
        left_side,
        lower,
        transpose_a,
        conjugate_a,
        unit_diagonal,
    };
    if b.ndim() + 1 == a.ndim() {
        // A single vector: a column (left side) or a row.
        let at = if left_side { b.ndim() } else { b.ndim() - 1 };
        let mut shape = b.shape().to_vec();
        shape.insert(at, 1);
        let x = bind_linalg(op, &[a.clone(), super::reshape(b, &shape)]).remove(0);
        return super::reshape(&x, b.shape());
    }
    bind_linalg(op, &[a.clone(), b.clone()]).remove(0)
}

/// LU decomposition with partial pivoting, `x[..., perm, :] = L U`
/// (`jax.lax.linalg.lu`): `(lu, pivots, permutation)`, `lu` holding `L` strictly below
/// the diagonal (its unit diagonal implied) and `U` on and above, `pivots` LAPACK's row
/// swaps (int32 `[..., min(m, n)]`) and `permutation` the rows' order (int32 `[..., m]`).
///
/// ```
/// use oxla::{lax, numpy as jnp};
/// let (lu, pivots, perm) = lax::lu(&jnp::array(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]));
/// assert_eq!(lu.to_vec::<f32>(), vec![3.0, 4.0, 1.0 / 3.0, 2.0 - 4.0 / 3.0]);
/// assert_eq!((pivots.to_vec::<i32>(), perm.to_vec::<i32>()), (vec![1, 1], vec![1, 0]));
/// ```
#[track_caller]
pub fn lu(x: &Tensor) -> (Tensor, Tensor, Tensor) {
    let mut r = bind_linalg(LinalgOp::Lu, std::slice::from_ref(x));
    let perm = r.pop().expect("three results");
    let pivots = r.pop().expect("three results");
    (r.remove(0), pivots, perm)
}

/// QR decomposition `x = Q R` (`jax.lax.linalg.qr`): `Q` orthogonal, `R` upper
/// triangular; `[..., m, m]` and `[..., m, n]` with `full_matrices`, else `[..., m, k]` and
/// `[..., k, n]` (`k = min(m, n)`). Rows of `R` and columns of `Q` are unique up to sign.
///
/// ```
/// use oxla::{lax, numpy as jnp};
/// let (q, r) = lax::qr(&jnp::array(&[3.0f32, 4.0], &[2, 1]), false);
/// assert_eq!(q.shape(), &[2, 1]);
/// assert!((r.item().abs() - 5.0).abs() < 1e-6);
/// ```
#[track_caller]
pub fn qr(x: &Tensor, full_matrices: bool) -> (Tensor, Tensor) {
    let mut r = bind_linalg(LinalgOp::Qr { full_matrices }, std::slice::from_ref(x));
    let rr = r.pop().expect("two results");
    (r.remove(0), rr)
}

/// Eigendecomposition of symmetric matrices (`jax.lax.linalg.eigh`): `(v, w)`, the
/// eigenvalues `w` ascending (`[..., n]`) and the unit eigenvectors as the columns of `v`
/// (`[..., n, n]`, each unique up to sign for distinct eigenvalues). With
/// `symmetrize_input`, `x` is first replaced by `(x + x^T) / 2`; without, only its `lower`
/// (or upper) triangle is read.
///
/// ```
/// use oxla::{lax, numpy as jnp};
/// let (_v, w) = lax::eigh(&jnp::array(&[2.0f32, 1.0, 1.0, 2.0], &[2, 2]), true, true);
/// let w = w.to_vec::<f32>();
/// assert!((w[0] - 1.0).abs() < 1e-6 && (w[1] - 3.0).abs() < 1e-6);
/// ```
#[track_caller]
pub fn eigh(x: &Tensor, lower: bool, symmetrize_input: bool) -> (Tensor, Tensor) {
    let x = if symmetrize_input {
        symmetrize(x)
    } else {
        x.clone()
    };
    let op = LinalgOp::Eigh {
        lower,
        sort_eigenvalues: true,
    };
    let mut r = bind_linalg(op, &[x]);
    let w = r.pop().expect("two results");
    (r.remove(0), w)
}

/// Singular value decomposition `x = U diag(s) V^T` (`jax.lax.linalg.svd`): with
/// `compute_uv`, `[u, s, vh]` (`u` `[..., m, m]` and `vh` `[..., n, n]` with
/// `full_matrices`, else `[..., m, k]` and `[..., k, n]`); without, `[s]`. The singular
/// values `s` (`[..., k]`, `k = min(m, n)`) descend; singular vectors are unique up to sign.
///
/// ```
/// use oxla::{lax, numpy as jnp};
/// let s = lax::svd(&jnp::array(&[3.0f32, 0.0, 0.0, -4.0], &[2, 2]), false, false);
/// assert_eq!(s[0].to_vec::<f32>(), vec![4.0, 3.0]);
/// ```
#[track_caller]
pub fn svd(x: &Tensor, full_matrices: bool, compute_uv: bool) -> Vec<Tensor> {
    let op = LinalgOp::Svd {
        full_matrices,
        compute_uv,
    };
    let mut r = bind_linalg(op, std::slice::from_ref(x));
    if compute_uv {
        // The primitive's order is (s, u, vh); JAX's function returns (u, s, vh).
        r.swap(0, 1);
    }
    r
}

/// The primitive of a decomposition, bound as it is (the transformation rules' access).
#[track_caller]
pub(crate) fn linalg_prim(op: LinalgOp, xs: &[Tensor]) -> Vec<Tensor> {
    bind_linalg(op, xs)
}
