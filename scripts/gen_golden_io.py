#!/usr/bin/env python3
"""Generate the files numpy writes that oxla's readers are checked against.

Usage (needs a Python env with `numpy`):

    /work/jaxenv/bin/python scripts/gen_golden_io.py

Writes into crates/oxla/tests/golden_io/:

    savez.npz             np.savez of the arrays below (stored entries)
    savez_compressed.npz  np.savez_compressed of the same (deflated entries)
    fortran.npy           np.save of a Fortran-ordered float32 (2, 3, 4) array
    big_endian.npy        np.save of a big-endian float64 (2, 3) array
    bad_entry.npz         a zip archive whose entry `x.npy` is not a .npy file

The arrays: f = arange(24, float32).reshape(2, 3, 4) / 4, d = [0.5, -1.25] float64,
i = [[-3, 7]] int32, u = [4000000000] uint32, b = [True, False, True], s = float32 scalar 2.5.
"""

import pathlib
import zipfile

import numpy as np

OUT = pathlib.Path(__file__).resolve().parent.parent / "crates/oxla/tests/golden_io"


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    arrays = dict(
        f=np.arange(24, dtype=np.float32).reshape(2, 3, 4) / np.float32(4),
        d=np.array([0.5, -1.25]),
        i=np.array([[-3, 7]], dtype=np.int32),
        u=np.array([4000000000], dtype=np.uint32),
        b=np.array([True, False, True]),
        s=np.float32(2.5),
    )
    np.savez(OUT / "savez.npz", **arrays)
    np.savez_compressed(OUT / "savez_compressed.npz", **arrays)
    np.save(OUT / "fortran.npy", np.asfortranarray(arrays["f"]))
    np.save(OUT / "big_endian.npy", (np.arange(6.0).reshape(2, 3) - 2.5).astype(">f8"))
    with zipfile.ZipFile(OUT / "bad_entry.npz", "w") as z:
        z.writestr("x.npy", b"not a npy file")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
