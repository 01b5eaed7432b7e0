//! Conformance of the collectives under `vmap(f).axis_name("i")` against JAX 0.10.2: every
//! case of `tests/golden_collectives/MANIFEST.md` (at the repository root), run on the
//! committed inputs eagerly, traced and run by `eval_jaxpr`, and under `jit`, and compared
//! leaf by leaf with JAX's outputs (`common::check_leaf`: f32 within rtol 1e-5 / atol 1e-6,
//! integers and bools exactly). The printed jaxprs are compared with JAX's where they can
//! agree (module `jaxpr`), and so are the collectives traced under `axis_env` (module
//! `axis_env`).
//!
//! Adapted: JAX 0.10 cannot batch `pshuffle` (its batcher passes the permutation to
//! `jnp.take` as a list), so `pshuffle_reverse`'s golden is the `ppermute` that `pshuffle`
//! defines; `jvp_all_gather` returns the primal and tangent as a tuple, as JAX's `jvp`
//! does; `cond_psum` takes `k > 0` of the unmapped `k`; `while_pmax` counts its steps in
//! an `int32` carry.
//!
//! Jaxprs not compared:
//!
//! - the cases whose JAX jaxpr holds a `jit` equation (`ppermute_*` with a mapped operand,
//!   `take`; `psum_axis1`, `pmean_*`, `batch_norm` and the `grad_*` cases stage `jnp`
//!   division, power and `sum` helpers as `jit` or with weak types);
//! - the loops (`scan_psum`, `cond_psum`, `fori_all_gather`, `while_pmax`), whose JAX
//!   bodies print parameters oxla's do not have;
//! - `pmin_axis1`: oxla reduces the mapped axis where it is (`pmin[axes=(1,)]`), where JAX
//!   transposes it to the front first;
//! - `all_to_all_*`, `pswapaxes_axis1`: JAX batches an untiled `all_to_all` as one reshape, transpose and
//!   reshape; oxla batches what it binds (an `expand_dims`, the exchange of blocks, a
//!   `squeeze`) one by one, to the same values.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;

mod cases;

use common::{normalize_jaxpr, Cmp, Goldens, Program};

use oxla::Tensor;

const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/golden_collectives/"
);
const SUITE: Goldens = Goldens { dir: GOLDEN };

fn check_case(case: &str, program: Program, cmp: Cmp) {
    SUITE.check_case(case, program, cmp);
}

fn check_jaxpr(case: &str, program: Program) {
    SUITE.check_jaxpr(case, program);
}

/// JAX's jaxpr of a collective traced under `axis_env` (`axis_env/<case>.txt`, its first
/// line a comment) against oxla's, normalised.
fn check_env(case: &str, env: &[(&str, usize)], got: oxla::ClosedJaxpr) {
    let path = format!("{GOLDEN}axis_env/{case}.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let want: String = text.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(
        normalize_jaxpr(&got.to_string()),
        normalize_jaxpr(&want),
        "{case} under axis_env {env:?}\n--- oxla:\n{got}\n--- JAX:\n{want}"
    );
}

/// The leaves of a result.
fn leaves<O: oxla::Tree>(r: O) -> Vec<Tensor> {
    r.leaves()
}
