//! `fft`: the discrete Fourier transform over the trailing one to three axes, as JAX's
//! `lax.fft_p` — the complex transform and its inverse, the real-input transform (its
//! `n / 2 + 1` non-negative frequencies on the last axis) and the real-output inverse.
//! Executed with `rustfft` (complex) and `realfft` (real), planned once per call, in
//! parallel over the leading (batch) elements.

use std::sync::Arc;

use num_complex::Complex;
use rayon::prelude::*;
use realfft::{RealFftPlanner, RealToComplex};
use rustfft::{Fft, FftNum, FftPlanner};

use super::arity;
use super::view::new_array;
use crate::array::{Array, Aval, DType, Elem};

/// Which transform `fft` computes (JAX's `lax.FftType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FftType {
    /// The complex forward transform.
    Fft,
    /// The complex inverse transform, scaled by `1 / n`.
    Ifft,
    /// The forward transform of a real operand: the non-negative frequencies of the last
    /// axis.
    Rfft,
    /// The inverse of [`FftType::Rfft`], scaled by `1 / n`: a real result.
    Irfft,
}

impl FftType {
    /// The name JAX prints (`FftType.RFFT`).
    pub fn name(self) -> &'static str {
        match self {
            FftType::Fft => "FftType.FFT",
            FftType::Ifft => "FftType.IFFT",
            FftType::Rfft => "FftType.RFFT",
            FftType::Irfft => "FftType.IRFFT",
        }
    }
}

/// The shape rule: `x`'s trailing axes are `fft_lengths` (the last one `n / 2 + 1` for
/// `IRFFT`), the dtype complex (a float for `RFFT`).
pub(crate) fn fft_rule(
    fft_type: FftType,
    fft_lengths: &[usize],
    inputs: &[Aval],
) -> Result<Vec<Aval>, String> {
    arity(inputs, 1)?;
    let x = &inputs[0];
    let k = fft_lengths.len();
    if !(1..=3).contains(&k) || x.ndim() < k {
        return Err(format!(
            "fft_lengths {fft_lengths:?} must name 1 to 3 trailing axes of {x}"
        ));
    }
    let lead = x.ndim() - k;
    let mut shape = x.shape.to_vec();
    let (want_real, dtype) = match fft_type {
        FftType::Fft | FftType::Ifft => (false, x.dtype),
        FftType::Rfft => (true, x.dtype.complex_dtype()),
        FftType::Irfft => (false, x.dtype.real_dtype()),
    };
    let ok_dtype = if want_real {
        matches!(x.dtype, DType::F32 | DType::F64)
    } else {
        x.dtype.is_complex()
    };
    if !ok_dtype {
        return Err(format!(
            "{} takes a {} operand, got {x}",
            fft_type.name(),
            if want_real {
                "float32 or float64"
            } else {
                "complex"
            }
        ));
    }
    let mut expect = fft_lengths.to_vec();
    if fft_type == FftType::Irfft {
        expect[k - 1] = fft_lengths[k - 1] / 2 + 1;
    }
    if x.shape[lead..] != expect[..] {
        return Err(format!(
            "{} with fft_lengths {fft_lengths:?} needs trailing axes {expect:?}, got {x}",
            fft_type.name()
        ));
    }
    match fft_type {
        FftType::Rfft => shape[x.ndim() - 1] = fft_lengths[k - 1] / 2 + 1,
        FftType::Irfft => shape[x.ndim() - 1] = fft_lengths[k - 1],
        FftType::Fft | FftType::Ifft => {}
    }
    Ok(vec![Aval::new(dtype, &shape)])
}

/// The bytes the kernel holds beyond its operand and result: each thread's copy of one
/// batch element and the planners' scratch (bounded by a few elements' worth).
pub(crate) fn scratch_bytes(fft_lengths: &[usize], inputs: &[Aval]) -> usize {
    let complex = inputs[0].dtype.real_dtype().size() * 2;
    let element: usize = fft_lengths.iter().map(|&n| n / 2 + 1).product::<usize>() * 2 * complex;
    element * 3 * rayon::current_num_threads()
}

