//! Eager elementwise kernels over operands that lax broadcasts along their size-1
//! dimensions: such a dimension is read in place with stride 0, as the compiler's kernels
//! read it, so `x[:, None] * y[None, :]` holds its result and nothing of its size besides.

use crate::array::{numel, strides_of, with_dtype, Array, Buffer, DType, Lane, Values, ValuesMut};

/// Output runs shorter than this are taken several at a time, their operands gathered
/// into a block of about this many elements, so that the elementwise kernel's dispatch is
/// paid once per block rather than once per short run.
const BLOCK: usize = 1024;

/// How an operand's elements lie along the output's (merged) dimensions.
#[derive(Clone, Copy, PartialEq)]
enum Reading {
    /// Row-major like the output: any run of the output reads one contiguous run.
    Full,
    /// One element for the whole output.
    Single,
    /// Broadcast along some dimensions and not others.
    Strided,
}

/// An operand: its elements, its stride along each merged dimension (0 where it is
/// broadcast) and how it is read.
struct Operand<'a, T> {
    data: &'a [T],
    strides: Vec<usize>,
    reading: Reading,
}

/// The output's dimensions with each operand's strides along them (0 along a size-1
/// dimension of the operand), size-1 output dimensions dropped and neighbours that every
/// operand walks as one merged. An operand of rank 0 is broadcast along every dimension.
fn merged(out: &[usize], shapes: &[&[usize]]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let own: Vec<Vec<usize>> = shapes
        .iter()
        .map(|s| {
            if s.is_empty() {
                return vec![0; out.len()];
            }
            let st = strides_of(s);
            s.iter()
                .zip(&st)
                .map(|(&d, &st)| if d == 1 { 0 } else { st })
                .collect()
        })
        .collect();
    let mut sizes: Vec<usize> = Vec::new();
    let mut strides: Vec<Vec<usize>> = vec![Vec::new(); shapes.len()];
    for (d, &n) in out.iter().enumerate() {
        if n == 1 {
            continue;
        }
        let joins = !sizes.is_empty()
            && own
                .iter()
                .zip(&strides)
                .all(|(o, s)| s.last() == Some(&(o[d] * n)));
        if joins {
            *sizes.last_mut().expect("not empty") *= n;
            for (o, s) in own.iter().zip(&mut strides) {
                *s.last_mut().expect("one stride per size") = o[d];
            }
        } else {
            sizes.push(n);
            for (o, s) in own.iter().zip(&mut strides) {
                s.push(o[d]);
            }
        }
    }
    (sizes, strides)
}

/// A new array of `dtype` and `shape` whose elements are `f` of the operands' matching
/// elements, the operands broadcast along their size-1 dimensions (or of rank 0) without
/// being copied. `f` gets runs of the output and of each operand, an operand's run as long
/// as the output's or of one element that stands for all of them.
pub(super) fn zip_broadcast<T: Lane>(
    dtype: DType,
    shape: &[usize],
    operands: &[&Array],
    f: impl Fn(&[Values], ValuesMut),
) -> Array {
    let n = numel(shape);
    // SAFETY: the runs below cover the output, and `f` writes every element of its run
    // (the elementwise kernels do) before the array is built.
    let mut buf = unsafe { Buffer::uninit(n * dtype.size()) };
    let shapes: Vec<&[usize]> = operands.iter().map(|a| a.shape()).collect();
    let (sizes, strides) = merged(shape, &shapes);
    let contiguous: Vec<usize> = strides_of(&sizes).to_vec();
    let ops: Vec<Operand<T>> = operands
        .iter()
        .zip(strides)
        .map(|(a, strides)| Operand {
            data: a.as_slice::<T>(),
            reading: if strides == contiguous {
                Reading::Full
            } else if strides.iter().all(|&s| s == 0) {
                Reading::Single
            } else {
                Reading::Strided
            },
            strides,
        })
        .collect();
    with_out(dtype, &mut buf, |mut out| {
        run_blocks(&sizes, n, &ops, &mut out, &f);
    });
    Array::from_buffer(dtype, shape, buf)
}

/// Runs `fill` on the whole of `buf` as elements of `dtype`.
fn with_out(dtype: DType, buf: &mut Buffer, fill: impl FnOnce(ValuesMut)) {
    with_dtype!(dtype, U, fill(U::wrap_mut(buf.as_mut_slice::<U>())))
}

/// Walks the output of `n` elements, laid out as `sizes`, in blocks of whole runs of its
/// innermost dimension, calling `f` once per block.
fn run_blocks<T: Lane>(
    sizes: &[usize],
    n: usize,
    ops: &[Operand<T>],
    out: &mut ValuesMut,
    f: &impl Fn(&[Values], ValuesMut),
) {
    if n == 0 {
        return;
    }
    let rank = sizes.len();
    let run = sizes.last().copied().unwrap_or(1);
    let per_block = (BLOCK / run).max(1);
    let outer = &sizes[..rank.saturating_sub(1)];
    // The multi-index over the outer dimensions and each operand's offset at it.
    let mut idx = vec![0usize; outer.len()];
    let mut offs = vec![0usize; ops.len()];
    let mut scratch: Vec<Vec<T>> = ops.iter().map(|_| Vec::new()).collect();
    let mut start = 0;
    while start < n {
        let len = (per_block * run).min(n - start);
        let at: Vec<usize> = offs.clone();
        for (op, s) in ops.iter().zip(&mut scratch) {
            if op.reading == Reading::Strided && len > run {
                s.clear();
            }
        }
        for _ in 0..len / run {
            for ((op, s), &o) in ops.iter().zip(&mut scratch).zip(&offs) {
                if op.reading == Reading::Strided && len > run {
                    match op.strides.last() {
                        Some(1) => s.extend_from_slice(&op.data[o..o + run]),
                        _ => s.extend(std::iter::repeat_n(op.data[o], run)),
                    }
                }
            }
            advance(outer, &mut idx, ops, &mut offs);
        }
        let args: Vec<Values> = ops
            .iter()
            .zip(&scratch)
            .zip(&at)
            .map(|((op, s), &o)| {
                T::wrap(match op.reading {
                    Reading::Full => &op.data[start..start + len],
                    Reading::Single => &op.data[..1],
                    Reading::Strided if len > run => s,
                    Reading::Strided if op.strides.last() == Some(&1) => &op.data[o..o + run],
                    Reading::Strided => &op.data[o..o + 1],
                })
            })
            .collect();
        f(&args, out.range(start, len));
        start += len;
    }
}

/// Steps the multi-index over the outer dimensions to the next run, and each operand's
/// offset with it.
fn advance<T>(outer: &[usize], idx: &mut [usize], ops: &[Operand<T>], offs: &mut [usize]) {
    for d in (0..outer.len()).rev() {
        idx[d] += 1;
        for (op, o) in ops.iter().zip(offs.iter_mut()) {
            *o += op.strides[d];
        }
        if idx[d] < outer[d] {
            return;
        }
        idx[d] = 0;
        for (op, o) in ops.iter().zip(offs.iter_mut()) {
            *o -= op.strides[d] * outer[d];
        }
    }
}
