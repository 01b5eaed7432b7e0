"""The Rust suite's JAX golden cases (`tests/golden`, made by `scripts/gen_golden.py`), run
from Python: each case's JAX source runs with oxla in place of jax, and its outputs and
jaxpr must equal JAX's. The cases that need a function oxla's Python package does not
bind yet are listed (`UNSUPPORTED`); a wrong value or a different jaxpr fails."""

import numpy as np
import pytest

import oxla
from conftest import REPO, jax_alias, load_module

GOLDEN = REPO / "tests" / "golden"

# Cases using a function the Python package does not bind yet. A case leaves this list
# when its function is bound (and must then match JAX); no other case may be unsupported.
UNSUPPORTED = set()

# Cases whose jaxpr is not compared, as in the Rust suite (`crates/oxla/tests/golden/main.rs`
# says why for each): JAX 0.10 stages these differently from the JAX 0.4-era programs oxla
# follows, with the same values.
JAXPR_DIFFERS = {
    "stack_axis0", "stack_axis_neg1", "softmax", "scalar_int_mul_float", "zeros_ones_full",
    "x64_default_dtypes", "eye_ops", "scalar_int_index_traced", "scan_no_xs",
    "scan_no_xs_reverse_unroll", "mixed_slice_int_array",
    # The Rust suite skips these (it has no Python-level grad); JAX 0.10 names unused
    # results `_` and orders the derivative's equations differently.
    "transform_grad_squared_error", "transform_vmap_grad_squared_error",
    "transform_grad_sin_sum",
}

# Long f32 sums whose terms cancel, added in another order than XLA's (the Rust suite's
# `common::SUM`).
SUM_TOLERANCE = {"transform_vmap_seed004_f", "transform_vmap_memory_test1"}


def _strip_broadcast_shape(s):
    head = "broadcast_in_dim["
    out, rest = [], s
    while head in rest:
        i = rest.index(head)
        out.append(rest[:i])
        after = rest[i + len(head):]
        close = after.index("]")
        params = after[:close]
        j = params.find(" shape=(")
        if j >= 0:
            end = j + params[j:].index(")") + 1
            params = params[:j] + params[end:]
        out.append("broadcast_in_dim" if params.strip() == "broadcast_dimensions=()"
                   else head + params + "]")
        rest = after[close + 1:]
    out.append(rest)
    return "".join(out)


def normalize_jaxpr(s):
    """The Rust suite's `normalize_jaxpr`: JAX 0.10's printing differences removed."""
    for p in (" out_sharding=None", " sharding=None", " precision=None"):
        s = s.replace(p, "")
    while "np.int64(" in s:
        i = s.index("np.int64(")
        end = i + s[i:].index(")")
        s = s[:i] + s[i + len("np.int64("):end] + s[end + 1:]
    s = " ".join(_strip_broadcast_shape(s).split())
    return s.replace("[ ", "[").replace(" ]", "]")


def _compares_jaxpr(name, jax_text):
    """Whether the case's jaxpr is compared: JAX's has no jit wrapper, and it is not one of
    the cases above, the `random_*` ones (typed-key primitives) or the `at_*` ones (other
    scatter dimension numbers)."""
    return not ("jit[" in jax_text or name in JAXPR_DIFFERS
                or name.startswith(("random_", "at_")))


def _cases():
    gen = load_module(REPO / "scripts" / "gen_golden.py", "gen_golden_oxla", jax_alias())
    return gen.CASES


def _inputs(name):
    d = GOLDEN / name
    n = len(list(d.glob("in_*.npy")))
    return [np.load(d / f"in_{i}.npy") for i in range(n)]


def _outputs(name):
    d = GOLDEN / name
    n = len(list(d.glob("out_*.npy")))
    return [np.load(d / f"out_{i}.npy") for i in range(n)]


def _close(got, want, tol=None):
    got = np.asarray(got)
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"{got.dtype}{list(got.shape)} against JAX's {want.dtype}{list(want.shape)}"
    if want.dtype.kind in "fc":
        if tol is None:
            f32 = want.dtype in (np.float32, np.complex64, np.float16)
            tol = dict(rtol=1e-5, atol=1e-6) if f32 else dict(rtol=1e-12, atol=1e-12)
        ok = np.allclose(got, want, equal_nan=True, **tol)
    else:
        ok = np.array_equal(got, want)
    return None if ok else f"values differ: {got} against JAX's {want}"


def run_case(c):
    """None when the case matches JAX, "unsupported: ..." when oxla's package lacks a name
    it uses, otherwise what differs."""
    name = c["name"]
    oxla.config.update("jax_enable_x64", c["x64"])
    try:
        args = [oxla.numpy.asarray(a) for a in _inputs(name)]
        out = oxla.tree_util.tree_leaves(c["fn"](*args))
        jaxpr = str(oxla.make_jaxpr(c["fn"])(*args))
    except (AttributeError, NotImplementedError) as e:
        return f"unsupported: {type(e).__name__}: {e}"
    except Exception as e:  # noqa: BLE001 (reported as the case's failure)
        return f"raised {type(e).__name__}: {e}"
    finally:
        oxla.config.update("jax_enable_x64", False)
    want = _outputs(name)
    if len(out) != len(want):
        return f"{len(out)} outputs against JAX's {len(want)}"
    for i, (g, w) in enumerate(zip(out, want)):
        # threefry's draws match JAX's bit for bit.
        tol = dict(rtol=0, atol=0) if name.startswith("random_") else None
        why = _close(g, w, dict(rtol=1e-5, atol=2.5e-4) if name in SUM_TOLERANCE else tol)
        if why:
            return f"output {i}: {why}"
    want_jaxpr = (GOLDEN / name / "jaxpr.txt").read_text()
    if _compares_jaxpr(name, want_jaxpr) and normalize_jaxpr(jaxpr) != normalize_jaxpr(want_jaxpr):
        return f"jaxpr differs:\n{jaxpr}\nJAX's:\n{want_jaxpr}"
    return None


def test_golden_cases_match_jax():
    passed, unsupported, failed = [], [], []
    for c in _cases():
        why = run_case(c)
        if why is None:
            passed.append(c["name"])
        elif why.startswith("unsupported"):
            unsupported.append((c["name"], why))
        else:
            failed.append((c["name"], why))
    report = "\n".join(f"{n}: {w}" for n, w in failed)
    print(f"{len(passed)} passed, {len(unsupported)} unsupported, {len(failed)} failed")
    for n, w in unsupported:
        print(f"  {n}: {w}")
    assert not failed, report
    unexpected = {n for n, _ in unsupported} - UNSUPPORTED
    assert not unexpected, f"cases that should run: {unexpected}"
    bound = UNSUPPORTED - {n for n, _ in unsupported}
    assert not bound, f"now supported, take them off UNSUPPORTED: {bound}"
    assert len(passed) + len(UNSUPPORTED) == len(_cases())
