//! The differentiation rules of the decompositions (`cholesky`, `triangular_solve`, `lu`,
//! `qr`, `eigh`, `svd`), as JAX's `jax/_src/lax/linalg.py` has them: each JVP is built
//! from other primitives (`dot_general`, `triangular_solve`, selections) and is linear in
//! the tangents; each VJP is that JVP transposed (the cotangent pulled back through the
//! traced linear map by the rules of its primitives), so reverse mode needs no formulas of
//! its own. `triangular_solve` is linear in `b`, and its transpose there is a solve with
//! `transpose_a` flipped.

use super::jvp_rules::{explicit_broadcast, take_along, zeros_of_aval, Tangents};
use super::vjp_rules::Cotangents;
use crate::array::DType;
use crate::core::{trace, Tensor};
use crate::numpy::scalar_tensor;
use crate::ops as lax;
use crate::prims::{LinalgOp, ReduceOp};

fn c(v: f64, like: &Tensor) -> Tensor {
    scalar_tensor(v, like.dtype())
}

/// `x` with its last two dimensions swapped.
fn mt(x: &Tensor) -> Tensor {
    let r = x.ndim();
    let mut perm: Vec<usize> = (0..r).collect();
    perm.swap(r - 2, r - 1);
    lax::transpose(x, &perm)
}

/// The batched matrix product over the last two dimensions (leading dimensions equal).
fn mm(a: &Tensor, b: &Tensor) -> Tensor {
    let r = a.ndim();
    let batch: Vec<usize> = (0..r - 2).collect();
    lax::dot_general(a, b, (&[r - 1], &[r - 2]), (&batch, &batch), None)
}

/// `x` with a trailing (`at = r`) or second-to-last (`at = r - 1`) size-1 dimension.
fn expand(x: &Tensor, at: usize) -> Tensor {
    let mut shape = x.shape().to_vec();
    shape.insert(at, 1);
    lax::reshape(x, &shape)
}

/// Whether element `(i, j)` of the last two dimensions `[m, n]` lies on or below the
/// `k`-th diagonal (`j - i <= k`), broadcast to `shape`.
fn below(shape: &[usize], k: i64) -> Tensor {
    let r = shape.len();
    let mn = [shape[r - 2], shape[r - 1]];
    let i = lax::iota(DType::I32, &mn, 0);
    let j = lax::iota(DType::I32, &mn, 1);
    let ik = lax::add(&i, &scalar_tensor(k as f64, DType::I32));
    lax::broadcast_in_dim(&lax::ge(&ik, &j), shape, &[r - 2, r - 1])
}

/// The lower triangle from the `k`-th diagonal down, zeros elsewhere.
fn tril(x: &Tensor, k: i64) -> Tensor {
    lax::select_n(&below(x.shape(), k), &[zeros_of_aval(x), x.clone()])
}

/// The upper triangle from the `k`-th diagonal up, zeros elsewhere.
fn triu(x: &Tensor, k: i64) -> Tensor {
    lax::select_n(&below(x.shape(), k - 1), &[x.clone(), zeros_of_aval(x)])
}

/// The identity `[n, n]` in `like`'s dtype, broadcast to `[..batch, n, n]`.
fn eye(n: usize, batch: &[usize], like: &Tensor) -> Tensor {
    let e = lax::convert_element_type(
        &lax::eq(
            &lax::iota(DType::I32, &[n, n], 0),
            &lax::iota(DType::I32, &[n, n], 1),
        ),
        like.dtype(),
    );
    let mut shape = batch.to_vec();
    shape.extend([n, n]);
    let r = shape.len();
    lax::broadcast_in_dim(&e, &shape, &[r - 2, r - 1])
}

/// The diagonal of the last two (square) dimensions.
fn diagonal(x: &Tensor) -> Tensor {
    let r = x.ndim();
    let e = eye(x.shape()[r - 1], &x.shape()[..r - 2], x);
    lax::reduce(&lax::mul(x, &e), ReduceOp::Sum, &[r - 1])
}

