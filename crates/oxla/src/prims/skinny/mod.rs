//! `f32` matrix products with one small dimension: a contraction of at most [`SMALL`]
//! terms, at most [`SMALL`] columns, or few rows (`few_rows`).
//!
//! `gemm` packs its operands into panels and runs a 64 x 6 register tile, which pays off
//! when every dimension is large. When one is small — the gradients of a network's last
//! layer: `dl @ w2.T` with 10 terms, `h.T @ dl` with 10 columns — the packing and the
//! tile's idle lanes cost more than the arithmetic. The kernels here stream the large
//! operand once with the small one in registers or L1, on 16-lane arrays that the
//! compiler maps onto vector registers.
//!
//! A result of few columns comes two ways, by the left operand's layout: with contiguous
//! columns (`h.T @ dl`), 32 rows of a column are one pair of vectors; with contiguous rows
//! (`h @ w2`), each element of a row scales a vector of the right operand's coefficients.

use std::mem::MaybeUninit;

use rayon::prelude::*;

use super::isa::multiversion;

mod few_rows;
mod windows;

pub(super) use windows::rows_at_offsets;

/// The largest small dimension these kernels take.
pub(super) const SMALL: usize = 16;

/// Lanes of one vector.
const L: usize = 16;

pub(super) type V = [f32; L];

/// Rows of the result one parallel task computes.
const ROWS_PER_TASK: usize = 64;

/// A strided matrix view: element `(i, j)` is `data[off + i * s[0] + j * s[1]]`.
#[derive(Clone, Copy)]
pub(super) struct View<'a> {
    /// The buffer.
    pub data: &'a [f32],
    /// The offset of element `(0, 0)`.
    pub off: isize,
    /// The step from one row, and from one column, to the next.
    pub s: [isize; 2],
}

impl View<'_> {
    #[inline(always)]
    fn at(&self, i: usize, j: usize) -> f32 {
        self.data[(self.off + i as isize * self.s[0] + j as isize * self.s[1]) as usize]
    }
}

#[inline(always)]
fn load(s: &[f32]) -> V {
    s[..L].try_into().expect("16 lanes")
}

#[inline(always)]
fn fma_scalar(a: V, b: f32, c: &mut V) {
    for l in 0..L {
        c[l] = a[l].mul_add(b, c[l]);
    }
}

/// Computes `out (m x n, row-major) = a (m x k) @ b (k x n)` when one of the kernels here
/// fits the shapes and layouts; returns false, writing nothing, otherwise.
pub(super) fn product(
    a: View,
    b: View,
    [m, k, n]: [usize; 3],
    out: &mut [MaybeUninit<f32>],
) -> bool {
    debug_assert_eq!(out.len(), m * n);
    if m == 0 || k == 0 || n == 0 {
        return false;
    }
    if n <= SMALL && a.s[0] == 1 && m >= 2 * L {
        with_columns(n, a, b, k, out);
        true
    } else if (2..=SMALL).contains(&n) && a.s[1] == 1 && m >= ROW_GROUP {
        // (A single column is a matrix-vector product, which gemm vectorises along k.)
        few_columns_by_rows(a, b, [m, k, n], out);
        true
    } else if k <= SMALL && n >= L {
        few_terms(a, b, [m, k, n], out);
        true
    } else if b.s[1] == 1 && few_rows::takes([m, k, n]) {
        few_rows::product(a, b, [m, k, n], out);
        true
    } else {
        false
    }
}

/// Calls [`few_columns`] for `n` (1 to [`SMALL`]) columns.
fn with_columns(n: usize, a: View, b: View, k: usize, out: &mut [MaybeUninit<f32>]) {
    macro_rules! dispatch {
        ($($n:literal)*) => {
            match n {
                $($n => few_columns::<$n>(a, b, k, out),)*
                _ => unreachable!("{n} columns is not few"),
            }
        };
    }
    dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
}

