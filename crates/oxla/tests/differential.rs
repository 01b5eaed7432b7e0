//! A differential fuzzer over random small programs: every program runs four ways — eagerly
//! one example at a time, under `jit` one example at a time, `vmap` over the batch (eagerly
//! and under `jit`), and `vmap(..).chunk_size(k)` — and all must agree with the eager loop.
//! So must its per-example gradient, `grad` of a scalar loss: under `jit`, `vmap`,
//! `jit(vmap)` and chunked.
//!
//! A program is a list of [`Step`]s over a growing list of values of one example's shape
//! `[a, b]`, `b` small or large enough that kernels span several blocks of lanes and threads:
//! the input, a captured constant (an unmapped operand under `vmap`), and each step's
//! result. Steps keep values in about `[-1, 1]` so that a difference is a bug, not rounding.
//!
//! The generator is proptest's; `differential.proptest-regressions` keeps every failing case
//! found so far (the seed corpus), and [`CORPUS`] holds hand-picked programs that cover each
//! step. CI runs 500 cases from a fixed seed; `OXLA_FUZZ_CASES` and `OXLA_FUZZ_SEED` explore
//! further, e.g. `OXLA_FUZZ_CASES=20000 OXLA_FUZZ_SEED=7 cargo test --test differential`.

use oxla::numpy::{self as jnp, s};
use oxla::{grad, jit, random, vmap, Tensor};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

/// One step of a program; operands are indices into the values so far (taken modulo their
/// count).
#[derive(Clone, Debug)]
enum Step {
    /// `tanh`, `sin`, `-x`, `|x|`, `exp(x) * 0.3`, `sqrt(|x| + 0.25)`, `floor(x * 3) / 3` of
    /// a value (no `sqrt(|x|)`: its derivative near 0 magnifies rounding without bound).
    Unary(u8, usize),
    /// `(x + y) / 2`, `x - y` halved, `x * y`, `max`, `min` of two values.
    Binary(u8, usize, usize),
    /// `x * c` or `x + c` then `tanh`.
    Scalar(bool, usize, i8),
    /// `x - mean(x, axis)`, broadcast back: a reduction feeding a broadcast.
    Center(usize, usize),
    /// `x * max(|x|, axis)` broadcast back.
    ScaleByMax(usize, usize),
    /// `roll(x, shift, axis)`: slices and a concatenation.
    Roll(usize, isize, usize),
    /// `x[::-1]` along an axis.
    Flip(usize, usize),
    /// `where(x > 0, y, z)`.
    Where(usize, usize, usize),
    /// `(x @ y.T) @ z / (a * b)`: two products.
    Matmul(usize, usize, usize),
    /// `cumsum(x, axis) / size`.
    Cumsum(usize, usize),
    /// `pad(x, 1 before along axis)[..size]`: a shift with a zero fill.
    Shift(usize, usize),
    /// `sort(x, axis)`.
    Sort(usize, usize),
}

/// Runs a program on one example `x` with the captured constant `c`; returns the last value and
/// the sum of a middle one (two outputs, one of them a scalar).
fn run(steps: &[Step], x: Tensor, c: &Tensor) -> (Tensor, Tensor) {
    let mut v = vec![x, c.clone()];
    for step in steps {
        let at = |i: usize| v[i % v.len()].clone();
        let shape = v[0].shape().to_vec();
        let axis = |a: usize| (a % 2) as isize;
        let size = |a: usize| shape[a % 2] as f32;
        let y = match *step {
            Step::Unary(op, i) => {
                let x = at(i);
                match op % 7 {
                    0 => jnp::tanh(&x),
                    1 => jnp::sin(&x),
                    2 => -&x,
                    3 => jnp::abs(&x),
                    4 => jnp::exp(&x) * 0.3,
                    5 => jnp::sqrt(&(jnp::abs(&x) + 0.25)),
                    _ => jnp::floor(&(&x * 3.0)) / 3.0,
                }
            }
            Step::Binary(op, i, j) => {
                let (x, y) = (at(i), at(j));
                match op % 5 {
                    0 => (&x + &y) * 0.5,
                    1 => (&x - &y) * 0.5,
                    2 => &x * &y,
                    3 => jnp::maximum(&x, &y),
                    _ => jnp::minimum(&x, &y),
                }
            }
            Step::Scalar(mul, i, k) => {
                let k = f32::from(k) / 64.0;
                if mul {
                    jnp::tanh(&(at(i) * k))
                } else {
                    jnp::tanh(&(at(i) + k))
                }
            }
            Step::Center(i, a) => {
                let x = at(i);
                (&x - jnp::mean_keepdims(&x, axis(a))) * 0.5
            }
            Step::ScaleByMax(i, a) => {
                let x = at(i);
                let m = jnp::abs(&x).max(axis(a));
                let m = if a % 2 == 0 {
                    m.index((None, ..))
                } else {
                    m.index((.., None))
                };
                &x * m
            }
            Step::Roll(i, shift, a) => jnp::roll(&at(i), shift, Some(axis(a))),
            Step::Flip(i, a) => {
                let rev = s(None, None, -1);
                if a % 2 == 0 {
                    at(i).index(rev)
                } else {
                    at(i).index((.., rev))
                }
            }
            Step::Where(i, j, k) => jnp::where_(jnp::greater(at(i), 0.0), at(j), at(k)),
            Step::Matmul(i, j, k) => {
                let xy = jnp::matmul(&at(i), &at(j).t());
                jnp::matmul(&xy, &at(k)) / (shape[0] * shape[1]) as f32
            }
            Step::Cumsum(i, a) => jnp::cumsum(&at(i), Some(axis(a))) / size(a),
            Step::Shift(i, a) => {
                let mut widths = [(0, 0), (0, 0)];
                widths[a % 2] = (1, 0);
                let p = jnp::pad(&at(i), &widths, 0.0);
                let n = shape[a % 2] as isize;
                if a % 2 == 0 {
                    p.index(s(Some(0), Some(n), 1))
                } else {
                    p.index((.., s(Some(0), Some(n), 1)))
                }
            }
            Step::Sort(i, a) => jnp::sort(&at(i), Some(axis(a))),
        };
        v.push(y);
    }
    let mid = v[v.len() / 2].sum(None);
    (v.pop().expect("at least the input"), mid)
}

