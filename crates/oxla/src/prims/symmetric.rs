//! Symmetric products: `x @ x.T` (and `x.T @ x`, and any product whose operands are one
//! view of one buffer) is symmetric, so only its lower triangle is multiplied — in strips
//! of rows on `gemm`, each strip up to and including its diagonal block — and the upper
//! triangle is the lower one mirrored. The strips run on the threads, one `gemm` call on
//! one thread each. That is a little over half the multiplications of
//! the full product (BLAS's `syrk`), and the same values: element `(p, q)` sums the same
//! products in the same order as element `(q, p)`.

use crate::array::Elem;
use rayon::prelude::*;

/// The fewest rows a symmetric product is split for: below it, the full product.
const SPLIT_FROM: usize = 1024;

/// Strips of rows the lower triangle is computed in, about: with `s` strips the product
/// multiplies `(s + 1) / 2s` of the full product's terms.
const STRIPS: usize = 16;

/// The fewest rows of a strip: `gemm` on fewer is slower than the terms saved.
const MIN_ROWS: usize = 128;

/// Rows and columns of the tiles the mirror copies, square, to read and write whole cache
/// lines.
const TILE: usize = 64;

/// `out = l @ l^T` (`m x m`, row-major) for `l` of `m` rows and `k` columns, element
/// `(p, t)` at `l[p * s[0] + t * s[1]]`, if the product is large enough to be worth
/// splitting; returns false, writing nothing, otherwise.
///
/// # Safety
/// Those elements must be readable for `p < m`, `t < k`, and `out` must be `m * m`
/// elements writable; `T` must be a type `gemm` multiplies.
pub(super) unsafe fn lower_then_mirror<T: Elem>(
    l: *const T,
    s: [isize; 2],
    [m, k]: [usize; 2],
    out: &mut [T],
) -> bool {
    if m < SPLIT_FROM || k < 16 {
        return false;
    }
    debug_assert_eq!(out.len(), m * m);
    let rows = m.div_ceil(STRIPS).next_multiple_of(TILE).max(MIN_ROWS);
    let (dst, l) = (Shared(out.as_mut_ptr()), Shared(l.cast_mut()));
    // The strips on the threads, each one `gemm` call on one thread, the widest first.
    let starts: Vec<usize> = (0..m).step_by(rows).rev().collect();
    starts.par_iter().for_each(|&r0| {
        let h = rows.min(m - r0);
        // Columns 0..r0 + h: the strip's part of the lower triangle and its diagonal block.
        let w = r0 + h;
        // SAFETY: rows r0..r0 + h of `l` are rows of the operand (our caller's bounds);
        // columns 0..w of the result's rows r0..r0 + h lie in `out` (m x m, w <= m), and
        // no other strip writes them.
        unsafe {
            super::linalg::gemm_call(
                [h, w, k],
                (dst.get().add(r0 * m), m),
                (l.get().offset(r0 as isize * s[0]).cast_const(), s),
                (l.get().cast_const(), s),
                gemm::Parallelism::None,
            )
        }
    });
    mirror(out, m, rows);
    true
}

/// An address shared by the tasks of a product: the operand they read, or the result
/// they write in disjoint parts.
#[derive(Clone, Copy)]
struct Shared<T>(*mut T);
// SAFETY: the tasks that share one only read through it, or write disjoint elements
// (each use says which).
unsafe impl<T> Send for Shared<T> {}
// SAFETY: as for `Send`.
unsafe impl<T> Sync for Shared<T> {}

impl<T> Shared<T> {
    /// The address (a method, so that a closure captures the whole `Shared`).
    fn get(self) -> *mut T {
        self.0
    }
}

/// Copies the lower triangle of the `m x m` row-major `out` onto the upper one, where the
/// strips of `rows` rows left it unwritten (right of each strip's diagonal block).
fn mirror<T: Elem>(out: &mut [T], m: usize, rows: usize) {
    let at = Shared(out.as_mut_ptr());
    // Every tile of the upper part: rows p0.., columns q0.. right of the strip's end.
    let tiles: Vec<(usize, usize)> = (0..m)
        .step_by(TILE)
        .flat_map(|p0| {
            let end = (p0 / rows + 1) * rows;
            (end..m).step_by(TILE).map(move |q0| (p0, q0))
        })
        .collect();
    tiles.par_iter().for_each(|&(p0, q0)| {
        for p in p0..(p0 + TILE).min(m) {
            for q in q0..(q0 + TILE).min(m) {
                // SAFETY: p, q < m, so both elements lie in `out`; (p, q) with q past its
                // strip's end is written by this tile alone, and (q, p) (q > p's strip, so
                // q > p, a lower-triangle element of a strip computed whole) by no task.
                unsafe { *at.get().add(p * m + q) = *at.get().add(q * m + p) }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use crate::array::Array;
    use crate::prims::linalg::dot_general;

    /// Pseudo-random values of `shape`, the same for the same seed.
    fn values(seed: u32, shape: &[usize]) -> Array {
        let n: usize = shape.iter().product();
        let v = (0..n as u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) ^ seed) as f32 / u32::MAX as f32 - 0.5)
            .collect();
        Array::from_vec::<f32>(v, shape)
    }

    /// `dot_general(a, b)` of `x` with itself and with a copy of it in another buffer.
    fn with_itself_and_a_copy(x: &Array, contract: usize, batch: &[usize]) -> [Vec<u32>; 2] {
        let copy = Array::from_vec::<f32>(x.as_slice::<f32>().to_vec(), x.shape());
        let dims = (vec![contract], vec![contract]);
        let b = (batch.to_vec(), batch.to_vec());
        let bits = |a: Array| a.as_slice::<f32>().iter().map(|v| v.to_bits()).collect();
        [
            bits(dot_general(x, x, &dims, &b, None)),
            bits(dot_general(x, &copy, &dims, &b, None)),
        ]
    }

    #[test]
    fn a_product_with_itself_is_the_full_product_bit_for_bit() {
        // x @ x.T over rows, x.T @ x over columns (the operand read by strides), and a
        // batch of them; 1100 rows: past the split, the last strip shorter.
        let [mine, full] = with_itself_and_a_copy(&values(1, &[1100, 37]), 1, &[]);
        assert!(mine == full, "x @ x.T");
        let [mine, full] = with_itself_and_a_copy(&values(2, &[29, 1030]), 0, &[]);
        assert!(mine == full, "x.T @ x");
        let [mine, full] = with_itself_and_a_copy(&values(3, &[2, 1024, 16]), 2, &[0]);
        assert!(mine == full, "batched");
    }
}
