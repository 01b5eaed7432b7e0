//! The eager kernels of the elementwise primitives: each primitive run on whole arrays,
//! allocating its result (a binary operation reads size-1 dimensions in place), and the
//! `threefry2x32` primitive over the cipher in [`crate::prims::threefry`].

use super::broadcast_shapes;
use super::lanes::{
    binary_into, bitcast_into, convert_into, integer_pow_into, select_into, unary_into,
};
use super::{BinaryOp, UnaryOp};
use crate::array::{new_values, with_dtype, Array, Buffer, DType, Values};
use crate::prims::threefry;

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

pub(crate) fn threefry2x32(inputs: &[Array]) -> Vec<Array> {
    let shape = inputs
        .iter()
        .map(|a| a.shape())
        .max_by_key(|s| s.len())
        .expect("four operands")
        .to_vec();
    let n = crate::array::numel(&shape);
    // Operands are read in place, a one-element operand repeating.
    let [k0, k1, x0, x1] = [0, 1, 2, 3].map(|i| inputs[i].as_slice::<u32>());
    let at = |s: &[u32], i: usize| if s.len() == n { s[i] } else { s[0] };
    let mut o1 = Buffer::zeroed(n * 4);
    let o0 = crate::prims::view::new_array::<u32>(&shape, |o0| {
        let o1 = o1.as_mut_slice::<u32>();
        if k0.len() == 1 && k1.len() == 1 && x0.len() == n && x1.len() == n {
            threefry::threefry2x32_slices([k0[0], k1[0]], x0, x1, o0, o1);
        } else {
            for i in 0..n {
                [o0[i], o1[i]] =
                    threefry::threefry2x32([at(k0, i), at(k1, i)], [at(x0, i), at(x1, i)]);
            }
        }
    });
    vec![o0, Array::from_buffer(DType::U32, &shape, o1)]
}