/// A product of `N` columns whose left operand has contiguous columns: 32 rows at a time,
/// accumulated in registers over the contraction.
fn few_columns<const N: usize>(a: View, b: View, k: usize, out: &mut [MaybeUninit<f32>]) {
    // b row-major: the N coefficients of step t side by side.
    let coefs: Vec<[f32; N]> = (0..k)
        .map(|t| std::array::from_fn(|c| b.at(t, c)))
        .collect();
    const ROWS: usize = 2 * L;
    out.par_chunks_mut(ROWS * N)
        .enumerate()
        .for_each(|(task, block)| {
            let p0 = task * ROWS;
            if block.len() < ROWS * N {
                for (r, row_out) in block.chunks_exact_mut(N).enumerate() {
                    for (c, o) in row_out.iter_mut().enumerate() {
                        let s = coefs
                            .iter()
                            .enumerate()
                            .fold(0.0, |s, (t, w)| a.at(p0 + r, t).mul_add(w[c], s));
                        o.write(s);
                    }
                }
                return;
            }
            let acc = accumulate_rows(a, p0, &coefs);
            for (r, row_out) in block.chunks_exact_mut(N).enumerate() {
                for (o, acc) in row_out.iter_mut().zip(&acc) {
                    o.write(acc[r / L][r % L]);
                }
            }
        });
}

multiversion! {
    /// Rows `p0..p0 + 32` of `a @ b`, `b`'s rows given as `coefs`, as 2 vectors of 16 rows for
    /// each of the `N` columns; the accumulators stay in registers.
    #[inline(never)]
    fn accumulate_rows[const N: usize](a: View, p0: usize, coefs: &[[f32; N]]) -> [[V; 2]; N] {
        let mut acc = [[[0f32; L]; 2]; N];
        for (t, coef) in coefs.iter().enumerate() {
            let base = (a.off + p0 as isize + t as isize * a.s[1]) as usize;
            let x = &a.data[base..base + 2 * L];
            let (x0, x1) = (load(x), load(&x[L..]));
            for (acc, &w) in acc.iter_mut().zip(coef) {
                fma_scalar(x0, w, &mut acc[0]);
                fma_scalar(x1, w, &mut acc[1]);
            }
        }
        acc
    }
}

/// Rows of the result that [`few_columns_by_rows`] accumulates together.
const ROW_GROUP: usize = 8;

/// A product of at most [`SMALL`] columns whose left operand has contiguous rows: each
/// element of a row of `a` scales `b`'s row of coefficients (padded to 16 lanes) into
/// that row's accumulator, eight rows at a time so that their sums run side by side.
fn few_columns_by_rows(a: View, b: View, [_, k, n]: [usize; 3], out: &mut [MaybeUninit<f32>]) {
    let coefs = padded_rows(b, k, n);
    out.par_chunks_mut(ROWS_PER_TASK * n)
        .enumerate()
        .for_each(|(task, rows)| {
            let p0 = task * ROWS_PER_TASK;
            rows_by_few_columns(a, &coefs, p0..p0 + rows.len() / n, |p, acc| {
                for (o, &v) in rows[(p - p0) * n..(p - p0 + 1) * n].iter_mut().zip(acc) {
                    o.write(v);
                }
            });
        });
}

/// The rows of `b` (`k x n`, `n` at most [`SMALL`]), each padded to 16 lanes with zeros:
/// the coefficients of [`rows_by_few_columns`].
fn padded_rows(b: View, k: usize, n: usize) -> Vec<V> {
    debug_assert!(n <= SMALL);
    (0..k)
        .map(|t| std::array::from_fn(|c| if c < n { b.at(t, c) } else { 0.0 }))
        .collect()
}

/// Rows `rows` of `a @ b`, on the calling thread, for a left operand with contiguous rows
/// and `b` given as its [`padded_rows`]: `store(p, row)` receives row `p` in the first
/// lanes of `row` (each sum started from +0, so never -0).
pub(super) fn rows_by_few_columns(
    a: View,
    coefs: &[V],
    rows: std::ops::Range<usize>,
    mut store: impl FnMut(usize, &V),
) {
    debug_assert!(a.s[1] == 1 || coefs.len() <= 1);
    for p in rows.clone().step_by(ROW_GROUP) {
        let count = ROW_GROUP.min(rows.end - p);
        for (r, acc) in accumulate_group(a, p, count, coefs)[..count]
            .iter()
            .enumerate()
        {
            store(p + r, acc);
        }
    }
}

