//! numpy broadcasting and promotion: the binary functions and `where` over shapes numpy
//! broadcasts, mixed dtypes, weakly typed scalars, and fused kernels that broadcast along
//! short rows.

use std::slice::from_ref;

use oxla::numpy as jnp;
use oxla::{lax, DType, Tensor};
use proptest::prelude::*;
use proptest::sample::select;

use crate::support::{
    any_dtype_arr, assert_bitwise, broadcast_ref, config, expect, expect_values, jit, np_shapes,
    wrap, Rng, Vals, CASES,
};

const NP_DTYPE_PAIRS: [(DType, DType); 9] = [
    (DType::F32, DType::F32),
    (DType::I32, DType::I32),
    (DType::U32, DType::U32),
    (DType::F64, DType::F64),
    (DType::I32, DType::F32),
    (DType::F32, DType::I32),
    (DType::Bool, DType::I32),
    (DType::F32, DType::F64),
    (DType::U32, DType::I32),
];

#[derive(Clone, Copy, Debug, PartialEq)]
enum NpOp {
    Add,
    Subtract,
    Multiply,
    Divide,
    Maximum,
    Minimum,
    Remainder,
    FloorDivide,
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
}

const NP_OPS: [NpOp; 14] = [
    NpOp::Add,
    NpOp::Subtract,
    NpOp::Multiply,
    NpOp::Divide,
    NpOp::Maximum,
    NpOp::Minimum,
    NpOp::Remainder,
    NpOp::FloorDivide,
    NpOp::Equal,
    NpOp::NotEqual,
    NpOp::Less,
    NpOp::LessEqual,
    NpOp::Greater,
    NpOp::GreaterEqual,
];

fn np_apply(op: NpOp, x: &Tensor, y: &Tensor) -> Tensor {
    match op {
        NpOp::Add => jnp::add(x, y),
        NpOp::Subtract => jnp::subtract(x, y),
        NpOp::Multiply => jnp::multiply(x, y),
        NpOp::Divide => jnp::divide(x, y),
        NpOp::Maximum => jnp::maximum(x, y),
        NpOp::Minimum => jnp::minimum(x, y),
        NpOp::Remainder => jnp::remainder(x, y),
        NpOp::FloorDivide => jnp::floor_divide(x, y),
        NpOp::Equal => jnp::equal(x, y),
        NpOp::NotEqual => jnp::not_equal(x, y),
        NpOp::Less => jnp::less(x, y),
        NpOp::LessEqual => jnp::less_equal(x, y),
        NpOp::Greater => jnp::greater(x, y),
        NpOp::GreaterEqual => jnp::greater_equal(x, y),
    }
}

