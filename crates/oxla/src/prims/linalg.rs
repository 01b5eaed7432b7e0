//! `dot_general`: contraction with batch dimensions, on the `gemm` crate for floats.

use std::ops::Add;

use rayon::prelude::*;

use super::arity;
use super::view::{new_array, signed_strides, strided};
use crate::array::{with_dtype, Array, Aval, Buffer, DType, Elem};

type Dims = (Vec<usize>, Vec<usize>);

/// The dimensions of an operand of rank `rank` that a product neither contracts nor
/// batches, in order: its free dimensions, which the result keeps after the batch ones.
pub(crate) fn free_dims(rank: usize, contract: &[usize], batch: &[usize]) -> Vec<usize> {
    (0..rank)
        .filter(|d| !contract.contains(d) && !batch.contains(d))
        .collect()
}

pub(crate) fn dot_general_rule(
    contracting: &Dims,
    batch: &Dims,
    preferred: Option<DType>,
    inputs: &[Aval],
) -> Result<Vec<Aval>, String> {
    arity(inputs, 2)?;
    let (l, r) = (&inputs[0], &inputs[1]);
    if l.dtype != r.dtype || !l.dtype.is_numeric() {
        return Err(format!(
            "operands must share a numeric dtype, got {l} and {r}"
        ));
    }
    let pairs = |(a, b): &Dims, what: &str| -> Result<(), String> {
        if a.len() != b.len() {
            return Err(format!(
                "{what} dimensions {a:?} and {b:?} differ in number"
            ));
        }
        for (&i, &j) in a.iter().zip(b) {
            if i >= l.ndim() || j >= r.ndim() || l.shape[i] != r.shape[j] {
                return Err(format!(
                    "{what} dimensions {a:?} of {l} and {b:?} of {r} do not match"
                ));
            }
        }
        Ok(())
    };
    pairs(contracting, "contracting")?;
    pairs(batch, "batch")?;
    let mut shape: Vec<usize> = batch.0.iter().map(|&d| l.shape[d]).collect();
    shape.extend(
        free_dims(l.ndim(), &contracting.0, &batch.0)
            .iter()
            .map(|&d| l.shape[d]),
    );
    shape.extend(
        free_dims(r.ndim(), &contracting.1, &batch.1)
            .iter()
            .map(|&d| r.shape[d]),
    );
    Ok(vec![Aval::new(preferred.unwrap_or(l.dtype), &shape)])
}

/// Size and stride of a group of dimensions that can be walked as one (each dimension's
/// stride is the next one's times its size), or `None`.
fn group(shape: &[usize], strides: &[isize], dims: &[usize]) -> Option<(usize, isize)> {
    let Some(&last) = dims.last() else {
        return Some((1, 0));
    };
    let mergeable = dims
        .windows(2)
        .all(|w| strides[w[0]] == strides[w[1]] * shape[w[1]] as isize);
    mergeable.then(|| (dims.iter().map(|&d| shape[d]).product(), strides[last]))
}

/// An operand seen as `[batch, rows, cols]` with strides: a view of its own buffer when each
/// group of dimensions is one strided walk, else a contiguous copy.
pub(super) struct Matrix {
    pub(super) data: Array,
    pub(super) sizes: [usize; 3],
    pub(super) strides: [isize; 3],
}

pub(super) fn matrix(a: &Array, batch: &[usize], rows: &[usize], cols: &[usize]) -> Matrix {
    let strides = signed_strides(a.shape());
    let groups = [batch, rows, cols].map(|g| group(a.shape(), &strides, g));
    if let [Some(b), Some(r), Some(c)] = groups {
        return Matrix {
            data: a.clone(),
            sizes: [b.0, r.0, c.0],
            strides: [b.1, r.1, c.1],
        };
    }
    let perm: Vec<usize> = batch.iter().chain(rows).chain(cols).copied().collect();
    let size = |ds: &[usize]| ds.iter().map(|&d| a.shape()[d]).product::<usize>();
    let sizes = [size(batch), size(rows), size(cols)];
    let shape: Vec<usize> = perm.iter().map(|&p| a.shape()[p]).collect();
    let st: Vec<isize> = perm.iter().map(|&p| strides[p]).collect();
    Matrix {
        data: strided(a, 0, &shape, &st),
        sizes,
        strides: [(sizes[1] * sizes[2]) as isize, sizes[2] as isize, 1],
    }
}

