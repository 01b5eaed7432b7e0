#!/usr/bin/env python3
"""JAX's results for the drop-in check of oxla's Python package.

Runs each benchmark script of `bench/jax/` (JAX programs as their users write them) with
small arguments under JAX, and writes the values they print (`checksum`, `max`) to
`tests/golden_python/jax_reference.json`. `crates/oxla-py/tests/test_as_jax.py` runs the
same scripts with `python -m oxla.as_jax` (oxla in place of jax) and compares.

Usage: python scripts/gen_golden_python.py   (a Python with jax installed)
"""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Script and arguments; every value a run prints after one of VALUES is compared.
RUNS = [
    "affinity.py 200 16 matmul",
    "affinity.py 200 16 cosine",
    "affinity.py 200 16 l1block 50",
    "affinity.py 200 16 prodl1 50",
    "lbm.py 20 1",
    "lbm.py 20 2",
    "deep.py 10 16 8",
    "draws.py 10",
    "pegrad.py 64 mlp",
    "pegrad.py 1000 linear",
    "dispatch.py",
]
VALUES = ("checksum", "max")


def values(output):
    """The numbers printed after the names in VALUES, in order."""
    words = output.split()
    return [float(words[i + 1]) for i, w in enumerate(words[:-1]) if w in VALUES]


def main():
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    results = {}
    for run in RUNS:
        out = subprocess.run([sys.executable, *run.split()], cwd=REPO / "bench" / "jax",
                             env=env, capture_output=True, text=True, check=True).stdout
        results[run] = values(out)
        print(run, results[run], file=sys.stderr)
    import jax

    path = REPO / "tests" / "golden_python" / "jax_reference.json"
    path.write_text(json.dumps({"jax": jax.__version__, "runs": results}, indent=1) + "\n")


if __name__ == "__main__":
    main()