/// The numpy result of `op` on two values already promoted to `dtype`, or `None` where the
/// result is platform-defined (integer division by zero).
fn np_ref(op: NpOp, x: f64, y: f64, dtype: DType) -> Option<f64> {
    let in_dtype = |v: f64| {
        if dtype == DType::F32 {
            v as f32 as f64
        } else {
            v
        }
    };
    let int = dtype.is_int();
    Some(match op {
        NpOp::Add => wrap(x + y, dtype),
        NpOp::Subtract => wrap(x - y, dtype),
        NpOp::Multiply => wrap(x * y, dtype),
        NpOp::Divide if dtype == DType::F64 => x / y,
        NpOp::Divide => ((x as f32) / (y as f32)) as f64,
        NpOp::Maximum => x.max(y),
        NpOp::Minimum => x.min(y),
        NpOp::Remainder | NpOp::FloorDivide if int && y == 0.0 => return None,
        NpOp::FloorDivide if y == 0.0 => return None,
        NpOp::Remainder => {
            let r = in_dtype(x % y);
            if r != 0.0 && (r < 0.0) != (y < 0.0) {
                in_dtype(r + y)
            } else {
                r
            }
        }
        NpOp::FloorDivide => (x / y).floor(),
        NpOp::Equal => (x == y) as u8 as f64,
        NpOp::NotEqual => (x != y) as u8 as f64,
        NpOp::Less => (x < y) as u8 as f64,
        NpOp::LessEqual => (x <= y) as u8 as f64,
        NpOp::Greater => (x > y) as u8 as f64,
        NpOp::GreaterEqual => (x >= y) as u8 as f64,
    })
}

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn numpy_binary_broadcasts(
        shapes in np_shapes(2),
        (dx, dy) in select(NP_DTYPE_PAIRS.to_vec()),
        seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let (x, y) = (rng.tensor(dx, &shapes[0]), rng.tensor(dy, &shapes[1]));
        let (shape, pos) = broadcast_ref(&[x.shape(), y.shape()]);
        let dtype = dx.promote(dy);
        let (xv, yv) = (x.array().to_f64_vec(), y.array().to_f64_vec());
        for op in NP_OPS {
            let got = jit(|a| np_apply(op, &a[0], &a[1]), &[x.clone(), y.clone()]);
            let out_dtype = match op {
                NpOp::Divide if !dtype.is_float() => DType::F32,
                NpOp::Divide | NpOp::Add | NpOp::Subtract | NpOp::Multiply | NpOp::Maximum
                | NpOp::Minimum | NpOp::Remainder | NpOp::FloorDivide => dtype,
                _ => DType::Bool,
            };
            let want: Vec<Option<f64>> = pos
                .iter()
                .map(|p| np_ref(op, wrap(xv[p[0]], dtype), wrap(yv[p[1]], dtype), dtype))
                .collect();
            expect_values(&got, out_dtype, &want, &shape, &(op, dx, dy, &shapes));
        }
        // Operators are the same functions.
        let plus = jit(|a| &a[0] + &a[1], &[x.clone(), y.clone()]);
        assert_bitwise(&plus, &jnp::add(&x, &y), &"+");
        let times = jit(|a| &a[0] * &a[1], &[x.clone(), y.clone()]);
        assert_bitwise(&times, &jnp::multiply(&x, &y), &"*");
    }

    #[test]
    fn numpy_where_broadcasts(shapes in np_shapes(3), seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let c = rng.tensor(DType::Bool, &shapes[0]);
        let x = rng.tensor(DType::F32, &shapes[1]);
        let y = rng.tensor(DType::I32, &shapes[2]);
        let got = jit(|a| jnp::where_(&a[0], &a[1], &a[2]), &[c.clone(), x.clone(), y.clone()]);
        let (shape, pos) = broadcast_ref(&[c.shape(), x.shape(), y.shape()]);
        let (cv, xv, yv) = (c.to_vec::<bool>(), x.to_vec::<f32>(), y.to_vec::<i32>());
        let want: Vec<f32> =
            pos.iter().map(|p| if cv[p[0]] { xv[p[1]] } else { yv[p[2]] as f32 }).collect();
        expect(&got, &want, &shape, &shapes);
    }

    #[test]
    fn kernels_walking_many_rows_per_block_agree_with_eager(
        (a, r, e) in (1usize..=3, 1usize..=300, 1usize..=40),
        seed in any::<u64>(),
    ) {
        // Short rows make a kernel walk up to 1024 / e rows per block, with a partial last
        // group; values per row and per column are broadcast along it, and the rows of a
        // transposed operand lie apart.
        let mut rng = Rng(seed);
        let args = [
            rng.tensor(DType::F32, &[a, r, e]),
            rng.tensor(DType::F32, &[a, r, 1]),
            rng.tensor(DType::F32, &[e]),
            rng.tensor(DType::F32, &[a, e, r]),
        ];
        let f = |t: &[Tensor]| {
            let per_row = jnp::exp(&t[1]) - &t[1] * 2.0;
            (&t[0] - &per_row) * &t[2] + lax::transpose(&t[3], &[0, 2, 1]) * &t[1]
        };
        assert_bitwise(&jit(f, &args), &f(&args), &(a, r, e));
    }

    #[test]
    fn numpy_scalars_are_weakly_typed(x in any_dtype_arr(Vals::Exact), k in -5i32..5) {
        // An int scalar keeps a numeric tensor's dtype; a float scalar makes ints f32.
        // (A negative int with a u32 tensor is out of range, an error in JAX.)
        let k = if x.dtype() == DType::U32 { k.abs() } else { k };
        let got = jit(|a| &a[0] + k, from_ref(&x));
        let d = if x.dtype() == DType::Bool { DType::I32 } else { x.dtype() };
        let want: Vec<Option<f64>> =
            x.array().to_f64_vec().iter().map(|&v| Some(wrap(v + k as f64, d))).collect();
        expect_values(&got, d, &want, x.shape(), &k);
        let got = jit(|a| 0.5 * &a[0], from_ref(&x));
        let d = if x.dtype().is_float() { x.dtype() } else { DType::F32 };
        let want: Vec<Option<f64>> =
            x.array().to_f64_vec().iter().map(|&v| Some(v * 0.5)).collect();
        expect_values(&got, d, &want, x.shape(), &"0.5 * x");
    }
}