/// `x[..., lo..hi, :]` (`axis` = r - 2) or `x[..., lo..hi]` (`axis` = r - 1).
fn part(x: &Tensor, axis: usize, lo: usize, hi: usize) -> Tensor {
    let mut start = vec![0; x.ndim()];
    let mut limit = x.shape().to_vec();
    (start[axis], limit[axis]) = (lo, hi);
    lax::slice(x, &start, &limit, None)
}

fn solve(a: &Tensor, b: &Tensor, left: bool, lower: bool, trans: bool, unit: bool) -> Tensor {
    lax::triangular_solve(a, b, left, lower, trans, false, unit)
}

/// The output tangents of `op` at `primals` with results `outs`, linear in `tangents`
/// (`None`: zero); the integer results of `lu` have none.
pub(crate) fn tangents(
    op: LinalgOp,
    primals: &[Tensor],
    outs: &[Tensor],
    tangents: &[Option<Tensor>],
) -> Tangents {
    if let LinalgOp::TriangularSolve {
        left_side,
        lower,
        transpose_a,
        unit_diagonal,
        ..
    } = op
    {
        let ans = &outs[0];
        let from_b = tangents[1]
            .as_ref()
            .map(|t| lax::linalg_prim(op, &[primals[0].clone(), t.clone()]).remove(0));
        let from_a = tangents[0].as_ref().map(|g| {
            let k = unit_diagonal as i64;
            let g = if lower { tril(g, -k) } else { triu(g, k) };
            let g = lax::neg(&g);
            let g = if transpose_a { mt(&g) } else { g };
            let inv =
                |rhs: &Tensor| lax::linalg_prim(op, &[primals[0].clone(), rhs.clone()]).remove(0);
            let r = ans.ndim();
            let (m, n) = (ans.shape()[r - 2], ans.shape()[r - 1]);
            match (left_side, m > n, m < n) {
                (true, true, _) => inv(&mm(&g, ans)),
                (true, false, _) => mm(&inv(&g), ans),
                (false, _, true) => inv(&mm(ans, &g)),
                (false, _, false) => mm(ans, &inv(&g)),
            }
        });
        return vec![match (from_a, from_b) {
            (None, None) => None,
            (Some(t), None) | (None, Some(t)) => Some(t),
            (Some(a), Some(b)) => Some(lax::add(&a, &b)),
        }];
    }
    let Some(dx) = tangents[0].as_ref() else {
        return vec![None; outs.len()];
    };
    match op {
        LinalgOp::TriangularSolve { .. } => unreachable!("handled above"),
        LinalgOp::Cholesky => vec![Some(cholesky_dot(&outs[0], dx))],
        LinalgOp::Lu => vec![Some(lu_dot(&outs[0], &outs[2], dx)), None, None],
        LinalgOp::Qr { full_matrices } => {
            let (dq, dr) = qr_dot(&primals[0], &outs[0], &outs[1], dx, full_matrices);
            vec![Some(dq), Some(dr)]
        }
        LinalgOp::Eigh { .. } => {
            let (dv, dw) = eigh_dot(&outs[0], &outs[1], dx);
            vec![Some(dv), Some(dw)]
        }
        LinalgOp::Svd {
            full_matrices,
            compute_uv,
        } => svd_dot(&primals[0], outs, dx, full_matrices, compute_uv),
    }
}

/// `L_dot = L phi(L^-1 A_dot L^-T)`, `phi` the lower triangle with its diagonal halved.
fn cholesky_dot(l: &Tensor, dx: &Tensor) -> Tensor {
    let tmp = solve(l, dx, false, true, true, false);
    let inner = solve(l, &tmp, true, true, false, false);
    let r = l.ndim();
    let n = l.shape()[r - 1];
    let halve = lax::add(&c(1.0, l), &eye(n, &l.shape()[..r - 2], l));
    mm(l, &lax::div(&tril(&inner, 0), &halve))
}

