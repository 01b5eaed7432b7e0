//! Conformance of `vmap` against JAX 0.10.2: every case of `tests/golden_vmap/MANIFEST.md` (at
//! the repository root) that oxla's API can express, run with `oxla::vmap` on the committed
//! inputs and compared leaf by leaf with the committed outputs; and, where the staged
//! equations can agree, the printed jaxpr against `jaxpr.txt`.
//!
//! Each case is a module named after it holding its oxla `program` and a `value` test, so
//! `cargo test --test golden_vmap gather_x_batched` runs one case. Shared helpers (reading
//! goldens, `check_leaf`, `normalize_jaxpr`) are in `common/mod.rs`, as for `golden/`.
//! Every program is checked twice: run eagerly, and traced with `make_jaxpr` then run by
//! `eval_jaxpr`. Comparison: exact for bool and integer leaves, bit-exact for every float leaf
//! of a `random_*` case, rtol 1e-5 / atol 1e-6 for other f32 leaves, and `common::SUM` for
//! `seed004_memory_test{1,2}_vmap_random` (long f32 sums that cancel, added in another order
//! than XLA's).
//!
//! Skipped (listed in `SKIPPED` too; `manifest_is_fully_accounted_for` checks that every case
//! directory is covered or skipped, and nothing else):
//!
//! - `scatter_set_mul_batched`: `.at[].set`, `.at[].mul` and `.at[].max` need scatter
//!   primitives oxla does not have (it has `scatter-add` only).
//!
//! Adapted (same values, written with what oxla has):
//!
//! - `in_axes_dict_prefix`: the dict argument `{'w': w, 'b': b}` is the tuple `(w, b)`, and
//!   `in_axes=({'w': None, 'b': None}, 0)` is `((None, None), 0)`; oxla's trees have no dicts.
//! - `random_*`: typed keys are oxla's raw `u32[2]` keys (the inputs are raw keys already).
//! - `random_fold_in_data`, `random_fold_in_keys_and_data`: `jax.random.fold_in` with traced
//!   (batched) data; oxla's `random::fold_in` takes a Rust `u32`, so `fold_in` (in `adapters`)
//!   builds it from `threefry2x32` of the counter `(0, data)`, as JAX's threefry `fold_in` does.
//! - `cumsum_variants`: `lax.cummax` has no oxla primitive; `cummax_1d` computes it as a
//!   masked `max` over `j <= i`.
//! - `sort_variants`: `jnp.argsort` is `argsort` in `adapters`, a stable sort of `(x, iota)`
//!   as JAX builds it.
//! - `scatter_add_*`: `x.at[i].add(v)` is `at_add` in `adapters`, the `scatter-add` JAX stages
//!   (negative indices wrapped, updates broadcast, out-of-bounds updates dropped).
//! - `dynamic_slice_*`, `dynamic_update_slice_*`: `jax.lax.dynamic_slice` and
//!   `dynamic_update_slice` wrap negative start indices before the primitive clamps them;
//!   `oxla::lax` binds the bare primitive, so the wrappers in `adapters` wrap first.
//! - `batched_3d_matmul`: `jnp.einsum("bij,bjk->bki", x, y)` is the `dot_general` JAX
//!   stages for it (oxla has no `einsum`).
//! - `reductions_axis1`: its seven outputs come back as a `Vec` (oxla's tuples stop at six).
//! - `jnp.swapaxes`, `jnp.flip`, `jnp.expand_dims(v, (0, 2))`, `lax.select`: `transpose`,
//!   `lax::rev`, one `broadcast_in_dim`, and `select_n` with the cases swapped.
//! - `random_keys_axis1_out_axes1`: its input is a Fortran-ordered `.npy` (a transposed
//!   array), which `Array::read_npy` refuses; `common::read_golden` reads it with npyz.
//!
//! The jaxpr tests (module `jaxpr`) compare oxla's printed jaxpr with JAX's after
//! `normalize_jaxpr`, for 55 cases, `seed004_f_vmap` among them. Not compared:
//!
//! - JAX wraps the function in a `jit` (`pjit`) equation, which oxla does not stage:
//!   `compare_where`, `where_batched_cond_only`, `where_scalar_cond_batched` (`jnp.where`),
//!   `cumsum_variants`, `sort_variants` (`cumsum`, `sort`, `argsort`), `slice_steps_rev`
//!   (`jnp.flip`), `pad_variants` (`jnp.pad`), `int_mod_floordiv_neg`,
//!   `int_mod_floordiv_axis1`, `scatter_add_all_batched`, `seed004_extract_grid_vmap`,
//!   `seed004_memory_test{1,2}_vmap_{random,ones}` (`%` and `//`).
//! - `stack_mixed`: JAX 0.10 has a `stack` primitive; oxla stages `broadcast_in_dim` +
//!   `concatenate`.
//! - `dynamic_update_slice_*`: JAX batches `dynamic_update_slice` into a `scatter`
//!   primitive, which oxla does not have (it keeps `dynamic_update_slice` when the indices
//!   are unmapped, and uses `scatter-add` + `select_n` when they are mapped).
//! - `dynamic_slice_both_batched`: JAX's gather carries `indices_are_sorted=True
//!   unique_indices=True` (oxla's gather has no such parameters), and JAX turns a
//!   `dynamic_slice` of a mapped operand at unmapped indices into a gather where oxla keeps
//!   the `dynamic_slice`.
//! - `gather_both_batched`: JAX converts the weakly typed broadcast `0` index
//!   (`convert_element_type[weak_type=False]`); oxla's avals carry no weak types.
//! - `gather_scalar_index_batched`: JAX indexes with a traced scalar by `dynamic_slice`,
//!   oxla by `gather` (as in `golden/`).
//! - `scatter_add_x_batched`, `scatter_add_v_batched`, `scatter_add_idx_batched`: oxla prints
//!   `update_jaxpr=None` where JAX prints the `add` jaxpr; and with unmapped indices JAX
//!   adds the mapped axis as a window dimension where oxla gives the indices a batch axis.
//! - `random_*`: JAX 0.10 stages typed-key primitives (`random_wrap`, `random_bits`, ...).
//!
//! The table of cases is in `cases`, the oxla spellings of what JAX has (and oxla has not)
//! in `adapters`; this file holds how a case is checked, chunked and unchunked.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;
#[path = "../../examples/seeds/mod.rs"]
mod seeds;

