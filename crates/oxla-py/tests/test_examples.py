"""The seeds as Python programs (`python/examples/`) run, at small sizes, and say what the
JAX programs say."""

import subprocess
import sys

import pytest

from conftest import REPO

EXAMPLES = {
    "seed000.py 120 16": ["blocked and budgeted agree: True", "memory plan"],
    "seed002.py": ["results match: True", "mean gradients match: True",
                   "per-example gradients (dw): [0.     0.1875 0.25   0.1875 0.    ]",
                   "shape of the per-example dw: (100000,)"],
    "seed004.py 20": ["max memory_test1 = 513.0", "max memory_test2 = 1026.0"],
}


@pytest.mark.parametrize("run", sorted(EXAMPLES))
def test_example(run):
    out = subprocess.run([sys.executable, *run.split()], cwd=REPO / "python" / "examples",
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    for line in EXAMPLES[run]:
        assert line in out.stdout, out.stdout