/// De Hoog, Anderssen and Lukas: `L' = L tril(L^-1 P A' U^-1, -1)`,
/// `U' = triu(L^-1 P A' U^-1) U`, packed as `lu` is.
fn lu_dot(lu: &Tensor, perm: &Tensor, dx: &Tensor) -> Tensor {
    let r = lu.ndim();
    let (m, n) = (lu.shape()[r - 2], lu.shape()[r - 1]);
    let k = m.min(n);
    let batch = &lu.shape()[..r - 2];
    let zero = c(0.0, lu);
    let mut pad = vec![(0, 0, 0); r];
    pad[r - 1] = (0, (m - k) as i64, 0);
    let l = lax::add(
        &lax::pad(&tril(&part(lu, r - 1, 0, k), -1), &zero, &pad),
        &eye(m, batch, lu),
    );
    let mut pad = vec![(0, 0, 0); r];
    pad[r - 2] = (0, (n - k) as i64, 0);
    let u_top = lax::pad(&triu(&part(lu, r - 2, 0, k), 0), &zero, &pad);
    // Ones on the diagonal below `U`'s `k` rows, so that `u` is invertible.
    let mut corner = vec![(0, 0, 0); r];
    corner[r - 2] = (k as i64, 0, 0);
    corner[r - 1] = (k as i64, 0, 0);
    let u = lax::add(&u_top, &lax::pad(&eye(n - k, batch, lu), &zero, &corner));
    let mut shape = batch.to_vec();
    shape.extend([m, n]);
    let rows = lax::broadcast_in_dim(perm, &shape, &(0..r - 1).collect::<Vec<_>>());
    let pa = take_along(dx, &rows, r - 2);
    let la = solve(&l, &pa, true, true, false, true);
    let lau = solve(&u, &la, false, false, false, false);
    lax::add(&mm(&l, &tril(&lau, -1)), &mm(&triu(&lau, 0), &u))
}

/// The QR tangents of a matrix with at least as many rows as columns, `Q` `[m, n]`.
fn thin_qr_dot(q: &Tensor, r: &Tensor, dx: &Tensor) -> (Tensor, Tensor) {
    let dx_rinv = solve(r, dx, false, false, false, false);
    let qt_dx_rinv = mm(&mt(q), &dx_rinv);
    let low = tril(&qt_dx_rinv, -1);
    let skew = lax::sub(&low, &mt(&low));
    let dq = lax::add(&mm(q, &lax::sub(&skew, &qt_dx_rinv)), &dx_rinv);
    let dr = mm(&lax::sub(&qt_dx_rinv, &skew), r);
    (dq, dr)
}

fn qr_dot(x: &Tensor, q: &Tensor, r: &Tensor, dx: &Tensor, full: bool) -> (Tensor, Tensor) {
    let rank = x.ndim();
    let (m, n) = (x.shape()[rank - 2], x.shape()[rank - 1]);
    if m < n {
        // `X = [X1 X2]`: `X1 = Q R1` is square, and `R2 = Q^T X2`.
        let (dq, dr1) = thin_qr_dot(q, &part(r, rank - 1, 0, m), &part(dx, rank - 1, 0, m));
        let x2 = part(x, rank - 1, m, n);
        let dr2 = lax::add(&mm(&mt(&dq), &x2), &mm(&mt(q), &part(dx, rank - 1, m, n)));
        return (dq, lax::concatenate(&[dr1, dr2], rank - 1));
    }
    let (q_mn, r_nn) = if full {
        (part(q, rank - 1, 0, n), part(r, rank - 2, 0, n))
    } else {
        (q.clone(), r.clone())
    };
    let (dq_mn, dr_nn) = thin_qr_dot(&q_mn, &r_nn, dx);
    if !full || m == n {
        return (dq_mn, dr_nn);
    }
    // The completion of `Q` (arXiv:2409.13374): `Z = Q_pn (Q_nn - I)^-1`, and
    // `dQ_mp = dQ_mn Z^T - (Q_mn + Q_mp Z) (dQ_pn - Z dQ_nn)^T`.
    let batch = &x.shape()[..rank - 2];
    let q_nn = part(&q_mn, rank - 2, 0, n);
    let q_pn = part(&q_mn, rank - 2, n, m);
    let q_mp = part(q, rank - 1, n, m);
    let dq_nn = part(&dq_mn, rank - 2, 0, n);
    let dq_pn = part(&dq_mn, rank - 2, n, m);
    let z_t = lu_solve_transposed(&lax::sub(&q_nn, &eye(n, batch, x)), &mt(&q_pn));
    let z = mt(&z_t);
    let dq_mp = lax::sub(
        &mm(&dq_mn, &z_t),
        &mm(
            &lax::add(&q_mn, &mm(&q_mp, &z)),
            &mt(&lax::sub(&dq_pn, &mm(&z, &dq_nn))),
        ),
    );
    let dq = lax::concatenate(&[dq_mn, dq_mp], rank - 1);
    let mut zeros_shape = batch.to_vec();
    zeros_shape.extend([m - n, n]);
    let zeros = lax::broadcast_in_dim(&c(0.0, x), &zeros_shape, &[]);
    (dq, lax::concatenate(&[dr_nn, zeros], rank - 2))
}