/// The planned one-axis transforms of one call.
struct Plans<T: FftNum> {
    /// The complex transforms of the axes but the last (and of the last for FFT/IFFT).
    axes: Vec<Arc<dyn Fft<T>>>,
    /// The real transform of the last axis (RFFT/IRFFT).
    real: Option<Arc<dyn RealToComplex<T>>>,
    real_inverse: Option<Arc<dyn realfft::ComplexToReal<T>>>,
}

/// The transform of one batch element in place over `buf`, a complex array of the trailing
/// `dims` (row-major); `col` is a buffer for one axis's lines and `scratch` the
/// transforms' own.
fn complex_axes<T: FftNum>(
    plans: &[Arc<dyn Fft<T>>],
    dims: &[usize],
    buf: &mut [Complex<T>],
    col: &mut Vec<Complex<T>>,
    scratch: &mut Vec<Complex<T>>,
) {
    for (ax, plan) in plans.iter().enumerate().rev() {
        let n = dims[ax];
        let inner: usize = dims[ax + 1..].iter().product();
        let need = plan.get_inplace_scratch_len();
        if scratch.len() < need {
            scratch.resize(need, Complex::new(T::zero(), T::zero()));
        }
        if inner == 1 {
            plan.process_with_scratch(buf, &mut scratch[..need]);
            continue;
        }
        // The lines of `ax` gathered a strip of columns at a time into rows of `col`, `ld`
        // apart, transformed, and scattered back: the strip stays in cache throughout.
        let ld = padded(n, std::mem::size_of::<Complex<T>>());
        col.resize(ld * STRIP, Complex::new(T::zero(), T::zero()));
        for block in buf.chunks_exact_mut(n * inner) {
            for c0 in (0..inner).step_by(STRIP) {
                let w = STRIP.min(inner - c0);
                for (r, row) in block.chunks_exact(inner).enumerate() {
                    for (c, &v) in row[c0..c0 + w].iter().enumerate() {
                        col[c * ld + r] = v;
                    }
                }
                for line in col.chunks_exact_mut(ld).take(w) {
                    plan.process_with_scratch(&mut line[..n], &mut scratch[..need]);
                }
                for (r, row) in block.chunks_exact_mut(inner).enumerate() {
                    for (c, v) in row[c0..c0 + w].iter_mut().enumerate() {
                        *v = col[c * ld + r];
                    }
                }
            }
        }
    }
}

/// Lines of one axis that [`complex_axes`] transforms together.
const STRIP: usize = 16;

/// The distance between gathered lines of `n` elements of `size` bytes: `n`, or one cache
/// line more when the lines' length is a multiple of 512 bytes — then the lines of a strip
/// would share a few cache sets, and writing across them would evict their own lines.
fn padded(n: usize, size: usize) -> usize {
    if (n * size).is_multiple_of(512) {
        n + 64 / size
    } else {
        n
    }
}

/// Each thread's buffers: one axis's lines, the transforms' scratch, one real line and one
/// complex element.
type Bufs<T> = (Vec<Complex<T>>, Vec<Complex<T>>, Vec<T>, Vec<Complex<T>>);

