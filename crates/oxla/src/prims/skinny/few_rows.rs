//! Products of few rows whose right operand has contiguous rows: one step of a recurrent
//! network, `h @ wh` for a batch of 16, or a layer of a deep network at batch 32, `h @ w`
//! and its weight's gradient `h.T @ dz`.
//!
//! `gemm` packs the whole right operand into panels on every call (into memory it
//! allocates each time), which for a result of a few dozen rows costs a good part of the
//! product. Here it is read in place: a tile of 4 rows by 64 columns accumulates in
//! registers while `b`'s rows stream through L1. (With `b`'s columns contiguous,
//! `dz @ wh.T`, the kernels tried here were no faster than `gemm`.)

use std::mem::MaybeUninit;

use super::{fma_scalar, load, View, L, V, WIDE};
use crate::prims::isa::multiversion;
use crate::prims::linalg::PARALLEL_MACS;

/// The most multiply-adds taken here, on one thread, for at most [`SMALL`](super::SMALL)
/// rows; larger products go to `gemm`'s threads.
pub(super) const LARGEST: usize = 1 << 22;

/// The most rows taken here, for a product small enough that `gemm` would run it on one
/// thread too (fewer than [`PARALLEL_MACS`] multiply-adds).
pub(super) const MOST_ROWS: usize = 64;

/// Whether a product of `m x k` by `k x n` is taken here.
pub(super) fn takes([m, k, n]: [usize; 3]) -> bool {
    let macs = m * k * n;
    (m <= super::SMALL && macs <= LARGEST) || (m <= MOST_ROWS && macs < PARALLEL_MACS)
}

/// Rows of one register tile.
const TALL: usize = 4;

/// `out (m x n, row-major) = a (m x k) @ b (k x n)` for a small `m`, `b`'s rows contiguous:
/// tiles of 64 columns, then of 16, then column by column.
pub(super) fn product(a: View, b: View, [m, k, n]: [usize; 3], out: &mut [MaybeUninit<f32>]) {
    debug_assert_eq!(b.s[1], 1);
    let mut q = 0;
    while q + WIDE * L <= n {
        columns::<WIDE>(a, b, [m, k, n], q, out);
        q += WIDE * L;
    }
    while q + L <= n {
        columns::<1>(a, b, [m, k, n], q, out);
        q += L;
    }
    for p in 0..m {
        for c in q..n {
            let s = (0..k).fold(0.0, |s, t| a.at(p, t).mul_add(b.at(t, c), s));
            out[p * n + c].write(s);
        }
    }
}

/// Columns `q..q + 16 W` of every row: tiles of four rows, then single rows.
fn columns<const W: usize>(
    a: View,
    b: View,
    [m, k, n]: [usize; 3],
    q: usize,
    out: &mut [MaybeUninit<f32>],
) {
    let mut p = 0;
    while p < m {
        if p + TALL <= m {
            let acc: [[V; W]; TALL] = tile(a, b, p, q, k);
            store(&acc, p, q, n, out);
            p += TALL;
        } else {
            let acc: [[V; W]; 1] = tile(a, b, p, q, k);
            store(&acc, p, q, n, out);
            p += 1;
        }
    }
}

/// Writes a tile whose first element is `(p, q)` into the row-major `out` of `n` columns.
fn store<const R: usize, const W: usize>(
    acc: &[[V; W]; R],
    p: usize,
    q: usize,
    n: usize,
    out: &mut [MaybeUninit<f32>],
) {
    for (r, row) in acc.iter().enumerate() {
        let o = &mut out[(p + r) * n + q..][..W * L];
        for (o, &v) in o.iter_mut().zip(row.as_flattened()) {
            o.write(v);
        }
    }
}

multiversion! {
    /// The `R x 16W` tile of `a @ b` at `(p, q)`, accumulated in registers over the
    /// contraction; `b`'s rows contiguous.
    #[inline(never)]
    fn tile[const R: usize, const W: usize](
        a: View,
        b: View,
        p: usize,
        q: usize,
        k: usize,
    ) -> [[V; W]; R] {
        let mut acc = [[[0f32; L]; W]; R];
        for t in 0..k {
            let base = (b.off + t as isize * b.s[0]) as usize + q;
            let row = &b.data[base..base + W * L];
            let x: [V; W] = std::array::from_fn(|j| load(&row[j * L..]));
            for (r, acc) in acc.iter_mut().enumerate() {
                let w = a.at(p + r, t);
                for (acc, x) in acc.iter_mut().zip(&x) {
                    fma_scalar(*x, w, acc);
                }
            }
        }
        acc
    }
}
