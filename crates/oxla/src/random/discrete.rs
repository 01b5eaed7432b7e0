//! Discrete samplers and shuffles, as JAX composes them: `bernoulli` with a tensor of
//! probabilities, `rademacher`, `geometric`, `categorical` (Gumbel-max and Gumbel-top-k),
//! `permutation` (rounds of a stable sort by random bits) and `choice`.

use super::continuous::gumbel;
use super::{bits, randint, split2, uniform};
use crate::array::DType;
use crate::core::Tensor;
use crate::numpy::{self as jnp, Operand};
use crate::ops as lax;

/// `true` with probability `p` (a tensor, `f32`), of `shape` (`p`'s shape when `None`)
/// (`jax.random.bernoulli` with an array `p`).
#[track_caller]
pub fn bernoulli_p(key: &Tensor, p: &Tensor, shape: Option<&[usize]>) -> Tensor {
    let _line = crate::core::user_line();
    let shape = shape.unwrap_or(p.shape());
    uniform(key, shape).lt(jnp::astype(p, DType::F32))
}

/// `-1` or `1` with equal probability, `i32` of `shape` (`jax.random.rademacher`).
#[track_caller]
pub fn rademacher(key: &Tensor, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    let b = jnp::astype(super::bernoulli(key, 0.5, shape), DType::I32);
    b * 2 - 1
}

/// Geometric values (trials up to the first success, from 1) of `shape` with success
/// probability `p`, `i32` (`jax.random.geometric`): `floor(log(u) / log1p(-p)) + 1`.
#[track_caller]
pub fn geometric(key: &Tensor, p: impl Into<Operand>, shape: &[usize]) -> Tensor {
    let _line = crate::core::user_line();
    let p = p.into().to_tensor(DType::F32);
    let u = uniform(key, shape);
    let u = jnp::where_(u.eq(0.0), 1.0, &u);
    let log_one_minus_p = jnp::broadcast_to(lax::log1p(&lax::neg(&p)), shape);
    let g = lax::floor(&lax::div(&lax::log(&u), &log_one_minus_p)) + 1.0;
    jnp::astype(g, DType::I32)
}

/// Normalises `axis` of a rank-`ndim` array, panicking with `what` when out of range.
#[track_caller]
fn norm_axis(axis: isize, ndim: usize, what: &str) -> usize {
    let a = if axis < 0 { axis + ndim as isize } else { axis };
    if a < 0 || a >= ndim as isize {
        panic!(
            "random.{what}: axis {axis} is out of range for an array of rank {ndim}\n  at {}",
            std::panic::Location::caller()
        );
    }
    a as usize
}

/// The indices of the `k` largest values along the last axis, largest first and the lower
/// index first among equals (`lax.top_k`'s indices), `i32`.
fn top_k_indices(x: &Tensor, k: usize) -> Tensor {
    let last = x.ndim() - 1;
    let idx = lax::iota(DType::I32, x.shape(), last);
    let sorted = lax::sort(&[lax::neg(x), idx], last, 2);
    let mut stop = x.shape().to_vec();
    stop[last] = k;
    lax::slice(&sorted[1], &vec![0; x.ndim()], &stop, None)
}

/// `x` with the axis `from` moved to position `to`.
fn move_axis(x: &Tensor, from: usize, to: usize) -> Tensor {
    let mut perm: Vec<usize> = (0..x.ndim()).filter(|&d| d != from).collect();
    perm.insert(to, from);
    lax::transpose(x, &perm)
}

/// `jnp.take(x, ind, axis)`: the slices of `x` along `axis` at `ind`, whose dimensions take
/// the place of `axis`.
fn take(x: &Tensor, ind: &Tensor, axis: usize) -> Tensor {
    let front = move_axis(x, axis, 0);
    let g = front.index(ind);
    let mut perm: Vec<usize> = (ind.ndim()..g.ndim()).collect();
    let at = axis.min(perm.len());
    for (i, d) in (0..ind.ndim()).enumerate() {
        perm.insert(at + i, d);
    }
    lax::transpose(&g, &perm)
}

/// Samples of `shape` (by default the logits' shape without `axis`) from the categorical
/// distributions whose unnormalised log-probabilities lie along `axis` of `logits`, `i32`
/// (`jax.random.categorical`). With `replace` each sample is the argmax of the logits plus
/// Gumbel noise; without, the samples of a distribution are the top `k` of one draw of
/// noise (`k` the product of the leading dimensions `shape` adds).
#[track_caller]
pub fn categorical(
    key: &Tensor,
    logits: &Tensor,
    axis: isize,
    shape: Option<&[usize]>,
    replace: bool,
) -> Tensor {
    let _line = crate::core::user_line();
    let nd = logits.ndim();
    let ax = norm_axis(axis, nd, "categorical");
    let logits = jnp::astype(logits, DType::F32);
    let mut batch = logits.shape().to_vec();
    let n = batch.remove(ax);
    let shape = shape.map_or(batch.clone(), <[usize]>::to_vec);
    if shape.len() < batch.len() || shape[shape.len() - batch.len()..] != batch[..] {
        panic!(
            "random.categorical: shape {shape:?} does not end with the logits' batch shape \
             {batch:?}\n  at {}",
            std::panic::Location::caller()
        );
    }
    let prefix = &shape[..shape.len() - batch.len()];
    if replace {
        let mut full = shape.clone();
        full.insert(prefix.len() + ax, n);
        let mut lshape = vec![1; prefix.len()];
        lshape.extend_from_slice(logits.shape());
        let noisy = gumbel(key, &full) + logits.reshape(&lshape);
        jnp::argmax(noisy, (prefix.len() + ax) as isize)
    } else {
        let k: usize = prefix.iter().product();
        if k > n {
            panic!(
                "random.categorical: {k} samples without replacement exceed the {n} \
                 categories\n  at {}",
                std::panic::Location::caller()
            );
        }
        let noisy = &logits + gumbel(key, logits.shape());
        let ind = top_k_indices(&move_axis(&noisy, ax, nd - 1), k);
        lax::reshape(&move_axis(&ind, nd - 1, 0), &shape)
    }
}

