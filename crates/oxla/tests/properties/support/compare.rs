//! Comparisons of results with the reference (bitwise, in ulps, as values, within a
//! tolerance), and `jit`: a function run eagerly, traced and compiled, all three compared.

use std::fmt::Debug;

use oxla::array::Elem;
use oxla::{eval_jaxpr, make_jaxpr, DType, Tensor};

use super::{same_v, values};

/// Equality of elements: bitwise, except that all NaNs are one value.
pub trait Same: Elem {
    fn same(self, o: Self) -> bool;
}
impl Same for f32 {
    fn same(self, o: f32) -> bool {
        self.to_bits() == o.to_bits() || (self.is_nan() && o.is_nan())
    }
}
impl Same for f64 {
    fn same(self, o: f64) -> bool {
        self.to_bits() == o.to_bits() || (self.is_nan() && o.is_nan())
    }
}
macro_rules! same_eq {
    ($($t:ty),*) => {$(impl Same for $t { fn same(self, o: $t) -> bool { self == o } })*};
}
same_eq!(i32, u32, bool);

/// Distance in units in the last place, for the float types.
pub trait Ulps: Same {
    /// Whether `exp`, `log`, `tanh` and `logistic` of this type are oxla's polynomials
    /// (within a few ulp) rather than the C library's functions.
    const POLYNOMIAL: bool;
    fn ulps(self, o: Self) -> u64;
}
macro_rules! ulps {
    ($t:ty, $poly:expr, $sign:expr) => {
        impl Ulps for $t {
            const POLYNOMIAL: bool = $poly;
            fn ulps(self, o: $t) -> u64 {
                if self.same(o) || self == o {
                    return 0;
                }
                if self.is_nan() || o.is_nan() {
                    return u64::MAX;
                }
                // Bit patterns in the order of the values they encode.
                let key = |v: $t| {
                    let b = v.to_bits() as i128;
                    if b < $sign {
                        b
                    } else {
                        $sign - b
                    }
                };
                (key(self) - key(o)).unsigned_abs() as u64
            }
        }
    };
}
ulps!(f32, true, 1i128 << 31);
ulps!(f64, false, 1i128 << 63);

/// `got` within `max` ulp of `want` elementwise.
#[track_caller]
pub fn expect_ulps<T: Ulps>(got: &Tensor, want: &[T], shape: &[usize], max: u64, ctx: &dyn Debug) {
    assert_eq!(got.shape(), shape, "shape, {ctx:?}");
    let g = got.to_vec::<T>();
    if let Some(i) = (0..g.len()).find(|&i| g[i].ulps(want[i]) > max) {
        panic!(
            "{ctx:?}: element {i}: got {:?}, want {:?} (more than {max} ulp)",
            g[i], want[i]
        );
    }
}

#[track_caller]
pub fn check<T: Same>(
    got: &Tensor,
    want: &[T],
    shape: &[usize],
    loose_zero: bool,
    ctx: &dyn Debug,
) {
    assert_eq!(got.dtype(), T::DTYPE, "dtype, {ctx:?}");
    assert_eq!(got.shape(), shape, "shape, {ctx:?}");
    let g = got.to_vec::<T>();
    assert_eq!(g.len(), want.len(), "element count, {ctx:?}");
    if let Some(i) =
        (0..g.len()).find(|&i| !(g[i].same(want[i]) || (loose_zero && g[i] == want[i])))
    {
        panic!(
            "{ctx:?}: element {i}: got {:?}, want {:?}\n  got  {g:?}\n  want {want:?}",
            g[i], want[i]
        );
    }
}

/// `got` holds exactly `want` (bitwise; NaNs of any payload equal).
#[track_caller]
pub fn expect<T: Same>(got: &Tensor, want: &[T], shape: &[usize], ctx: &dyn Debug) {
    check(got, want, shape, false, ctx)
}

