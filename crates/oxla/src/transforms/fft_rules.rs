//! The transpose rules of `fft`, as JAX's: `FFT` and `IFFT` are their own transposes (the
//! transform's matrix is symmetric), `RFFT`'s is the real part of the `FFT` of the
//! cotangent zero-padded to the full last length, and `IRFFT`'s is the conjugate of the
//! `RFFT` of the cotangent with the frequencies that stand for two doubled, scaled by
//! `1 / n` (JAX's convention for complex cotangents).

use crate::core::Tensor;
use crate::numpy::scalar_tensor;
use crate::ops as lax;
use crate::prims::FftType;

/// The cotangent of `fft`'s operand for the cotangent `ct` of its result.
pub(super) fn transpose(fft_type: FftType, fft_lengths: &[usize], ct: &Tensor) -> Tensor {
    let last = *fft_lengths.last().expect("1 to 3 lengths");
    let nd = ct.ndim();
    match fft_type {
        FftType::Fft | FftType::Ifft => lax::fft(ct, fft_type, fft_lengths),
        FftType::Rfft => {
            let mut config = vec![(0i64, 0i64, 0i64); nd];
            config[nd - 1].1 = (last - ct.shape()[nd - 1]) as i64;
            let zero = scalar_tensor(0.0, ct.dtype());
            let full = lax::pad(ct, &zero, &config);
            lax::real(&lax::fft(&full, FftType::Fft, fft_lengths))
        }
        FftType::Irfft => {
            let x = lax::fft(ct, FftType::Rfft, fft_lengths);
            let half = x.shape()[nd - 1];
            let total: usize = fft_lengths.iter().product();
            let scale = 1.0 / total as f64;
            // Each frequency but the zero and (for an even length) the Nyquist one stands
            // for itself and its conjugate.
            let mask: Vec<f64> = (0..half)
                .map(|k| {
                    if k == 0 || (last.is_multiple_of(2) && k == half - 1) {
                        scale
                    } else {
                        2.0 * scale
                    }
                })
                .collect();
            let mask = lax::convert_element_type(&Tensor::from_vec(mask, &[half]), x.dtype());
            let mask = lax::broadcast_in_dim(&mask, x.shape(), &[nd - 1]);
            lax::conj(&lax::mul(&mask, &x))
        }
    }
}