/// JAX's shuffle of `x` along `axis`: rounds of a stable sort by fresh random `u32` keys,
/// `ceil(3 ln(size) / ln(2^32 - 1))` rounds.
fn shuffle(key: &Tensor, x: &Tensor, axis: usize) -> Tensor {
    let size = x.size().max(1) as f64;
    let rounds = (3.0 * size.ln() / (u32::MAX as f64).ln()).ceil() as usize;
    let mut key = key.clone();
    let mut x = x.clone();
    for _ in 0..rounds {
        let (next, sub) = split2(&key);
        key = next;
        let sort_keys = bits(&sub, x.shape());
        x = lax::sort(&[sort_keys, x], axis, 1).swap_remove(1);
    }
    x
}

/// `x` shuffled along `axis` (`jax.random.permutation` of an array): with `independent`
/// each slice along `axis` is shuffled on its own, else whole slices are permuted.
#[track_caller]
pub fn permutation(key: &Tensor, x: &Tensor, axis: isize, independent: bool) -> Tensor {
    let _line = crate::core::user_line();
    super::check_key(key);
    if x.ndim() == 0 {
        panic!(
            "random.permutation: x is a rank-0 array (use permutation_n for a range)\n  at {}",
            std::panic::Location::caller()
        );
    }
    let ax = norm_axis(axis, x.ndim(), "permutation");
    if independent || x.ndim() == 1 {
        shuffle(key, x, ax)
    } else {
        let ind = shuffle(key, &jnp::arange(x.shape()[ax] as i64), 0);
        take(x, &ind, ax)
    }
}

/// A random permutation of `0..n`, `i32` (`jax.random.permutation` of an integer).
#[track_caller]
pub fn permutation_n(key: &Tensor, n: usize) -> Tensor {
    let _line = crate::core::user_line();
    super::check_key(key);
    shuffle(key, &jnp::arange(n as i64), 0)
}

/// Samples of `shape` from the slices of `a` along `axis` (`jax.random.choice`), with or
/// without replacement, uniformly or with probabilities `p` (one per slice). The result has
/// `shape` in place of `axis`.
#[track_caller]
pub fn choice(
    key: &Tensor,
    a: &Tensor,
    shape: &[usize],
    replace: bool,
    p: Option<&Tensor>,
    axis: isize,
) -> Tensor {
    let _line = crate::core::user_line();
    let ax = norm_axis(axis, a.ndim().max(1), "choice");
    if a.ndim() == 0 {
        panic!(
            "random.choice: a is a rank-0 array (use choice_n for a range)\n  at {}",
            std::panic::Location::caller()
        );
    }
    let ind = choice_indices(key, a.shape()[ax], shape, replace, p);
    let mut out = a.shape()[..ax].to_vec();
    out.extend_from_slice(shape);
    out.extend_from_slice(&a.shape()[ax + 1..]);
    take(a, &ind, ax).reshape(&out)
}

/// Samples of `shape` from `0..n`, `i32` (`jax.random.choice` of an integer).
#[track_caller]
pub fn choice_n(
    key: &Tensor,
    n: usize,
    shape: &[usize],
    replace: bool,
    p: Option<&Tensor>,
) -> Tensor {
    let _line = crate::core::user_line();
    choice_indices(key, n, shape, replace, p).reshape(shape)
}

/// The flat indices `choice` takes from a population of `n`. (Without replacement and
/// without `p`, JAX permutes the array itself; a stable sort by the same keys moves the
/// slices as it moves their indices, so taking the permuted indices is the same.)
#[track_caller]
fn choice_indices(
    key: &Tensor,
    n: usize,
    shape: &[usize],
    replace: bool,
    p: Option<&Tensor>,
) -> Tensor {
    super::check_key(key);
    let draws: usize = shape.iter().product();
    if n == 0 && draws > 0 {
        panic!(
            "random.choice: no population to draw {draws} samples from\n  at {}",
            std::panic::Location::caller()
        );
    }
    if !replace && draws > n {
        panic!(
            "random.choice: a sample of {draws} without replacement exceeds the population \
             of {n}\n  at {}",
            std::panic::Location::caller()
        );
    }
    if let Some(p) = p {
        if p.shape() != [n] {
            panic!(
                "random.choice: p has shape {:?}, expected [{n}]\n  at {}",
                p.shape(),
                std::panic::Location::caller()
            );
        }
    }
    match (p, replace) {
        (None, true) => randint(key, shape, 0, n as i64).reshape(&[draws]),
        (None, false) => {
            let perm = shuffle(key, &jnp::arange(n as i64), 0);
            lax::slice(&perm, &[0], &[draws], None)
        }
        (Some(p), true) => {
            let cuml = jnp::cumsum(jnp::astype(p, DType::F32), 0);
            let total = lax::slice(&cuml, &[n - 1], &[n], None).reshape(&[] as &[usize]);
            let r = total * (1.0 - uniform(key, &[draws]));
            // searchsorted(cuml, r, side="left"): how many cumulative sums lie below r.
            let below = jnp::less(cuml.reshape(&[1, n]), r.reshape(&[draws, 1]));
            jnp::sum(jnp::astype(below, DType::I32), 1)
        }
        (Some(p), false) => {
            let g = gumbel(key, &[n]) + jnp::log(jnp::astype(p, DType::F32));
            top_k_indices(&g, draws)
        }
    }
}