multiversion! {
    /// Rows `p..p + count` (`count` at most 8) of `a @ b` in the first `count` of 8
    /// accumulators, `b`'s rows given as padded `coefs`; `a`'s rows contiguous. The other
    /// accumulators repeat row `p`, so that every group runs the same eight sums.
    #[inline(never)]
    fn accumulate_group(a: View, p: usize, count: usize, coefs: &[V]) -> [V; ROW_GROUP] {
        let k = coefs.len();
        let rows: [&[f32]; ROW_GROUP] = std::array::from_fn(|r| {
            let r = if r < count { r } else { 0 };
            let base = (a.off + (p + r) as isize * a.s[0]) as usize;
            &a.data[base..base + k]
        });
        let mut acc = [[0f32; L]; ROW_GROUP];
        for (t, w) in coefs.iter().enumerate() {
            for (acc, row) in acc.iter_mut().zip(&rows) {
                fma_scalar(*w, row[t], acc);
            }
        }
        acc
    }
}

/// A product of at most [`SMALL`] terms: each result row is a combination of the `k` rows
/// of `b`, 64 columns at a time.
fn few_terms(a: View, b: View, [_, k, n]: [usize; 3], out: &mut [MaybeUninit<f32>]) {
    // b's rows in vectors, the vectors of 64 columns side by side for each step of k.
    let wide = n / (WIDE * L);
    let blocks: Vec<[V; WIDE]> = (0..wide)
        .flat_map(|qb| (0..k).map(move |t| (qb, t)))
        .map(|(qb, t)| {
            std::array::from_fn(|j| std::array::from_fn(|l| b.at(t, (qb * WIDE + j) * L + l)))
        })
        .collect();
    out.par_chunks_mut(ROWS_PER_TASK * n)
        .enumerate()
        .for_each(|(task, rows)| few_terms_rows(a, b, [k, n], &blocks, task * ROWS_PER_TASK, rows));
}

/// Vectors of 64 columns of [`few_terms`]'s `b`, for each step of the contraction.
const WIDE: usize = 4;

