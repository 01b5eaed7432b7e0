//! Window functions of signal processing: `bartlett`, `blackman`, `hamming`, `hanning`,
//! each `M` points of the default float dtype (ones for `M <= 1`), computed as JAX does.

use std::f64::consts::PI;

use super::{cos, full};
use crate::array::Kind;
use crate::core::Tensor;
use crate::ops as lax;

/// `f(n)` of `n = 0, 1, ..., m - 1` as a float tensor, or ones when `m <= 1`.
fn window(m: usize, f: impl FnOnce(&Tensor, f64) -> Tensor) -> Tensor {
    let dtype = Kind::Float.default_dtype();
    if m <= 1 {
        return super::astype(full(&[m], 1.0), dtype);
    }
    f(&lax::iota(dtype, &[m], 0), (m - 1) as f64)
}

/// `cos(k * 2 pi n / (M - 1))`.
fn cosine(n: &Tensor, k: f64, last: f64) -> Tensor {
    cos(n * (k * 2.0 * PI) / last)
}

/// The triangular (Bartlett) window: `1 - |2n + 1 - M| / (M - 1)`.
///
/// ```
/// use oxla::numpy as jnp;
/// let w = jnp::bartlett(5).to_vec::<f32>();
/// assert_eq!(w, vec![0.0, 0.5, 1.0, 0.5, 0.0]);
/// ```
pub fn bartlett(m: usize) -> Tensor {
    window(m, |n, last| {
        let centred = super::abs(n * 2.0 + (1.0 - (last + 1.0)));
        1.0 - centred / last
    })
}

/// The Blackman window: `0.42 - 0.5 cos(2 pi n / (M - 1)) + 0.08 cos(4 pi n / (M - 1))`.
pub fn blackman(m: usize) -> Tensor {
    window(m, |n, last| {
        0.42 - cosine(n, 1.0, last) * 0.5 + cosine(n, 2.0, last) * 0.08
    })
}

/// The Hamming window: `0.54 - 0.46 cos(2 pi n / (M - 1))`.
pub fn hamming(m: usize) -> Tensor {
    window(m, |n, last| 0.54 - cosine(n, 1.0, last) * 0.46)
}

/// The Hann window: `0.5 (1 - cos(2 pi n / (M - 1)))`.
pub fn hanning(m: usize) -> Tensor {
    window(m, |n, last| (1.0 - cosine(n, 1.0, last)) * 0.5)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_windows_are_ones() {
        assert_eq!(hamming(1).to_vec::<f32>(), vec![1.0]);
        assert_eq!(hanning(0).shape(), &[0]);
    }
}
