//! The product of a patch matrix with its kernel rows, per element type: `gemm`, or for
//! `f32` results of few features the few-columns kernel of `skinny`, which keeps eight
//! rows' sums in registers where `gemm` would pack both operands for a register tile that
//! few features leave mostly idle.

use crate::array::Elem;
use crate::prims::linalg::gemm_call;
use crate::prims::skinny::{rows_at_offsets, rows_by_few_columns, View, SMALL, V};

/// One group's kernel rows of a class, for a product: `k` rows of `n` features.
pub(super) struct KernelRows<T> {
    /// Row-major, for `gemm`.
    dense: Vec<T>,
    /// Each row padded to 16 lanes, for the few-columns kernel.
    padded: Vec<V>,
}

impl<T> Default for KernelRows<T> {
    fn default() -> Self {
        KernelRows {
            dense: Vec::new(),
            padded: Vec::new(),
        }
    }
}

/// The element types a convolution computes in.
pub(super) trait ConvElem: Elem + std::ops::Add<Output = Self> {
    /// Gathers into `w` the rows `rows` (indices into `kernel`, a row-major matrix of
    /// `c_out` columns) at columns `col0..col0 + n`, laid out for
    /// [`product`](Self::product) with the same `n` and `threads`.
    fn kernel_rows(
        kernel: &[Self],
        rows: &[usize],
        [c_out, col0, n]: [usize; 3],
        _threads: gemm::Parallelism,
        w: &mut KernelRows<Self>,
    ) {
        gather_dense(kernel, rows, [c_out, col0, n], &mut w.dense);
    }

    /// Computes `patches (rows x k) @ w (k x n)` (`shape` is `[rows, k, n]`, `patches`
    /// row-major), on the calling thread unless `threads` says otherwise, and gives each
    /// result row to `store` (row index, its `n` elements). `scratch` holds the result
    /// where the kernel makes it whole.
    fn product(
        patches: &[Self],
        w: &KernelRows<Self>,
        shape: [usize; 3],
        threads: gemm::Parallelism,
        scratch: &mut Vec<Self>,
        store: impl FnMut(usize, &[Self]),
    ) {
        by_gemm(patches, &w.dense, shape, threads, scratch, store);
    }

    /// Whether products of `n` features read windows in place (see
    /// [`windows_product`](Self::windows_product)) for this element type.
    fn windows(_n: usize, _threads: gemm::Parallelism) -> bool {
        false
    }

    /// Computes the rows of a product whose left operand is read in place: element
    /// `(r, t)` is `data[bases[r] + offsets[t]]`, and gives each (row index, its `n`
    /// elements) to `store`. Called only where [`windows`](Self::windows) holds for `n`.
    fn windows_product(
        _data: &[Self],
        _bases: &[usize],
        _offsets: &[usize],
        _w: &KernelRows<Self>,
        _n: usize,
        _store: impl FnMut(usize, &[Self]),
    ) {
        unreachable!("windows products run only where ConvElem::windows holds");
    }
}

/// The rows `rows` of `kernel` (`c_out` columns), columns `col0..col0 + n`, row-major.
fn gather_dense<T: Copy>(
    kernel: &[T],
    rows: &[usize],
    [c_out, col0, n]: [usize; 3],
    w: &mut Vec<T>,
) {
    w.clear();
    for &r in rows {
        let at = r * c_out + col0;
        w.extend(kernel[at..at + n].iter().copied());
    }
}

/// The product on `gemm`, into `scratch`, then row by row to `store`.
fn by_gemm<T: Elem>(
    patches: &[T],
    w: &[T],
    [rows, k, n]: [usize; 3],
    threads: gemm::Parallelism,
    scratch: &mut Vec<T>,
    mut store: impl FnMut(usize, &[T]),
) {
    scratch.resize(rows * n, T::from_f64(0.0));
    // SAFETY: `patches` is rows x k and `w` k x n, both row-major, and `scratch` holds
    // rows x n elements; T is f32 or f64 (the convolution's element types).
    unsafe {
        gemm_call(
            [rows, n, k],
            (scratch.as_mut_ptr(), n),
            (patches.as_ptr(), [k as isize, 1]),
            (w.as_ptr(), [1, n as isize]),
            threads,
        );
    }
    for (r, row) in scratch.chunks_exact(n).enumerate() {
        store(r, row);
    }
}

impl ConvElem for f64 {}

/// Whether an `f32` product of `n` features goes to the few-columns kernel.
fn few_columns(n: usize, threads: gemm::Parallelism) -> bool {
    (2..=SMALL).contains(&n) && matches!(threads, gemm::Parallelism::None)
}

impl ConvElem for f32 {
    fn kernel_rows(
        kernel: &[f32],
        rows: &[usize],
        [c_out, col0, n]: [usize; 3],
        threads: gemm::Parallelism,
        w: &mut KernelRows<f32>,
    ) {
        if !few_columns(n, threads) {
            return gather_dense(kernel, rows, [c_out, col0, n], &mut w.dense);
        }
        w.padded.clear();
        w.padded.extend(rows.iter().map(|&r| {
            let at = r * c_out + col0;
            // Sixteen lanes at once where the kernel has them (one vector move), then the
            // lanes past `n` cleared.
            let mut v: V = match kernel.get(at..at + 16) {
                Some(lanes) => lanes.try_into().expect("16 lanes"),
                None => std::array::from_fn(|l| if l < n { kernel[at + l] } else { 0.0 }),
            };
            for (l, x) in v.iter_mut().enumerate() {
                if l >= n {
                    *x = 0.0;
                }
            }
            v
        }));
    }

    fn product(
        patches: &[f32],
        w: &KernelRows<f32>,
        [rows, k, n]: [usize; 3],
        threads: gemm::Parallelism,
        scratch: &mut Vec<f32>,
        mut store: impl FnMut(usize, &[f32]),
    ) {
        if !few_columns(n, threads) {
            return by_gemm(patches, &w.dense, [rows, k, n], threads, scratch, store);
        }
        let a = View {
            data: patches,
            off: 0,
            s: [k as isize, 1],
        };
        rows_by_few_columns(a, &w.padded, 0..rows, |r, acc| store(r, &acc[..n]));
    }

    fn windows(n: usize, threads: gemm::Parallelism) -> bool {
        few_columns(n, threads)
    }

    fn windows_product(
        data: &[f32],
        bases: &[usize],
        offsets: &[usize],
        w: &KernelRows<f32>,
        n: usize,
        mut store: impl FnMut(usize, &[f32]),
    ) {
        rows_at_offsets(data, bases, offsets, &w.padded, |r, acc| {
            store(r, &acc[..n])
        });
    }
}