fn step() -> impl Strategy<Value = Step> {
    let i = 0usize..16;
    prop_oneof![
        (0u8..7, i.clone()).prop_map(|(o, i)| Step::Unary(o, i)),
        (0u8..5, i.clone(), i.clone()).prop_map(|(o, i, j)| Step::Binary(o, i, j)),
        (any::<bool>(), i.clone(), any::<i8>()).prop_map(|(m, i, k)| Step::Scalar(m, i, k)),
        (i.clone(), 0usize..2).prop_map(|(i, a)| Step::Center(i, a)),
        (i.clone(), 0usize..2).prop_map(|(i, a)| Step::ScaleByMax(i, a)),
        (i.clone(), -3isize..4, 0usize..2).prop_map(|(i, s, a)| Step::Roll(i, s, a)),
        (i.clone(), 0usize..2).prop_map(|(i, a)| Step::Flip(i, a)),
        (i.clone(), i.clone(), i.clone()).prop_map(|(i, j, k)| Step::Where(i, j, k)),
        (i.clone(), i.clone(), i.clone()).prop_map(|(i, j, k)| Step::Matmul(i, j, k)),
        (i.clone(), 0usize..2).prop_map(|(i, a)| Step::Cumsum(i, a)),
        (i.clone(), 0usize..2).prop_map(|(i, a)| Step::Shift(i, a)),
        (i, 0usize..2).prop_map(|(i, a)| Step::Sort(i, a)),
    ]
}

/// Whether two results agree: same shape, values within a tolerance that sums reordered by
/// fusion or batching stay inside; `terms` is how many values of about 1 a result sums.
fn agree(what: &str, got: &Tensor, want: &Tensor, terms: usize) -> Result<(), TestCaseError> {
    let atol = 1e-5 + 2e-7 * terms as f32;
    prop_assert_eq!(got.shape(), want.shape(), "{}: shapes", what);
    for (k, (g, w)) in got
        .to_vec::<f32>()
        .into_iter()
        .zip(want.to_vec::<f32>())
        .enumerate()
    {
        let ok = (g.is_nan() && w.is_nan()) || (g - w).abs() <= atol + 1e-4 * w.abs();
        prop_assert!(ok, "{}: element {} is {} against {}", what, k, g, w);
    }
    Ok(())
}

