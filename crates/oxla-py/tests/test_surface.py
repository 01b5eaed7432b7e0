"""The Rust suite's API-surface tables (`tests/golden_surface`, made by
`scripts/gen_golden_surface.py`), run from Python: each case's JAX source runs with oxla in
place of jax, checked as the Rust rows check it (`crates/oxla/tests/surface/`, whose
options each case takes: tolerances, `bits`, `signs`, `nograd`):

- eagerly against JAX's outputs, and `vmap` over the batch against JAX's `vmap`;
- `vjp` with JAX's cotangents against JAX's `vjp`;
- `jit` against eager.

A case needing a function the package does not bind yet is listed in
`surface_unsupported.txt`; it must still be unsupported (remove it when it is bound), and
no other case may be."""

import re
import sys
import types

import numpy as np
import pytest

import oxla
from conftest import REPO, jax_alias, load_module

GOLDEN = REPO / "tests" / "golden_surface"
RUST = REPO / "crates" / "oxla" / "tests" / "surface"
UNSUPPORTED = {
    line.split("#")[0].strip()
    for line in (REPO / "crates" / "oxla-py" / "tests" / "surface_unsupported.txt")
    .read_text().splitlines()
} - {""}
ROW = re.compile(r"^\s*(\w+)\s*(?:\[([^\]]*)\])?\s*:\s*\|", re.M)


def _options(table):
    """Each row's options in the Rust table: name -> {"tol": (rtol, atol), "bits", ...}."""
    out = {}
    for name, opts in ROW.findall((RUST / f"{table}.rs").read_text()):
        o = {}
        for m in re.finditer(r"(\w+)(?:\(([^)]*)\))?", opts or ""):
            o[m.group(1)] = tuple(float(v) for v in m.group(2).split(",")) if m.group(2) else True
        out[name] = o
    return out


_LOADING = [False]


class _Missing:
    """A name oxla lacks, met while loading a table: calling it raises NotImplementedError
    (the case is then unsupported) or, while the table loads, gives another missing name;
    its attributes are missing names too."""

    def __init__(self, path):
        self._path = path

    def __getattr__(self, attr):
        return _Missing(f"{self._path}.{attr}")

    def __call__(self, *args, **kwargs):
        if _LOADING[0]:
            return _Missing(f"{self._path}(...)")
        raise NotImplementedError(f"oxla lacks {self._path}")


class _Lenient(types.ModuleType):
    """A JAX module standing for oxla's (`target`, perhaps None) whose missing names are
    `_Missing`, so that a table loads whole and only the cases using them are unsupported."""

    def __init__(self, name, target):
        super().__init__(name)
        self._target = target

    def __getattr__(self, attr):
        got = getattr(self._target, attr, None)
        if isinstance(got, types.ModuleType):
            return _Lenient(f"{self.__name__}.{attr}", got)
        if got is not None:
            return got
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _Missing(f"{self.__name__}.{attr}")


def _lenient_jax():
    modules = {name: _Lenient(name, m) for name, m in jax_alias().items()}
    for name in ("jax.scipy", "jax.scipy.special", "jax.numpy.fft", "jax.numpy.linalg"):
        if name not in modules:
            target = oxla
            for part in name.split(".")[1:]:
                target = getattr(target, part, None)
            modules[name] = _Lenient(name, target)
    return modules


def _cases():
    sys.path.insert(0, str(REPO / "scripts" / "surface"))
    import registry

    cases = []
    for d in sorted(p for p in GOLDEN.iterdir() if p.is_dir()):
        table = d.name
        registry.begin_table(table)
        _LOADING[0] = True
        load_module(REPO / "scripts" / "surface" / "tables" / f"{table}.py",
                    f"oxla_surface_{table}", _lenient_jax())
        _LOADING[0] = False
        options = _options(table)
        for c in registry.CASES[table]:
            cases.append((table, c, options.get(c["name"], {})))
    return cases


CASES = _cases()


def _read(table, name, prefix):
    d = GOLDEN / table / name
    n = len(list(d.glob(f"{prefix}_*.npy")))
    return [np.load(d / f"{prefix}_{i}.npy") for i in range(n)]


