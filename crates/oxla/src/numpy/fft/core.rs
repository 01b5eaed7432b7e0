//! The core of every `jnp.fft` transform, as JAX's `_fft_core`: the operand converted to
//! the transform's dtype, the axes moved last, cropped or zero-padded to the lengths `s`,
//! transformed by the `fft` primitive (at most three axes at a time), scaled by `norm` and
//! the axes moved back.

use crate::array::DType;
use crate::core::Tensor;
use crate::numpy::{astype, scalar_tensor};
use crate::ops as lax;
use crate::prims::FftType;

use super::super::shape::axis as resolve;

/// JAX's `norm` argument: which direction of the transform is scaled.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Norm {
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
    fn parse(name: Option<&str>, what: &str) -> Norm {
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

    /// The factor JAX's `_fft_norm` multiplies the transform of `total` points by; the
    /// functions whose name starts with `i` are the inverse ones (the primitive has scaled
    /// those by `1/n` already).
    fn factor(self, total: f64, what: &str) -> f64 {
        let inverse = what.starts_with('i');
        match (self, inverse) {
            (Norm::Backward, _) => 1.0,
            (Norm::Ortho, true) => total.sqrt(),
            (Norm::Ortho, false) => 1.0 / total.sqrt(),
            (Norm::Forward, true) => total,
            (Norm::Forward, false) => 1.0 / total,
        }
    }
}

/// `x` in the dtype the transform takes: a float for `RFFT` (integers take the default
/// float; complex operands panic), a complex dtype otherwise.
#[track_caller]
fn operand(x: &Tensor, fft_type: FftType, what: &str) -> Tensor {
    let d = x.dtype();
    if fft_type == FftType::Rfft {
        if d.is_complex() {
            panic!(
                "jnp.fft.{what} requires a real-valued input, got {}\n  at {}",
                x.aval(),
                std::panic::Location::caller()
            );
        }
        return astype(
            x,
            if d.is_float() {
                d
            } else {
                DType::F32.canonical()
            },
        );
    }
    let target = if d.is_complex() {
        d
    } else if d.is_float() {
        d.complex_dtype()
    } else {
        DType::F32.canonical().complex_dtype()
    };
    astype(x, target)
}

/// The resolved `axes` (default the last `s.len()` axes, or all), checked distinct and
/// as many as `s`.
#[track_caller]
fn resolve_axes(x: &Tensor, s: Option<&[usize]>, axes: Option<&[isize]>, what: &str) -> Vec<usize> {
    let at = std::panic::Location::caller();
    let nd = x.ndim() as isize;
    let axes: Vec<isize> = match (axes, s) {
        (Some(a), _) => a.to_vec(),
        (None, Some(s)) => (nd - s.len() as isize..nd).collect(),
        (None, None) => (0..nd).collect(),
    };
    if let Some(s) = s.filter(|s| s.len() != axes.len()) {
        panic!("jnp.fft.{what}: shape s {s:?} and axes {axes:?} have different lengths\n  at {at}");
    }
    let resolved: Vec<usize> = axes
        .iter()
        .map(|&a| resolve(a, x.ndim(), &format!("jnp.fft.{what}")))
        .collect();
    for (i, a) in resolved.iter().enumerate() {
        if resolved[..i].contains(a) {
            panic!("jnp.fft.{what} does not support repeated axes; got axes {axes:?}\n  at {at}");
        }
    }
    resolved
}

/// `x` with its axes `from` moved to the positions `to` (as `jnp.moveaxis`).
fn moveaxes(x: &Tensor, from: &[usize], to: &[usize]) -> Tensor {
    let nd = x.ndim();
    let mut perm: Vec<Option<usize>> = vec![None; nd];
    for (&f, &t) in from.iter().zip(to) {
        perm[t] = Some(f);
    }
    let mut rest = (0..nd).filter(|d| !from.contains(d));
    let perm: Vec<usize> = perm
        .into_iter()
        .map(|p| p.unwrap_or_else(|| rest.next().expect("one axis per slot")))
        .collect();
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        x.clone()
    } else {
        lax::transpose(x, &perm)
    }
}

