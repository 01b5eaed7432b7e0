"""The drop-in check: the JAX programs of `bench/jax/` (as JAX's users write them) run with
`python -m oxla.as_jax`, oxla in place of jax, and print the values JAX printed
(`tests/golden_python/jax_reference.json`, from `scripts/gen_golden_python.py`)."""

import json
import subprocess
import sys

import pytest

from conftest import REPO

REFERENCE = json.loads((REPO / "tests" / "golden_python" / "jax_reference.json").read_text())


def _values(output):
    words = output.split()
    return [float(words[i + 1]) for i, w in enumerate(words[:-1]) if w in ("checksum", "max")]


@pytest.mark.parametrize("run", sorted(REFERENCE["runs"]))
def test_jax_program_runs_on_oxla(run):
    out = subprocess.run([sys.executable, "-m", "oxla.as_jax", *run.split()],
                         cwd=REPO / "bench" / "jax", capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "ERROR" not in out.stdout, out.stdout
    got, want = _values(out.stdout), REFERENCE["runs"][run]
    assert len(got) == len(want), out.stdout
    for g, w in zip(got, want):
        assert g == pytest.approx(w, rel=2e-5, abs=1e-6), out.stdout