def _is_float(a):
    return np.issubdtype(np.asarray(a).dtype, np.floating)


def _compare(how, got, want, opts):
    got = [np.asarray(g) for g in got]
    if len(got) != len(want):
        return [f"{how}: {len(got)} outputs against JAX's {len(want)}"]
    errors = []
    for i, (g, w) in enumerate(zip(got, want)):
        if g.shape != w.shape or g.dtype != w.dtype:
            errors.append(f"{how} {i}: {g.dtype}{list(g.shape)} against JAX's "
                          f"{w.dtype}{list(w.shape)}")
        elif "bits" in opts or w.dtype.kind not in "fc":
            if not np.array_equal(g, w, equal_nan=w.dtype.kind in "fc"):
                errors.append(f"{how} {i}: {g} against JAX's {w}")
        else:
            f32 = w.dtype in (np.float32, np.complex64, np.float16)
            rtol, atol = opts.get("tol", (1e-5, 1e-6) if f32 else (1e-12, 1e-12))
            if not np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True):
                errors.append(f"{how} {i}: {g} against JAX's {w}")
    return errors


def _check(table, c, opts):
    """What differs from JAX (a list of messages)."""
    name = c["name"]
    fn = lambda *a: oxla.tree_util.tree_leaves(c["fn"](*a))  # noqa: E731
    args = [oxla.numpy.asarray(a) for a in _read(table, name, "in")]
    want = _read(table, name, "out")
    got = fn(*args)
    if "signs" in opts:
        return _compare("shapes", [np.zeros(np.shape(g), np.asarray(g).dtype) for g in got],
                        [np.zeros(w.shape, w.dtype) for w in want], {})
    errors = _compare("eager out", got, want, opts)
    batch = [oxla.numpy.asarray(a) for a in _read(table, name, "batch_in")]
    if batch:
        errors += _compare("vmap out", oxla.vmap(fn)(*batch), _read(table, name, "batch_out"), opts)
    errors += _compare("jit out", oxla.jit(fn)(*args), [np.asarray(g) for g in got],
                       {"tol": (1e-5, 1e-6)} if "tol" not in opts else opts)
    fi = [i for i, a in enumerate(args) if _is_float(a)]
    vjps = {i: np.load(p) for i in fi
            if (p := GOLDEN / table / name / f"vjp_{i}.npy").exists()}
    if vjps:
        def g(*fl):
            full = list(args)
            for i, a in zip(fi, fl):
                full[i] = a
            return tuple(fn(*full))

        outs, pullback = oxla.vjp(g, *[args[i] for i in fi])
        cots = []
        for j, o in enumerate(outs):
            p = GOLDEN / table / name / f"cot_{j}.npy"
            cots.append(oxla.numpy.asarray(np.load(p)) if p.exists()
                        else oxla.numpy.zeros(o.shape, o.dtype))
        ct = dict(zip(fi, pullback(tuple(cots))))
        errors += _compare("vjp", [ct[i] for i in vjps], list(vjps.values()),
                           {"tol": (1e-4, 1e-5)})
    return errors


@pytest.mark.parametrize("table,c,opts", CASES, ids=[f"{t}/{c['name']}" for t, c, _ in CASES])
def test_surface_case(table, c, opts):
    key = f"{table}/{c['name']}"
    oxla.config.update("jax_enable_x64", bool(c["x64"]))
    try:
        try:
            errors = _check(table, c, opts)
        except (AttributeError, NotImplementedError, ModuleNotFoundError) as e:
            assert key in UNSUPPORTED, f"{key} is unsupported: {type(e).__name__}: {e}"
            return
    finally:
        oxla.config.update("jax_enable_x64", False)
    assert key not in UNSUPPORTED, f"{key} now runs: take it off surface_unsupported.txt"
    assert not errors, "\n".join(errors)


def test_unsupported_list_names_cases():
    names = {f"{t}/{c['name']}" for t, c, _ in CASES}
    assert not UNSUPPORTED - names, UNSUPPORTED - names
