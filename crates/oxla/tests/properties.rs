//! Property tests: every primitive and numpy function against a naive per-element reference
//! over random shapes (size-0 dimensions included), axes and values; and for each, the
//! reference evaluator (`eval_jaxpr` of `make_jaxpr`) against eager execution, bitwise.

use std::fmt::Debug;
use std::panic::AssertUnwindSafe;
use std::slice::from_ref;

use oxla::array::Elem;
use oxla::numpy::{self as jnp, s, IndexItem};
use oxla::prims::{ArgOp, BinaryOp, GatherDims, GatherMode, ReduceOp, ScatterDims, UnaryOp};
use oxla::{eval_jaxpr, lax, make_jaxpr, DType, Tensor};
use proptest::prelude::*;
use proptest::sample::{select, subsequence};

const CASES: u32 = 256;

/// `cases` random cases, failures not persisted to files.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}
const ALL_DTYPES: [DType; 5] = [DType::Bool, DType::I32, DType::U32, DType::F32, DType::F64];

// ---------------------------------------------------------------------------------------------
// Index arithmetic of the reference.

fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

fn strides(shape: &[usize]) -> Vec<usize> {
    let mut st = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        st[i] = st[i + 1] * shape[i + 1];
    }
    st
}

fn flat(idx: &[usize], shape: &[usize]) -> usize {
    idx.iter().zip(strides(shape)).map(|(i, s)| i * s).sum()
}

/// Every multi-index of `shape`, row-major.
fn indices(shape: &[usize]) -> Vec<Vec<usize>> {
    (0..numel(shape))
        .map(|mut i| {
            let mut idx = vec![0; shape.len()];
            for d in (0..shape.len()).rev() {
                idx[d] = i % shape[d];
                i /= shape[d];
            }
            idx
        })
        .collect()
}