mod adapters;
mod cases;

use common::{Cmp, Goldens, Program};
use oxla::transforms::Vmap;
use oxla::{Tensor, Tree};

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/golden_vmap/");
const SUITE: Goldens = Goldens { dir: GOLDEN };

/// Cases of the manifest not covered, with the reason.
const SKIPPED: &[(&str, &str)] = &[(
    "scatter_set_mul_batched",
    "needs .at[].set/.mul/.max: oxla has scatter-add only",
)];

/// No axis: an unmapped argument or output.
const NO: Option<i32> = None;

thread_local! {
    /// The chunk size every `vmap` of a program runs with (`None`: unchunked).
    static CHUNK: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// `oxla::vmap`, chunked by `CHUNK` when it is set.
fn vmap<F>(f: F) -> Vmap<F> {
    let v = oxla::vmap(f);
    match CHUNK.get() {
        Some(k) => v.chunk_size(k),
        None => v,
    }
}

/// Checks a case unchunked, then with every `vmap` in chunks of 1, 7 and the whole axis
/// (a chunk size past the length is the length): chunked must equal unchunked.
fn check_case(case: &str, program: Program, cmp: Cmp) {
    for k in [None, Some(1), Some(7), Some(usize::MAX)] {
        CHUNK.set(k);
        let run = std::panic::catch_unwind(|| SUITE.check_case(case, program, cmp));
        CHUNK.set(None);
        if let Err(e) = run {
            eprintln!("{case}: failed with chunk size {k:?}");
            std::panic::resume_unwind(e);
        }
    }
}

fn check_jaxpr(case: &str, program: Program) {
    SUITE.check_jaxpr(case, program);
}

/// The leaves of a vmapped function's result.
fn leaves<O: Tree>(r: O) -> Vec<Tensor> {
    r.leaves()
}
