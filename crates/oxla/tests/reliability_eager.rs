//! Eager binary operations whose operands lax broadcasts along size-1 dimensions read them
//! in place: the results are bit for bit those of the same operation on operands
//! broadcast beforehand, over shapes that take every path of the kernel (short rows
//! gathered into blocks, long rows read where they lie, operands of rank 0, dimensions
//! that merge).

use oxla::{lax, numpy as jnp, Array, DType, Tensor};
use proptest::prelude::*;
use proptest::sample::select;

/// Deterministic elements of `dtype` from `seed`, with signed zeros, infinities and NaN
/// among the floats.
fn elements(dtype: DType, shape: &[usize], seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    let mut h = seed | 1;
    let mut next = move || {
        h ^= h << 13;
        h ^= h >> 7;
        h ^= h << 17;
        h
    };
    let a = match dtype {
        DType::F32 => {
            let special = [0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1.0];
            let v: Vec<f32> = (0..n)
                .map(|_| match next() % 16 {
                    k @ 0..=5 => special[k as usize],
                    k => (k as f32 - 9.5) * 0.37 + (next() % 1000) as f32 * 1e-3,
                })
                .collect();
            Array::from_vec(v, shape)
        }
        DType::I32 => {
            let v: Vec<i32> = (0..n).map(|_| (next() % 41) as i32 - 20).collect();
            Array::from_vec(v, shape)
        }
        DType::Bool => {
            let v: Vec<bool> = (0..n).map(|_| next() % 2 == 0).collect();
            Array::from_vec(v, shape)
        }
        other => unreachable!("no elements drawn for {other}"),
    };
    Tensor::new(a)
}

type Op = fn(&Tensor, &Tensor) -> Tensor;

/// Binary primitives that admit `dtype`, by name.
fn ops(dtype: DType) -> Vec<(&'static str, Op)> {
    let mut v: Vec<(&'static str, Op)> = vec![
        ("eq", lax::eq),
        ("ne", lax::ne),
        ("max", lax::max),
        ("min", lax::min),
    ];
    if dtype != DType::Bool {
        v.extend([
            ("add", lax::add as Op),
            ("sub", lax::sub),
            ("mul", lax::mul),
            ("div", lax::div),
            ("rem", lax::rem),
            ("lt", lax::lt),
            ("ge", lax::ge),
        ]);
    }
    match dtype {
        DType::F32 => v.extend([("pow", lax::pow as Op), ("nextafter", lax::nextafter)]),
        _ => v.extend([("and", lax::and as Op), ("or", lax::or), ("xor", lax::xor)]),
    }
    v
}

/// An operand's shape: the output's with some dimensions 1, or rank 0.
fn operand_shape(out: &[usize], mask: u32, scalar: bool) -> Vec<usize> {
    if scalar {
        return Vec::new();
    }
    out.iter()
        .enumerate()
        .map(|(d, &n)| if mask >> d & 1 == 1 { 1 } else { n })
        .collect()
}

/// Checks `op` on `(x, y)` against `op` on the operands broadcast to the result's shape.
fn check(name: &str, op: Op, x: &Tensor, y: &Tensor) {
    let r = op(x, y);
    let shape = r.shape().to_vec();
    let full = op(&jnp::broadcast_to(x, &shape), &jnp::broadcast_to(y, &shape));
    assert_eq!(r.dtype(), full.dtype());
    assert!(
        r.array().as_bytes() == full.array().as_bytes(),
        "{name} of {} and {} differs from its operands broadcast first",
        x.aval(),
        y.aval()
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn eager_broadcasting_reads_size_1_dimensions_in_place(
        out in prop::collection::vec(select(vec![1usize, 2, 3, 5, 1030]), 1..5)
            .prop_filter("small enough", |s| s.iter().product::<usize>() <= 40_000),
        masks in (any::<u32>(), any::<u32>()),
        scalar in select(vec![(false, false), (false, false), (true, false), (false, true)]),
        dtype in select(vec![DType::F32, DType::I32, DType::Bool]),
        seed in any::<u64>(),
    ) {
        let xs = operand_shape(&out, masks.0, scalar.0);
        let ys = operand_shape(&out, masks.1, scalar.1);
        let (x, y) = (elements(dtype, &xs, seed), elements(dtype, &ys, seed ^ 0x9e37));
        for (name, op) in ops(dtype) {
            check(name, op, &x, &y);
        }
    }
}

#[test]
fn outer_products_of_every_layout_match() {
    // Long rows read in place, short rows gathered, and the last block shorter than the others.
    for (n, m) in [(3, 5000), (5000, 3), (1, 1), (700, 9), (2, 1025)] {
        let x = elements(DType::F32, &[n, 1], 7);
        let y = elements(DType::F32, &[1, m], 11);
        check("mul", lax::mul, &x, &y);
        check("sub", lax::sub, &y.reshape(&[m, 1]), &x.reshape(&[1, n]));
        let x3 = elements(DType::I32, &[n, 1, 2], 13);
        let y3 = elements(DType::I32, &[1, m, 2], 17);
        check("add", lax::add, &x3, &y3);
    }
}

#[test]
fn numpy_outer_product_is_the_products_of_its_elements() {
    let x = jnp::array(&[1.0f32, 2.0, 3.0], &[3]);
    let y = jnp::array(&[10.0f32, 20.0], &[2]);
    let r = x.index((.., None)) * y.index((None, ..));
    assert_eq!(r.shape(), &[3, 2]);
    assert_eq!(r.to_vec::<f32>(), vec![10.0, 20.0, 20.0, 40.0, 30.0, 60.0]);
}