/// The transform of `x` over its trailing `s.len()` axes, at most three at a time, as
/// JAX's `_fft_core_nd`.
fn core_nd(x: &Tensor, fft_type: FftType, s: &[usize]) -> Tensor {
    if s.len() <= 3 {
        return lax::fft(x, fft_type, s);
    }
    let (nd, k) = (x.ndim(), s.len());
    let n = if k == 4 { 2 } else { 3 };
    let src: Vec<usize> = (nd - k..nd - n).collect();
    let dst: Vec<usize> = (nd - k + n..nd).collect();
    if matches!(fft_type, FftType::Rfft | FftType::Fft) {
        let y = moveaxes(&lax::fft(x, fft_type, &s[k - n..]), &src, &dst);
        moveaxes(&core_nd(&y, FftType::Fft, &s[..k - n]), &dst, &src)
    } else {
        let y = core_nd(&moveaxes(x, &src, &dst), FftType::Ifft, &s[..k - n]);
        lax::fft(&moveaxes(&y, &dst, &src), fft_type, &s[k - n..])
    }
}

/// JAX's `_fft_core`: the transform `fft_type` of `a` over `axes`, of lengths `s`, scaled
/// by `norm`, for the `jnp.fft` function `what`.
#[track_caller]
pub(super) fn fft_core(
    a: &Tensor,
    fft_type: FftType,
    s: Option<&[usize]>,
    axes: Option<&[isize]>,
    norm: Option<&str>,
    what: &str,
) -> Tensor {
    let at = std::panic::Location::caller();
    let x = operand(a, fft_type, what);
    let norm = Norm::parse(norm, what);
    if let Some(s) = s.filter(|s| s.contains(&0)) {
        panic!("jnp.fft.{what}: shape s {s:?} should be positive\n  at {at}");
    }
    let orig = resolve_axes(&x, s, axes, what);
    let nd = x.ndim();
    let k = orig.len();
    if k == 0 {
        return x;
    }
    let trailing: Vec<usize> = (nd - k..nd).collect();
    let mut x = moveaxes(&x, &orig, &trailing);
    let s: Vec<usize> = match s {
        Some(s) => {
            let mut in_s = s.to_vec();
            if fft_type == FftType::Irfft {
                in_s[k - 1] = in_s[k - 1] / 2 + 1;
            }
            for (i, &want) in in_s.iter().enumerate() {
                let ax = nd - k + i;
                let have = x.shape()[ax];
                if want < have {
                    let mut limit = x.shape().to_vec();
                    limit[ax] = want;
                    x = lax::slice(&x, &vec![0; nd], &limit, None);
                } else if want > have {
                    let mut config = vec![(0i64, 0i64, 0i64); nd];
                    config[ax].1 = (want - have) as i64;
                    x = lax::pad(&x, &scalar_tensor(0.0, x.dtype()), &config);
                }
            }
            s.to_vec()
        }
        None => {
            let mut s: Vec<usize> = x.shape()[nd - k..].to_vec();
            if fft_type == FftType::Irfft {
                s[k - 1] = 2 * s[k - 1].saturating_sub(1);
            }
            s
        }
    };
    if s.contains(&0) {
        panic!(
            "jnp.fft.{what}: invalid number of data points {s:?} for the axes {orig:?} of \
             {}\n  at {at}",
            a.aval()
        );
    }
    let mut y = core_nd(&x, fft_type, &s);
    let factor = norm.factor(s.iter().map(|&n| n as f64).product(), what);
    if factor != 1.0 {
        let f = lax::broadcast_in_dim(&scalar_tensor(factor, y.dtype()), y.shape(), &[]);
        y = lax::mul(&y, &f);
    }
    moveaxes(&y, &trailing, &orig)
}
