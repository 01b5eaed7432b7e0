//! `jax.numpy.linalg` and `jax.lax.linalg`: decompositions, solves and norms. One row a
//! golden case of `scripts/surface/tables/linalg.py`.
//!
//! Factors unique only up to sign (the columns of `eigh`'s and `svd`'s vectors, `qr`'s
//! `Q` and rows of `R`) are compared sign-normalised, or as products that are unique, by
//! the same program on both sides. The full-matrices SVD of a non-square matrix has no
//! derivative, in JAX as here (`svd_full_tall_values` is `nograd`).

use oxla::numpy as jnp;
use oxla::numpy::linalg::MatrixOrd;
use oxla::{lax, Tensor};

/// `x[..., lo..hi, :]` (`axis` counted from the end: 2) or `x[..., lo..hi]` (1).
fn part(x: &Tensor, from_end: usize, lo: usize, hi: usize) -> Tensor {
    let r = x.ndim();
    let mut start = vec![0; r];
    let mut limit = x.shape().to_vec();
    (start[r - from_end], limit[r - from_end]) = (lo, hi);
    lax::slice(x, &start, &limit, None)
}

/// Signs that make the first row of every column non-negative, `[..., 1, k]`.
fn col_signs(x: &Tensor) -> Tensor {
    jnp::where_(part(x, 2, 0, 1).lt(0.0), -1.0, 1.0).astype(x.dtype())
}

fn mt(x: &Tensor) -> Tensor {
    jnp::linalg::matrix_transpose(x)
}

/// `Q` and `R` with `R`'s diagonal made non-negative (and `Q`'s first `k` columns).
fn qr_norm(q: &Tensor, r: &Tensor) -> Vec<Tensor> {
    let diag = jnp::linalg::diagonal(r, 0);
    let d = jnp::where_(diag.lt(0.0), -1.0, 1.0).astype(r.dtype());
    let k = d.shape()[d.ndim() - 1];
    let rows = jnp::expand_dims(&d, -1);
    let cols = jnp::expand_dims(&d, -2);
    vec![part(q, 1, 0, k) * cols, r * rows]
}

fn svd_norm(u: &Tensor, vh: &Tensor) -> Vec<Tensor> {
    let d = col_signs(u);
    vec![u * &d, vh * mt(&d)]
}