/// `X` with `A^T X = B`, by the LU decomposition of `A` (`P A = L U`, so
/// `A^T = U^T L^T P` and `X = P^T L^-T U^-T B`).
fn lu_solve_transposed(a: &Tensor, b: &Tensor) -> Tensor {
    let (lu, _, perm) = lax::lu(a);
    let y = solve(&lu, b, true, false, true, false);
    let z = solve(&lu, &y, true, true, true, true);
    // Row `perm[i]` of `X` is row `i` of `z`: gather with the inverse permutation.
    let r = z.ndim();
    let iota = lax::iota(DType::I32, perm.shape(), r - 2);
    let inverse = lax::sort(&[perm, iota], r - 2, 1)
        .pop()
        .expect("the inverse");
    let rows = lax::broadcast_in_dim(&inverse, z.shape(), &(0..r - 1).collect::<Vec<_>>());
    take_along(&z, &rows, r - 2)
}

/// First-order perturbation theory for distinct eigenvalues: with `P = V^T A' V`,
/// `w' = diag(P)` and `V' = V (F * P)`, `F[i, j] = 1 / (w[j] - w[i])` off the diagonal.
fn eigh_dot(v: &Tensor, w: &Tensor, dx: &Tensor) -> (Tensor, Tensor) {
    let r = v.ndim();
    let n = v.shape()[r - 1];
    let e = eye(n, &v.shape()[..r - 2], v);
    let wj = explicit_broadcast(&expand(w, r - 2), v.shape());
    let wi = explicit_broadcast(&expand(w, r - 1), v.shape());
    let f = lax::sub(
        &lax::integer_pow(&lax::add(&e, &lax::sub(&wj, &wi)), -1),
        &e,
    );
    let p = mm(&mm(&mt(v), dx), v);
    (mm(v, &lax::mul(&f, &p)), diagonal(&p))
}