/// The transform of `x` over its trailing `lengths`, for one part type.
fn run<T>(x: &Array, fft_type: FftType, lengths: &[usize], out_shape: &[usize]) -> Array
where
    T: FftNum + Elem,
    Complex<T>: Elem,
{
    let k = lengths.len();
    let last = lengths[k - 1];
    let half = last / 2 + 1;
    let inverse = matches!(fft_type, FftType::Ifft | FftType::Irfft);
    let mut planner = FftPlanner::<T>::new();
    let mut real_planner = RealFftPlanner::<T>::new();
    let complex_axes_count = if matches!(fft_type, FftType::Fft | FftType::Ifft) {
        k
    } else {
        k - 1
    };
    let plans = Plans {
        axes: lengths[..complex_axes_count]
            .iter()
            .map(|&n| {
                if inverse {
                    planner.plan_fft_inverse(n)
                } else {
                    planner.plan_fft_forward(n)
                }
            })
            .collect(),
        real: (fft_type == FftType::Rfft).then(|| real_planner.plan_fft_forward(last)),
        real_inverse: (fft_type == FftType::Irfft).then(|| real_planner.plan_fft_inverse(last)),
    };
    let total: usize = lengths.iter().product();
    let scale = <T as Elem>::from_f64(1.0 / total as f64);
    // The complex shape of one element, with the last axis halved for the real types.
    let mut cdims = lengths.to_vec();
    if matches!(fft_type, FftType::Rfft | FftType::Irfft) {
        cdims[k - 1] = half;
    }
    let in_len: usize = x.shape()[x.ndim() - k..].iter().product();
    let out_len: usize = out_shape[out_shape.len() - k..].iter().product();
    let zero = Complex::new(T::zero(), T::zero());
    let init = Bufs::<T>::default;
    match fft_type {
        FftType::Fft | FftType::Ifft => {
            let src = x.as_slice::<Complex<T>>();
            new_array::<Complex<T>>(out_shape, |out| {
                out.copy_from_slice(src);
                out.par_chunks_mut(out_len.max(1)).for_each_init(
                    init,
                    |(col, scratch, _, _), el| {
                        complex_axes(&plans.axes, &cdims, el, col, scratch);
                        if inverse {
                            el.iter_mut().for_each(|v| *v = *v * scale);
                        }
                    },
                );
            })
        }
        FftType::Rfft => {
            let src = x.as_slice::<T>();
            let real = plans.real.as_ref().expect("planned");
            new_array::<Complex<T>>(out_shape, |out| {
                out.par_chunks_mut(out_len.max(1))
                    .zip(src.par_chunks(in_len.max(1)))
                    .for_each_init(init, |(col, scratch, line, _), (el, xs)| {
                        line.resize(last, T::zero());
                        let need = real.get_scratch_len();
                        scratch.resize(scratch.len().max(need), zero);
                        for (row, orow) in xs.chunks_exact(last).zip(el.chunks_exact_mut(half)) {
                            line.copy_from_slice(row);
                            real.process_with_scratch(line, orow, &mut scratch[..need])
                                .expect("lengths match the plan");
                        }
                        complex_axes(&plans.axes, &cdims, el, col, scratch);
                    });
            })
        }
        FftType::Irfft => {
            let src = x.as_slice::<Complex<T>>();
            let real = plans.real_inverse.as_ref().expect("planned");
            new_array::<T>(out_shape, |out| {
                out.par_chunks_mut(out_len.max(1))
                    .zip(src.par_chunks(in_len.max(1)))
                    .for_each_init(init, |(col, scratch, _, el), (orow_all, xs)| {
                        el.clear();
                        el.extend_from_slice(xs);
                        complex_axes(&plans.axes, &cdims, el, col, scratch);
                        let need = real.get_scratch_len();
                        scratch.resize(scratch.len().max(need), zero);
                        for (row, orow) in el
                            .chunks_exact_mut(half)
                            .zip(orow_all.chunks_exact_mut(last))
                        {
                            // The imaginary parts of the zero and Nyquist frequencies are
                            // ignored, as in JAX.
                            row[0].im = T::zero();
                            if last.is_multiple_of(2) {
                                row[half - 1].im = T::zero();
                            }
                            real.process_with_scratch(row, orow, &mut scratch[..need])
                                .expect("lengths match the plan");
                            orow.iter_mut().for_each(|v| *v = *v * scale);
                        }
                    });
            })
        }
    }
}

/// The eager kernel of `fft`.
pub(crate) fn fft(x: &Array, fft_type: FftType, fft_lengths: &[usize]) -> Array {
    let aval = Aval::new(x.dtype(), x.shape());
    let out = fft_rule(fft_type, fft_lengths, &[aval])
        .unwrap_or_else(|e| panic!("fft: {e}"))
        .remove(0);
    if out.size() == 0 || x.size() == 0 {
        return Array::zeros(out.dtype, &out.shape);
    }
    if x.dtype().real_dtype() == DType::F64 {
        run::<f64>(x, fft_type, fft_lengths, &out.shape)
    } else {
        run::<f32>(x, fft_type, fft_lengths, &out.shape)
    }
}
