//! Samplers of vectors and matrices, as JAX composes them: `generalized_normal` and the
//! uniform point in an Lp `ball` (gamma, Rademacher and exponential draws), Haar-random
//! `orthogonal` matrices (the QR factors of a normal draw, the signs fixed by `R`'s
//! diagonal) and `multivariate_normal` (a factor of the covariance times a normal draw).

use super::{exponential, gamma, normal_dtype, rademacher, split2};
use crate::array::DType;
use crate::core::Tensor;
use crate::numpy::{self as jnp, linalg};

/// Generalized normal values of `shape` with shape parameter `p` (density proportional to
/// `exp(-|x|^p)`), `f32` (`jax.random.generalized_normal`): a random sign times
/// `Gamma(1/p)^(1/p)`.
#[track_caller]
pub fn generalized_normal(key: &Tensor, p: f64, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    let (kg, kr) = split2(key);
    let g = gamma(&kg, 1.0 / p, shape);
    let r = jnp::astype(rademacher(&kr, shape), DType::F32);
    r * jnp::power(g, 1.0 / p)
}

/// Points uniform in the unit Lp ball of dimension `d`, `f32` of `shape + [d]`
/// (`jax.random.ball`): a generalized normal vector divided by
/// `(sum |g|^p + e)^(1/p)` for an exponential `e`.
#[track_caller]
pub fn ball(key: &Tensor, d: usize, p: f64, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    let (kg, ke) = split2(key);
    let mut full = shape.to_vec();
    full.push(d);
    let g = generalized_normal(&kg, p, &full);
    let e = exponential(&ke, shape);
    let norm = jnp::power(jnp::sum(jnp::power(jnp::abs(&g), p), -1) + e, 1.0 / p);
    g / jnp::expand_dims(norm, -1)
}

/// Haar-random orthogonal matrices, `[..shape, n, m]` of float `dtype` (`m = n` when
/// `None`; semi-orthogonal when `m != n`) (`jax.random.orthogonal`): `Q` of the QR
/// factorisation of a normal `[max, min]` draw, each column times the sign of `R`'s
/// diagonal, transposed when `n < m`.
#[track_caller]
pub fn orthogonal(
    key: &Tensor,
    n: usize,
    shape: &[usize],
    dtype: DType,
    m: Option<usize>,
) -> Tensor {
    let _line = crate::core::user_line();
    let m = m.unwrap_or(n);
    let mut full = shape.to_vec();
    full.extend([n.max(m), n.min(m)]);
    let z = normal_dtype(key, &full, dtype);
    let (q, r) = linalg::qr(&z, "reduced");
    let d = linalg::diagonal(&r, 0);
    let x = q * jnp::expand_dims(jnp::sign(d), -2);
    if n < m {
        linalg::matrix_transpose(&x)
    } else {
        x
    }
}

/// Multivariate normal values with `mean` `[..., n]` and covariance `cov` `[..., n, n]`,
/// `[..shape, n]` (the broadcast batch shape of `mean` and `cov` when `None`), of `mean`'s
/// float dtype (`jax.random.multivariate_normal`): `mean + factor @ z` for a standard
/// normal `z` and `factor` the Cholesky factor of `cov` (`method` `"cholesky"`), or
/// `u sqrt(s)` of its SVD (`"svd"`) or `v sqrt(w)` of its eigendecomposition (`"eigh"`);
/// the last two accept singular covariances.
#[track_caller]
pub fn multivariate_normal(
    key: &Tensor,
    mean: &Tensor,
    cov: &Tensor,
    shape: Option<&[usize]>,
    method: &str,
) -> Tensor {
    let _line = crate::core::user_line();
    let here = std::panic::Location::caller();
    let dtype = if mean.dtype() == DType::F64 || cov.dtype() == DType::F64 {
        DType::F64
    } else {
        DType::F32
    };
    let (mean, cov) = (jnp::astype(mean, dtype), jnp::astype(cov, dtype));
    if mean.ndim() < 1 || cov.ndim() < 2 {
        panic!(
            "random.multivariate_normal: mean must have rank >= 1 and cov rank >= 2, got \
             mean {} and cov {}\n  at {here}",
            mean.aval(),
            cov.aval()
        );
    }
    let n = mean.shape()[mean.ndim() - 1];
    if cov.shape()[cov.ndim() - 2..] != [n, n] {
        panic!(
            "random.multivariate_normal: cov must be [..., {n}, {n}] for a mean of {}, got \
             {}\n  at {here}",
            mean.aval(),
            cov.aval()
        );
    }
    let batch = match shape {
        Some(s) => s.to_vec(),
        None => jnp::broadcast_shapes(&[
            &mean.shape()[..mean.ndim() - 1],
            &cov.shape()[..cov.ndim() - 2],
        ]),
    };
    let factor = match method {
        "cholesky" => linalg::cholesky(&cov),
        "svd" => {
            let (u, s, _) = linalg::svd(&cov, true);
            u * jnp::expand_dims(jnp::sqrt(s), -2)
        }
        "eigh" => {
            let (w, v) = linalg::eigh(&cov);
            v * jnp::expand_dims(jnp::sqrt(w), -2)
        }
        _ => panic!(
            "random.multivariate_normal: method must be one of \"svd\", \"eigh\" and \
             \"cholesky\", got {method:?}\n  at {here}"
        ),
    };
    let mut full = batch;
    full.push(n);
    let z = normal_dtype(key, &full, dtype);
    let fz = jnp::matmul(factor, jnp::expand_dims(z, -1));
    mean + jnp::squeeze(fz, -1)
}
