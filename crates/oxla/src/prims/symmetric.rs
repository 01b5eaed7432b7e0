//! Symmetric products: `x @ x.T` (and `x.T @ x`, and any product whose operands are one
//! view of one buffer) is symmetric, so only its lower triangle is multiplied — in strips
//! of rows on `gemm`, each strip up to and including its diagonal block — and the upper
//! triangle is the lower one mirrored. The strips run on the threads, one `gemm` call on
//! one thread each. That is a little over half the multiplications of the full product
//! (BLAS's `syrk`), and for real types the same values: element `(p, q)` sums the same
//! products in the same order as element `(q, p)`.

use crate::array::{DType, Elem};
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

/// Batch `i` of a product into `out`, when it is symmetric and large enough to be worth
/// splitting: a real product (`f32` or `f64`; a complex one sums the parts of a product in
/// an order that depends on which operand is which) whose operands are one view of one
/// buffer, `ls` at offset `lo` and `rs` at `ro`, with strides `lsd` and `rsd` (`float_product`'s
/// operands). Returns false, writing nothing, otherwise.
///
/// # Safety
/// Element `(p, t)` of the left operand must be readable at `ls[lo + p*lsd[1] + t*lsd[2]]`
/// for `p < m`, `t < k`, and `out` must be `m * n` writable elements; the elements of
/// `out` need not be initialised.
pub(super) unsafe fn product<T: Elem>(
    (ls, lo, lsd): (&[T], isize, [isize; 3]),
    (rs, ro, rsd): (&[T], isize, [isize; 3]),
    [m, k, n]: [usize; 3],
    out: *mut T,
) -> bool {
    let same = m == n
        && matches!(T::DTYPE, DType::F32 | DType::F64)
        && std::ptr::eq(
            ls.as_ptr().wrapping_offset(lo),
            rs.as_ptr().wrapping_offset(ro),
        )
        && lsd[1..] == rsd[1..];
    if !same || m < SPLIT_FROM || k < 16 {
        return false;
    }
    let strips = strips(m);
    let (dst, l) = (
        Shared(out),
        Shared(ls.as_ptr().wrapping_offset(lo).cast_mut()),
    );
    let s = [lsd[1], lsd[2]];
    // The strips on the threads, each one `gemm` call on one thread.
    strips.par_iter().for_each(|&(r0, h)| {
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
    mirror(dst, m, &strips);
    true
}

/// The strips of `m` rows, `(first row, rows)`: about [`STRIPS`], at least [`MIN_ROWS`]
/// rows each, whole tiles but the last. A short last strip joins the one before it: `gemm`
/// multiplies a strip of one row another way (as a matrix-vector product, summing in
/// another order).
fn strips(m: usize) -> Vec<(usize, usize)> {
    let rows = m.div_ceil(STRIPS).next_multiple_of(TILE).max(MIN_ROWS);
    let mut strips: Vec<(usize, usize)> = (0..m)
        .step_by(rows)
        .map(|r0| (r0, rows.min(m - r0)))
        .collect();
    if let [.., (_, before), (_, last)] = strips[..] {
        if last < TILE {
            strips.pop();
            let joined = strips.last_mut().expect("two strips");
            joined.1 = before + last;
        }
    }
    strips
}

/// An address shared by the tasks of a product: the operand they read, or the result
/// they write in disjoint parts.
#[derive(Clone, Copy)]
pub(super) struct Shared<T>(pub(super) *mut T);
// SAFETY: the tasks that share one only read through it, or write disjoint elements
// (each use says which).
unsafe impl<T> Send for Shared<T> {}
// SAFETY: as for `Send`.
unsafe impl<T> Sync for Shared<T> {}

impl<T> Shared<T> {
    /// The address (a method, so that a closure captures the whole `Shared`).
    pub(super) fn get(self) -> *mut T {
        self.0
    }
}

/// Copies the lower triangle of the `m x m` row-major result at `out` onto the upper one,
/// right of each strip's diagonal block, where the strips left it unwritten.
fn mirror<T: Elem>(out: Shared<T>, m: usize, strips: &[(usize, usize)]) {
    // Every tile of the upper part: rows p0.. of a strip, columns q0.. right of its end.
    let tiles: Vec<(usize, usize, usize)> = strips
        .iter()
        .flat_map(|&(r0, h)| {
            let end = r0 + h;
            (r0..end)
                .step_by(TILE)
                .flat_map(move |p0| (end..m).step_by(TILE).map(move |q0| (p0, q0, end)))
        })
        .collect();
    tiles.par_iter().for_each(|&(p0, q0, end)| {
        for p in p0..(p0 + TILE).min(end) {
            for q in q0..(q0 + TILE).min(m) {
                // SAFETY: p, q < m, so both elements lie in the result; (p, q), right of
                // p's strip, is written by this tile alone, and (q, p) (q in a later
                // strip, p left of its end: computed by that strip) by no task.
                unsafe { *out.get().add(p * m + q) = *out.get().add(q * m + p) }
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
    fn strips_are_whole_tiles_and_a_short_last_one_joins_the_one_before() {
        assert_eq!(super::strips(1100)[..2], [(0, 128), (128, 128)]);
        assert_eq!(super::strips(1100).last(), Some(&(1024, 76)));
        assert_eq!(super::strips(1025).last(), Some(&(896, 129)));
        assert_eq!(super::strips(10000).len(), 16);
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
        // 1025 rows: a last strip of one row, joined to the one before; past gemm's
        // panel of 512 terms.
        let [mine, full] = with_itself_and_a_copy(&values(4, &[1025, 600]), 1, &[]);
        assert!(mine == full, "x @ x.T, 1025 rows");
        let [mine, full] = with_itself_and_a_copy(&values(5, &[600, 1025]), 0, &[]);
        assert!(mine == full, "x.T @ x, 1025 columns");
    }
}