/// A small deterministic generator for structured cases (axes, permutations, dimension
/// numbers); proptest draws its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as usize) as i64
    }
    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
    fn shape(&mut self, max_rank: usize, lo: usize, hi: usize) -> Vec<usize> {
        let r = self.below(max_rank + 1);
        (0..r)
            .map(|_| self.range(lo as i64, hi as i64) as usize)
            .collect()
    }
    fn perm(&mut self, n: usize) -> Vec<usize> {
        let mut p: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            p.swap(i, self.below(i + 1));
        }
        p
    }
    /// A random sorted subset of `0..n`.
    fn subset(&mut self, n: usize) -> Vec<usize> {
        (0..n).filter(|_| self.coin()).collect()
    }
    /// A random sorted subset of `0..n` with exactly `k` elements.
    fn choose(&mut self, n: usize, k: usize) -> Vec<usize> {
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
    fn tensor(&mut self, dtype: DType, shape: &[usize]) -> Tensor {
        let n = numel(shape);
        match dtype {
            DType::Bool => Tensor::from_vec((0..n).map(|_| self.coin()).collect(), shape),
            DType::I32 => Tensor::from_vec((0..n).map(|_| self.small_i32()).collect(), shape),
            DType::U32 => {
                Tensor::from_vec((0..n).map(|_| self.range(0, 20) as u32).collect(), shape)
            }
            DType::F32 => Tensor::from_vec((0..n).map(|_| self.f32_grid()).collect(), shape),
            DType::F64 => Tensor::from_vec((0..n).map(|_| self.f32_grid() as f64).collect(), shape),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Comparisons.

/// Equality of elements: bitwise, except that all NaNs are one value.
trait Same: Elem {
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
trait Ulps: Same {
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
fn expect_ulps<T: Ulps>(got: &Tensor, want: &[T], shape: &[usize], max: u64, ctx: &dyn Debug) {
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
fn check<T: Same>(got: &Tensor, want: &[T], shape: &[usize], loose_zero: bool, ctx: &dyn Debug) {
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
fn expect<T: Same>(got: &Tensor, want: &[T], shape: &[usize], ctx: &dyn Debug) {
    check(got, want, shape, false, ctx)
}

/// `got` (any dtype) equals `want` as `f64` values (NaN equals NaN, `0.0 == -0.0`); `None`
/// entries are not compared.
#[track_caller]
fn expect_values(
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
fn expect_close(
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
fn assert_bitwise(got: &Tensor, want: &Tensor, ctx: &dyn Debug) {
    assert_eq!(got.aval(), want.aval(), "aval, {ctx:?}");
    assert!(
        got.array().as_bytes() == want.array().as_bytes(),
        "{ctx:?}: eval_jaxpr gave {got:?}, eager gave {want:?}"
    );
}

/// Runs `f` eagerly and through the reference evaluator (`eval_jaxpr(make_jaxpr(f))`),
/// asserts the two agree bitwise, and returns the eager results.
#[track_caller]
fn jit_many(f: impl Fn(&[Tensor]) -> Vec<Tensor>, args: &[Tensor]) -> Vec<Tensor> {
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
fn jit(f: impl Fn(&[Tensor]) -> Tensor, args: &[Tensor]) -> Tensor {
    jit_many(|xs| vec![f(xs)], args).pop().expect("one result")
}

// ---------------------------------------------------------------------------------------------
// Strategies.

#[derive(Clone, Copy, Debug)]
enum Vals {
    /// Small values on a grid, so sums and products are exact in any order.
    Exact,
    /// Anything, specials (NaN, infinities, signed zeros, extremes) included.
    Wide,
}

fn f32_val(v: Vals) -> BoxedStrategy<f32> {
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

fn f64_val(v: Vals) -> BoxedStrategy<f64> {
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

fn i32_val(v: Vals) -> BoxedStrategy<i32> {
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

fn u32_val(v: Vals) -> BoxedStrategy<u32> {
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

fn tensor(dtype: DType, shape: Vec<usize>, v: Vals) -> BoxedStrategy<Tensor> {
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
    }
}

/// Rank `0..=max_rank`, dimensions `0..=max_dim`.
fn shape_s(max_rank: usize, max_dim: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0..=max_dim, 0..=max_rank)
}

fn arr(dtype: DType, v: Vals) -> BoxedStrategy<Tensor> {
    shape_s(4, 4)
        .prop_flat_map(move |s| tensor(dtype, s, v))
        .boxed()
}

/// Two operands lax accepts: equal shapes, one of rank 0, or equal ranks whose dimensions
/// agree or are 1.
fn lax_pair(dtype: DType, v: Vals) -> BoxedStrategy<(Tensor, Tensor)> {
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
fn np_shapes(n: usize) -> impl Strategy<Value = Vec<Vec<usize>>> {
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

/// The numpy broadcast of `shapes` and, per result element, the flat position in each operand.
fn broadcast_ref(shapes: &[&[usize]]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let r = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let padded: Vec<Vec<usize>> = shapes
        .iter()
        .map(|s| {
            let mut v = vec![1; r - s.len()];
            v.extend_from_slice(s);
            v
        })
        .collect();
    let out: Vec<usize> = (0..r)
        .map(|d| {
            let sizes: Vec<usize> = padded.iter().map(|p| p[d]).filter(|&n| n != 1).collect();
            assert!(sizes.windows(2).all(|w| w[0] == w[1]), "not broadcastable");
            sizes.first().copied().unwrap_or(1)
        })
        .collect();
    let pos = indices(&out)
        .iter()
        .map(|o| {
            padded
                .iter()
                .map(|p| {
                    let i: Vec<usize> = o
                        .iter()
                        .zip(p)
                        .map(|(&i, &n)| if n == 1 { 0 } else { i })
                        .collect();
                    flat(&i, p)
                })
                .collect()
        })
        .collect();
    (out, pos)
}

// ---------------------------------------------------------------------------------------------
// Elementwise primitives.

use BinaryOp as B;
use UnaryOp as U;

const FLOAT_UNARY: [UnaryOp; 16] = [
    U::Neg,
    U::Exp,
    U::Log,
    U::Log1p,
    U::Sin,
    U::Cos,
    U::Tanh,
    U::Logistic,
    U::Sqrt,
    U::Rsqrt,
    U::Abs,
    U::Sign,
    U::Floor,
    U::Ceil,
    U::Round,
    U::IsFinite,
];
const INT_UNARY: [UnaryOp; 4] = [U::Neg, U::Abs, U::Sign, U::Not];
const FLOAT_BINARY: [BinaryOp; 15] = [
    B::Add,
    B::Sub,
    B::Mul,
    B::Div,
    B::Rem,
    B::Pow,
    B::Max,
    B::Min,
    B::Nextafter,
    B::Eq,
    B::Ne,
    B::Lt,
    B::Le,
    B::Gt,
    B::Ge,
];
const INT_BINARY: [BinaryOp; 18] = [
    B::Add,
    B::Sub,
    B::Mul,
    B::Div,
    B::Rem,
    B::Max,
    B::Min,
    B::Eq,
    B::Ne,
    B::Lt,
    B::Le,
    B::Gt,
    B::Ge,
    B::And,
    B::Or,
    B::Xor,
    B::ShiftLeft,
    B::ShiftRightLogical,
];
const BOOL_BINARY: [BinaryOp; 11] = [
    B::Eq,
    B::Ne,
    B::Lt,
    B::Le,
    B::Gt,
    B::Ge,
    B::And,
    B::Or,
    B::Xor,
    B::Max,
    B::Min,
];

fn lax_unary(op: UnaryOp, x: &Tensor) -> Tensor {
    match op {
        U::Neg => lax::neg(x),
        U::Exp => lax::exp(x),
        U::Log => lax::log(x),
        U::Log1p => lax::log1p(x),
        U::Sin => lax::sin(x),
        U::Cos => lax::cos(x),
        U::Tanh => lax::tanh(x),
        U::Logistic => lax::logistic(x),
        U::Sqrt => lax::sqrt(x),
        U::Rsqrt => lax::rsqrt(x),
        U::Abs => lax::abs(x),
        U::Sign => lax::sign(x),
        U::Floor => lax::floor(x),
        U::Ceil => lax::ceil(x),
        U::Round => lax::round(x),
        U::Not => lax::not(x),
        U::ErfInv => lax::erf_inv(x),
        U::IsFinite => lax::is_finite(x),
    }
}

fn lax_binary(op: BinaryOp, x: &Tensor, y: &Tensor) -> Tensor {
    match op {
        B::Add => lax::add(x, y),
        B::Sub => lax::sub(x, y),
        B::Mul => lax::mul(x, y),
        B::Div => lax::div(x, y),
        B::Rem => lax::rem(x, y),
        B::Pow => lax::pow(x, y),
        B::Max => lax::max(x, y),
        B::Min => lax::min(x, y),
        B::Nextafter => lax::nextafter(x, y),
        B::Eq => lax::eq(x, y),
        B::Ne => lax::ne(x, y),
        B::Lt => lax::lt(x, y),
        B::Le => lax::le(x, y),
        B::Gt => lax::gt(x, y),
        B::Ge => lax::ge(x, y),
        B::And => lax::and(x, y),
        B::Or => lax::or(x, y),
        B::Xor => lax::xor(x, y),
        B::ShiftLeft => lax::shift_left(x, y),
        B::ShiftRightLogical => lax::shift_right_logical(x, y),
    }
}

fn compare<T: PartialOrd>(op: BinaryOp, x: T, y: T) -> bool {
    match op {
        B::Eq => x == y,
        B::Ne => x != y,
        B::Lt => x < y,
        B::Le => x <= y,
        B::Gt => x > y,
        B::Ge => x >= y,
        _ => unreachable!("{op:?} is not a comparison"),
    }
}

/// Binary exponentiation, as XLA computes `integer_pow`.
fn ipow<T: Copy>(mut x: T, y: i32, one: T, mul: impl Fn(T, T) -> T, div: impl Fn(T, T) -> T) -> T {
    let mut n = y.unsigned_abs();
    let mut acc = one;
    while n > 0 {
        if n & 1 == 1 {
            acc = mul(acc, x);
        }
        x = mul(x, x);
        n >>= 1;
    }
    if y < 0 {
        div(one, acc)
    } else {
        acc
    }
}

macro_rules! float_reference {
    ($t:ty, $unary:ident, $binary:ident, $next:ident) => {
        fn $unary(op: UnaryOp, x: $t) -> $t {
            match op {
                U::Neg => -x,
                U::Exp => x.exp(),
                U::Log => x.ln(),
                U::Log1p => x.ln_1p(),
                U::Sin => x.sin(),
                U::Cos => x.cos(),
                U::Tanh => x.tanh(),
                U::Logistic => 1.0 / (1.0 + (-x).exp()),
                U::Sqrt => x.sqrt(),
                U::Rsqrt => 1.0 / x.sqrt(),
                U::Abs => x.abs(),
                U::Sign if x.is_nan() || x == 0.0 => x,
                U::Sign => x.signum(),
                U::Floor => x.floor(),
                U::Ceil => x.ceil(),
                U::Round => x.round(),
                _ => unreachable!("{op:?}"),
            }
        }

        fn $next(x: $t, y: $t) -> $t {
            if x.is_nan() || y.is_nan() {
                <$t>::NAN
            } else if x == y {
                y
            } else if x == 0.0 {
                let tiny = <$t>::from_bits(1);
                if y > 0.0 {
                    tiny
                } else {
                    -tiny
                }
            } else if (y > x) == (x > 0.0) {
                <$t>::from_bits(x.to_bits() + 1)
            } else {
                <$t>::from_bits(x.to_bits() - 1)
            }
        }

        fn $binary(op: BinaryOp, x: $t, y: $t) -> $t {
            match op {
                B::Add => x + y,
                B::Sub => x - y,
                B::Mul => x * y,
                B::Div => x / y,
                B::Rem => x % y,
                B::Pow => x.powf(y),
                B::Max | B::Min if x.is_nan() || y.is_nan() => <$t>::NAN,
                B::Max => x.max(y),
                B::Min => x.min(y),
                B::Nextafter => $next(x, y),
                _ => unreachable!("{op:?}"),
            }
        }
    };
}
float_reference!(f32, unary_f32, binary_f32, nextafter_f32);
float_reference!(f64, unary_f64, binary_f64, nextafter_f64);

macro_rules! int_reference {
    ($t:ty, $unary:ident, $binary:ident) => {
        fn $unary(op: UnaryOp, x: $t) -> $t {
            match op {
                U::Neg => x.wrapping_neg(),
                #[allow(unused_comparisons)]
                U::Abs if x < 0 => x.wrapping_neg(),
                U::Abs => x,
                #[allow(unused_comparisons)]
                U::Sign if x < 0 => (0 as $t).wrapping_sub(1),
                U::Sign => (x > 0) as $t,
                U::Not => !x,
                _ => unreachable!("{op:?}"),
            }
        }

        fn $binary(op: BinaryOp, x: $t, y: $t) -> $t {
            let shift = y as u32;
            match op {
                B::Add => x.wrapping_add(y),
                B::Sub => x.wrapping_sub(y),
                B::Mul => x.wrapping_mul(y),
                // XLA: division by zero gives -1 (all ones), remainder by zero the dividend.
                B::Div if y == 0 => (0 as $t).wrapping_sub(1),
                B::Div => x.wrapping_div(y),
                B::Rem if y == 0 => x,
                B::Rem => x.wrapping_rem(y),
                B::Max => x.max(y),
                B::Min => x.min(y),
                B::And => x & y,
                B::Or => x | y,
                B::Xor => x ^ y,
                B::ShiftLeft if shift >= 32 => 0,
                B::ShiftLeft => ((x as u32) << shift) as $t,
                B::ShiftRightLogical if shift >= 32 => 0,
                B::ShiftRightLogical => ((x as u32) >> shift) as $t,
                _ => unreachable!("{op:?}"),
            }
        }
    };
}
int_reference!(i32, unary_i32, binary_i32);
int_reference!(u32, unary_u32, binary_u32);

/// `erf` in f64 by its Taylor series (accurate to ~1e-11 for |x| <= 4.5).
fn erf(x: f64) -> f64 {
    if x.abs() > 4.5 {
        return x.signum();
    }
    let (mut term, mut sum) = (x, x);
    for n in 1..200 {
        term *= -x * x / n as f64;
        sum += term / (2 * n + 1) as f64;
    }
    sum * 2.0 / std::f64::consts::PI.sqrt()
}

macro_rules! float_elementwise_tests {
    ($mod:ident, $t:ty, $dt:expr, $unary:ident, $binary:ident) => {
        mod $mod {
            use super::*;

            proptest! {
                #![proptest_config(config(CASES))]

                #[test]
                fn unary(x in arr($dt, Vals::Wide)) {
                    let xv = x.to_vec::<$t>();
                    for op in FLOAT_UNARY {
                        let got = jit(|a| lax_unary(op, &a[0]), from_ref(&x));
                        if op == U::IsFinite {
                            let want: Vec<bool> = xv.iter().map(|v| v.is_finite()).collect();
                            expect(&got, &want, x.shape(), &op);
                        } else if <$t>::POLYNOMIAL
                            && matches!(op, U::Exp | U::Log | U::Tanh | U::Logistic)
                        {
                            let want: Vec<$t> = xv.iter().map(|&v| $unary(op, v)).collect();
                            expect_ulps(&got, &want, x.shape(), 4, &op);
                        } else {
                            let want: Vec<$t> = xv.iter().map(|&v| $unary(op, v)).collect();
                            expect(&got, &want, x.shape(), &op);
                        }
                    }
                }

                #[test]
                fn binary((x, y) in lax_pair($dt, Vals::Wide)) {
                    let (shape, pos) = broadcast_ref(&[x.shape(), y.shape()]);
                    let (xv, yv) = (x.to_vec::<$t>(), y.to_vec::<$t>());
                    for op in FLOAT_BINARY {
                        let got = jit(|a| lax_binary(op, &a[0], &a[1]), &[x.clone(), y.clone()]);
                        let ctx = (op, x.shape(), y.shape());
                        if op.is_comparison() {
                            let want: Vec<bool> =
                                pos.iter().map(|p| compare(op, xv[p[0]], yv[p[1]])).collect();
                            expect(&got, &want, &shape, &ctx);
                        } else {
                            let want: Vec<$t> =
                                pos.iter().map(|p| $binary(op, xv[p[0]], yv[p[1]])).collect();
                            // max/min may pick either zero of `max(0.0, -0.0)`.
                            check(&got, &want, &shape, matches!(op, B::Max | B::Min), &ctx);
                        }
                    }
                }

                #[test]
                fn integer_pow(x in arr($dt, Vals::Wide), y in -4i32..=7) {
                    let got = jit(|a| lax::integer_pow(&a[0], y), from_ref(&x));
                    let want: Vec<$t> = x
                        .to_vec::<$t>()
                        .iter()
                        .map(|&v| ipow(v, y, 1.0, |a, b| a * b, |a, b| a / b))
                        .collect();
                    expect(&got, &want, x.shape(), &y);
                }
            }
        }
    };
}
float_elementwise_tests!(elementwise_f32, f32, DType::F32, unary_f32, binary_f32);
float_elementwise_tests!(elementwise_f64, f64, DType::F64, unary_f64, binary_f64);

macro_rules! int_elementwise_tests {
    ($mod:ident, $t:ty, $dt:expr, $unary:ident, $binary:ident) => {
        mod $mod {
            use super::*;

            proptest! {
                #![proptest_config(config(CASES))]

                #[test]
                fn unary(x in arr($dt, Vals::Wide)) {
                    let xv = x.to_vec::<$t>();
                    for op in INT_UNARY {
                        let got = jit(|a| lax_unary(op, &a[0]), from_ref(&x));
                        let want: Vec<$t> = xv.iter().map(|&v| $unary(op, v)).collect();
                        expect(&got, &want, x.shape(), &op);
                    }
                }

                #[test]
                fn binary((x, y) in lax_pair($dt, Vals::Wide)) {
                    let (shape, pos) = broadcast_ref(&[x.shape(), y.shape()]);
                    let (xv, yv) = (x.to_vec::<$t>(), y.to_vec::<$t>());
                    for op in INT_BINARY {
                        let got = jit(|a| lax_binary(op, &a[0], &a[1]), &[x.clone(), y.clone()]);
                        let ctx = (op, x.shape(), y.shape());
                        if op.is_comparison() {
                            let want: Vec<bool> =
                                pos.iter().map(|p| compare(op, xv[p[0]], yv[p[1]])).collect();
                            expect(&got, &want, &shape, &ctx);
                        } else {
                            let want: Vec<$t> =
                                pos.iter().map(|p| $binary(op, xv[p[0]], yv[p[1]])).collect();
                            expect(&got, &want, &shape, &ctx);
                        }
                    }
                }

                #[test]
                fn integer_pow(x in arr($dt, Vals::Wide), y in 0i32..=7) {
                    let got = jit(|a| lax::integer_pow(&a[0], y), from_ref(&x));
                    let want: Vec<$t> = x
                        .to_vec::<$t>()
                        .iter()
                        .map(|&v| ipow(v, y, 1, |a: $t, b| a.wrapping_mul(b), |a, b| a / b))
                        .collect();
                    expect(&got, &want, x.shape(), &y);
                }
            }
        }
    };
}
int_elementwise_tests!(elementwise_i32, i32, DType::I32, unary_i32, binary_i32);
int_elementwise_tests!(elementwise_u32, u32, DType::U32, unary_u32, binary_u32);

/// A dtype-tagged element, for conversions between any two dtypes.
#[derive(Clone, Copy, Debug)]
enum V {
    B(bool),
    I(i32),
    U(u32),
    F(f32),
    D(f64),
}

fn values(t: &Tensor) -> Vec<V> {
    match t.dtype() {
        DType::Bool => t.to_vec::<bool>().into_iter().map(V::B).collect(),
        DType::I32 => t.to_vec::<i32>().into_iter().map(V::I).collect(),
        DType::U32 => t.to_vec::<u32>().into_iter().map(V::U).collect(),
        DType::F32 => t.to_vec::<f32>().into_iter().map(V::F).collect(),
        DType::F64 => t.to_vec::<f64>().into_iter().map(V::D).collect(),
    }
}

fn same_v(a: V, b: V) -> bool {
    match (a, b) {
        (V::B(x), V::B(y)) => x == y,
        (V::I(x), V::I(y)) => x == y,
        (V::U(x), V::U(y)) => x == y,
        (V::F(x), V::F(y)) => x.same(y),
        (V::D(x), V::D(y)) => x.same(y),
        _ => false,
    }
}

/// XLA's conversions: float to int truncates toward zero and saturates (NaN gives 0),
/// same-width integers wrap, anything to bool tests for nonzero.
fn convert_ref(v: V, to: DType) -> V {
    match to {
        DType::Bool => V::B(match v {
            V::B(x) => x,
            V::I(x) => x != 0,
            V::U(x) => x != 0,
            V::F(x) => x != 0.0,
            V::D(x) => x != 0.0,
        }),
        DType::I32 => V::I(match v {
            V::B(x) => x as i32,
            V::I(x) => x,
            V::U(x) => x as i32,
            V::F(x) => x as i32,
            V::D(x) => x as i32,
        }),
        DType::U32 => V::U(match v {
            V::B(x) => x as u32,
            V::I(x) => x as u32,
            V::U(x) => x,
            V::F(x) => x as u32,
            V::D(x) => x as u32,
        }),
        DType::F32 => V::F(match v {
            V::B(x) => x as u8 as f32,
            V::I(x) => x as f32,
            V::U(x) => x as f32,
            V::F(x) => x,
            V::D(x) => x as f32,
        }),
        DType::F64 => V::D(match v {
            V::B(x) => x as u8 as f64,
            V::I(x) => x as f64,
            V::U(x) => x as f64,
            V::F(x) => x as f64,
            V::D(x) => x,
        }),
    }
}

fn any_dtype_arr(v: Vals) -> BoxedStrategy<Tensor> {
    select(ALL_DTYPES.to_vec())
        .prop_flat_map(move |d| arr(d, v))
        .boxed()
}

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn unary_bool(x in arr(DType::Bool, Vals::Wide)) {
        let got = jit(|a| lax::not(&a[0]), from_ref(&x));
        let want: Vec<bool> = x.to_vec::<bool>().iter().map(|v| !v).collect();
        expect(&got, &want, x.shape(), &"not");
    }

    #[test]
    fn binary_bool((x, y) in lax_pair(DType::Bool, Vals::Wide)) {
        let (shape, pos) = broadcast_ref(&[x.shape(), y.shape()]);
        let (xv, yv) = (x.to_vec::<bool>(), y.to_vec::<bool>());
        for op in BOOL_BINARY {
            let got = jit(|a| lax_binary(op, &a[0], &a[1]), &[x.clone(), y.clone()]);
            let want: Vec<bool> = pos
                .iter()
                .map(|p| {
                    let (a, b) = (xv[p[0]], yv[p[1]]);
                    match op {
                        B::And | B::Min => a & b,
                        B::Or | B::Max => a | b,
                        B::Xor => a ^ b,
                        _ => compare(op, a, b),
                    }
                })
                .collect();
            expect(&got, &want, &shape, &op);
        }
    }

    #[test]
    fn erf_inv_inverts_erf(
        x in prop::collection::vec(prop_oneof![
            4 => -1.0f32..1.0,
            1 => select(vec![-1.0f32, 1.0, 1.5, -3.0, f32::NAN, 0.0, -0.0,
                             0.999_999_9, -0.999_999_9]),
        ], 0..20),
        y in prop::collection::vec(-0.999f64..0.999, 0..20),
    ) {
        let n = x.len();
        let got = jit(|a| lax::erf_inv(&a[0]), &[Tensor::from_vec(x.clone(), &[n])]);
        for (&v, g) in x.iter().zip(got.to_vec::<f32>()) {
            if v.is_nan() || v.abs() > 1.0 {
                prop_assert!(g.is_nan(), "erf_inv({v}) = {g}");
            } else if v.abs() == 1.0 {
                prop_assert_eq!(g, f32::INFINITY * v);
            } else {
                prop_assert!((erf(g as f64) - v as f64).abs() < 2e-6, "erf_inv({v}) = {g}");
                prop_assert_eq!(g.to_bits() >> 31, v.to_bits() >> 31, "sign of erf_inv({})", v);
            }
        }
        let n = y.len();
        let got = jit(|a| lax::erf_inv(&a[0]), &[Tensor::from_vec(y.clone(), &[n])]);
        for (&v, g) in y.iter().zip(got.to_vec::<f64>()) {
            prop_assert!((erf(g) - v).abs() < 1e-9, "erf_inv({v}) = {g}");
        }
    }

    #[test]
    fn convert_element_type(x in any_dtype_arr(Vals::Wide)) {
        let xv = values(&x);
        for to in ALL_DTYPES {
            let got = jit(|a| lax::convert_element_type(&a[0], to), from_ref(&x));
            prop_assert_eq!(got.dtype(), to);
            prop_assert_eq!(got.shape(), x.shape());
            for (i, (&v, g)) in xv.iter().zip(values(&got)).enumerate() {
                let want = convert_ref(v, to);
                prop_assert!(same_v(g, want), "element {i}: {v:?} to {to}: got {g:?}, want {want:?}");
            }
            // `astype` is the numpy spelling of the same conversion.
            let via_np = jit(|a| a[0].astype(to), from_ref(&x));
            assert_bitwise(&via_np, &got, &to);
        }
    }

    #[test]
    fn select_n(
        dtype in select(ALL_DTYPES.to_vec()),
        shape in shape_s(4, 4),
        n_cases in 1usize..=3,
        bool_pred in any::<bool>(),
        scalar_pred in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let n_cases = if bool_pred { n_cases.min(2) } else { n_cases };
        let cases: Vec<Tensor> = (0..n_cases).map(|_| rng.tensor(dtype, &shape)).collect();
        let pshape: Vec<usize> = if scalar_pred { vec![] } else { shape.clone() };
        let which = if bool_pred {
            let v: Vec<bool> = (0..numel(&pshape)).map(|_| rng.below(n_cases) == 1).collect();
            Tensor::from_vec(v, &pshape)
        } else {
            let v: Vec<i32> = (0..numel(&pshape)).map(|_| rng.below(n_cases) as i32).collect();
            Tensor::from_vec(v, &pshape)
        };
        let mut args = vec![which.clone()];
        args.extend(cases.iter().cloned());
        let got = jit(|a| lax::select_n(&a[0], &a[1..]), &args);
        let w = which.array().to_f64_vec();
        let cv: Vec<Vec<V>> = cases.iter().map(values).collect();
        let got_v = values(&got);
        prop_assert_eq!(got.shape(), &shape[..]);
        for (i, g) in got_v.iter().enumerate() {
            let k = (if scalar_pred { w[0] } else { w[i] }) as usize;
            prop_assert!(same_v(*g, cv[k][i]), "element {}", i);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// numpy broadcasting and promotion.

const NP_DTYPE_PAIRS: [(DType, DType); 9] = [
    (DType::F32, DType::F32),
    (DType::I32, DType::I32),
    (DType::U32, DType::U32),
    (DType::F64, DType::F64),
    (DType::I32, DType::F32),
    (DType::F32, DType::I32),
    (DType::Bool, DType::I32),
    (DType::F32, DType::F64),
    (DType::U32, DType::I32),
];

#[derive(Clone, Copy, Debug, PartialEq)]
enum NpOp {
    Add,
    Subtract,
    Multiply,
    Divide,
    Maximum,
    Minimum,
    Remainder,
    FloorDivide,
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
}

const NP_OPS: [NpOp; 14] = [
    NpOp::Add,
    NpOp::Subtract,
    NpOp::Multiply,
    NpOp::Divide,
    NpOp::Maximum,
    NpOp::Minimum,
    NpOp::Remainder,
    NpOp::FloorDivide,
    NpOp::Equal,
    NpOp::NotEqual,
    NpOp::Less,
    NpOp::LessEqual,
    NpOp::Greater,
    NpOp::GreaterEqual,
];

fn np_apply(op: NpOp, x: &Tensor, y: &Tensor) -> Tensor {
    match op {
        NpOp::Add => jnp::add(x, y),
        NpOp::Subtract => jnp::subtract(x, y),
        NpOp::Multiply => jnp::multiply(x, y),
        NpOp::Divide => jnp::divide(x, y),
        NpOp::Maximum => jnp::maximum(x, y),
        NpOp::Minimum => jnp::minimum(x, y),
        NpOp::Remainder => jnp::remainder(x, y),
        NpOp::FloorDivide => jnp::floor_divide(x, y),
        NpOp::Equal => jnp::equal(x, y),
        NpOp::NotEqual => jnp::not_equal(x, y),
        NpOp::Less => jnp::less(x, y),
        NpOp::LessEqual => jnp::less_equal(x, y),
        NpOp::Greater => jnp::greater(x, y),
        NpOp::GreaterEqual => jnp::greater_equal(x, y),
    }
}

/// A value wrapped into `dtype`'s range as integer arithmetic wraps.
fn wrap(v: f64, dtype: DType) -> f64 {
    match dtype {
        DType::I32 => v as i64 as i32 as f64,
        DType::U32 => v as i64 as u32 as f64,
        _ => v,
    }
}

/// The numpy result of `op` on two values already promoted to `dtype`, or `None` where the
/// result is platform-defined (integer division by zero).
fn np_ref(op: NpOp, x: f64, y: f64, dtype: DType) -> Option<f64> {
    let in_dtype = |v: f64| {
        if dtype == DType::F32 {
            v as f32 as f64
        } else {
            v
        }
    };
    let int = dtype.is_int();
    Some(match op {
        NpOp::Add => wrap(x + y, dtype),
        NpOp::Subtract => wrap(x - y, dtype),
        NpOp::Multiply => wrap(x * y, dtype),
        NpOp::Divide if dtype == DType::F64 => x / y,
        NpOp::Divide => ((x as f32) / (y as f32)) as f64,
        NpOp::Maximum => x.max(y),
        NpOp::Minimum => x.min(y),
        NpOp::Remainder | NpOp::FloorDivide if int && y == 0.0 => return None,
        NpOp::FloorDivide if y == 0.0 => return None,
        NpOp::Remainder => {
            let r = in_dtype(x % y);
            if r != 0.0 && (r < 0.0) != (y < 0.0) {
                in_dtype(r + y)
            } else {
                r
            }
        }
        NpOp::FloorDivide => (x / y).floor(),
        NpOp::Equal => (x == y) as u8 as f64,
        NpOp::NotEqual => (x != y) as u8 as f64,
        NpOp::Less => (x < y) as u8 as f64,
        NpOp::LessEqual => (x <= y) as u8 as f64,
        NpOp::Greater => (x > y) as u8 as f64,
        NpOp::GreaterEqual => (x >= y) as u8 as f64,
    })
}

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn numpy_binary_broadcasts(
        shapes in np_shapes(2),
        (dx, dy) in select(NP_DTYPE_PAIRS.to_vec()),
        seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let (x, y) = (rng.tensor(dx, &shapes[0]), rng.tensor(dy, &shapes[1]));
        let (shape, pos) = broadcast_ref(&[x.shape(), y.shape()]);
        let dtype = dx.promote(dy);
        let (xv, yv) = (x.array().to_f64_vec(), y.array().to_f64_vec());
        for op in NP_OPS {
            let got = jit(|a| np_apply(op, &a[0], &a[1]), &[x.clone(), y.clone()]);
            let out_dtype = match op {
                NpOp::Divide if !dtype.is_float() => DType::F32,
                NpOp::Divide | NpOp::Add | NpOp::Subtract | NpOp::Multiply | NpOp::Maximum
                | NpOp::Minimum | NpOp::Remainder | NpOp::FloorDivide => dtype,
                _ => DType::Bool,
            };
            let want: Vec<Option<f64>> = pos
                .iter()
                .map(|p| np_ref(op, wrap(xv[p[0]], dtype), wrap(yv[p[1]], dtype), dtype))
                .collect();
            expect_values(&got, out_dtype, &want, &shape, &(op, dx, dy, &shapes));
        }
        // Operators are the same functions.
        let plus = jit(|a| &a[0] + &a[1], &[x.clone(), y.clone()]);
        assert_bitwise(&plus, &jnp::add(&x, &y), &"+");
        let times = jit(|a| &a[0] * &a[1], &[x.clone(), y.clone()]);
        assert_bitwise(&times, &jnp::multiply(&x, &y), &"*");
    }

    #[test]
    fn numpy_where_broadcasts(shapes in np_shapes(3), seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let c = rng.tensor(DType::Bool, &shapes[0]);
        let x = rng.tensor(DType::F32, &shapes[1]);
        let y = rng.tensor(DType::I32, &shapes[2]);
        let got = jit(|a| jnp::where_(&a[0], &a[1], &a[2]), &[c.clone(), x.clone(), y.clone()]);
        let (shape, pos) = broadcast_ref(&[c.shape(), x.shape(), y.shape()]);
        let (cv, xv, yv) = (c.to_vec::<bool>(), x.to_vec::<f32>(), y.to_vec::<i32>());
        let want: Vec<f32> =
            pos.iter().map(|p| if cv[p[0]] { xv[p[1]] } else { yv[p[2]] as f32 }).collect();
        expect(&got, &want, &shape, &shapes);
    }

    #[test]
    fn kernels_walking_many_rows_per_block_agree_with_eager(
        (a, r, e) in (1usize..=3, 1usize..=300, 1usize..=40),
        seed in any::<u64>(),
    ) {
        // Short rows make a kernel walk up to 1024 / e rows per block, with a partial last
        // group; values per row and per column are broadcast along it, and the rows of a
        // transposed operand lie apart.
        let mut rng = Rng(seed);
        let args = [
            rng.tensor(DType::F32, &[a, r, e]),
            rng.tensor(DType::F32, &[a, r, 1]),
            rng.tensor(DType::F32, &[e]),
            rng.tensor(DType::F32, &[a, e, r]),
        ];
        let f = |t: &[Tensor]| {
            let per_row = jnp::exp(&t[1]) - &t[1] * 2.0;
            (&t[0] - &per_row) * &t[2] + lax::transpose(&t[3], &[0, 2, 1]) * &t[1]
        };
        assert_bitwise(&jit(f, &args), &f(&args), &(a, r, e));
    }

    #[test]
    fn sums_over_the_rows_of_a_matrix_agree_with_loops(
        (a, r, c) in (1usize..=2, 1usize..=300, 1usize..=1100),
        seed in any::<u64>(),
    ) {
        // A reduced loop outside the vector loop: each block of lanes folds whole rows,
        // more than one block when a row is longer than 1024. Grid values sum exactly.
        let mut rng = Rng(seed);
        let x = rng.tensor(DType::F32, &[a, r, c]);
        let xv = x.to_vec::<f32>();
        let at = |i: usize, j: usize, k: usize| xv[(i * r + j) * c + k] as f64;
        let col = |i: usize, k: usize, f: fn(f64, f64) -> f64, id: f64| {
            (0..r).fold(id, |s, j| f(s, at(i, j, k)))
        };
        let cols = |f: fn(f64, f64) -> f64, id: f64| -> Vec<f64> {
            (0..a).flat_map(|i| (0..c).map(move |k| (i, k))).map(|(i, k)| col(i, k, f, id)).collect()
        };
        let sum = jit(|t| t[0].sum(1), from_ref(&x));
        let max = jit(|t| t[0].max(1), from_ref(&x));
        let ctx = (a, r, c);
        expect_close(&sum, &cols(|s, v| s + v, 0.0), &vec![0.0; a * c], &[a, c], 0.0, &ctx);
        let neg_inf = f64::NEG_INFINITY;
        expect_close(&max, &cols(f64::max, neg_inf), &vec![0.0; a * c], &[a, c], 0.0, &ctx);
        let total: Vec<f64> = (0..c).map(|k| (0..a).map(|i| col(i, k, |s, v| s + v, 0.0)).sum()).collect();
        let both = jit(|t| t[0].sum((0, 1)), from_ref(&x));
        expect_close(&both, &total, &vec![0.0; c], &[c], 0.0, &ctx);
    }

    #[test]
    fn numpy_scalars_are_weakly_typed(x in any_dtype_arr(Vals::Exact), k in -5i32..5) {
        // An int scalar keeps a numeric tensor's dtype; a float scalar makes ints f32.
        // (A negative int with a u32 tensor is out of range, an error in JAX.)
        let k = if x.dtype() == DType::U32 { k.abs() } else { k };
        let got = jit(|a| &a[0] + k, from_ref(&x));
        let d = if x.dtype() == DType::Bool { DType::I32 } else { x.dtype() };
        let want: Vec<Option<f64>> =
            x.array().to_f64_vec().iter().map(|&v| Some(wrap(v + k as f64, d))).collect();
        expect_values(&got, d, &want, x.shape(), &k);
        let got = jit(|a| 0.5f32 * &a[0], from_ref(&x));
        let d = if x.dtype().is_float() { x.dtype() } else { DType::F32 };
        let want: Vec<Option<f64>> =
            x.array().to_f64_vec().iter().map(|&v| Some(v * 0.5)).collect();
        expect_values(&got, d, &want, x.shape(), &"0.5 * x");
    }
}

// ---------------------------------------------------------------------------------------------
// Reductions, cumsum, sort.

/// A tensor and a random list of its axes (each possibly negative).
fn with_axes(dtype: DType, v: Vals) -> BoxedStrategy<(Tensor, Vec<isize>)> {
    shape_s(4, 4)
        .prop_flat_map(move |s| {
            let r = s.len();
            (
                tensor(dtype, s, v),
                subsequence((0..r).collect::<Vec<usize>>(), 0..=r).prop_shuffle(),
                prop::collection::vec(any::<bool>(), r),
            )
        })
        .prop_map(|(x, axes, neg)| {
            let r = x.ndim() as isize;
            let axes = axes
                .into_iter()
                .map(|a| if neg[a] { a as isize - r } else { a as isize })
                .collect();
            (x, axes)
        })
        .boxed()
}

/// Reduces `vals` of `shape` over `axes` with `f` from `init`; returns the kept-dims shape.
fn reduce_ref(
    vals: &[f64],
    shape: &[usize],
    axes: &[usize],
    init: f64,
    f: impl Fn(f64, f64) -> f64,
) -> (Vec<f64>, Vec<usize>) {
    let kept: Vec<usize> = (0..shape.len())
        .map(|d| if axes.contains(&d) { 1 } else { shape[d] })
        .collect();
    let mut acc = vec![init; numel(&kept)];
    for idx in indices(shape) {
        let o: Vec<usize> = idx
            .iter()
            .enumerate()
            .map(|(d, &i)| if axes.contains(&d) { 0 } else { i })
            .collect();
        let k = flat(&o, &kept);
        acc[k] = f(acc[k], vals[flat(&idx, shape)]);
    }
    (acc, kept)
}

fn drop_axes(shape: &[usize], axes: &[usize]) -> Vec<usize> {
    (0..shape.len())
        .filter(|d| !axes.contains(d))
        .map(|d| shape[d])
        .collect()
}

/// How a reduction combines its accumulator with an element.
type Combine = fn(f64, f64) -> f64;

fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

fn nan_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

fn reduction_dtype() -> impl Strategy<Value = DType> {
    select(vec![
        DType::F32,
        DType::I32,
        DType::F64,
        DType::U32,
        DType::Bool,
    ])
}

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn sum_max_min(
        (x, axes) in reduction_dtype().prop_flat_map(|d| with_axes(d, Vals::Exact)),
        all in any::<bool>(),
        nan_at in any::<prop::sample::Index>(),
    ) {
        // A NaN somewhere exercises its propagation (floats only).
        let x = if x.dtype().is_float() && x.size() > 0 {
            let mut v = x.array().to_f64_vec();
            let at = nan_at.index(v.len());
            v[at] = f64::NAN;
            let t = Tensor::from_vec(v, x.shape());
            t.astype(x.dtype())
        } else {
            x
        };
        let r = x.ndim();
        let ax: Vec<usize> = if all {
            (0..r).collect()
        } else {
            axes.iter().map(|&a| a.rem_euclid(r.max(1) as isize) as usize).collect()
        };
        let vals = x.array().to_f64_vec();
        let dtype = x.dtype();
        let (lo, hi) = match dtype {
            DType::Bool => (0.0, 1.0),
            DType::I32 => (i32::MIN as f64, i32::MAX as f64),
            DType::U32 => (0.0, u32::MAX as f64),
            _ => (f64::NEG_INFINITY, f64::INFINITY),
        };
        // Sums of bools count in int32; max and min keep the dtype.
        let sum_dtype = if dtype == DType::Bool { DType::I32 } else { dtype };
        let cases: [(&str, f64, Combine); 3] =
            [("sum", 0.0, |a, b| a + b), ("max", lo, nan_max), ("min", hi, nan_min)];
        // jnp.max and jnp.min over an empty axis raise in JAX, and panic in oxla
        // (tests/jax_semantics.rs); only the sum has an identity to compare.
        let empty = ax.iter().any(|&d| x.shape()[d] == 0);
        for (name, init, f) in cases {
            if empty && name != "sum" {
                continue;
            }
            let (want, kept) = reduce_ref(&vals, x.shape(), &ax, init, f);
            let want: Vec<Option<f64>> = want.into_iter().map(Some).collect();
            for keepdims in [false, true] {
                let run = |a: &[Tensor]| -> Tensor {
                    let t = &a[0];
                    match (name, keepdims, all) {
                        ("sum", false, false) => jnp::sum(t, &axes[..]),
                        ("sum", true, false) => jnp::sum_keepdims(t, &axes[..]),
                        ("max", false, false) => jnp::max(t, &axes[..]),
                        ("max", true, false) => jnp::max_keepdims(t, &axes[..]),
                        ("min", false, false) => jnp::min(t, &axes[..]),
                        ("min", true, false) => jnp::min_keepdims(t, &axes[..]),
                        ("sum", false, true) => t.sum(None::<i32>),
                        ("sum", true, true) => t.sum_keepdims(None::<i32>),
                        ("max", false, true) => t.max(None::<i32>),
                        ("max", true, true) => jnp::max_keepdims(t, None::<i32>),
                        ("min", false, true) => t.min(None::<i32>),
                        _ => jnp::min_keepdims(t, None::<i32>),
                    }
                };
                let got = jit(run, from_ref(&x));
                let shape = if keepdims { kept.clone() } else { drop_axes(x.shape(), &ax) };
                let d = if name == "sum" { sum_dtype } else { dtype };
                expect_values(&got, d, &want, &shape, &(name, keepdims, &axes, x.shape()));
            }
        }
        // The primitive itself, over sorted axes.
        let mut sorted = ax.clone();
        sorted.sort_unstable();
        let op = if dtype == DType::Bool { ReduceOp::Or } else { ReduceOp::Sum };
        let got = jit(|a| lax::reduce(&a[0], op, &sorted), from_ref(&x));
        let (want, _) = reduce_ref(&vals, x.shape(), &ax, 0.0, |a, b| a + b);
        let want: Vec<Option<f64>> =
            want.into_iter().map(|v| Some(if op == ReduceOp::Or { v.min(1.0) } else { v })).collect();
        expect_values(&got, dtype, &want, &drop_axes(x.shape(), &ax), &op);
    }

    #[test]
    fn argmax_argmin(
        shape in shape_s(4, 4),
        dtype in select(vec![DType::F32, DType::I32, DType::F64, DType::U32, DType::Bool]),
        axis in any::<prop::sample::Index>(),
        flatten in any::<bool>(),
        negative in any::<bool>(),
        seed in any::<u64>(),
    ) {
        // Few distinct values, so ties are common; NaNs win (the first one).
        let mut rng = Rng(seed);
        let n = numel(&shape);
        let v: Vec<f64> = (0..n)
            .map(|_| if dtype.is_float() && rng.below(12) == 0 {
                f64::NAN
            } else {
                rng.range(0, 3) as f64
            })
            .collect();
        let x = Tensor::from_vec(v, &shape).astype(dtype);
        let v = x.array().to_f64_vec();
        let r = shape.len();
        let (at, ax) = if flatten || r == 0 {
            (None, None)
        } else {
            let a = axis.index(r);
            (Some(if negative { a as isize - r as isize } else { a as isize }), Some(a))
        };
        let len = match ax {
            Some(a) => shape[a],
            None => n,
        };
        if len == 0 {
            // JAX: "argmin and argmax require non-empty reduced dimension".
            let eager = std::panic::catch_unwind(AssertUnwindSafe(|| jnp::argmax(&x, at)));
            prop_assert!(eager.is_err(), "argmax over an empty axis must be an error");
            let traced = std::panic::catch_unwind(AssertUnwindSafe(|| {
                make_jaxpr(|t: Tensor| jnp::argmin(&t, at), x.clone())
            }));
            prop_assert!(traced.is_err(), "argmin over an empty axis must be an error");
            return Ok(());
        }
        for op in [ArgOp::Max, ArgOp::Min] {
            // The reference: the first extremum (a NaN, if any) along each line.
            let (lines, out_shape) = match ax {
                None => (vec![(0..n).collect::<Vec<usize>>()], vec![]),
                Some(a) => {
                    let out = drop_axes(&shape, &[a]);
                    let lines = indices(&out)
                        .into_iter()
                        .map(|o| {
                            (0..shape[a])
                                .map(|k| {
                                    let mut i = o.clone();
                                    i.insert(a, k);
                                    flat(&i, &shape)
                                })
                                .collect()
                        })
                        .collect();
                    (lines, out)
                }
            };
            let want: Vec<i32> = lines
                .iter()
                .map(|line: &Vec<usize>| {
                    let mut best = 0;
                    for (k, &p) in line.iter().enumerate() {
                        let (b, c) = (v[line[best]], v[p]);
                        if b.is_nan() {
                            break;
                        }
                        let better = if op == ArgOp::Max { c > b } else { c < b };
                        if c.is_nan() || better {
                            best = k;
                        }
                    }
                    best as i32
                })
                .collect();
            let got = jit(
                |a| match op {
                    ArgOp::Max => jnp::argmax(&a[0], at),
                    ArgOp::Min => jnp::argmin(&a[0], at),
                },
                from_ref(&x),
            );
            expect(&got, &want, &out_shape, &(op, at));
            let kept = jit(
                |a| match op {
                    ArgOp::Max => jnp::argmax_keepdims(&a[0], at),
                    ArgOp::Min => jnp::argmin_keepdims(&a[0], at),
                },
                from_ref(&x),
            );
            let kept_shape: Vec<usize> = match ax {
                None => vec![1; r],
                Some(a) => (0..r).map(|d| if d == a { 1 } else { shape[d] }).collect(),
            };
            expect(&kept, &want, &kept_shape, &(op, at, "keepdims"));
        }
    }

    #[test]
    fn cumsum(
        (x, axes) in select(vec![DType::F32, DType::I32, DType::Bool])
            .prop_flat_map(|d| with_axes(d, Vals::Exact)),
        reverse in any::<bool>(),
    ) {
        let vals = x.array().to_f64_vec();
        let shape = x.shape().to_vec();
        let out_dtype = if x.dtype() == DType::Bool { DType::I32 } else { x.dtype() };
        // The reference: running sums along `axis`, from the end if `reverse`.
        let run_ref = |axis: usize, reverse: bool| -> Vec<Option<f64>> {
            let mut out = vec![None; vals.len()];
            for idx in indices(&shape) {
                let k = idx[axis];
                let range: Vec<usize> =
                    if reverse { (k..shape[axis]).collect() } else { (0..=k).collect() };
                let s: f64 = range
                    .iter()
                    .map(|&j| {
                        let mut i = idx.clone();
                        i[axis] = j;
                        vals[flat(&i, &shape)]
                    })
                    .sum();
                out[flat(&idx, &shape)] = Some(s);
            }
            out
        };
        if let Some(&a) = axes.first() {
            let axis = a.rem_euclid(shape.len() as isize) as usize;
            let got = jit(|t| jnp::cumsum(&t[0], Some(a)), from_ref(&x));
            expect_values(&got, out_dtype, &run_ref(axis, false), &shape, &a);
            if x.dtype() != DType::Bool {
                let got = jit(|t| lax::cumsum(&t[0], axis, reverse), from_ref(&x));
                expect_values(&got, out_dtype, &run_ref(axis, reverse), &shape, &(axis, reverse));
            }
        }
        // Flattened.
        let got = jit(|t| jnp::cumsum(&t[0], None), from_ref(&x));
        let mut acc = 0.0;
        let want: Vec<Option<f64>> = vals.iter().map(|v| { acc += v; Some(acc) }).collect();
        expect_values(&got, out_dtype, &want, &[vals.len()], &"flat");
    }

    #[test]
    fn sort_is_a_stable_sort(
        shape in shape_s(4, 4),
        axis in any::<prop::sample::Index>(),
        seed in any::<u64>(),
    ) {
        // Few distinct keys (signed zeros and NaNs included), so stability matters.
        let mut rng = Rng(seed);
        let n = numel(&shape);
        let choices = [0.0f32, -0.0, 1.0, -1.0, 2.5, f32::NAN, f32::INFINITY, f32::NEG_INFINITY];
        let keys: Vec<f32> = (0..n).map(|_| choices[rng.below(choices.len())]).collect();
        let keys2: Vec<i32> = (0..n).map(|_| rng.range(0, 2) as i32).collect();
        let x = Tensor::from_vec(keys.clone(), &shape);
        let k2 = Tensor::from_vec(keys2.clone(), &shape);
        let pos = Tensor::from_vec((0..n as i32).collect::<Vec<i32>>(), &shape);
        // Lines along `dim` as lists of flat positions.
        let lines = |dim: usize| -> Vec<Vec<usize>> {
            let out = drop_axes(&shape, &[dim]);
            indices(&out)
                .into_iter()
                .map(|o| {
                    (0..shape[dim])
                        .map(|k| {
                            let mut i = o.clone();
                            i.insert(dim, k);
                            flat(&i, &shape)
                        })
                        .collect()
                })
                .collect()
        };
        // The reference: a stable sort by (key, key2) with -0.0 == 0.0 and NaNs last.
        let by_key = |p: usize, q: usize| -> std::cmp::Ordering {
            let (a, b) = (keys[p], keys[q]);
            match (a.is_nan(), b.is_nan()) {
                (false, false) => a.partial_cmp(&b).expect("not NaN"),
                (x, y) => x.cmp(&y),
            }
        };
        let order = |line: &[usize], two_keys: bool| -> Vec<usize> {
            let mut v = line.to_vec();
            v.sort_by(|&p, &q| {
                let o = by_key(p, q);
                if two_keys { o.then(keys2[p].cmp(&keys2[q])) } else { o }
            });
            v
        };
        if !shape.is_empty() {
            let dim = axis.index(shape.len());
            for two_keys in [false, true] {
                let outs = jit_many(
                    |a| {
                        if two_keys {
                            lax::sort(&[a[0].clone(), a[1].clone(), a[2].clone()], dim, 2)
                        } else {
                            lax::sort(&[a[0].clone(), a[2].clone()], dim, 1)
                        }
                    },
                    &[x.clone(), k2.clone(), pos.clone()],
                );
                let mut want_keys = vec![0.0f32; n];
                let mut want_pos = vec![0i32; n];
                for line in lines(dim) {
                    for (slot, src) in line.iter().zip(order(&line, two_keys)) {
                        want_keys[*slot] = keys[src];
                        want_pos[*slot] = src as i32;
                    }
                }
                expect(&outs[0], &want_keys, &shape, &(dim, two_keys));
                expect(outs.last().unwrap(), &want_pos, &shape, &(dim, two_keys, "positions"));
            }
            let got = jit(|a| jnp::sort(&a[0], Some(dim as isize - shape.len() as isize)),
                          from_ref(&x));
            let mut want = vec![0.0f32; n];
            for line in lines(dim) {
                for (slot, src) in line.iter().zip(order(&line, false)) {
                    want[*slot] = keys[src];
                }
            }
            expect(&got, &want, &shape, &"jnp.sort");
        }
        let got = jit(|a| jnp::sort(&a[0], None), from_ref(&x));
        let want: Vec<f32> = order(&(0..n).collect::<Vec<_>>(), false)
            .into_iter()
            .map(|p| keys[p])
            .collect();
        expect(&got, &want, &[n], &"flattened");
    }
}

// ---------------------------------------------------------------------------------------------
// Shape primitives.

/// A shape of as many elements: `shape`'s dimensions permuted, neighbours merged, 1s added.
fn regroup(rng: &mut Rng, shape: &[usize]) -> Vec<usize> {
    let dims: Vec<usize> = rng.perm(shape.len()).iter().map(|&p| shape[p]).collect();
    let mut out: Vec<usize> = Vec::new();
    for d in dims {
        match out.last_mut() {
            Some(last) if rng.coin() => *last *= d,
            _ => out.push(d),
        }
    }
    for _ in 0..rng.below(3) {
        let at = rng.below(out.len() + 1);
        out.insert(at, 1);
    }
    out
}

fn iota_tensor(dtype: DType, shape: &[usize]) -> Tensor {
    let v: Vec<f64> = (0..numel(shape)).map(|i| i as f64 * 0.5 - 3.0).collect();
    Tensor::from_vec(v, shape).astype(dtype)
}

fn shape_dtype() -> impl Strategy<Value = DType> {
    select(vec![
        DType::F32,
        DType::I32,
        DType::Bool,
        DType::F64,
        DType::U32,
    ])
}

/// `want` (row-major positions into `x`) gathered from `x`, bitwise.
#[track_caller]
fn expect_gathered(got: &Tensor, x: &Tensor, src: &[usize], shape: &[usize], ctx: &dyn Debug) {
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

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn reshape(shape in shape_s(4, 4), dtype in shape_dtype(), seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let x = iota_tensor(dtype, &shape);
        let new = regroup(&mut rng, &shape);
        let all: Vec<usize> = (0..x.size()).collect();
        let got = jit(|a| lax::reshape(&a[0], &new), from_ref(&x));
        expect_gathered(&got, &x, &all, &new, &new);
        // numpy's reshape, with -1 where it is unambiguous.
        let mut spec: Vec<isize> = new.iter().map(|&d| d as isize).collect();
        if !new.is_empty() {
            let k = rng.below(new.len());
            let others: usize = new.iter().enumerate().filter(|&(i, _)| i != k).map(|(_, d)| d).product();
            if others != 0 {
                spec[k] = -1;
            }
        }
        let got = jit(|a| a[0].reshape(&spec), from_ref(&x));
        expect_gathered(&got, &x, &all, &new, &spec);
        let got = jit(|a| a[0].ravel(), from_ref(&x));
        expect_gathered(&got, &x, &all, &[x.size()], &"ravel");
    }

    #[test]
    fn transpose(
        shape in shape_s(4, 4),
        dtype in shape_dtype(),
        seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let x = iota_tensor(dtype, &shape);
        let r = shape.len();
        let perm = rng.perm(r);
        let out: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
        let src: Vec<usize> = indices(&out)
            .iter()
            .map(|o| {
                let mut i = vec![0; r];
                for (k, &p) in perm.iter().enumerate() {
                    i[p] = o[k];
                }
                flat(&i, &shape)
            })
            .collect();
        let got = jit(|a| lax::transpose(&a[0], &perm), from_ref(&x));
        expect_gathered(&got, &x, &src, &out, &perm);
        let axes: Vec<isize> = perm
            .iter()
            .map(|&p| if rng.coin() { p as isize - r as isize } else { p as isize })
            .collect();
        let got = jit(|a| a[0].transpose(&axes), from_ref(&x));
        expect_gathered(&got, &x, &src, &out, &axes);
        // `.t()` reverses the dimensions.
        let rev: Vec<usize> = (0..r).rev().collect();
        let got = jit(|a| a[0].t(), from_ref(&x));
        let want = lax::transpose(&x, &rev);
        assert_bitwise(&got, &want, &".t()");
    }

    #[test]
    fn squeeze_and_expand_dims(
        base in shape_s(3, 4),
        ones in 0usize..=2,
        dtype in shape_dtype(),
        seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let mut shape = base.clone();
        for _ in 0..ones {
            let at = rng.below(shape.len() + 1);
            shape.insert(at, 1);
        }
        let x = iota_tensor(dtype, &shape);
        let r = shape.len();
        let all: Vec<usize> = (0..x.size()).collect();
        let unit: Vec<usize> = (0..r).filter(|&d| shape[d] == 1).collect();
        let chosen: Vec<usize> = unit.iter().copied().filter(|_| rng.coin()).collect();
        let squeezed = drop_axes(&shape, &chosen);
        let got = jit(|a| lax::squeeze(&a[0], &chosen), from_ref(&x));
        expect_gathered(&got, &x, &all, &squeezed, &chosen);
        let neg: Vec<isize> = chosen
            .iter()
            .map(|&d| if rng.coin() { d as isize - r as isize } else { d as isize })
            .collect();
        let got = jit(|a| jnp::squeeze(&a[0], Some(&neg[..])), from_ref(&x));
        expect_gathered(&got, &x, &all, &squeezed, &neg);
        let got = jit(|a| jnp::squeeze(&a[0], None), from_ref(&x));
        expect_gathered(&got, &x, &all, &drop_axes(&shape, &unit), &"all");
        // expand_dims at every position, counted from either end.
        for at in -(r as isize + 1)..=r as isize {
            let got = jit(|a| jnp::expand_dims(&a[0], at), from_ref(&x));
            let mut want = shape.clone();
            want.insert(at.rem_euclid(r as isize + 1) as usize, 1);
            expect_gathered(&got, &x, &all, &want, &at);
        }
    }

    #[test]
    fn broadcast_in_dim(
        op_shape in shape_s(3, 3),
        extra in 0usize..=2,
        dtype in shape_dtype(),
        seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let x = iota_tensor(dtype, &op_shape);
        let r = op_shape.len();
        let out_rank = r + extra;
        let dims = rng.choose(out_rank, r);
        let mut out: Vec<usize> = (0..out_rank).map(|_| rng.below(4)).collect();
        for (i, &d) in dims.iter().enumerate() {
            out[d] = if op_shape[i] == 1 && rng.coin() { rng.below(4) } else { op_shape[i] };
        }
        let src: Vec<usize> = indices(&out)
            .iter()
            .map(|o| {
                let i: Vec<usize> = dims
                    .iter()
                    .enumerate()
                    .map(|(k, &d)| if op_shape[k] == 1 { 0 } else { o[d] })
                    .collect();
                flat(&i, &op_shape)
            })
            .collect();
        let got = jit(|a| lax::broadcast_in_dim(&a[0], &out, &dims), from_ref(&x));
        expect_gathered(&got, &x, &src, &out, &(&out, &dims));
        // numpy's broadcast_to aligns trailing dimensions.
        if dims == (extra..out_rank).collect::<Vec<_>>() {
            let got = jit(|a| jnp::broadcast_to(&a[0], &out), from_ref(&x));
            expect_gathered(&got, &x, &src, &out, &"broadcast_to");
        }
    }

    #[test]
    fn slice_with_strides(shape in shape_s(4, 5), dtype in shape_dtype(), seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let x = iota_tensor(dtype, &shape);
        let r = shape.len();
        let start: Vec<usize> = shape.iter().map(|&n| rng.below(n + 1)).collect();
        let limit: Vec<usize> =
            (0..r).map(|d| start[d] + rng.below(shape[d] - start[d] + 1)).collect();
        let steps: Vec<usize> = (0..r).map(|_| 1 + rng.below(3)).collect();
        let unit = rng.coin();
        let steps_used: Vec<usize> = if unit { vec![1; r] } else { steps.clone() };
        let out: Vec<usize> =
            (0..r).map(|d| (limit[d] - start[d]).div_ceil(steps_used[d])).collect();
        let src: Vec<usize> = indices(&out)
            .iter()
            .map(|o| {
                let i: Vec<usize> = (0..r).map(|d| start[d] + o[d] * steps_used[d]).collect();
                flat(&i, &shape)
            })
            .collect();
        let got = jit(
            |a| lax::slice(&a[0], &start, &limit, if unit { None } else { Some(&steps) }),
            from_ref(&x),
        );
        expect_gathered(&got, &x, &src, &out, &(&start, &limit, &steps_used));
    }

    #[test]
    fn iota(
        shape in shape_s(4, 4).prop_filter("rank >= 1", |s| !s.is_empty()),
        dim in any::<prop::sample::Index>(),
        dtype in select(vec![DType::I32, DType::U32, DType::F32, DType::F64]),
    ) {
        let d = dim.index(shape.len());
        let got = jit(|_| lax::iota(dtype, &shape, d), &[]);
        let want: Vec<Option<f64>> = indices(&shape).iter().map(|i| Some(i[d] as f64)).collect();
        expect_values(&got, dtype, &want, &shape, &d);
    }

    #[test]
    fn bitcast_convert_type(x in select(vec![DType::I32, DType::U32, DType::F32])
                                .prop_flat_map(|d| arr(d, Vals::Wide))) {
        let bytes = x.array().as_bytes().to_vec();
        for to in [DType::I32, DType::U32, DType::F32] {
            let got = jit(|a| lax::bitcast_convert_type(&a[0], to), from_ref(&x));
            prop_assert_eq!(got.dtype(), to);
            prop_assert_eq!(got.shape(), x.shape());
            prop_assert!(got.array().as_bytes() == &bytes[..], "bits kept from {} to {}", x.dtype(), to);
        }
    }

    #[test]
    fn rev(shape in shape_s(4, 4), dtype in shape_dtype(), seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let x = iota_tensor(dtype, &shape);
        let dims = rng.subset(shape.len());
        let src: Vec<usize> = indices(&shape)
            .iter()
            .map(|o| {
                let i: Vec<usize> = o
                    .iter()
                    .enumerate()
                    .map(|(d, &i)| if dims.contains(&d) { shape[d] - 1 - i } else { i })
                    .collect();
                flat(&i, &shape)
            })
            .collect();
        let got = jit(|a| lax::rev(&a[0], &dims), from_ref(&x));
        expect_gathered(&got, &x, &src, &shape, &dims);
    }

    #[test]
    fn pad(shape in shape_s(3, 4), dtype in shape_dtype(), seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let x = iota_tensor(dtype, &shape);
        let fill = Tensor::scalar(7.0f32).astype(dtype);
        let config: Vec<(i64, i64, i64)> = shape
            .iter()
            .map(|&n| {
                let n = n as i64;
                let (lo, mut hi, int) = (rng.range(-3, 3), rng.range(-3, 3), rng.range(0, 2));
                let size = lo + hi + n + int * (n - 1).max(0);
                if size < 0 {
                    hi -= size;
                }
                (lo, hi, int)
            })
            .collect();
        let out: Vec<usize> = shape
            .iter()
            .zip(&config)
            .map(|(&n, &(lo, hi, int))| (lo + hi + n as i64 + int * (n as i64 - 1).max(0)) as usize)
            .collect();
        // The reference: output position p holds operand element (p - lo) / (interior + 1)
        // when that divides exactly and lies in range, else the padding value.
        let xv = values(&x);
        let want: Vec<V> = indices(&out)
            .iter()
            .map(|o| {
                let mut i = Vec::new();
                for (d, &(lo, _, int)) in config.iter().enumerate() {
                    let j = o[d] as i64 - lo;
                    if j < 0 || j % (int + 1) != 0 || j / (int + 1) >= shape[d] as i64 {
                        return values(&fill)[0];
                    }
                    i.push((j / (int + 1)) as usize);
                }
                xv[flat(&i, &shape)]
            })
            .collect();
        let got = jit(|a| lax::pad(&a[0], &a[1], &config), &[x.clone(), fill.clone()]);
        prop_assert_eq!(got.shape(), &out[..]);
        let g = values(&got);
        for (i, (&a, &b)) in g.iter().zip(&want).enumerate() {
            prop_assert!(same_v(a, b), "element {}: {:?} vs {:?}, config {:?}", i, a, b, config);
        }
        // numpy's pad: non-negative (before, after) widths, no interior.
        let widths: Vec<(usize, usize)> = shape.iter().map(|_| (rng.below(3), rng.below(3))).collect();
        let cfg: Vec<(i64, i64, i64)> = widths.iter().map(|&(b, a)| (b as i64, a as i64, 0)).collect();
        if !shape.is_empty() {
            let got = jit(|a| jnp::pad(&a[0], &widths, 7), from_ref(&x));
            assert_bitwise(&got, &lax::pad(&x, &fill, &cfg), &widths);
        }
    }

    #[test]
    fn concatenate(
        base in shape_s(3, 3).prop_filter("rank >= 1", |s| !s.is_empty()),
        dtype in shape_dtype(),
        count in 1usize..=3,
        seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let r = base.len();
        let axis = rng.below(r);
        let parts: Vec<Tensor> = (0..count)
            .map(|_| {
                let mut s = base.clone();
                s[axis] = rng.below(4);
                rng.tensor(dtype, &s)
            })
            .collect();
        let mut out = base.clone();
        out[axis] = parts.iter().map(|p| p.shape()[axis]).sum();
        // The reference: along `axis`, walk into the part that holds each position.
        let pv: Vec<Vec<V>> = parts.iter().map(values).collect();
        let want: Vec<V> = indices(&out)
            .iter()
            .map(|o| {
                let mut k = o[axis];
                let mut which = 0;
                while k >= parts[which].shape()[axis] {
                    k -= parts[which].shape()[axis];
                    which += 1;
                }
                let mut i = o.clone();
                i[axis] = k;
                pv[which][flat(&i, parts[which].shape())]
            })
            .collect();
        let check_got = |got: &Tensor, ctx: &dyn Debug| {
            assert_eq!(got.shape(), &out[..], "{ctx:?}");
            for (i, (&a, &b)) in values(got).iter().zip(&want).enumerate() {
                assert!(same_v(a, b), "{ctx:?}: element {i}: {a:?} vs {b:?}");
            }
        };
        let got = jit(|a| lax::concatenate(a, axis), &parts);
        check_got(&got, &axis);
        let neg = axis as isize - r as isize;
        let got = jit(|a| jnp::concatenate(a, neg), &parts);
        check_got(&got, &neg);
        // stack = concatenate of expand_dims.
        let same: Vec<Tensor> = (0..count).map(|_| rng.tensor(dtype, &base)).collect();
        let at = rng.below(r + 1);
        let got = jit(|a| jnp::stack(a, at as isize), &same);
        let expanded: Vec<Tensor> = same.iter().map(|t| jnp::expand_dims(t, at as isize)).collect();
        assert_bitwise(&got, &lax::concatenate(&expanded, at), &"stack");
    }
}

// ---------------------------------------------------------------------------------------------
// dot_general and matmul.

#[derive(Debug)]
struct DotCase {
    lhs: Vec<usize>,
    rhs: Vec<usize>,
    contracting: (Vec<usize>, Vec<usize>),
    batch: (Vec<usize>, Vec<usize>),
}

fn dot_case(rng: &mut Rng) -> DotCase {
    // Ranks stay <= 4: nb batch + nc contracting + free dimensions.
    let nb = rng.below(3);
    let nc = rng.below(3).min(4 - nb);
    let nl = rng.below(3).min(4 - nb - nc);
    let nr = rng.below(3).min(4 - nb - nc);
    let bsz: Vec<usize> = (0..nb).map(|_| rng.below(4)).collect();
    let csz: Vec<usize> = (0..nc).map(|_| rng.below(4)).collect();
    // Lay out [batch, contracting, free] logical dimensions at random positions.
    let layout = |rng: &mut Rng, nf: usize| -> (Vec<usize>, Vec<usize>, Vec<usize>) {
        let p = rng.perm(nb + nc + nf);
        (
            p[..nb].to_vec(),
            p[nb..nb + nc].to_vec(),
            p[nb + nc..].to_vec(),
        )
    };
    let (lb, lc, lf) = layout(rng, nl);
    let (rb, rc, rf) = layout(rng, nr);
    let mut lhs = vec![0; nb + nc + nl];
    let mut rhs = vec![0; nb + nc + nr];
    for k in 0..nb {
        lhs[lb[k]] = bsz[k];
        rhs[rb[k]] = bsz[k];
    }
    for k in 0..nc {
        lhs[lc[k]] = csz[k];
        rhs[rc[k]] = csz[k];
    }
    for &f in &lf {
        lhs[f] = rng.below(4);
    }
    for &f in &rf {
        rhs[f] = rng.below(4);
    }
    DotCase {
        lhs,
        rhs,
        contracting: (lc, rc),
        batch: (lb, rb),
    }
}

/// The naive contraction, in f64, with the sum of |products| for a tolerance scale.
fn dot_ref(c: &DotCase, l: &[f64], r: &[f64]) -> (Vec<f64>, Vec<f64>, Vec<usize>) {
    let free = |rank: usize, a: &[usize], b: &[usize]| -> Vec<usize> {
        (0..rank)
            .filter(|d| !a.contains(d) && !b.contains(d))
            .collect()
    };
    let lfree = free(c.lhs.len(), &c.contracting.0, &c.batch.0);
    let rfree = free(c.rhs.len(), &c.contracting.1, &c.batch.1);
    let mut out: Vec<usize> = c.batch.0.iter().map(|&d| c.lhs[d]).collect();
    out.extend(lfree.iter().map(|&d| c.lhs[d]));
    out.extend(rfree.iter().map(|&d| c.rhs[d]));
    let csizes: Vec<usize> = c.contracting.0.iter().map(|&d| c.lhs[d]).collect();
    let nb = c.batch.0.len();
    let (mut want, mut scale) = (Vec::new(), Vec::new());
    for o in indices(&out) {
        let mut li = vec![0; c.lhs.len()];
        let mut ri = vec![0; c.rhs.len()];
        for k in 0..nb {
            li[c.batch.0[k]] = o[k];
            ri[c.batch.1[k]] = o[k];
        }
        for (j, &d) in lfree.iter().enumerate() {
            li[d] = o[nb + j];
        }
        for (j, &d) in rfree.iter().enumerate() {
            ri[d] = o[nb + lfree.len() + j];
        }
        let (mut s, mut a) = (0.0, 0.0);
        for ci in indices(&csizes) {
            for (k, &v) in ci.iter().enumerate() {
                li[c.contracting.0[k]] = v;
                ri[c.contracting.1[k]] = v;
            }
            let p = l[flat(&li, &c.lhs)] * r[flat(&ri, &c.rhs)];
            s += p;
            a += p.abs();
        }
        want.push(s);
        scale.push(a);
    }
    (want, scale, out)
}

fn random_f32(rng: &mut Rng, shape: &[usize]) -> Tensor {
    let v: Vec<f32> = (0..numel(shape))
        .map(|_| (rng.next() >> 40) as f32 / (1u64 << 24) as f32 * 4.0 - 2.0)
        .collect();
    Tensor::from_vec(v, shape)
}

#[derive(Debug)]
struct MatmulCase {
    a: Vec<usize>,
    b: Vec<usize>,
}

fn matmul_case(rng: &mut Rng) -> MatmulCase {
    let (ra, rb) = (1 + rng.below(4), 1 + rng.below(4));
    let (m, k, n) = (rng.below(4), rng.below(4), rng.below(4));
    let nbatch = ra.max(rb).saturating_sub(2);
    let batch: Vec<usize> = (0..nbatch).map(|_| rng.below(4)).collect();
    let mut pick = |r: usize, tail: [usize; 2]| -> Vec<usize> {
        if r == 1 {
            return vec![k];
        }
        let mut s: Vec<usize> = batch[nbatch - (r - 2)..]
            .iter()
            .map(|&d| if rng.coin() { 1 } else { d })
            .collect();
        s.extend(tail);
        s
    };
    let a = pick(ra, [m, k]);
    let b = pick(rb, [k, n]);
    MatmulCase { a, b }
}

/// numpy's matmul, naively: 1-d operands are promoted to matrices, batches broadcast.
fn matmul_ref(c: &MatmulCase, a: &[f64], b: &[f64]) -> (Vec<f64>, Vec<f64>, Vec<usize>) {
    let a2: Vec<usize> = if c.a.len() == 1 {
        vec![1, c.a[0]]
    } else {
        c.a.clone()
    };
    let b2: Vec<usize> = if c.b.len() == 1 {
        vec![c.b[0], 1]
    } else {
        c.b.clone()
    };
    let (ba, bb) = (&a2[..a2.len() - 2], &b2[..b2.len() - 2]);
    let (batch, pos) = broadcast_ref(&[ba, bb]);
    let (m, k, n) = (a2[a2.len() - 2], a2[a2.len() - 1], b2[b2.len() - 1]);
    let (mut want, mut scale) = (Vec::new(), Vec::new());
    for p in &pos {
        for i in 0..m {
            for j in 0..n {
                let (mut s, mut t) = (0.0, 0.0);
                for q in 0..k {
                    let v = a[p[0] * m * k + i * k + q] * b[p[1] * k * n + q * n + j];
                    s += v;
                    t += v.abs();
                }
                want.push(s);
                scale.push(t);
            }
        }
    }
    let mut out = batch;
    if c.a.len() > 1 {
        out.push(m);
    }
    if c.b.len() > 1 {
        out.push(n);
    }
    (want, scale, out)
}

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn dot_general(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let c = dot_case(&mut rng);
        let run = |a: &[Tensor], pref: Option<DType>| {
            lax::dot_general(
                &a[0],
                &a[1],
                (&c.contracting.0, &c.contracting.1),
                (&c.batch.0, &c.batch.1),
                pref,
            )
        };
        // f32 against the f64 reference, with tolerance.
        let (l, r) = (random_f32(&mut rng, &c.lhs), random_f32(&mut rng, &c.rhs));
        let got = jit(|a| run(a, None), &[l.clone(), r.clone()]);
        let (want, scale, out) = dot_ref(&c, &l.array().to_f64_vec(), &r.array().to_f64_vec());
        prop_assert_eq!(got.dtype(), DType::F32);
        expect_close(&got, &want, &scale, &out, 1e-5, &c);
        // i32 exactly (small values: no overflow), and with an f32 preferred type.
        let (l, r) = (rng.tensor(DType::I32, &c.lhs), rng.tensor(DType::I32, &c.rhs));
        let got = jit(|a| run(a, None), &[l.clone(), r.clone()]);
        let (want, _, out) = dot_ref(&c, &l.array().to_f64_vec(), &r.array().to_f64_vec());
        let want_i: Vec<i32> = want.iter().map(|&v| v as i32).collect();
        expect(&got, &want_i, &out, &c);
        let got = jit(|a| run(a, Some(DType::F32)), &[l.clone(), r.clone()]);
        let want_f: Vec<f32> = want.iter().map(|&v| v as f32).collect();
        expect(&got, &want_f, &out, &(&c, "preferred f32"));
        // f64 too.
        let (l, r) = (l.astype(DType::F64), r.astype(DType::F64));
        let got = jit(|a| run(a, None), &[l.clone(), r.clone()]);
        expect(&got, &want, &out, &(&c, "f64"));
    }

    #[test]
    fn matmul(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let c = matmul_case(&mut rng);
        let (a, b) = (random_f32(&mut rng, &c.a), random_f32(&mut rng, &c.b));
        let got = jit(|t| jnp::matmul(&t[0], &t[1]), &[a.clone(), b.clone()]);
        let (want, scale, out) = matmul_ref(&c, &a.array().to_f64_vec(), &b.array().to_f64_vec());
        prop_assert_eq!(got.dtype(), DType::F32);
        expect_close(&got, &want, &scale, &out, 1e-5, &c);
        let method = jit(|t| t[0].matmul(&t[1]), &[a.clone(), b.clone()]);
        assert_bitwise(&method, &got, &"method");
        let (a, b) = (rng.tensor(DType::I32, &c.a), rng.tensor(DType::I32, &c.b));
        let got = jit(|t| jnp::matmul(&t[0], &t[1]), &[a.clone(), b.clone()]);
        let (want, _, out) = matmul_ref(&c, &a.array().to_f64_vec(), &b.array().to_f64_vec());
        let want: Vec<i32> = want.iter().map(|&v| v as i32).collect();
        expect(&got, &want, &out, &c);
        // Mixed dtypes promote: i32 @ f32 is f32.
        let af = random_f32(&mut rng, &c.b);
        let got = jit(|t| jnp::matmul(&t[0], &t[1]), &[a.clone(), af.clone()]);
        prop_assert_eq!(got.dtype(), DType::F32);
    }
}

/// Products whose sizes pick each of `dot_general`'s paths — the skinny kernels (few
/// terms, few columns by either layout of the left operand) and `gemm`, whole or in column
/// chunks for a left operand with contiguous columns — against loops, f32 and f64, with
/// and without a batch dimension.
#[test]
fn dot_general_paths_agree_with_loops() {
    let mut rng = Rng(7);
    // [b, m, k, n], and whether the left operand is stored k x m (contiguous columns).
    let cases = [
        ([1, 70, 300, 200], true),
        ([1, 70, 300, 200], false),
        ([2, 40, 90, 130], true),
        ([1, 300, 10, 64], false),
        ([1, 300, 64, 10], true),
        ([1, 300, 64, 10], false),
        ([1, 33, 20, 257], true),
    ];
    for ([b, m, k, n], by_columns) in cases {
        let lhs_shape = if by_columns { [b, k, m] } else { [b, m, k] };
        let (l, r) = (
            random_f32(&mut rng, &lhs_shape),
            random_f32(&mut rng, &[b, k, n]),
        );
        let (lv, rv) = (l.array().to_f64_vec(), r.array().to_f64_vec());
        let at = |i: usize, p: usize, t: usize| {
            let idx = if by_columns {
                (i * k + t) * m + p
            } else {
                (i * m + p) * k + t
            };
            lv[idx]
        };
        let mut want = vec![0.0; b * m * n];
        let mut scale = vec![0.0; b * m * n];
        for i in 0..b {
            for p in 0..m {
                for q in 0..n {
                    for t in 0..k {
                        let x = at(i, p, t) * rv[(i * k + t) * n + q];
                        want[(i * m + p) * n + q] += x;
                        scale[(i * m + p) * n + q] += x.abs();
                    }
                }
            }
        }
        let contract = if by_columns { 1 } else { 2 };
        for dtype in [DType::F32, DType::F64] {
            let (l, r) = (l.astype(dtype), r.astype(dtype));
            let got = lax::dot_general(&l, &r, (&[contract], &[1]), (&[0], &[0]), None);
            let ctx = format!("{dtype:?} {b}x{m}x{k}x{n}, columns {by_columns}");
            expect_close(&got, &want, &scale, &[b, m, n], 1e-5, &ctx);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Indexing primitives and numpy indexing.

#[derive(Debug)]
struct GatherCase {
    operand: Vec<usize>,
    batch: Vec<usize>,
    dims: GatherDims,
    slice_sizes: Vec<usize>,
    mode: GatherMode,
}

fn gather_case(rng: &mut Rng) -> GatherCase {
    let r = 1 + rng.below(3);
    let operand: Vec<usize> = (0..r).map(|_| 1 + rng.below(4)).collect();
    let mut start_index_map = rng.subset(r);
    let p = rng.perm(start_index_map.len());
    start_index_map = p.iter().map(|&i| start_index_map[i]).collect();
    let collapsed: Vec<usize> = (0..r).filter(|_| rng.below(3) == 0).collect();
    let slice_sizes: Vec<usize> = (0..r)
        .map(|d| {
            if collapsed.contains(&d) {
                1
            } else {
                rng.below(operand[d] + 1)
            }
        })
        .collect();
    let batch = rng.shape(2, 0, 3);
    let window = r - collapsed.len();
    let offset_dims = rng.choose(batch.len() + window, window);
    let mode = [
        GatherMode::Clip,
        GatherMode::FillOrDrop,
        GatherMode::PromiseInBounds,
    ][rng.below(3)];
    GatherCase {
        operand,
        batch,
        dims: GatherDims {
            offset_dims,
            collapsed_slice_dims: collapsed,
            start_index_map,
            operand_batching_dims: vec![],
            start_indices_batching_dims: vec![],
        },
        slice_sizes,
        mode,
    }
}

/// Index vectors for `map` into `operand` with windows of `sizes`: in range for
/// `PromiseInBounds`, else sometimes out of range (by up to 2 either side).
fn start_indices(
    rng: &mut Rng,
    batch: &[usize],
    map: &[usize],
    operand: &[usize],
    sizes: &[usize],
    mode: GatherMode,
) -> Tensor {
    let mut shape = batch.to_vec();
    shape.push(map.len());
    let v: Vec<i32> = (0..numel(batch))
        .flat_map(|_| {
            map.iter()
                .map(|&d| (d, operand[d] - sizes[d]))
                .collect::<Vec<_>>()
        })
        .map(|(_, hi)| {
            if mode == GatherMode::PromiseInBounds || rng.below(3) > 0 {
                rng.range(0, hi as i64) as i32
            } else {
                rng.range(-2, hi as i64 + 2) as i32
            }
        })
        .collect();
    Tensor::from_vec(v, &shape)
}

/// Where a window starting at `vec` (components for `map`) lands: the clamped start per
/// operand dimension, and whether it was in bounds.
fn window_start(
    vec: &[i32],
    map: &[usize],
    operand: &[usize],
    sizes: &[usize],
) -> (Vec<usize>, bool) {
    let mut start = vec![0usize; operand.len()];
    let mut ok = true;
    for (k, &d) in map.iter().enumerate() {
        let hi = (operand[d] - sizes[d]) as i64;
        let s = vec[k] as i64;
        ok &= (0..=hi).contains(&s);
        start[d] = s.clamp(0, hi) as usize;
    }
    (start, ok)
}

#[derive(Debug)]
struct ScatterCase {
    operand: Vec<usize>,
    batch: Vec<usize>,
    updates: Vec<usize>,
    dims: ScatterDims,
    window_sizes: Vec<usize>,
    mode: GatherMode,
}

fn scatter_case(rng: &mut Rng) -> ScatterCase {
    let r = 1 + rng.below(3);
    let operand: Vec<usize> = (0..r).map(|_| 1 + rng.below(4)).collect();
    let mut map = rng.subset(r);
    let p = rng.perm(map.len());
    map = p.iter().map(|&i| map[i]).collect();
    let inserted: Vec<usize> = (0..r).filter(|_| rng.below(3) == 0).collect();
    let window_sizes: Vec<usize> = (0..r)
        .map(|d| {
            if inserted.contains(&d) {
                1
            } else {
                rng.below(operand[d] + 1)
            }
        })
        .collect();
    let batch = rng.shape(2, 0, 3);
    let window: Vec<usize> = (0..r)
        .filter(|d| !inserted.contains(d))
        .map(|d| window_sizes[d])
        .collect();
    let urank = batch.len() + window.len();
    let update_window_dims = rng.choose(urank, window.len());
    let (mut b, mut w) = (batch.iter(), window.iter());
    let updates: Vec<usize> = (0..urank)
        .map(|d| {
            if update_window_dims.contains(&d) {
                *w.next().unwrap()
            } else {
                *b.next().unwrap()
            }
        })
        .collect();
    let mode = [
        GatherMode::Clip,
        GatherMode::FillOrDrop,
        GatherMode::PromiseInBounds,
    ][rng.below(3)];
    ScatterCase {
        operand,
        batch,
        updates,
        dims: ScatterDims {
            update_window_dims,
            inserted_window_dims: inserted,
            scatter_dims_to_operand_dims: map,
            operand_batching_dims: vec![],
            scatter_indices_batching_dims: vec![],
        },
        window_sizes,
        mode,
    }
}

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn dynamic_slice_and_update(shape in shape_s(3, 4), dtype in shape_dtype(), seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let r = shape.len();
        let x = iota_tensor(dtype, &shape);
        let sizes: Vec<usize> = shape.iter().map(|&n| rng.below(n + 1)).collect();
        // Start indices, sometimes out of range (they clamp), all i32 or all u32 scalars.
        let unsigned = rng.coin();
        let lo = if unsigned { 0 } else { -2 };
        let raw: Vec<i64> = shape.iter().map(|&n| rng.range(lo, n as i64 + 1)).collect();
        let starts: Vec<Tensor> = raw
            .iter()
            .map(|&v| if unsigned { Tensor::scalar(v as u32) } else { Tensor::scalar(v as i32) })
            .collect();
        let clamped: Vec<usize> =
            (0..r).map(|d| raw[d].clamp(0, (shape[d] - sizes[d]) as i64) as usize).collect();
        let mut args = vec![x.clone()];
        args.extend(starts.iter().cloned());
        let got = jit(|a| lax::dynamic_slice(&a[0], &a[1..], &sizes), &args);
        let src: Vec<usize> = indices(&sizes)
            .iter()
            .map(|o| {
                let i: Vec<usize> = (0..r).map(|d| clamped[d] + o[d]).collect();
                flat(&i, &shape)
            })
            .collect();
        expect_gathered(&got, &x, &src, &sizes, &(&sizes, &raw));
        // dynamic_update_slice writes a window of the same size at the same (clamped) start.
        let upd = rng.tensor(dtype, &sizes);
        let mut args = vec![x.clone(), upd.clone()];
        args.extend(starts.iter().cloned());
        let got = jit(|a| lax::dynamic_update_slice(&a[0], &a[1], &a[2..]), &args);
        let (xv, uv) = (values(&x), values(&upd));
        let mut want = xv.clone();
        for o in indices(&sizes) {
            let i: Vec<usize> = (0..r).map(|d| clamped[d] + o[d]).collect();
            want[flat(&i, &shape)] = uv[flat(&o, &sizes)];
        }
        prop_assert_eq!(got.shape(), &shape[..]);
        for (i, (&a, &b)) in values(&got).iter().zip(&want).enumerate() {
            prop_assert!(same_v(a, b), "element {}: {:?} vs {:?}", i, a, b);
        }
    }

    #[test]
    fn gather(seed in any::<u64>(), dtype in shape_dtype()) {
        let mut rng = Rng(seed);
        let c = gather_case(&mut rng);
        let x = iota_tensor(dtype, &c.operand);
        let idx = start_indices(&mut rng, &c.batch, &c.dims.start_index_map, &c.operand,
                                &c.slice_sizes, c.mode);
        let got = jit(
            |a| lax::gather(&a[0], &a[1], c.dims.clone(), &c.slice_sizes, c.mode),
            &[x.clone(), idx.clone()],
        );
        // The reference, by XLA's definition.
        let iv = idx.to_vec::<i32>();
        let nvec = c.dims.start_index_map.len();
        let window_dims: Vec<usize> = (0..c.operand.len())
            .filter(|d| !c.dims.collapsed_slice_dims.contains(d))
            .collect();
        let out_rank = c.batch.len() + window_dims.len();
        let (mut bi, mut wi) = (c.batch.iter(), window_dims.iter());
        let out: Vec<usize> = (0..out_rank)
            .map(|d| if c.dims.offset_dims.contains(&d) {
                c.slice_sizes[*wi.next().unwrap()]
            } else {
                *bi.next().unwrap()
            })
            .collect();
        prop_assert_eq!(got.shape(), &out[..], "{:?}", c);
        let xv = values(&x);
        let g = values(&got);
        for (k, o) in indices(&out).iter().enumerate() {
            let b: Vec<usize> = (0..out_rank).filter(|d| !c.dims.offset_dims.contains(d)).map(|d| o[d]).collect();
            let w: Vec<usize> = c.dims.offset_dims.iter().map(|&d| o[d]).collect();
            let row = flat(&b, &c.batch);
            let (start, ok) = window_start(&iv[row * nvec..(row + 1) * nvec],
                                           &c.dims.start_index_map, &c.operand, &c.slice_sizes);
            if !ok && c.mode == GatherMode::FillOrDrop {
                // Out-of-bounds windows read the fill value (NaN, INT_MIN, UINT_MAX, true).
                let fill = match g[k] {
                    V::F(v) => v.is_nan(),
                    V::D(v) => v.is_nan(),
                    V::I(v) => v == i32::MIN,
                    V::U(v) => v == u32::MAX,
                    V::B(v) => v,
                };
                prop_assert!(fill, "element {} of {:?} should be the fill value", k, c);
                continue;
            }
            let mut i = start.clone();
            for (&d, &wv) in window_dims.iter().zip(&w) {
                i[d] += wv;
            }
            prop_assert!(same_v(g[k], xv[flat(&i, &c.operand)]), "element {} of {:?}", k, c);
        }
    }

    #[test]
    fn scatter_add(seed in any::<u64>(), dtype in select(vec![DType::F32, DType::I32, DType::U32, DType::F64])) {
        let mut rng = Rng(seed);
        let c = scatter_case(&mut rng);
        let x = rng.tensor(dtype, &c.operand);
        let upd = rng.tensor(dtype, &c.updates);
        let map = &c.dims.scatter_dims_to_operand_dims;
        let idx = start_indices(&mut rng, &c.batch, map, &c.operand, &c.window_sizes, c.mode);
        let got = jit(
            |a| lax::scatter_add(&a[0], &a[1], &a[2], c.dims.clone(), c.mode),
            &[x.clone(), idx.clone(), upd.clone()],
        );
        let iv = idx.to_vec::<i32>();
        let nvec = map.len();
        let window_dims: Vec<usize> = (0..c.operand.len())
            .filter(|d| !c.dims.inserted_window_dims.contains(d))
            .collect();
        let mut want = x.array().to_f64_vec();
        let uv = upd.array().to_f64_vec();
        for (k, u) in indices(&c.updates).iter().enumerate() {
            let b: Vec<usize> = (0..u.len()).filter(|d| !c.dims.update_window_dims.contains(d)).map(|d| u[d]).collect();
            let w: Vec<usize> = c.dims.update_window_dims.iter().map(|&d| u[d]).collect();
            let row = flat(&b, &c.batch);
            let (start, ok) = window_start(&iv[row * nvec..(row + 1) * nvec], map, &c.operand,
                                           &c.window_sizes);
            if !ok && c.mode == GatherMode::FillOrDrop {
                continue;
            }
            let mut i = start;
            for (&d, &wv) in window_dims.iter().zip(&w) {
                i[d] += wv;
            }
            want[flat(&i, &c.operand)] += uv[k];
        }
        let want: Vec<Option<f64>> = want.into_iter().map(|v| Some(wrap(v, dtype))).collect();
        expect_values(&got, dtype, &want, &c.operand, &c);
    }
}

/// One entry of a numpy index, as the reference sees it.
#[derive(Clone, Debug)]
enum Item {
    Int(isize),
    Slice(Option<isize>, Option<isize>, isize),
    NewAxis,
    Ellipsis,
    Array(Vec<usize>, Vec<i64>, bool),
}

impl Item {
    fn to_oxla(&self) -> IndexItem {
        match self {
            Item::Int(i) => IndexItem::Int(*i),
            Item::Slice(a, b, c) => IndexItem::Slice(s(*a, *b, *c)),
            Item::NewAxis => IndexItem::NewAxis,
            Item::Ellipsis => IndexItem::Ellipsis,
            Item::Array(shape, v, unsigned) => IndexItem::Array(if *unsigned {
                Tensor::from_vec(v.iter().map(|&i| i as u32).collect(), shape)
            } else {
                Tensor::from_vec(v.iter().map(|&i| i as i32).collect(), shape)
            }),
        }
    }
}

fn apply_index(x: &Tensor, items: &[Item]) -> Tensor {
    let mut it = items.iter().map(Item::to_oxla);
    let mut n = || it.next().expect("counted");
    match items.len() {
        1 => x.index(n()),
        2 => x.index((n(), n())),
        3 => x.index((n(), n(), n())),
        4 => x.index((n(), n(), n(), n())),
        5 => x.index((n(), n(), n(), n(), n())),
        6 => x.index((n(), n(), n(), n(), n(), n())),
        k => unreachable!("{k} items"),
    }
}

/// A random index into `shape`: per dimension a full or random slice, an integer or an
/// integer array (arrays broadcast together), some `None`s, perhaps an ellipsis.
fn index_case(rng: &mut Rng, shape: &[usize]) -> Vec<Item> {
    let r = shape.len();
    let explicit = rng.range(r.saturating_sub(1) as i64, r as i64) as usize;
    let bshape = rng.shape(2, 0, 3);
    let mut items: Vec<Item> = Vec::new();
    for &n in &shape[..explicit] {
        let ni = n as i64;
        let kind = if n == 0 { rng.below(2) } else { rng.below(5) };
        items.push(match kind {
            0 => Item::Slice(None, None, 1),
            1 => {
                let step = [-3, -2, -1, 1, 1, 2, 3][rng.below(7)];
                let bound = |rng: &mut Rng| rng.coin().then(|| rng.range(-ni - 2, ni + 2) as isize);
                Item::Slice(bound(rng), bound(rng), step)
            }
            2 => Item::Int(rng.range(-ni, ni - 1) as isize),
            _ => {
                let k = rng.below(bshape.len() + 1);
                let ashape: Vec<usize> = bshape[bshape.len() - k..]
                    .iter()
                    .map(|&d| if rng.coin() { 1 } else { d })
                    .collect();
                let unsigned = rng.below(4) == 0;
                let lo = if unsigned { 0 } else { -ni };
                let v = (0..numel(&ashape)).map(|_| rng.range(lo, ni - 1)).collect();
                Item::Array(ashape, v, unsigned)
            }
        });
    }
    // An ellipsis in place of a run of full slices (possibly empty); it also covers the
    // implicit trailing dimensions, so it goes last when there are any.
    if rng.coin() {
        let at = if explicit < r {
            items.len()
        } else {
            rng.below(items.len() + 1)
        };
        while at < items.len() && matches!(items[at], Item::Slice(None, None, 1)) && rng.coin() {
            items.remove(at);
        }
        items.insert(at, Item::Ellipsis);
    }
    // At most six items in all (the largest index tuple).
    for _ in 0..rng.below(3).min(6 - items.len()) {
        let at = rng.below(items.len() + 1);
        items.insert(at, Item::NewAxis);
    }
    if items.is_empty() {
        items.push(Item::Ellipsis);
    }
    items
}

/// numpy indexing, naively, with JAX's rule for where advanced-index dimensions go: the
/// ellipsis is expanded first, and advanced indices (arrays and, with them, integers) are
/// contiguous when their positions in the index (with `None`s) are consecutive.
fn index_ref(shape: &[usize], items: &[Item]) -> Option<(Vec<usize>, Vec<usize>)> {
    let r = shape.len();
    let consumed = items
        .iter()
        .filter(|i| !matches!(i, Item::NewAxis | Item::Ellipsis))
        .count();
    if consumed > r {
        return None;
    }
    let mut its: Vec<Item> = Vec::new();
    let mut has_ellipsis = false;
    for it in items {
        if let Item::Ellipsis = it {
            has_ellipsis = true;
            its.extend((0..r - consumed).map(|_| Item::Slice(None, None, 1)));
        } else {
            its.push(it.clone());
        }
    }
    if !has_ellipsis {
        its.extend((0..r - consumed).map(|_| Item::Slice(None, None, 1)));
    }
    let in_range = |v: i64, n: usize| (-(n as i64)..n as i64).contains(&v);
    // Operand dimension of each item (None for new axes).
    let mut dim_of = Vec::new();
    let mut d = 0;
    for it in &its {
        if let Item::NewAxis = it {
            dim_of.push(None);
        } else {
            dim_of.push(Some(d));
            d += 1;
        }
    }
    // The generator only makes in-range integers.
    for (it, d) in its.iter().zip(&dim_of) {
        let ok = match it {
            Item::Int(v) => in_range(*v as i64, shape[d.unwrap()]),
            Item::Array(_, v, _) => v.iter().all(|&v| in_range(v, shape[d.unwrap()])),
            _ => true,
        };
        assert!(
            ok,
            "generator bug: {it:?} out of range in {items:?} for {shape:?}"
        );
    }
    // Python's slice.indices, then walking the range.
    let positions = |a: Option<isize>, b: Option<isize>, step: isize, n: usize| -> Vec<usize> {
        let n = n as isize;
        let norm = |v: isize| if v < 0 { v + n } else { v };
        let (start, stop) = if step > 0 {
            (
                a.map_or(0, |v| norm(v).clamp(0, n)),
                b.map_or(n, |v| norm(v).clamp(0, n)),
            )
        } else {
            (
                a.map_or(n - 1, |v| norm(v).clamp(-1, n - 1)),
                b.map_or(-1, |v| norm(v).clamp(-1, n - 1)),
            )
        };
        let mut out = Vec::new();
        let mut i = start;
        while (step > 0 && i < stop) || (step < 0 && i > stop) {
            out.push(i as usize);
            i += step;
        }
        out
    };
    let adv: Vec<usize> = (0..its.len())
        .filter(|&k| matches!(its[k], Item::Array(..)))
        .collect();
    let has_arrays = !adv.is_empty();
    let adv: Vec<usize> = (0..its.len())
        .filter(|&k| {
            matches!(its[k], Item::Array(..)) || (has_arrays && matches!(its[k], Item::Int(_)))
        })
        .collect();
    let array_shapes: Vec<&[usize]> = adv
        .iter()
        .map(|&k| match &its[k] {
            Item::Array(s, ..) => s.as_slice(),
            _ => &[][..],
        })
        .collect();
    let (bshape, bpos) = if has_arrays {
        broadcast_ref(&array_shapes)
    } else {
        (vec![], vec![])
    };
    // Basic dimensions: (item, list of source positions or None for a new axis).
    let basic: Vec<(usize, Option<Vec<usize>>)> = (0..its.len())
        .filter_map(|k| match &its[k] {
            Item::Slice(a, b, st) => {
                Some((k, Some(positions(*a, *b, *st, shape[dim_of[k].unwrap()]))))
            }
            Item::NewAxis => Some((k, None)),
            _ => None,
        })
        .collect();
    let basic_size = |b: &(usize, Option<Vec<usize>>)| b.1.as_ref().map_or(1, |p| p.len());
    let contiguous = adv.windows(2).all(|w| w[1] == w[0] + 1);
    let before = if has_arrays && contiguous {
        basic.iter().filter(|b| b.0 < adv[0]).count()
    } else {
        0
    };
    let mut out: Vec<usize> = basic[..before].iter().map(basic_size).collect();
    out.extend(&bshape);
    out.extend(basic[before..].iter().map(basic_size));
    let nb = bshape.len();
    let src = indices(&out)
        .iter()
        .map(|o| {
            let mut i = vec![0usize; r];
            let (bidx, basic_idx): (Vec<usize>, Vec<usize>) = if has_arrays {
                let b = o[before..before + nb].to_vec();
                let mut rest = o[..before].to_vec();
                rest.extend(&o[before + nb..]);
                (b, rest)
            } else {
                (vec![], o.clone())
            };
            for (j, (k, pos)) in basic.iter().enumerate() {
                if let Some(p) = pos {
                    i[dim_of[*k].unwrap()] = p[basic_idx[j]];
                }
            }
            let bflat = if has_arrays { flat(&bidx, &bshape) } else { 0 };
            for (j, &k) in adv.iter().enumerate() {
                let d = dim_of[k].unwrap();
                let v = match &its[k] {
                    Item::Int(v) => *v as i64,
                    Item::Array(_, vals, _) => vals[bpos[bflat][j]],
                    _ => unreachable!(),
                };
                i[d] = if v < 0 { v + shape[d] as i64 } else { v } as usize;
            }
            // Plain integers without arrays select one position and drop the dimension.
            if !has_arrays {
                for (k, it) in its.iter().enumerate() {
                    if let Item::Int(v) = it {
                        let d = dim_of[k].unwrap();
                        i[d] = if *v < 0 { *v + shape[d] as isize } else { *v } as usize;
                    }
                }
            }
            flat(&i, shape)
        })
        .collect();
    Some((out, src))
}

proptest! {
    #![proptest_config(config(CASES * 2))]

    #[test]
    fn numpy_indexing(shape in shape_s(4, 4).prop_filter("rank >= 1", |s| !s.is_empty()),
                      dtype in select(vec![DType::I32, DType::F32, DType::Bool]),
                      seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let items = index_case(&mut rng, &shape);
        let Some((out, src)) = index_ref(&shape, &items) else {
            return Ok(());
        };
        let x = iota_tensor(dtype, &shape);
        let got = jit(|a| apply_index(&a[0], &items), from_ref(&x));
        expect_gathered(&got, &x, &src, &out, &items);
    }
}
