//! The transforms along one axis, as products with the transform's matrix (`dot_general`
//! with a constant): the complex DFT and its inverse, the real-input DFT (`rfft`) and the
//! real-output inverse (`irfft`). A length `n` other than the axis's pads with zeros or
//! truncates, folded into the matrix (its rows past the input's length are zero).

use num_complex::Complex;

use crate::array::DType;
use crate::core::Tensor;
use crate::numpy::astype;
use crate::ops as lax;

/// JAX's `norm` argument: which direction of the transform is scaled.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Norm {
    /// The inverse is scaled by `1/n` (the default).
    Backward,
    /// Both are scaled by `1/sqrt(n)`.
    Ortho,
    /// The forward transform is scaled by `1/n`.
    Forward,
}

impl Norm {
    /// The norm JAX names `name` (`None` is `"backward"`); any other name panics, naming
    /// the caller's line.
    #[track_caller]
    pub(super) fn parse(name: Option<&str>, what: &str) -> Norm {
        match name {
            None | Some("backward") => Norm::Backward,
            Some("ortho") => Norm::Ortho,
            Some("forward") => Norm::Forward,
            Some(other) => panic!(
                "jnp.fft.{what}: invalid norm value {other:?}; should be \"backward\", \
                 \"ortho\" or \"forward\"\n  at {}",
                std::panic::Location::caller()
            ),
        }
    }

    /// The other direction's norm (`hfft` is `irfft` with it).
    pub(super) fn swap(self) -> Norm {
        match self {
            Norm::Backward => Norm::Forward,
            Norm::Ortho => Norm::Ortho,
            Norm::Forward => Norm::Backward,
        }
    }

    /// The factor of a transform of length `n`, forward or `inverse`.
    fn scale(self, n: usize, inverse: bool) -> f64 {
        let n = n as f64;
        match (self, inverse) {
            (Norm::Ortho, _) => 1.0 / n.sqrt(),
            (Norm::Backward, true) | (Norm::Forward, false) => 1.0 / n,
            (Norm::Backward, false) | (Norm::Forward, true) => 1.0,
        }
    }
}

/// `x`'s dtype for a complex transform: its complex dtype (`complex64` for integers and
/// `float32`, `complex128` for `float64`).
pub(super) fn complex_of(x: &Tensor) -> Tensor {
    let d = x.dtype();
    let target = if d.is_complex() {
        d
    } else if d.is_float() {
        d.complex_dtype()
    } else {
        DType::F32.canonical().complex_dtype()
    };
    astype(x, target)
}

/// `x`'s real dtype for `rfft`: floats keep theirs, integers take the default float.
#[track_caller]
pub(super) fn float_of(x: &Tensor, what: &str) -> Tensor {
    let d = x.dtype();
    if d.is_complex() {
        panic!(
            "jnp.fft.{what} requires a real-valued input, got {}\n  at {}",
            x.aval(),
            std::panic::Location::caller()
        );
    }
    astype(x, if d.is_float() { d } else { DType::F32.canonical() })
}

/// The angle `sign * 2 pi j k / n`, reduced modulo `n` first for accuracy.
fn angle(j: usize, k: usize, n: usize, sign: f64) -> f64 {
    sign * 2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64
}

/// A constant complex matrix of `dtype` from its `f64` elements.
fn complex_matrix(v: Vec<Complex<f64>>, shape: &[usize], dtype: DType) -> Tensor {
    if dtype == DType::C128 {
        return Tensor::from_vec(v, shape);
    }
    let v = v
        .into_iter()
        .map(|z| Complex::new(z.re as f32, z.im as f32))
        .collect();
    Tensor::from_vec(v, shape)
}

/// A constant real matrix of `dtype` from its `f64` elements.
fn real_matrix(v: Vec<f64>, shape: &[usize], dtype: DType) -> Tensor {
    if dtype == DType::F64 {
        return Tensor::from_vec(v, shape);
    }
    Tensor::from_vec(v.into_iter().map(|x| x as f32).collect(), shape)
}

/// `x` (contracted on `axis`) times the `len x m` matrix `w`, the new axis put at `axis`.
fn apply(x: &Tensor, axis: usize, w: &Tensor) -> Tensor {
    let y = lax::dot_general(x, w, (&[axis], &[0]), (&[], &[]), None);
    let last = y.ndim() - 1;
    let mut perm: Vec<usize> = (0..last).collect();
    perm.insert(axis, last);
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        y
    } else {
        lax::transpose(&y, &perm)
    }
}

/// The complex DFT (or its inverse) of complex `x` along `axis`, of length `n`.
pub(super) fn fft(x: &Tensor, axis: usize, n: usize, inverse: bool, norm: Norm) -> Tensor {
    let len = x.shape()[axis];
    let sign = if inverse { 1.0 } else { -1.0 };
    let s = norm.scale(n, inverse);
    let mut w = vec![Complex::new(0.0, 0.0); len * n];
    for j in 0..len.min(n) {
        for k in 0..n {
            w[j * n + k] = Complex::from_polar(s, angle(j, k, n, sign));
        }
    }
    apply(x, axis, &complex_matrix(w, &[len, n], x.dtype()))
}

/// The DFT of real `x` along `axis`, of length `n`: its `n / 2 + 1` non-negative
/// frequencies.
pub(super) fn rfft(x: &Tensor, axis: usize, n: usize, norm: Norm) -> Tensor {
    let len = x.shape()[axis];
    let m = n / 2 + 1;
    let s = norm.scale(n, false);
    let mut w = vec![Complex::new(0.0, 0.0); len * m];
    for j in 0..len.min(n) {
        for k in 0..m {
            w[j * m + k] = Complex::from_polar(s, angle(j, k, n, -1.0));
        }
    }
    let z = complex_of(x);
    apply(&z, axis, &complex_matrix(w, &[len, m], z.dtype()))
}

/// The real signal of length `n` whose non-negative frequencies are complex `x` along
/// `axis` (the inverse of [`rfft`]): the imaginary parts of the zero frequency and, for
/// even `n`, of the Nyquist frequency are ignored, as in numpy and JAX.
pub(super) fn irfft(x: &Tensor, axis: usize, n: usize, norm: Norm) -> Tensor {
    let len = x.shape()[axis];
    let m = len.min(n / 2 + 1);
    let s = norm.scale(n, true);
    let (mut c, mut d) = (vec![0.0; len * n], vec![0.0; len * n]);
    for k in 0..m {
        // Each frequency but 0 and n/2 stands for itself and its conjugate.
        let twice = if k == 0 || 2 * k == n { 1.0 } else { 2.0 };
        for t in 0..n {
            let a = angle(k, t, n, 1.0);
            c[k * n + t] = twice * s * a.cos();
            d[k * n + t] = -twice * s * a.sin();
        }
    }
    let real = x.dtype().real_dtype();
    let re = apply(&lax::real(x), axis, &real_matrix(c, &[len, n], real));
    let im = apply(&lax::imag(x), axis, &real_matrix(d, &[len, n], real));
    lax::add(&re, &im)
}