pub(crate) fn dot_general(
    lhs: &Array,
    rhs: &Array,
    contracting: &Dims,
    batch: &Dims,
    preferred: Option<DType>,
) -> Array {
    if lhs.dtype().is_half() {
        // XLA's CPU backend multiplies 16-bit floats in f32 and rounds the result.
        let f32s = |a: &Array| super::elementwise::convert(a, DType::F32);
        let out = dot_general(&f32s(lhs), &f32s(rhs), contracting, batch, None);
        return super::elementwise::convert(&out, preferred.unwrap_or(lhs.dtype()));
    }
    // The product may run on the pool: size it first.
    crate::env::init_threads();
    let lfree = free_dims(lhs.ndim(), &contracting.0, &batch.0);
    let rfree = free_dims(rhs.ndim(), &contracting.1, &batch.1);
    let l = matrix(lhs, &batch.0, &lfree, &contracting.0);
    let r = matrix(rhs, &batch.1, &rfree, &contracting.1);
    let [b, m, k] = l.sizes;
    let n = r.sizes[1];
    let mut shape: Vec<usize> = batch.0.iter().map(|&d| lhs.shape()[d]).collect();
    shape.extend(lfree.iter().map(|&d| lhs.shape()[d]));
    shape.extend(rfree.iter().map(|&d| rhs.shape()[d]));
    let dims = [b, m, k, n];
    let out = match lhs.dtype() {
        DType::F32 => float_product::<f32>(&shape, &l, &r, dims),
        DType::F64 => float_product::<f64>(&shape, &l, &r, dims),
        DType::C64 => float_product::<num_complex::Complex<f32>>(&shape, &l, &r, dims),
        DType::C128 => float_product::<num_complex::Complex<f64>>(&shape, &l, &r, dims),
        _ => with_dtype!(lhs.dtype(), T, Int, {
            new_array::<T>(&shape, |out| matmul_loops::<T>(&l, &r, out, dims))
        }),
    };
    match preferred {
        Some(d) if d != lhs.dtype() => super::elementwise::convert(&out, d),
        _ => out,
    }
}

/// Multiply-accumulate with the element type's own arithmetic (wrapping for integers).
trait Mac: Elem {
    fn mac(acc: Self, a: Self, b: Self) -> Self;
}

macro_rules! mac {
    ($t:ty, float) => {
        impl Mac for $t {
            fn mac(acc: Self, a: Self, b: Self) -> Self {
                acc + a * b
            }
        }
    };
    ($t:ty, int) => {
        impl Mac for $t {
            fn mac(acc: Self, a: Self, b: Self) -> Self {
                acc.wrapping_add(a.wrapping_mul(b))
            }
        }
    };
}
mac!(f32, float);
mac!(f64, float);
mac!(i8, int);
mac!(i16, int);
mac!(i32, int);
mac!(i64, int);
mac!(u8, int);
mac!(u16, int);
mac!(u32, int);
mac!(u64, int);

