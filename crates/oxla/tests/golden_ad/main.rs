//! Conformance of automatic differentiation against JAX 0.10.2: every case of
//! `tests/golden_ad/MANIFEST.md` (at the repository root), run with oxla's `grad`,
//! `value_and_grad`, `jvp`, `vjp`, `jacfwd`, `jacrev`, `hessian` and `vmap` on the committed
//! inputs and compared leaf by leaf with the committed outputs.
//!
//! Each case is one test named after it (`cargo test --test golden_ad grad_exp`). Its program
//! is written as the JAX source in the manifest is written, with oxla's API, and is checked
//! twice: run eagerly, and run inside `oxla::jit` (the whole program, transforms included, is
//! traced, simplified and compiled). Both are compared with JAX's outputs, and the jitted
//! outputs with the eager ones (jit must equal eager, within the case's tolerance rather than
//! bit for bit: the compiler may round differently, e.g. rewriting `sum(broadcast(z))` as
//! `sum(z) * n`).
//!
//! Comparison (`check_leaf`, in `common/mod.rs`): same shape and dtype, then values — exact
//! for bools, `|got - want| <= atol + rtol * |want|` for floats (f32: rtol 1e-5, atol 1e-6;
//! f64: rtol 1e-12, atol 1e-12) unless a case says otherwise, with the reason, in its entry
//! below. Loosened: `pegrad_mlp_b8`'s `out_5` only (rtol 1e-4: f32 matmul accumulation order).
//!
//! Skipped cases: none.
//!
//! Adapted cases (the same values, computed with oxla's API where it differs from JAX's):
//!
//! - `grad_has_aux`, `value_and_grad_argnums_has_aux`: oxla has no dict pytree, so the aux
//!   dict `{'sq': ..., 'pred': ...}` is a tuple `(pred, sq)` in JAX's leaf order (sorted keys).
//! - `jacrev_pytree`: oxla's Jacobians are of functions of one tensor, so `jacrev` with
//!   respect to the tuple `(W, b)` is computed per leaf: `jacrev(|W| f(W, b))` and
//!   `jacrev(|b| f(W, b))`, which are JAX's two output leaves.
//! - `grad_dot_general_batched`: `jnp.einsum("bij,bjk->bik", a, b)` is `jnp::matmul` of the
//!   rank-3 operands (the same `dot_general` with batch dimension 0; oxla has no `einsum`).
//! - `grad_log_softmax`: `jax.scipy.special.logsumexp` is written out as JAX defines it
//!   (`log(sum(exp(x - max))) + max`); oxla has no `stop_gradient`, so the gradient also
//!   flows through `max`, where it cancels to rounding (`1 - sum(softmax)`).
//! - `grad_scatter_add`: `x.at[idx].add(v)` is `lax::scatter_add` with the dimension numbers
//!   JAX's indexing builds (the `grad_at_*` cases use `x.at(idx)` itself).
//! - Functions of a tuple `params` (`value_and_grad_tuple_params`, `grad_mean_vmap`): oxla's
//!   `grad` treats a function's tuple argument as its argument list, so JAX's one pytree
//!   argument is a 1-tuple `((w, b),)` and the gradient, argument 0, is `(dw, db)`.
//! - `seed002_*`, `pegrad_mlp_b8`: `params = (w, b)` (resp. `(w1, b1, w2, b2)`) is assembled
//!   from the flat inputs, as the JAX source does; `jax.jit` in the source is `oxla::jit`.
//!
//! `cases` holds the table of cases, `programs` the functions and helpers they share; this
//! file, how a case is checked.

#[path = "../common/mod.rs"]
mod common;
#[path = "../../examples/seeds/mod.rs"]
mod seeds;

use common::{check_leaf, Cmp, Golden, Goldens, Program};
use oxla::Tensor;

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/golden_ad/");
const SUITE: Goldens = Goldens { dir: GOLDEN };

/// Cases of the manifest not covered, with the reason.
const SKIPPED: &[(&str, &str)] = &[];

pub type T = Tensor;
pub type T2 = (Tensor, Tensor);
pub type T4 = (Tensor, Tensor, Tensor, Tensor);

/// Runs `program` on the case's inputs eagerly and inside `oxla::jit`, and compares both with
/// JAX's outputs and with each other (output leaf `i` with `cmps[i]`, or `cmps[0]` for all).
fn check(case: &str, program: Program, cmps: &[Cmp]) {
    let cmp = |i: usize| cmps[if cmps.len() == 1 { 0 } else { i }];
    let args = SUITE.inputs(case);
    let eager = program(&args);
    let jitted = oxla::jit(|a: Vec<Tensor>| program(&a))
        .call(args)
        .expect("jit");
    let mut errors = Vec::new();
    for (how, got) in [("eager", &eager), ("jit", &jitted)] {
        let want = SUITE.read_numbered(case, "out");
        if got.len() != want.len() {
            errors.push(format!(
                "{case} ({how}): {} outputs, JAX has {}",
                got.len(),
                want.len()
            ));
            continue;
        }
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            if let Err(e) = check_leaf(g, w, cmp(i)) {
                errors.push(format!("{case} ({how}) out_{i}: {e}"));
            }
        }
    }
    for (i, (j, e)) in jitted.iter().zip(&eager).enumerate() {
        if let Err(err) = check_leaf(j, &Golden::Array(e.clone()), cmp(i)) {
            errors.push(format!("{case} (jit vs eager) out_{i}: {err}"));
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

macro_rules! cases {
    ($($name:ident $([$($cmp:expr),+])? : |$a:ident| $body:expr;)*) => {
        $(
            #[test]
            fn $name() {
                #[allow(unused_variables)]
                fn program($a: &[Tensor]) -> Vec<Tensor> {
                    $body
                }
                check(stringify!($name), program, &cases!(@cmp $($($cmp),+)?));
            }
        )*

        /// Every covered case.
        const COVERED: &[&str] = &[$(stringify!($name)),*];
    };
    (@cmp) => { [Cmp::Close] };
    (@cmp $($cmp:expr),+) => { [$($cmp),+] };
}

mod cases;
mod programs;
