//! proptest strategies: element values (exact grids or anything, specials included),
//! tensors, shapes, operand pairs lax accepts and shapes numpy broadcasts together.

use oxla::{DType, Tensor};
use proptest::prelude::*;
use proptest::sample::select;

use super::{numel, ALL_DTYPES};

#[derive(Clone, Copy, Debug)]
pub enum Vals {
    /// Small values on a grid, so sums and products are exact in any order.
    Exact,
    /// Anything, specials (NaN, infinities, signed zeros, extremes) included.
    Wide,
}

pub fn f32_val(v: Vals) -> BoxedStrategy<f32> {
    let grid = (-40i32..=40).prop_map(|k| k as f32 / 4.0);
    match v {
        Vals::Exact => grid.boxed(),
        Vals::Wide => prop_oneof![
            5 => grid,
            3 => -1e4f32..1e4f32,
            2 => select(vec![
                f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5,
                2.5, -2.5, f32::MIN_POSITIVE, 1e-40, -1e-40, f32::MAX, f32::MIN, 3e9, -3e9,
                5e9, 1e20,
            ]),
            1 => any::<f32>(),
        ]
        .boxed(),
    }
}

pub fn f64_val(v: Vals) -> BoxedStrategy<f64> {
    let grid = (-40i32..=40).prop_map(|k| k as f64 / 4.0);
    match v {
        Vals::Exact => grid.boxed(),
        Vals::Wide => prop_oneof![
            5 => grid,
            3 => -1e4f64..1e4f64,
            2 => select(vec![
                f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 0.5, -0.5, 2.5,
                f64::MIN_POSITIVE, 5e-324, f64::MAX, 3e9, -3e9, 1e300,
            ]),
            1 => any::<f64>(),
        ]
        .boxed(),
    }
}

pub fn i32_val(v: Vals) -> BoxedStrategy<i32> {
    match v {
        Vals::Exact => (-9i32..=9).boxed(),
        Vals::Wide => prop_oneof![
            5 => -20i32..=20,
            2 => select(vec![i32::MIN, i32::MAX, i32::MIN + 1, -1, 0, 1, 31, 32, 33]),
            2 => any::<i32>(),
        ]
        .boxed(),
    }
}

pub fn u32_val(v: Vals) -> BoxedStrategy<u32> {
    match v {
        Vals::Exact => (0u32..=20).boxed(),
        Vals::Wide => prop_oneof![
            5 => 0u32..=40,
            2 => select(vec![u32::MAX, u32::MAX - 1, 1 << 31, 0, 1, 31, 32, 33]),
            2 => any::<u32>(),
        ]
        .boxed(),
    }
}

pub fn tensor(dtype: DType, shape: Vec<usize>, v: Vals) -> BoxedStrategy<Tensor> {
    let n = numel(&shape);
    macro_rules! of {
        ($s:expr) => {
            prop::collection::vec($s, n)
                .prop_map(move |d| Tensor::from_vec(d, &shape))
                .boxed()
        };
    }
    match dtype {
        DType::Bool => of!(any::<bool>()),
        DType::I32 => of!(i32_val(v)),
        DType::U32 => of!(u32_val(v)),
        DType::F32 => of!(f32_val(v)),
        DType::F64 => of!(f64_val(v)),
        other => unreachable!("the property suite draws only ALL_DTYPES, not {other}"),
    }
}

/// Rank `0..=max_rank`, dimensions `0..=max_dim`.
pub fn shape_s(max_rank: usize, max_dim: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0..=max_dim, 0..=max_rank)
}

pub fn arr(dtype: DType, v: Vals) -> BoxedStrategy<Tensor> {
    shape_s(4, 4)
        .prop_flat_map(move |s| tensor(dtype, s, v))
        .boxed()
}

/// Two operands lax accepts: equal shapes, one of rank 0, or equal ranks whose dimensions
/// agree or are 1.
pub fn lax_pair(dtype: DType, v: Vals) -> BoxedStrategy<(Tensor, Tensor)> {
    (shape_s(4, 4), prop::collection::vec(0u8..3, 4), 0u8..5)
        .prop_flat_map(move |(s, masks, mode)| {
            let (mut xs, mut ys) = (s.clone(), s.clone());
            for d in 0..s.len() {
                match (mode, masks[d]) {
                    (0 | 1, 1) => xs[d] = 1,
                    (0 | 1, 2) => ys[d] = 1,
                    _ => {}
                }
            }
            match mode {
                2 => xs.clear(),
                3 => ys.clear(),
                _ => {}
            }
            (tensor(dtype, xs, v), tensor(dtype, ys, v))
        })
        .boxed()
}

/// Shapes numpy broadcasts together to `s`: suffixes of `s` with some dimensions set to 1.
pub fn np_shapes(n: usize) -> impl Strategy<Value = Vec<Vec<usize>>> {
    (
        shape_s(4, 4),
        prop::collection::vec((0usize..=4, prop::collection::vec(any::<bool>(), 4)), n),
    )
        .prop_map(|(s, picks)| {
            let r = s.len();
            picks
                .into_iter()
                .map(|(k, ones)| {
                    let k = k.min(r);
                    (r - k..r).map(|d| if ones[d] { 1 } else { s[d] }).collect()
                })
                .collect()
        })
}

pub fn any_dtype_arr(v: Vals) -> BoxedStrategy<Tensor> {
    select(ALL_DTYPES.to_vec())
        .prop_flat_map(move |d| arr(d, v))
        .boxed()
}

pub fn shape_dtype() -> impl Strategy<Value = DType> {
    select(vec![
        DType::F32,
        DType::I32,
        DType::Bool,
        DType::F64,
        DType::U32,
    ])
}