/// `out[b] = l[b] (m x k) @ r[b]^T (r[b] is n x k)`, each operand read through its strides,
/// by loops (the integer types, which `gemm` does not multiply).
fn matmul_loops<T: Mac>(l: &Matrix, r: &Matrix, out: &mut [T], [b, m, k, n]: [usize; 4]) {
    let (ls, rs) = (l.data.as_slice::<T>(), r.data.as_slice::<T>());
    for i in 0..b {
        let (lo, ro) = (i as isize * l.strides[0], i as isize * r.strides[0]);
        let ob = &mut out[i * m * n..(i + 1) * m * n];
        for p in 0..m {
            for q in 0..n {
                let mut acc = T::default();
                for t in 0..k {
                    let a =
                        ls[(lo + p as isize * l.strides[1] + t as isize * l.strides[2]) as usize];
                    let c =
                        rs[(ro + q as isize * r.strides[1] + t as isize * r.strides[2]) as usize];
                    acc = T::mac(acc, a, c);
                }
                ob[p * n + q] = acc;
            }
        }
    }
}

/// The multiply-adds from which a product is worth splitting over threads.
pub(super) const PARALLEL_MACS: usize = 1 << 21;

/// Threads for a product of this size: all of them once it is worth a fork.
pub(super) fn parallelism(m: usize, n: usize, k: usize) -> gemm::Parallelism {
    if m * n * k >= PARALLEL_MACS && crate::env::parts() > 1 {
        gemm::Parallelism::Rayon(crate::env::parts())
    } else {
        gemm::Parallelism::None
    }
}

/// Computes a product with a small result and a long contraction — a weight's gradient
/// over a large batch, `h.T @ dz` — as one share of the terms per thread, each into its
/// own result, then their sum (`gemm`'s threads split only the result's rows and columns,
/// which a small result has few of); returns false, writing nothing, for other shapes.
/// The operands are read as `float_product`'s `gemm` call reads them.
fn split_terms<T: Elem + Add<Output = T>>(
    ls: &[T],
    rs: &[T],
    [lsd, rsd]: [[isize; 3]; 2],
    [m, k, n]: [usize; 3],
    out: &mut [T],
) -> bool {
    let parts = crate::env::parts();
    if parts < 2 || m * n > 256 * 256 || k < 4096 || m * n * k < 1 << 23 {
        return false;
    }
    let zero = T::from_f64(0.0);
    let share = k.div_ceil(parts);
    let partials: Vec<Vec<T>> = (0..parts)
        .into_par_iter()
        .map(|i| {
            let t0 = (i * share).min(k);
            let terms = share.min(k - t0);
            let mut part = vec![zero; m * n];
            // SAFETY: as in `float_product`'s call, for the terms t0..t0 + terms (< k) of
            // an unbatched product: element (p, t) of the left operand is at
            // ls[p*lsd[1] + t*lsd[2]] and (t, q) of the right one at rs[q*rsd[1] +
            // t*rsd[2]]; `part` is this share's own m x n row-major result.
            unsafe {
                gemm_call(
                    [m, n, terms],
                    (part.as_mut_ptr(), n),
                    (ls.as_ptr().offset(t0 as isize * lsd[2]), [lsd[1], lsd[2]]),
                    (rs.as_ptr().offset(t0 as isize * rsd[2]), [rsd[1], rsd[2]]),
                    gemm::Parallelism::None,
                )
            }
            part
        })
        .collect();
    out.fill(zero);
    for part in &partials {
        for (o, &v) in out.iter_mut().zip(part) {
            *o = *o + v;
        }
    }
    true
}

/// `dst = l @ r` (`m x n`, rows `dst.1` apart) by one `gemm` call: element `(p, t)` of
/// the left operand is at `l.0[p * l.1[0] + t * l.1[1]]`, element `(t, q)` of the right
/// one at `r.0[q * r.1[0] + t * r.1[1]]`.
///
/// # Safety
/// Those elements must be readable for `p < m`, `q < n`, `t < k`, and the `m x n` block of
/// `dst` writable; `T` must be `f32`, `f64` or a complex of them, which `gemm` multiplies.
pub(super) unsafe fn gemm_call<T: Elem>(
    [m, n, k]: [usize; 3],
    dst: (*mut T, usize),
    l: (*const T, [isize; 2]),
    r: (*const T, [isize; 2]),
    parallelism: gemm::Parallelism,
) {
    // SAFETY: passed on to our caller.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.0,
            1,
            dst.1 as isize,
            false,
            l.0,
            l.1[1],
            l.1[0],
            r.0,
            r.1[0],
            r.1[1],
            T::from_f64(0.0),
            T::from_f64(1.0),
            false,
            false,
            false,
            parallelism,
        )
    }
}