/// Runs `steps` on a batch of `n` examples of shape `[a, b]` every way, against the eager loop.
fn check(
    steps: &[Step],
    n: usize,
    a: usize,
    b: usize,
    chunk: usize,
    seed: i64,
) -> Result<(), TestCaseError> {
    let xs = random::uniform(&random::key(seed), &[n, a, b]) * 2.0 - 1.0;
    let c = random::uniform(&random::key(seed + 1), &[a, b]) * 2.0 - 1.0;
    let f = |x: Tensor| run(steps, x, &c);

    let rows: Vec<(Tensor, Tensor)> = (0..n).map(|i| f(xs.index(i))).collect();
    let jitted = jit(f);
    for (i, (last, mid)) in rows.iter().enumerate() {
        let (jl, jm): (Tensor, Tensor) = jitted.call(xs.index(i)).expect("no limit is set");
        agree("jit(f) against f", &jl, last, 1)?;
        agree("jit(f) against f (sum)", &jm, mid, a * b)?;
    }
    let last = jnp::stack(&rows.iter().map(|r| r.0.clone()).collect::<Vec<_>>(), 0);
    let mid = jnp::stack(&rows.iter().map(|r| r.1.clone()).collect::<Vec<_>>(), 0);

    let (vl, vm): (Tensor, Tensor) = vmap(f).call(xs.clone());
    agree("vmap(f) against the loop", &vl, &last, 1)?;
    agree("vmap(f) against the loop (sum)", &vm, &mid, a * b)?;

    let jv = jit(|xs: Tensor| -> (Tensor, Tensor) { vmap(f).call(xs) });
    let (jl, jm): (Tensor, Tensor) = jv.call(xs.clone()).expect("no limit is set");
    agree("jit(vmap(f)) against the loop", &jl, &last, 1)?;
    agree("jit(vmap(f)) against the loop (sum)", &jm, &mid, a * b)?;

    let (cl, cm): (Tensor, Tensor) = vmap(f).chunk_size(chunk).call(xs.clone());
    agree("vmap(f).chunk_size(k) against the loop", &cl, &last, 1)?;
    agree(
        "vmap(f).chunk_size(k) against the loop (sum)",
        &cm,
        &mid,
        a * b,
    )?;

    // Per-example gradients of a scalar loss. Its cotangents are sums of up to a * b
    // products of about 1 (a product's backward pass sums over a and b).
    let loss = |x: Tensor| -> Tensor {
        let (last, mid) = f(x);
        last.sum(None) * 0.5 + mid
    };
    let g = |x: Tensor| -> Tensor { grad(loss).call(x) };
    let terms = a * b * a * b;
    let rows: Vec<Tensor> = (0..n).map(|i| g(xs.index(i))).collect();
    let jitted = jit(g);
    for (i, want) in rows.iter().enumerate() {
        let got: Tensor = jitted.call(xs.index(i)).expect("no limit is set");
        agree("jit(grad(f)) against grad(f)", &got, want, terms)?;
    }
    let want = jnp::stack(&rows, 0);
    let got: Tensor = vmap(g).call(xs.clone());
    agree("vmap(grad(f)) against the loop", &got, &want, terms)?;
    let jv = jit(|xs: Tensor| -> Tensor { vmap(g).call(xs) });
    let got: Tensor = jv.call(xs.clone()).expect("no limit is set");
    agree("jit(vmap(grad(f))) against the loop", &got, &want, terms)?;
    let got: Tensor = vmap(g).chunk_size(chunk).call(xs.clone());
    agree(
        "vmap(grad(f)).chunk_size(k) against the loop",
        &got,
        &want,
        terms,
    )?;
    Ok(())
}

/// Hand-picked programs: each step kind at least once, on shapes with a size-1 axis too.
fn corpus() -> Vec<(Vec<Step>, [usize; 5])> {
    use Step::*;
    vec![
        (
            vec![Unary(0, 0), Binary(2, 2, 1), Center(3, 1), Roll(4, 1, 1)],
            [3, 2, 5, 2, 0],
        ),
        (
            vec![ScaleByMax(0, 0), Flip(2, 1), Where(0, 3, 1), Cumsum(4, 0)],
            [4, 3, 1, 3, 1],
        ),
        (
            vec![
                Matmul(0, 1, 0),
                Shift(2, 1),
                Sort(3, 1),
                Scalar(true, 4, -100),
            ],
            [2, 1, 4, 1, 2],
        ),
        (
            vec![Unary(4, 0), Unary(5, 1), Unary(6, 2), Binary(3, 3, 4)],
            [5, 2, 3, 4, 3],
        ),
        (
            vec![Binary(4, 0, 1), Sort(2, 0), Scalar(false, 3, 7)],
            [1, 3, 3, 1, 4],
        ),
        // The first find: a chunk body whose output is a broadcast of padding alone, so the
        // kernel's `select_n` folded to its pad value, an earlier node than the root.
        (vec![Unary(0, 0), Shift(7, 0)], [1, 1, 1, 1, 0]),
        // The second: the gradient of a sort gathers by the permutation, and the pads that
        // shift it back evaluated the gather at a masked-off point outside its operand.
        (
            vec![Matmul(0, 0, 0), Shift(2, 0), Shift(15, 0), Sort(3, 1)],
            [1, 1, 1, 1, 0],
        ),
    ]
}

#[test]
fn the_corpus_agrees_every_way() {
    for (steps, [n, a, b, chunk, seed]) in corpus() {
        check(&steps, n, a, b, chunk, seed as i64)
            .unwrap_or_else(|e| panic!("{steps:?} on [{n}, {a}, {b}]: {e}"));
    }
}

/// CI's bounded run: 500 cases from a fixed seed, so that it is the same run every time.
/// `OXLA_FUZZ_CASES` and `OXLA_FUZZ_SEED` explore further.
fn config() -> ProptestConfig {
    let var = |name: &str| std::env::var(name).ok().and_then(|v| v.parse().ok());
    ProptestConfig {
        cases: var("OXLA_FUZZ_CASES").map_or(500, |c: u64| c as u32),
        rng_seed: RngSeed::Fixed(var("OXLA_FUZZ_SEED").unwrap_or(0)),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_programs_agree_every_way(
        steps in prop::collection::vec(step(), 1..7),
        n in 1usize..6,
        a in 1usize..5,
        b in prop_oneof![1usize..6, 200usize..1300],
        chunk in 1usize..7,
        seed in 0i64..1000,
    ) {
        check(&steps, n, a, b, chunk, seed)?;
    }
}