/// `got` (any dtype) equals `want` as `f64` values (NaN equals NaN, `0.0 == -0.0`); `None`
/// entries are not compared.
#[track_caller]
pub fn expect_values(
    got: &Tensor,
    dtype: DType,
    want: &[Option<f64>],
    shape: &[usize],
    ctx: &dyn Debug,
) {
    assert_eq!(got.dtype(), dtype, "dtype, {ctx:?}");
    assert_eq!(got.shape(), shape, "shape, {ctx:?}");
    let g = got.array().to_f64_vec();
    assert_eq!(g.len(), want.len(), "element count, {ctx:?}");
    for (i, w) in want.iter().enumerate() {
        if let Some(w) = *w {
            assert!(
                g[i] == w || (g[i].is_nan() && w.is_nan()),
                "{ctx:?}: element {i}: got {}, want {w}\n  got  {g:?}\n  want {want:?}",
                g[i]
            );
        }
    }
}

/// `got` is within `tol * (1 + scale)` of `want`, element by element.
#[track_caller]
pub fn expect_close(
    got: &Tensor,
    want: &[f64],
    scale: &[f64],
    shape: &[usize],
    tol: f64,
    ctx: &dyn Debug,
) {
    assert_eq!(got.shape(), shape, "shape, {ctx:?}");
    let g = got.array().to_f64_vec();
    for i in 0..g.len() {
        assert!(
            (g[i] - want[i]).abs() <= tol * (1.0 + scale[i]),
            "{ctx:?}: element {i}: got {}, want {}",
            g[i],
            want[i]
        );
    }
}

#[track_caller]
pub fn assert_bitwise(got: &Tensor, want: &Tensor, ctx: &dyn Debug) {
    assert_eq!(got.aval(), want.aval(), "aval, {ctx:?}");
    assert!(
        got.array().as_bytes() == want.array().as_bytes(),
        "{ctx:?}: eval_jaxpr gave {got:?}, eager gave {want:?}"
    );
}

/// Runs `f` eagerly and through the reference evaluator (`eval_jaxpr(make_jaxpr(f))`),
/// asserts the two agree bitwise, and returns the eager results.
#[track_caller]
pub fn jit_many(f: impl Fn(&[Tensor]) -> Vec<Tensor>, args: &[Tensor]) -> Vec<Tensor> {
    let eager = f(args);
    let jaxpr = make_jaxpr(|xs: Vec<Tensor>| f(&xs), args.to_vec());
    let staged = eval_jaxpr(&jaxpr, args);
    assert_eq!(staged.len(), eager.len(), "number of results");
    for (i, (s, e)) in staged.iter().zip(&eager).enumerate() {
        assert!(e.try_array().is_some(), "eager result {i} is concrete");
        assert_bitwise(s, e, &format_args!("result {i} of\n{jaxpr}"));
    }
    // Compiled with fused kernels: equal, up to the order of float sums.
    let compiled = oxla::jit(|xs: Vec<Tensor>| f(&xs))
        .call(args.to_vec())
        .expect("compiles");
    for (i, (c, e)) in compiled.iter().zip(&eager).enumerate() {
        assert_eq!(c.aval(), e.aval(), "jit result {i} of\n{jaxpr}");
        let (cv, ev) = (c.array().to_f64_vec(), e.array().to_f64_vec());
        for (a, b) in cv.iter().zip(&ev) {
            let same = a == b
                || (a.is_nan() && b.is_nan())
                || (e.dtype().is_float() && (a - b).abs() <= 1e-4 * (1.0 + b.abs()));
            assert!(same, "jit result {i}: {a} vs eager {b} in\n{jaxpr}");
        }
    }
    eager
}

/// [`jit_many`] of a function with one result.
#[track_caller]
pub fn jit(f: impl Fn(&[Tensor]) -> Tensor, args: &[Tensor]) -> Tensor {
    jit_many(|xs| vec![f(xs)], args).pop().expect("one result")
}

/// `want` (row-major positions into `x`) gathered from `x`, bitwise.
#[track_caller]
pub fn expect_gathered(got: &Tensor, x: &Tensor, src: &[usize], shape: &[usize], ctx: &dyn Debug) {
    let xv = values(x);
    assert_eq!(got.dtype(), x.dtype(), "dtype, {ctx:?}");
    assert_eq!(got.shape(), shape, "shape, {ctx:?}");
    let g = values(got);
    assert_eq!(g.len(), src.len(), "element count, {ctx:?}");
    for (i, &p) in src.iter().enumerate() {
        assert!(
            same_v(g[i], xv[p]),
            "{ctx:?}: element {i}: got {:?}, want {:?} (operand element {p})",
            g[i],
            xv[p]
        );
    }
}