/// Columns of the result per `gemm` call. `gemm` computes a row-major result as its
/// transpose, `r^T @ l^T`, and packs `l^T` into panels when the result has more than 128
/// columns — for a left operand with contiguous columns (`x.T @ dz`, contracting over the
/// rows of both), a strided read of all of it. Two calls of at most 128 columns read it in
/// place instead; more calls would read it once each.
fn column_chunk(n: usize, lsd: [isize; 3]) -> usize {
    const UNPACKED: usize = 128;
    if lsd[1] == 1 && lsd[2] != 1 && n > UNPACKED && n <= 2 * UNPACKED {
        UNPACKED
    } else {
        n.max(1)
    }
}

/// The batched product `l[b] (m x k) @ r[b]^T (r[b] is n x k)` of a float type, each
/// operand read through its own strides, into a new array of `shape`: an unbatched `f32`
/// product with a small dimension on the kernels of `skinny`, the rest one `gemm` call per
/// batch.
fn float_product<T: Elem + Add<Output = T>>(
    shape: &[usize],
    l: &Matrix,
    r: &Matrix,
    [b, m, k, n]: [usize; 4],
) -> Array {
    let zero = T::from_f64(0.0);
    if k == 0 || m * n == 0 {
        return new_array::<T>(shape, |out| out.fill(zero));
    }
    let bytes = crate::array::checked_nbytes(shape, std::mem::size_of::<T>())
        .expect("results are checked when bound");
    debug_assert_eq!(bytes, b * m * n * std::mem::size_of::<T>());
    // SAFETY: a product kernel below writes every element (`gemm` does not read the
    // destination) before any is read.
    let mut buf = unsafe { Buffer::uninit(bytes) };
    if T::DTYPE == DType::F32 && b == 1 {
        let a = super::skinny::View {
            data: l.data.as_slice::<f32>(),
            off: 0,
            s: [l.strides[1], l.strides[2]],
        };
        let w = super::skinny::View {
            data: r.data.as_slice::<f32>(),
            off: 0,
            s: [r.strides[2], r.strides[1]],
        };
        if super::skinny::product(a, w, [m, k, n], buf.as_uninit_mut::<f32>()) {
            return Array::from_buffer(T::DTYPE, shape, buf);
        }
    }
    let (ls, rs) = (l.data.as_slice::<T>(), r.data.as_slice::<T>());
    let out = buf.as_mut_ptr().cast::<T>();
    let (lsd, rsd) = (l.strides, r.strides);
    if b == 1 && split_terms(ls, rs, [lsd, rsd], [m, k, n], buf.as_mut_slice::<T>()) {
        return Array::from_buffer(T::DTYPE, shape, buf);
    }
    let chunk = column_chunk(n, lsd);
    for i in 0..b {
        let (lo, ro) = (i as isize * l.strides[0], i as isize * r.strides[0]);
        // SAFETY: element (p, t) of the left operand is at ls[lo + p*lsd[1] + t*lsd[2]]
        // for p < m, t < k (the operand's view), and batch i of the result is the m x n
        // row-major block at i*m*n of a buffer of b*m*n elements.
        let operands = ((ls, lo, lsd), (rs, ro, rsd));
        if unsafe {
            super::symmetric::product(operands.0, operands.1, [m, k, n], out.add(i * m * n))
        } {
            continue;
        }
        for c0 in (0..n).step_by(chunk) {
            let w = chunk.min(n - c0);
            // SAFETY: element (p, t) of the left operand is at ls[lo + p*lsd[1] + t*lsd[2]]
            // and element (t, q) of the right one at rs[ro + q*rsd[1] + t*rsd[2]], in
            // bounds for p < m, q < n, t < k by construction of the operands' views; batch
            // i of the result is the m x n row-major block at i*m*n of a buffer of b*m*n
            // elements, of which columns c0..c0 + w are written.
            unsafe {
                gemm_call(
                    [m, w, k],
                    (out.add(i * m * n + c0), n),
                    (ls.as_ptr().offset(lo), [lsd[1], lsd[2]]),
                    (
                        rs.as_ptr().offset(ro + c0 as isize * rsd[1]),
                        [rsd[1], rsd[2]],
                    ),
                    parallelism(m, w, k),
                )
            }
        }
    }
    // A dot product starts from +0, so it is never -0 (gemm, multiplying without an
    // initial zero, can give -0 for products of zeros). Adding +0 changes -0 alone, and
    // vectorises where a compare and store per element did not.
    for x in buf.as_mut_slice::<T>() {
        *x = *x + zero;
    }
    Array::from_buffer(T::DTYPE, shape, buf)
}