multiversion! {
    /// Rows from `p0` of [`few_terms`]'s result into `rows`, `b`'s rows given as `blocks`
    /// of 64 columns (then its last columns one at a time).
    fn few_terms_rows(
        a: View,
        b: View,
        kn: [usize; 2],
        blocks: &[[V; WIDE]],
        p0: usize,
        rows: &mut [MaybeUninit<f32>],
    ) {
        let [k, n] = kn;
        for (r, row_out) in rows.chunks_exact_mut(n).enumerate() {
            let p = p0 + r;
            let mut coef = [0f32; SMALL];
            for (t, c) in coef[..k].iter_mut().enumerate() {
                *c = a.at(p, t);
            }
            let coef = &coef[..k];
            for (qb, o) in row_out.chunks_exact_mut(WIDE * L).enumerate() {
                let mut acc = [[0f32; L]; WIDE];
                for (&w, block) in coef.iter().zip(&blocks[qb * k..(qb + 1) * k]) {
                    for (acc, x) in acc.iter_mut().zip(block) {
                        fma_scalar(*x, w, acc);
                    }
                }
                for (o, &v) in o.iter_mut().zip(acc.as_flattened()) {
                    o.write(v);
                }
            }
            let wide = n / (WIDE * L);
            for (q, o) in row_out.iter_mut().enumerate().skip(wide * WIDE * L) {
                let s = coef
                    .iter()
                    .enumerate()
                    .fold(0.0, |s, (t, &w)| w.mul_add(b.at(t, q), s));
                o.write(s);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{product, rows_at_offsets, View, V};
    use std::mem::MaybeUninit;

    /// Values that make every product exact in f32 (small integers).
    fn data(len: usize, seed: usize) -> Vec<f32> {
        (0..len)
            .map(|i| ((i * 7 + seed * 13) % 9) as f32 - 4.0)
            .collect()
    }

    /// `a @ b` by loops, for a view of each.
    fn reference(a: View, b: View, [m, k, n]: [usize; 3]) -> Vec<f32> {
        let mut out = vec![0.0; m * n];
        for p in 0..m {
            for q in 0..n {
                out[p * n + q] = (0..k).map(|t| a.at(p, t) * b.at(t, q)).sum();
            }
        }
        out
    }

    /// Runs `product` on `a` (m x k) and `b` (k x n) laid out row- or column-major with
    /// an offset, and checks it against the loops; returns whether a kernel took it.
    fn check([m, k, n]: [usize; 3], a_cols_contiguous: bool, b_transposed: bool) -> bool {
        let off = 3;
        let (ad, bd) = (data(off + m * k, 1), data(off + k * n, 2));
        // A rows x cols matrix at offset 3, its columns or its rows contiguous.
        let view = |data, rows: usize, cols: usize, by_columns: bool| View {
            data,
            off: off as isize,
            s: if by_columns {
                [1, rows as isize]
            } else {
                [cols as isize, 1]
            },
        };
        let a = view(&ad, m, k, a_cols_contiguous);
        let b = view(&bd, k, n, b_transposed);
        let mut out = vec![MaybeUninit::new(f32::NAN); m * n];
        let took = product(a, b, [m, k, n], &mut out);
        if took {
            // SAFETY: every element was initialised (to NaN, then by the kernel).
            let got: Vec<f32> = out.iter().map(|x| unsafe { x.assume_init() }).collect();
            assert_eq!(got, reference(a, b, [m, k, n]), "{m}x{k}x{n}");
        }
        took
    }

    #[test]
    fn few_columns_and_few_terms_equal_the_loops() {
        for layout in [(true, false), (true, true), (false, false), (false, true)] {
            // Few columns, with a remainder of rows below 32.
            for [m, k, n] in [[32, 5, 1], [70, 33, 10], [256, 300, 16], [97, 1, 3]] {
                let took = check([m, k, n], layout.0, layout.1);
                assert!(
                    took || !layout.0,
                    "few columns when a's columns are contiguous"
                );
            }
            // Few terms, with widths that leave 16-lane and single-lane remainders.
            for [m, k, n] in [
                [5, 10, 256],
                [130, 1, 16],
                [3, 16, 64 + 16 + 5],
                [70, 7, 200],
            ] {
                assert!(check([m, k, n], layout.0, layout.1) || n <= 16);
            }
        }
        // Neither dimension small: left to gemm.
        assert!(!check([80, 80, 80], true, false));
    }

    #[test]
    fn few_rows_equal_the_loops() {
        for (a_cols, b_transposed) in [(true, false), (true, true), (false, false), (false, true)] {
            // Tiles of 4 rows and 64 columns, with row, 16-column and single-column rests.
            for [m, k, n] in [
                [16, 128, 128],
                [5, 40, 64 + 16 + 3],
                [1, 33, 70],
                [13, 200, 17],
                [32, 64, 64],
                [64, 32, 64 + 5],
                [43, 20, 40],
            ] {
                let took = check([m, k, n], a_cols, b_transposed);
                let expected = !b_transposed;
                assert_eq!(took, expected, "{m}x{k}x{n}, {a_cols} {b_transposed}");
            }
        }
    }

    #[test]
    fn rows_at_offsets_equal_the_loops() {
        let data = data(500, 3);
        let coefs: Vec<V> = (0..11)
            .map(|t| std::array::from_fn(|l| ((t * 5 + l * 3) % 7) as f32 - 3.0))
            .collect();
        let offsets: Vec<usize> = (0..11).map(|t| (t * 13) % 40).collect();
        // Full groups of 8 rows, and every tail from 1 to 7.
        for rows in [8, 16, 1, 3, 7, 13, 23] {
            let bases: Vec<usize> = (0..rows).map(|r| (r * 29) % 450).collect();
            let mut seen = vec![false; rows];
            rows_at_offsets(&data, &bases, &offsets, &coefs, |r, got| {
                seen[r] = true;
                for (l, &x) in got.iter().enumerate() {
                    let want: f32 = (0..11)
                        .map(|t| data[bases[r] + offsets[t]] * coefs[t][l])
                        .sum();
                    assert_eq!(x, want, "row {r} lane {l} of {rows}");
                }
            });
            assert!(seen.iter().all(|&s| s), "{rows} rows");
        }
    }
}