surface! {
    cholesky [tol(1e-4, 1e-5)]: |a| vec![jnp::linalg::cholesky(&a[0])];
    cholesky_batch [tol(1e-4, 1e-5)]: |a| vec![jnp::linalg::cholesky(&a[0])];
    cholesky_x64: |a| vec![jnp::linalg::cholesky(&a[0])];
    lax_cholesky [tol(1e-4, 1e-5)]: |a| vec![lax::cholesky(&a[0], true)];
    triangular_solve_left_lower [tol(1e-4, 1e-5)]: |a| vec![lax::triangular_solve(&a[0], &a[1], true, true, false, false, false)];
    triangular_solve_right_upper_t [tol(1e-4, 1e-5)]: |a| vec![lax::triangular_solve(&a[0], &a[1], false, false, true, false, false)];
    triangular_solve_unit_t [tol(1e-4, 1e-5)]: |a| vec![lax::triangular_solve(&a[0], &a[1], true, true, true, false, true)];
    triangular_solve_batch [tol(1e-4, 1e-5)]: |a| vec![lax::triangular_solve(&a[0], &a[1], true, true, false, false, false)];
    lu [tol(1e-4, 1e-5)]: |a| { let (lu, p, q) = lax::lu(&a[0]); vec![lu, p, q] };
    lu_wide [tol(1e-4, 1e-5)]: |a| { let (lu, p, q) = lax::lu(&a[0]); vec![lu, p, q] };
    lu_tall [tol(1e-4, 1e-5)]: |a| { let (lu, p, q) = lax::lu(&a[0]); vec![lu, p, q] };
    qr_reduced [tol(1e-4, 1e-5)]: |a| { let (q, r) = jnp::linalg::qr(&a[0], "reduced"); qr_norm(&q, &r) };
    qr_square_complete [tol(1e-4, 1e-5)]: |a| { let (q, r) = jnp::linalg::qr(&a[0], "complete"); qr_norm(&q, &r) };
    qr_wide [tol(1e-4, 1e-5)]: |a| { let (q, r) = jnp::linalg::qr(&a[0], "reduced"); qr_norm(&q, &r) };
    qr_complete_tall [tol(1e-4, 1e-5)]: |a| {
        let (q, r) = jnp::linalg::qr(&a[0], "complete");
        let rest = part(&q, 1, 3, 5);
        let mut v = qr_norm(&q, &part(&r, 2, 0, 3));
        v.push(jnp::matmul(&rest, mt(&rest)));
        v
    };
    lax_qr [tol(1e-4, 1e-5)]: |a| { let (q, r) = lax::qr(&a[0], false); qr_norm(&q, &r) };
    eigvalsh [tol(1e-4, 1e-5)]: |a| vec![jnp::linalg::eigvalsh(&a[0])];
    eigh [tol(1e-4, 1e-5)]: |a| {
        let (w, v) = jnp::linalg::eigh(&a[0]);
        let rec = jnp::matmul(&v * jnp::expand_dims(&w, 0), mt(&v));
        vec![w, &v * col_signs(&v), rec]
    };
    eigh_batch [tol(1e-4, 1e-5)]: |a| { let (w, v) = jnp::linalg::eigh(&a[0]); vec![w, &v * col_signs(&v)] };
    lax_eigh [tol(1e-4, 1e-5)]: |a| { let (v, w) = lax::eigh(&a[0], true, true); vec![w, &v * col_signs(&v)] };
    svd_thin [tol(1e-4, 1e-5)]: |a| {
        let (u, s, vh) = jnp::linalg::svd(&a[0], false);
        let rec = jnp::matmul(&u * jnp::expand_dims(&s, 0), &vh);
        let mut v = vec![s];
        v.extend(svd_norm(&u, &vh));
        v.push(rec);
        v
    };
    svd_wide [tol(1e-4, 1e-5)]: |a| {
        let (u, s, vh) = jnp::linalg::svd(&a[0], false);
        let mut v = vec![s];
        v.extend(svd_norm(&u, &vh));
        v
    };
    svd_full_square [tol(1e-4, 1e-5)]: |a| {
        let (u, s, vh) = jnp::linalg::svd(&a[0], true);
        let mut v = vec![s];
        v.extend(svd_norm(&u, &vh));
        v
    };
    svd_full_tall_values [tol(1e-4, 1e-5), nograd]: |a| {
        let (u, s, vh) = jnp::linalg::svd(&a[0], true);
        let rest = part(&u, 1, 2, 4);
        vec![s, jnp::abs(&vh), jnp::matmul(&rest, mt(&rest))]
    };
    svdvals [tol(1e-4, 1e-5)]: |a| vec![jnp::linalg::svdvals(&a[0])];
    lax_svd_values [tol(1e-4, 1e-5)]: |a| lax::svd(&a[0], true, false);
    solve_vector [tol(1e-4, 1e-5)]: |a| vec![jnp::linalg::solve(&a[0], &a[1])];
    solve_batch [tol(1e-4, 1e-5)]: |a| vec![jnp::linalg::solve(&a[0], &a[1])];
    solve_x64: |a| vec![jnp::linalg::solve(&a[0], &a[1])];
    inv [tol(1e-4, 1e-5)]: |a| vec![jnp::linalg::inv(&a[0])];
    det [tol(1e-4, 1e-5)]: |a| vec![jnp::linalg::det(&a[0])];
    slogdet [tol(1e-4, 1e-5)]: |a| { let (s, l) = jnp::linalg::slogdet(&a[0]); vec![s, l] };
    lstsq [tol(1e-4, 1e-5)]: |a| { let (x, r, k, s) = jnp::linalg::lstsq(&a[0], &a[1], None); vec![x, r, k, s] };
    pinv [tol(1e-4, 1e-5)]: |a| vec![jnp::linalg::pinv(&a[0], None)];
    matrix_rank [nograd]: |a| vec![jnp::linalg::matrix_rank(&a[0], None)];
    matrix_power [tol(1e-4, 1e-5)]: |a| vec![
        jnp::linalg::matrix_power(&a[0], 3),
        jnp::linalg::matrix_power(&a[0], -2),
        jnp::linalg::matrix_power(&a[0], 0),
    ];
    cond [tol(1e-4, 1e-5)]: |a| vec![
        jnp::linalg::cond(&a[0], None),
        jnp::linalg::cond(&a[0], Some(MatrixOrd::One)),
        jnp::linalg::cond(&a[0], Some(MatrixOrd::NegTwo)),
    ];
    matrix_norm [tol(1e-4, 1e-5)]: |a| [
        MatrixOrd::Fro, MatrixOrd::Nuc, MatrixOrd::Inf, MatrixOrd::NegInf,
        MatrixOrd::One, MatrixOrd::NegOne, MatrixOrd::Two, MatrixOrd::NegTwo,
    ]
    .iter()
    .map(|&o| jnp::linalg::matrix_norm(&a[0], o))
    .collect();
    vector_norm [tol(1e-4, 1e-5)]: |a| [1.0, 2.0, f64::INFINITY, f64::NEG_INFINITY, 0.0, 3.0]
        .iter()
        .map(|&o| jnp::linalg::vector_norm(&a[0], o, -1))
        .collect();
    norm_axis: |a| vec![jnp::linalg::norm(&a[0], 0), jnp::linalg::norm(&a[0], None)];
    trace_diagonal: |a| vec![
        jnp::linalg::trace(&a[0], 1),
        jnp::linalg::diagonal(&a[0], -1),
        jnp::linalg::matrix_transpose(&a[0]),
    ];
    outer_vecdot: |a| vec![jnp::linalg::outer(&a[0], &a[1]), jnp::linalg::vecdot(&a[2], &a[1], -1)];
    multi_dot [tol(1e-5, 1e-6)]: |a| vec![jnp::linalg::multi_dot(&[a[0].clone(), a[1].clone(), a[2].clone()])];
    cross: |a| vec![jnp::linalg::cross(&a[0], &a[1], -1)];
}