/// The most terms of the contraction `gemm` packs in one panel (its `kc`: 512 for the
/// caches of x86 machines; twice that bounds it).
pub(super) const PANEL_TERMS: usize = 1024;

/// The bytes of the contiguous copies a product makes of its operands: of each operand
/// whose groups of dimensions (batch, free, contracting) are not one strided walk each.
pub(super) fn copy_bytes(contracting: &Dims, batch: &Dims, inputs: &[Aval]) -> usize {
    let (l, r) = (&inputs[0], &inputs[1]);
    let lfree = free_dims(l.ndim(), &contracting.0, &batch.0);
    let rfree = free_dims(r.ndim(), &contracting.1, &batch.1);
    let copy = |a: &Aval, groups: [&[usize]; 3]| {
        let strides = signed_strides(&a.shape);
        let walks = groups
            .iter()
            .all(|g| group(&a.shape, &strides, g).is_some());
        if walks {
            0
        } else {
            a.nbytes()
        }
    };
    copy(l, [&batch.0, &lfree, &contracting.0]) + copy(r, [&batch.1, &rfree, &contracting.1])
}

/// The bytes `dot_general` holds beyond its operands and result while it runs, at most:
/// a contiguous copy of an operand whose dimension groups are not one strided walk each,
/// the product's packed panels (`gemm`'s, or the few-column kernels' coefficients), and
/// the product in the operands' dtype when the result takes another. (`gemm`'s per-thread
/// buffer, the size of a core's L2 cache, is made once per thread for the life of the
/// process, and is not counted.)
pub(crate) fn scratch_bytes(
    contracting: &Dims,
    batch: &Dims,
    preferred: Option<DType>,
    inputs: &[Aval],
) -> usize {
    let (l, r) = (&inputs[0], &inputs[1]);
    let lfree = free_dims(l.ndim(), &contracting.0, &batch.0);
    let rfree = free_dims(r.ndim(), &contracting.1, &batch.1);
    let copies = copy_bytes(contracting, batch, inputs);
    let size = |a: &Aval, dims: &[usize]| dims.iter().map(|&d| a.shape[d]).product::<usize>();
    let (b, m, k, n) = (
        size(l, &batch.0),
        size(l, &lfree),
        size(l, &contracting.0),
        size(r, &rfree),
    );
    let elem = l.dtype.size();
    let packed = if l.dtype.is_inexact() {
        let panels = elem * k.min(PANEL_TERMS) * (m.next_multiple_of(64) + n.next_multiple_of(64));
        panels.max(64 * k)
    } else {
        0
    };
    let converted = match preferred {
        Some(d) if d != l.dtype => b * m * n * elem,
        _ => 0,
    };
    copies + packed + converted
}
