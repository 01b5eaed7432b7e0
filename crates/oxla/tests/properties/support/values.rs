//! Values for the reference: a seeded generator of structured cases and small exact
//! tensors, a ramp whose elements name their positions, and dtype-tagged elements.

use oxla::{DType, Tensor};

use super::{numel, Same};

/// A small deterministic generator for structured cases (axes, permutations, dimension
/// numbers); proptest draws its seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as usize) as i64
    }
    pub fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
    pub fn shape(&mut self, max_rank: usize, lo: usize, hi: usize) -> Vec<usize> {
        let r = self.below(max_rank + 1);
        (0..r)
            .map(|_| self.range(lo as i64, hi as i64) as usize)
            .collect()
    }
    pub fn perm(&mut self, n: usize) -> Vec<usize> {
        let mut p: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            p.swap(i, self.below(i + 1));
        }
        p
    }
    /// A random sorted subset of `0..n`.
    pub fn subset(&mut self, n: usize) -> Vec<usize> {
        (0..n).filter(|_| self.coin()).collect()
    }
    /// A random sorted subset of `0..n` with exactly `k` elements.
    pub fn choose(&mut self, n: usize, k: usize) -> Vec<usize> {
        let mut v = self.perm(n)[..k].to_vec();
        v.sort_unstable();
        v
    }
    fn f32_grid(&mut self) -> f32 {
        self.range(-40, 40) as f32 / 4.0
    }
    fn small_i32(&mut self) -> i32 {
        self.range(-9, 9) as i32
    }
    /// A tensor of `dtype` with small exactly-representable values.
    pub fn tensor(&mut self, dtype: DType, shape: &[usize]) -> Tensor {
        let n = numel(shape);
        match dtype {
            DType::Bool => Tensor::from_vec((0..n).map(|_| self.coin()).collect(), shape),
            DType::I32 => Tensor::from_vec((0..n).map(|_| self.small_i32()).collect(), shape),
            DType::U32 => {
                Tensor::from_vec((0..n).map(|_| self.range(0, 20) as u32).collect(), shape)
            }
            DType::F32 => Tensor::from_vec((0..n).map(|_| self.f32_grid()).collect(), shape),
            DType::F64 => Tensor::from_vec((0..n).map(|_| self.f32_grid() as f64).collect(), shape),
            other => unreachable!("the property suite draws only ALL_DTYPES, not {other}"),
        }
    }
}

pub fn iota_tensor(dtype: DType, shape: &[usize]) -> Tensor {
    let v: Vec<f64> = (0..numel(shape)).map(|i| i as f64 * 0.5 - 3.0).collect();
    Tensor::from_vec(v, shape).astype(dtype)
}

/// A dtype-tagged element, for conversions between any two dtypes.
#[derive(Clone, Copy, Debug)]
pub enum V {
    B(bool),
    I(i32),
    U(u32),
    F(f32),
    D(f64),
}

pub fn values(t: &Tensor) -> Vec<V> {
    match t.dtype() {
        DType::Bool => t.to_vec::<bool>().into_iter().map(V::B).collect(),
        DType::I32 => t.to_vec::<i32>().into_iter().map(V::I).collect(),
        DType::U32 => t.to_vec::<u32>().into_iter().map(V::U).collect(),
        DType::F32 => t.to_vec::<f32>().into_iter().map(V::F).collect(),
        DType::F64 => t.to_vec::<f64>().into_iter().map(V::D).collect(),
        other => unreachable!("the property suite draws only ALL_DTYPES, not {other}"),
    }
}

pub fn same_v(a: V, b: V) -> bool {
    match (a, b) {
        (V::B(x), V::B(y)) => x == y,
        (V::I(x), V::I(y)) => x == y,
        (V::U(x), V::U(y)) => x == y,
        (V::F(x), V::F(y)) => x.same(y),
        (V::D(x), V::D(y)) => x.same(y),
        _ => false,
    }
}