/// The SVD tangents (as JAX's rule, real case), from the thin decomposition.
fn svd_dot(x: &Tensor, outs: &[Tensor], dx: &Tensor, full: bool, compute_uv: bool) -> Tangents {
    let rank = x.ndim();
    let (m, n) = (x.shape()[rank - 2], x.shape()[rank - 1]);
    if compute_uv && full && m != n {
        panic!(
            "svd: the derivative of the full-matrices decomposition of a non-square matrix \
             is not implemented (as in JAX); use full_matrices=false, got {}",
            x.aval()
        );
    }
    // The results themselves when they hold the thin vectors (so the tangents follow
    // their signs), else the thin decomposition.
    let mut parts = if compute_uv {
        outs.to_vec()
    } else {
        let thin = LinalgOp::Svd {
            full_matrices: false,
            compute_uv: true,
        };
        lax::linalg_prim(thin, std::slice::from_ref(x))
    };
    let vt = parts.pop().expect("three results");
    let u = parts.pop().expect("three results");
    let s = parts.pop().expect("three results");
    let v = mt(&vt);
    let ut = mt(&u);
    let ds_mat = mm(&mm(&ut, dx), &v);
    let ds = diagonal(&ds_mat);
    if !compute_uv {
        return vec![Some(ds)];
    }
    let k = s.shape()[rank - 2];
    let sq = ds_mat.shape().to_vec();
    let s_row = explicit_broadcast(&expand(&s, rank - 2), &sq);
    let s_col = mt(&s_row);
    let e = eye(k, &x.shape()[..rank - 2], x);
    let diffs = lax::mul(&lax::add(&s_row, &s_col), &lax::sub(&s_row, &s_col));
    let f = lax::sub(&lax::div(&c(1.0, x), &lax::add(&diffs, &e)), &e);
    let dss = lax::mul(&s_row, &ds_mat);
    let sds = lax::mul(&s_col, &ds_mat);
    let mut du = mm(&u, &lax::mul(&f, &lax::add(&dss, &mt(&dss))));
    let mut dv = mm(&v, &lax::mul(&f, &lax::add(&sds, &mt(&sds))));
    if m > n {
        let dav = mm(dx, &v);
        let rest = lax::sub(&dav, &mm(&u, &mm(&ut, &dav)));
        du = lax::add(
            &du,
            &lax::div(
                &rest,
                &explicit_broadcast(&expand(&s, rank - 2), rest.shape()),
            ),
        );
    }
    if n > m {
        let dahu = mm(&mt(dx), &u);
        let rest = lax::sub(&dahu, &mm(&v, &mm(&vt, &dahu)));
        dv = lax::add(
            &dv,
            &lax::div(
                &rest,
                &explicit_broadcast(&expand(&s, rank - 2), rest.shape()),
            ),
        );
    }
    vec![Some(ds), Some(du), Some(mt(&dv))]
}

/// Input cotangents of `op` from output cotangents: the JVP's linear map transposed.
pub(crate) fn vjp(
    op: LinalgOp,
    ins: &[Tensor],
    outs: &[Tensor],
    cts: &[Option<Tensor>],
    active: &[bool],
) -> Cotangents {
    if let LinalgOp::TriangularSolve {
        left_side,
        lower,
        transpose_a,
        conjugate_a,
        unit_diagonal,
    } = op
    {
        if !active[0] {
            // Linear in `b`: the transpose solves with `op(a)` transposed.
            let flipped = LinalgOp::TriangularSolve {
                left_side,
                lower,
                transpose_a: !transpose_a,
                conjugate_a,
                unit_diagonal,
            };
            let cb = cts[0]
                .as_ref()
                .map(|ct| lax::linalg_prim(flipped, &[ins[0].clone(), ct.clone()]).remove(0));
            return vec![None, cb];
        }
    }
    // The float results and their cotangents (zero where none came).
    let floats: Vec<usize> = (0..outs.len())
        .filter(|&k| outs[k].dtype().is_float())
        .collect();
    let live: Vec<usize> = (0..ins.len()).filter(|&i| active[i]).collect();
    let linear = |ts: Vec<Tensor>| -> Vec<Tensor> {
        let mut full: Vec<Option<Tensor>> = vec![None; ins.len()];
        for (&i, t) in live.iter().zip(ts) {
            full[i] = Some(t);
        }
        let touts = tangents(op, ins, outs, &full);
        floats
            .iter()
            .map(|&k| touts[k].clone().unwrap_or_else(|| zeros_of_aval(&outs[k])))
            .collect()
    };
    let zeros: Vec<Tensor> = live.iter().map(|&i| zeros_of_aval(&ins[i])).collect();
    let (cj, _) = trace(linear, &zeros);
    let cts: Vec<Option<Tensor>> = floats.iter().map(|&k| cts[k].clone()).collect();
    let pulled = super::ad::vjp_jaxpr(&cj, &zeros, &vec![true; live.len()], &cts);
    let mut out: Cotangents = vec![None; ins.len()];
    for (&i, ct) in live.iter().zip(pulled) {
        out[i] = ct;
    }
    out
}
