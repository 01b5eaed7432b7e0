//! `jax.numpy.fft` and complex numbers: the functions of [`oxla::numpy::fft`] and the
//! complex parts of [`oxla::numpy`], one row a golden case of
//! `scripts/surface/tables/fft.py`. Complex results are compared as their real and
//! imaginary parts, and complex inputs are made from two real inputs with `lax::complex`.
//!
//! The transforms run on the `fft` primitive (`rustfft`/`realfft`), whose f32 rounding
//! differs from XLA's (the f32 rows compare within `tol(1e-4, 1e-5)`).

use oxla::numpy::{self as jnp, fft};
use oxla::{lax, Tensor};

/// The real and imaginary parts of `z`.
fn ri(z: Tensor) -> Vec<Tensor> {
    vec![jnp::real(&z), jnp::imag(&z)]
}

/// `a[0] + i a[1]`.
fn z(a: &[Tensor]) -> Tensor {
    lax::complex(&a[0], &a[1])
}

surface! {
    fft_even [tol(1e-4, 1e-5)]: |a| ri(fft::fft(&a[0], None, -1, None));
    fft_pad_odd [tol(1e-4, 1e-5)]: |a| ri(fft::fft(&a[0], Some(7), -1, None));
    fft_truncate_axis0_ortho [tol(1e-4, 1e-5)]: |a| ri(fft::fft(&a[0], Some(4), 0, Some("ortho")));
    ifft_complex_forward [tol(1e-4, 1e-5)]: |a| ri(fft::ifft(z(a), None, -1, Some("forward")));
    ifft_complex [tol(1e-4, 1e-5)]: |a| ri(fft::ifft(z(a), None, -1, None));
    rfft_even [tol(1e-4, 1e-5)]: |a| ri(fft::rfft(&a[0], None, -1, None));
    rfft_odd_pad_ortho [tol(1e-4, 1e-5)]: |a| ri(fft::rfft(&a[0], Some(9), -1, Some("ortho")));
    irfft_default [tol(1e-4, 1e-5)]: |a| vec![fft::irfft(z(a), None, -1, None)];
    irfft_odd_forward [tol(1e-4, 1e-5)]: |a| vec![fft::irfft(z(a), Some(7), -1, Some("forward"))];
    irfft_truncate_axis0 [tol(1e-4, 1e-5)]: |a| vec![fft::irfft(z(a), Some(4), 0, None)];
    fft2_s [tol(1e-4, 1e-5)]: |a| ri(fft::fft2(&a[0], Some(&[3, 8]), [-2, -1], None));
    ifft2_complex [tol(1e-4, 1e-5)]: |a| ri(fft::ifft2(z(a), None, [-2, -1], None));
    rfft2 [tol(1e-4, 1e-5)]: |a| ri(fft::rfft2(&a[0], None, [-2, -1], None));
    irfft2_s [tol(1e-4, 1e-5)]: |a| vec![fft::irfft2(z(a), Some(&[4, 5]), [-2, -1], None)];
    fftn_axes_ortho [tol(1e-4, 1e-5)]: |a| ri(fft::fftn(&a[0], None, Some(&[0, 2]), Some("ortho")));
    ifftn_s [tol(1e-4, 1e-5)]: |a| ri(fft::ifftn(z(a), Some(&[5, 3]), None, None));
    rfftn [tol(1e-4, 1e-5)]: |a| ri(fft::rfftn(&a[0], None, None, None));
    irfftn_axes [tol(1e-4, 1e-5)]: |a| vec![fft::irfftn(z(a), None, Some(&[0, 2]), None)];
    hfft [tol(1e-4, 1e-5)]: |a| vec![fft::hfft(z(a), Some(6), -1, None)];
    ihfft_odd [tol(1e-4, 1e-5)]: |a| ri(fft::ihfft(&a[0], None, -1, None));
    fftfreq_rfftfreq: |a| vec![fft::fftfreq(7, 0.5) * &a[0], fft::rfftfreq(8, 1.0) * &a[1]];
    fftshift_ifftshift: |a| vec![fft::fftshift(&a[0], None), fft::ifftshift(&a[0], Some(&[0]))];
    complex_parts_abs [tol(1e-4, 1e-5)]: |a| {
        let z = z(a);
        let w = &z * &z - jnp::conj(&z) / (&z + 2.0);
        let e = jnp::real(jnp::exp(&z) * jnp::sqrt(&z));
        vec![jnp::real(&w), jnp::imag(&w), jnp::abs(&z), e]
    };
    complex_matmul_sum [tol(1e-4, 1e-5)]: |a| {
        let z = z(a);
        // complex64 as JAX's case has it; complex128 when the finite differences run in f64.
        let p = jnp::matmul(&z, jnp::astype(&a[2], a[2].dtype().complex_dtype()));
        ri(jnp::sum(&p, 0) + jnp::sum(&z, None))
    };
    rfft2_f64_forward: |a| ri(fft::rfft2(&a[0], None, [-2, -1], Some("forward")));
    irfftn_f64_3axes_odd: |a| vec![fft::irfftn(z(a), Some(&[2, 3, 7]), None, None)];
    fftn_4axes [tol(1e-4, 1e-5)]: |a| ri(fft::fftn(&a[0], None, None, None));
    ifftn_4axes_ortho [tol(1e-4, 1e-5)]: |a| ri(fft::ifftn(z(a), None, None, Some("ortho")));
    rfftn_4axes_odd [tol(1e-4, 1e-5)]: |a| ri(fft::rfftn(&a[0], None, None, None));
    irfftn_4axes_even [tol(1e-4, 1e-5)]: |a| vec![fft::irfftn(z(a), None, None, None)];
    fft_axis_middle_f64: |a| ri(fft::fft(&a[0], None, 1, Some("forward")));
    angle_complex_and_real [tol(1e-4, 1e-5)]: |a| vec![jnp::angle(z(a), false), jnp::angle(&a[0], true)];
}
