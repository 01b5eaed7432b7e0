//! Shared kernel helpers: dtype dispatch, fresh outputs, and strided views of row-major data.

use crate::array::{checked_nbytes, numel, with_dtype, Array, Buffer, Elem};

/// A new array of `shape` whose elements `fill` writes.
pub(crate) fn new_array<T: Elem>(shape: &[usize], fill: impl FnOnce(&mut [T])) -> Array {
    let bytes =
        checked_nbytes(shape, std::mem::size_of::<T>()).expect("results are checked when bound");
    let mut buf = Buffer::zeroed(bytes);
    fill(buf.as_mut_slice::<T>());
    Array::from_buffer(T::DTYPE, shape, buf)
}

/// Copies the strided view `src[offset + sum(i_k * strides[k])]` of `shape` into `out`,
/// row-major. Strides may be zero (broadcast) or negative.
pub(crate) fn copy_strided<T: Elem>(
    src: &[T],
    offset: isize,
    shape: &[usize],
    strides: &[isize],
    out: &mut [T],
) {
    if out.is_empty() {
        return;
    }
    let rank = shape.len();
    if rank == 0 {
        out[0] = src[offset as usize];
        return;
    }
    let inner = shape[rank - 1];
    let inner_stride = strides[rank - 1];
    let mut idx = vec![0usize; rank - 1];
    let mut base = offset;
    for chunk in out.chunks_exact_mut(inner) {
        if inner_stride == 1 {
            let b = base as usize;
            chunk.copy_from_slice(&src[b..b + inner]);
        } else {
            let mut p = base;
            for o in chunk.iter_mut() {
                *o = src[p as usize];
                p += inner_stride;
            }
        }
        // Advance the odometer over the outer dimensions.
        for d in (0..rank - 1).rev() {
            idx[d] += 1;
            base += strides[d];
            if idx[d] < shape[d] {
                break;
            }
            base -= strides[d] * shape[d] as isize;
            idx[d] = 0;
        }
    }
}

/// A new array holding a strided view of `a`.
pub(crate) fn strided(a: &Array, offset: isize, shape: &[usize], strides: &[isize]) -> Array {
    with_dtype!(a.dtype(), T, {
        new_array::<T>(shape, |out| {
            copy_strided(a.as_slice::<T>(), offset, shape, strides, out)
        })
    })
}

/// Row-major strides of `shape` as signed offsets.
pub(crate) fn signed_strides(shape: &[usize]) -> Vec<isize> {
    crate::array::strides_of(shape)
        .iter()
        .map(|&s| s as isize)
        .collect()
}

/// Calls `f` with every multi-index of `shape` in row-major order.
pub(crate) fn for_each_index(shape: &[usize], mut f: impl FnMut(&[usize])) {
    if numel(shape) == 0 {
        return;
    }
    let mut idx = vec![0usize; shape.len()];
    loop {
        f(&idx);
        let mut d = shape.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}
