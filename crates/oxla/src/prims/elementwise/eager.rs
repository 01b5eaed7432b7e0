//! The eager kernels of the elementwise primitives: each primitive run on whole arrays,
//! allocating its result (a binary operation reads size-1 dimensions in place), and the
//! `threefry2x32` primitive over the cipher in [`crate::prims::threefry`], threaded.

use super::broadcast_shapes;
use super::lanes::{
    binary_into, bitcast_into, convert_into, integer_pow_into, select_into, unary_into,
};
use super::{BinaryOp, UnaryOp};
use crate::array::{new_values, with_dtype, Array, Buffer, DType, Values};
use crate::prims::threefry::threefry_lanes;
use crate::prims::ThreefryWords;

pub(crate) fn unary(op: UnaryOp, a: &Array) -> Array {
    new_values(op.out_dtype(a.dtype()), a.shape(), |out| {
        unary_into(op, a.values(), out)
    })
}

pub(crate) fn binary(op: BinaryOp, a: &Array, b: &Array) -> Array {
    if a.dtype() != b.dtype() {
        // `pow` of a float by an integer exponent: the exponent converted, as XLA lowers it.
        return binary(op, a, &convert(b, a.dtype()));
    }
    let dtype = op.out_dtype(a.dtype());
    if a.shape() == b.shape() || b.ndim() == 0 {
        new_values(dtype, a.shape(), |out| {
            binary_into(op, a.values(), b.values(), out)
        })
    } else if a.ndim() == 0 {
        new_values(dtype, b.shape(), |out| {
            binary_into(op, a.values(), b.values(), out)
        })
    } else {
        // Size-1 dimensions are read in place (stride 0), never materialised.
        let shape = broadcast_shapes(a.shape(), b.shape()).expect("checked by the shape rule");
        with_dtype!(a.dtype(), T, {
            crate::prims::broadcast::zip_broadcast::<T>(dtype, &shape, &[a, b], |args, out| {
                binary_into(op, args[0], args[1], out)
            })
        })
    }
}

pub(crate) fn integer_pow(a: &Array, y: i32) -> Array {
    new_values(a.dtype(), a.shape(), |out| {
        integer_pow_into(y, a.values(), out)
    })
}

pub(crate) fn select_n(inputs: &[Array]) -> Array {
    let cases: Vec<Values> = inputs[1..].iter().map(Array::values).collect();
    new_values(inputs[1].dtype(), inputs[1].shape(), |out| {
        select_into(inputs[0].values(), &cases, out)
    })
}

pub(crate) fn convert(a: &Array, to: DType) -> Array {
    if a.dtype() == to {
        return a.clone();
    }
    new_values(to, a.shape(), |out| convert_into(a.values(), out))
}

pub(crate) fn bitcast(a: &Array, to: DType) -> Array {
    if a.dtype() == to {
        return a.clone();
    }
    new_values(to, a.shape(), |out| bitcast_into(a.values(), out))
}

/// The `threefry2x32` primitive: both words of the cipher, or the one `words` names.
pub(crate) fn threefry2x32(words: ThreefryWords, inputs: &[Array]) -> Vec<Array> {
    let shape = inputs
        .iter()
        .map(|a| a.shape())
        .max_by_key(|s| s.len())
        .expect("four operands")
        .to_vec();
    let n = crate::array::numel(&shape);
    // Operands are read in place, a one-element operand repeating.
    let ops = [0, 1, 2, 3].map(|i| inputs[i].as_slice::<u32>());
    let mut o1 = Buffer::zeroed(if words == ThreefryWords::Both {
        n * 4
    } else {
        0
    });
    let o0 = crate::prims::view::new_array::<u32>(&shape, |o0| {
        threefry_parallel(ops, words, o0, o1.as_mut_slice::<u32>())
    });
    match words {
        ThreefryWords::Both => vec![o0, Array::from_buffer(DType::U32, &shape, o1)],
        _ => vec![o0],
    }
}

/// Lanes ciphered per task of [`threefry_parallel`]: 64 KiB of each word.
const PER_TASK: usize = 1 << 14;

/// [`threefry_lanes`] split over the thread pool in runs of [`PER_TASK`] lanes.
fn threefry_parallel(ops: [&[u32]; 4], words: ThreefryWords, out0: &mut [u32], out1: &mut [u32]) {
    use rayon::prelude::*;
    fn part(s: &[u32], i: usize) -> &[u32] {
        if s.len() == 1 {
            s
        } else {
            &s[i * PER_TASK..s.len().min((i + 1) * PER_TASK)]
        }
    }
    let run = |i: usize, o0: &mut [u32], o1: &mut [u32]| {
        let [k0, k1, x0, x1] = ops.map(|s| part(s, i));
        threefry_lanes(k0, k1, x0, x1, words, o0, o1)
    };
    if out0.len() <= PER_TASK {
        return run(0, out0, out1);
    }
    // One word: `out1` is empty, and each task gets an empty part of it.
    let parts1: Vec<&mut [u32]> = if out1.is_empty() {
        (0..out0.len().div_ceil(PER_TASK))
            .map(|_| Default::default())
            .collect()
    } else {
        out1.chunks_mut(PER_TASK).collect()
    };
    out0.par_chunks_mut(PER_TASK)
        .zip(parts1)
        .enumerate()
        .for_each(|(i, (o0, o1))| run(i, o0, o1));
}
